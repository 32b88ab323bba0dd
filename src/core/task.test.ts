import { describe, expect, it } from 'vitest'
import { TaskBaseSchema, taskMessages, type AnyTask } from './task.js'

describe('TaskBaseSchema', () => {
  it('keeps the base fields and leaves the components’ fields to their owners', () => {
    const task = TaskBaseSchema.parse({
      id: 'a',
      prompt: 'p',
      metadata: { split: 'test' },
      tests: 'assert 1',
      criteria: [],
    })
    expect(task).toEqual({ id: 'a', prompt: 'p', metadata: { split: 'test' } })
  })

  it('rejects an empty id and an empty prompt, naming the id rule', () => {
    const result = TaskBaseSchema.safeParse({ id: '', prompt: 'p' })
    expect(result.error?.issues[0]?.message).toBe('a task id must be a non-empty string')
    expect(TaskBaseSchema.safeParse({ id: 'a', prompt: '' }).success).toBe(false)
    expect(TaskBaseSchema.safeParse({ id: 'a', prompt: [] }).success).toBe(false)
  })

  it('refuses an id with a control character (a newline forges a JSONL line, an escape code rewrites a terminal), naming the fix', () => {
    for (const id of ['a\nb', 'a\rb', 'tab\there', 'esc\u001b[31m', 'del\u007f', 'c1\u0085', 'line\u2028sep']) {
      const result = TaskBaseSchema.safeParse({ id, prompt: 'p' })
      expect(result.error?.issues[0]?.message, JSON.stringify(id)).toMatch(
        /^a task id must not contain control characters \(a newline, a tab, an escape code\)/,
      )
    }
    for (const id of ['HumanEval/0', 'capital fr', 'ünïcödé-✓', 'a:b@c'])
      expect(TaskBaseSchema.safeParse({ id, prompt: 'p' }).success, id).toBe(true)
  })
})

describe('AnyTask', () => {
  it('types the base fields and leaves every other field unknown until its owner reads it', () => {
    const task: AnyTask = { id: 'a', prompt: 'p', expected: 'x' }
    const expected: unknown = task.expected
    expect([task.id, expected]).toEqual(['a', 'x'])
  })
})

describe('taskMessages', () => {
  it('turns a string prompt into one user message and keeps a chat prompt as is', () => {
    expect(taskMessages({ id: 'a', prompt: 'hello' })).toEqual([{ role: 'user', content: 'hello' }])
    const chat = [
      { role: 'system' as const, content: 's' },
      { role: 'user' as const, content: 'u' },
    ]
    expect(taskMessages({ id: 'b', prompt: chat })).toBe(chat)
  })
})
