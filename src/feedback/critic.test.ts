import { describe, expect, it } from 'vitest'
import { spentCalls } from '../models/chat-model.js'
import type { Task } from '../protocol/task.js'
import type { Verdict } from '../verifiers/verifier.js'
import { fakeModel } from '../verifiers/rubric/test-helpers.js'
import { critic, criticPrompt } from './critic.js'
import type { FeedbackInput } from './feedback-mode.js'

const task = {
  id: 'rx/1',
  prompt: [
    { role: 'system', content: 'You write ads.' },
    { role: 'user', content: 'Describe a bottle in at most 10 words.' },
  ],
  criteria: [
    { id: 'short', text: 'At most 10 words', check: { kind: 'max-words', limit: 10 } },
    { id: 'steel', text: 'Mentions "steel"', points: 4 },
    { id: 'plastic', text: 'Mentions "plastic"', points: -2 },
  ],
} as Task
const verdict: Verdict = { pass: false, diagnostics: { outcome: 'failed', summary: '1 of 3 criteria met' } }
const input = (overrides: Partial<FeedbackInput> = {}): FeedbackInput => ({
  task,
  attempt: 2,
  repeat: 1,
  answer: 'A plastic bottle that keeps drinks cold all day long, really.',
  verdict,
  history: [],
  ...overrides,
})

describe('feedback.critic', () => {
  it('rubric-aware: shows the critic the task, the attempt and every criterion (with points), and returns its critique', async () => {
    const model = fakeModel(() => '  Unmet criterion: Mentions "steel". Say what it is made of.  ', {
      id: 'judge',
      model: 'critic-1',
    })
    const feedback = await critic({ model, rubric: 'aware', style: 'directive' }).render(input())
    expect(feedback.kind).toBe('critic')
    expect(feedback.text).toBe('Unmet criterion: Mentions "steel". Say what it is made of.')
    const [request] = model.requests
    const [system, user] = request!.messages
    expect(system!.content).toContain('You can see the grading rubric')
    expect(user!.content).toBe(
      [
        '<conversation>',
        '[system]\nYou write ads.\n\n[user]\nDescribe a bottle in at most 10 words.',
        '</conversation>',
        '',
        '<attempt>',
        'A plastic bottle that keeps drinks cold all day long, really.',
        '</attempt>',
        '',
        '<rubric>',
        '<criterion id="short">At most 10 words</criterion>\n<criterion id="steel" points="4">Mentions "steel"</criterion>\n<criterion id="plastic" points="-2">Mentions "plastic"</criterion>',
        '</rubric>',
        '',
        'Write the critique of the attempt.',
      ].join('\n'),
    )
    // A critic call, in the trajectory's attempt and repeat; the task is not handed to the model.
    expect(request!.context).toEqual({ role: 'critic', taskId: 'rx/1', attempt: 2, repeat: 1, protocol: 'sequential' })
    expect(feedback.calls).toEqual([
      {
        role: 'critic',
        usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
        latencyMs: 1,
        costUsd: 0.001,
        costUsdWithoutCache: 0.001,
        replayed: false,
      },
    ])
  })

  it('rubric-blind: no rubric in view', async () => {
    const model = fakeModel(() => 'Be more specific.')
    await critic({ model, rubric: 'blind', style: 'directive' }).render(input())
    const user = model.requests[0]!.messages[1]!.content
    expect(user).not.toContain('<rubric>')
    expect(user).not.toContain('steel')
    expect(model.requests[0]!.messages[0]!.content).toContain('You do not know how the answer is graded')
  })

  it('socratic style asks questions', async () => {
    const model = fakeModel(() => 'What is it made of?')
    await critic({ model, rubric: 'aware', style: 'socratic' }).render(input())
    expect(model.requests[0]!.messages[0]!.content).toContain('You are a Socratic critic')
  })

  it('with no model, the actor critiques its own answer', async () => {
    const actor = fakeModel(() => 'Mine is too long.', { id: 'actor' })
    const feedback = await critic({ rubric: 'blind', style: 'directive' }).render({
      ...input(),
      actor,
    } as FeedbackInput)
    expect(feedback.text).toBe('Mine is too long.')
    expect(actor.requests[0]!.context.role).toBe('critic')
    await expect(critic({ rubric: 'blind', style: 'directive' }).render(input())).rejects.toThrow(
      /no critic model for task "rx\/1"/,
    )
  })

  it('fails clearly on a task without a rubric and on an empty critique', async () => {
    const model = fakeModel(() => '')
    await expect(
      critic({ model: fakeModel(() => 'x'), rubric: 'aware', style: 'directive' }).render(
        input({ task: { id: 'code', prompt: 'p' } }),
      ),
    ).rejects.toThrow(/task "code" has no criteria to show the critic; use rubric: 'blind'/)
    await expect(critic({ model, rubric: 'blind', style: 'directive' }).render(input())).rejects.toThrow(
      /returned an empty critique for task "rx\/1", attempt 2/,
    )
    // The empty critique was billed: the error carries the call so the attempt's spend keeps it.
    const error = await critic({ model, rubric: 'blind', style: 'directive' })
      .render(input())
      .catch((e: unknown) => e)
    expect(spentCalls(error).map((c) => c.role)).toEqual(['critic'])
  })

  it('puts the critic model, rubric access, style and prompt version in its settings', () => {
    const model = fakeModel(() => '', { model: 'gpt-x', params: { temperature: 0.2 } })
    expect(critic({ model, rubric: 'aware', style: 'directive' })).toMatchObject({
      kind: 'critic',
      name: 'critic-aware-directive',
      version: '1',
      settings: {
        critic: 'fake:gpt-x',
        criticParams: '{"temperature":0.2}',
        rubric: 'aware',
        style: 'directive',
        prompt: expect.stringMatching(/^critic-aware-directive\.v1@[0-9a-f]{8}$/),
      },
    })
    expect(critic({ rubric: 'blind', style: 'socratic' }).settings).toMatchObject({
      critic: 'actor',
      criticParams: null,
      prompt: expect.stringMatching(/^critic-blind-socratic\.v1@/),
    })
  })

  it('has four distinct versioned prompts', () => {
    const ids = (['aware', 'blind'] as const).flatMap((r) =>
      (['directive', 'socratic'] as const).map((s) => criticPrompt(r, s).id),
    )
    expect(new Set(ids.map((id) => id.split('@')[1])).size).toBe(4)
  })

  it('validates its options', () => {
    expect(() => critic({ rubric: 'partial', style: 'directive' } as never)).toThrow(
      /feedback.critic\(\): rubric: use 'aware'/,
    )
    expect(() => critic({ rubric: 'aware' } as never)).toThrow(/style/)
    expect(() => critic({ rubric: 'aware', style: 'directive', model: 'gpt-4' } as never)).toThrow(
      /model: expected a chat model/,
    )
    expect(() => critic({ rubric: 'aware', stlye: 'directive' } as never)).toThrow(
      'feedback.critic(): unknown option "stlye" (did you mean "style"?); valid options: model, rubric, style',
    )
  })
})
