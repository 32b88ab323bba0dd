import { describe, expect, it } from 'vitest'
import { isLayoutBuilder, referencePromptBuilder, referenceSuffix } from './reference.js'
import { defaultPromptBuilder } from '../prompt-builder.js'

describe('the reference prompt layout', () => {
  it('joins the note and the numbered tags by blank lines; a feedback block only where there was feedback', () => {
    expect(referenceSuffix(1, 1, [])).toBe(
      'This is attempt 1 of 1. If this attempt does not pass, you will receive feedback and can revise it on the remaining attempts.',
    )
    expect(
      referenceSuffix(3, 4, [
        { answer: 'x', feedback: null },
        { answer: 'y\nz', feedback: 'no' },
      ]),
    ).toBe(
      'This is attempt 3 of 4. Review your previous attempt(s) and the feedback below, then provide an improved answer.\n\n<PreviousAttempt 1>\nx\n</PreviousAttempt 1>\n\n<PreviousAttempt 2>\ny\nz\n</PreviousAttempt 2>\n\n<Feedback 2>\nno\n</Feedback 2>',
    )
  })

  it('keeps a chat prompt’s earlier messages and puts the note on its last user turn; the bare task for a sample', () => {
    const task = {
      id: 't',
      prompt: [
        { role: 'system' as const, content: 'Be brief.' },
        { role: 'user' as const, content: 'Hi' },
      ],
    }
    expect(referencePromptBuilder.layout(task, { attempt: 1, budget: 2, past: [] })).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: `Hi\n\n${referenceSuffix(1, 2, [])}` },
    ])
    // The task's own messages are never changed.
    expect(task.prompt[1]!.content).toBe('Hi')
    expect(referencePromptBuilder.initial(task, { budget: 2, discloseBudget: true })).toEqual(task.prompt)
    expect(
      referencePromptBuilder.revision(
        { kind: 'binary', text: 'Wrong.' },
        { attempt: 1, budget: 2, discloseBudget: true },
      ),
    ).toBe('Wrong.')
    expect(isLayoutBuilder(referencePromptBuilder)).toBe(true)
    expect(isLayoutBuilder(defaultPromptBuilder)).toBe(false)
  })
})
