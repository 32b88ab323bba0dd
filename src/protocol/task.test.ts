import { describe, expect, it } from 'vitest'
import { TaskSchema, taskMessages } from './task.js'

describe('TaskSchema', () => {
  it('defaults a simulation difficulty to 0.5', () => {
    const task = TaskSchema.parse({ id: 'a', prompt: 'p', simulation: { correct: ['c'], wrong: ['w'] } })
    expect(task.simulation?.difficulty).toBe(0.5)
  })

  it('rejects an empty id, an empty prompt and a simulation without wrong answers', () => {
    expect(TaskSchema.safeParse({ id: '', prompt: 'p' }).success).toBe(false)
    expect(TaskSchema.safeParse({ id: 'a', prompt: '' }).success).toBe(false)
    expect(TaskSchema.safeParse({ id: 'a', prompt: [] }).success).toBe(false)
    expect(TaskSchema.safeParse({ id: 'a', prompt: 'p', simulation: { correct: ['c'], wrong: [] } }).success).toBe(false)
    expect(TaskSchema.safeParse({ id: 'a', prompt: 'p', simulation: { difficulty: 2, correct: ['c'], wrong: ['w'] } }).success).toBe(false)
  })
})

describe('taskMessages', () => {
  it('turns a string prompt into one user message and keeps a chat prompt as is', () => {
    expect(taskMessages({ id: 'a', prompt: 'hello' })).toEqual([{ role: 'user', content: 'hello' }])
    const chat = [{ role: 'system' as const, content: 's' }, { role: 'user' as const, content: 'u' }]
    expect(taskMessages({ id: 'b', prompt: chat })).toEqual(chat)
  })
})
