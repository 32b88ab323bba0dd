import { describe, expect, it } from 'vitest'
import { defaultPromptBuilder } from './prompt-builder.js'
import { taskMessages, type Task } from './task.js'

const stringTask: Task = { id: 't', prompt: 'Write f.' }
const chatTask: Task = {
  id: 'c',
  prompt: [
    { role: 'system', content: 'You write Python.' },
    { role: 'user', content: 'Write f.' },
  ],
}

describe('defaultPromptBuilder', () => {
  it('has a versioned name that the fingerprint can carry', () => {
    expect(defaultPromptBuilder.version).toBe('seqk-prompt/1')
  })

  it('does not disclose the budget by default: the prompt is the task prompt itself', () => {
    expect(defaultPromptBuilder.initial(stringTask, { budget: 5, discloseBudget: false })).toEqual([
      { role: 'user', content: 'Write f.' },
    ])
    expect(defaultPromptBuilder.initial(chatTask, { budget: 5, discloseBudget: false })).toEqual(taskMessages(chatTask))
  })

  it('appends the budget note to the last user turn when disclosed', () => {
    const messages = defaultPromptBuilder.initial(chatTask, { budget: 7, discloseBudget: true })
    expect(messages).toHaveLength(2)
    expect(messages[0]).toEqual({ role: 'system', content: 'You write Python.' })
    expect(messages[1]?.content).toBe(
      'Write f.\n\nYou have up to 7 attempts; after each failed attempt you will get feedback.',
    )
  })

  it('adds a user turn for the note when the prompt does not end with one', () => {
    const task: Task = {
      id: 'p',
      prompt: [
        { role: 'user', content: 'Write f.' },
        { role: 'assistant', content: 'Sure:' },
      ],
    }
    const messages = defaultPromptBuilder.initial(task, { budget: 3, discloseBudget: true })
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(messages[2]?.content).toBe('You have up to 3 attempts; after each failed attempt you will get feedback.')
  })

  it('never mutates the task', () => {
    const before = structuredClone(chatTask)
    const messages = defaultPromptBuilder.initial(chatTask, { budget: 3, discloseBudget: true })
    messages[0]!.content = 'changed'
    expect(chatTask).toEqual(before)
  })

  it('revision: the feedback text first, then the request; attempts left only when disclosed', () => {
    const hidden = defaultPromptBuilder.revision(
      { kind: 'binary', text: 'Failed.' },
      { attempt: 2, budget: 5, discloseBudget: false },
    )
    expect(hidden.startsWith('Failed.\n\n')).toBe(true)
    expect(hidden).toMatch(/revise your answer/)
    expect(hidden).not.toMatch(/attempts left/)
    const shown = defaultPromptBuilder.revision(
      { kind: 'verifier', text: 'Failed test details:' },
      { attempt: 2, budget: 5, discloseBudget: true },
    )
    expect(shown.startsWith('Failed test details:')).toBe(true)
    expect(shown).toMatch(/You have 3 attempts left\.$/)
  })
})
