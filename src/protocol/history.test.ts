import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ChatMessage, ChatModel, ChatRequest } from '../models/chat-model.js'
import { isComponentError, type ComponentError } from '../core/component-error.js'
import {
  SUMMARY_PROMPT_VERSION,
  checkHistoryBuild,
  fullHistory,
  HistoryBuildSchema,
  isPlainHistoryBuild,
  lastHistory,
  summaryHistory,
  type Turn,
} from './history.js'

const PROMPT: ChatMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'task' },
]
const context = { taskId: 't', attempt: 1, repeat: 0 }
const turnsOf = (n: number): Turn[] =>
  Array.from({ length: n }, (_, i) => ({ answer: `answer-${i + 1}`, reply: `reply-${i + 1}` }))

function summariser(params: Record<string, string | number | boolean | null> = {}, model = 'summ-1') {
  const requests: ChatRequest[] = []
  const chat: ChatModel = {
    id: `s:${model}`,
    descriptor: { provider: 'test', model, params },
    async chat(request) {
      requests.push(request)
      return {
        text: `summary #${requests.length}`,
        usage: { inputTokens: 50, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
        latencyMs: 0,
        finishReason: 'stop',
        costUsd: 0.2,
      }
    },
  }
  return { chat, requests }
}

describe('fullHistory', () => {
  it('is the prompt followed by every (answer, reply) pair, roles alternating, for any number of turns', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ answer: fc.string(), reply: fc.string() }), { maxLength: 8 }),
        async (turns) => {
          const { messages, calls } = await fullHistory.build({ prompt: PROMPT, turns, context })
          expect(messages.slice(0, 2)).toEqual(PROMPT)
          expect(messages).toHaveLength(2 + 2 * turns.length)
          turns.forEach((turn, i) => {
            expect(messages[2 + 2 * i]).toEqual({ role: 'assistant', content: turn.answer })
            expect(messages[3 + 2 * i]).toEqual({ role: 'user', content: turn.reply })
          })
          expect(calls).toEqual([])
        },
      ),
      { seed: 42 },
    )
  })

  it('returns copies: editing the result does not touch the prompt', async () => {
    const prompt = PROMPT.map((m) => ({ ...m }))
    const { messages } = await fullHistory.build({ prompt, turns: turnsOf(1), context })
    messages[1]!.content = 'edited'
    expect(prompt[1]?.content).toBe('task')
  })
})

describe('lastHistory', () => {
  it('keeps only the latest pair', async () => {
    const { messages } = await lastHistory.build({ prompt: PROMPT, turns: turnsOf(3), context })
    expect(messages).toEqual([
      ...PROMPT,
      { role: 'assistant', content: 'answer-3' },
      { role: 'user', content: 'reply-3' },
    ])
    expect((await lastHistory.build({ prompt: PROMPT, turns: [], context })).messages).toEqual(PROMPT)
  })

  it('has stable names for the fingerprint', () => {
    expect([fullHistory.name, lastHistory.name]).toEqual(['full', 'last'])
  })
})

describe('summaryHistory', () => {
  it('makes no summariser call with fewer than two earlier attempts', async () => {
    const s = summariser()
    const policy = summaryHistory(s.chat)
    expect((await policy.build({ prompt: PROMPT, turns: [], context })).messages).toEqual(PROMPT)
    const one = await policy.build({ prompt: PROMPT, turns: turnsOf(1), context })
    expect(one.messages).toEqual([
      ...PROMPT,
      { role: 'assistant', content: 'answer-1' },
      { role: 'user', content: 'reply-1' },
    ])
    expect(one.calls).toEqual([])
    expect(s.requests).toHaveLength(0)
  })

  it('summarises all but the latest turn and appends the summary to the prompt user turn', async () => {
    const s = summariser()
    const built = await summaryHistory(s.chat).build({
      prompt: PROMPT,
      turns: turnsOf(3),
      context: { taskId: 'x', attempt: 4, repeat: 2 },
    })
    expect(s.requests).toHaveLength(1)
    expect(s.requests[0]?.context).toEqual({
      role: 'summariser',
      taskId: 'x',
      attempt: 4,
      repeat: 2,
      protocol: 'sequential',
    })
    const request = s.requests[0]?.messages.map((m) => m.content).join('\n') ?? ''
    expect(request).toContain('### Attempt 1\nanswer-1')
    expect(request).toContain('### Feedback on attempt 2\nreply-2')
    expect(request).not.toContain('answer-3')
    expect(built.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(built.messages[1]?.content).toBe(
      'task\n\nSummary of your earlier attempts and the feedback on them:\nsummary #1',
    )
    expect(built.messages.slice(2)).toEqual([
      { role: 'assistant', content: 'answer-3' },
      { role: 'user', content: 'reply-3' },
    ])
    expect(built.calls).toEqual([
      {
        role: 'summariser',
        usage: { inputTokens: 50, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
        latencyMs: 0,
        costUsd: 0.2,
        costUsdWithoutCache: 0.2,
        replayed: false,
      },
    ])
    expect(PROMPT[1]?.content).toBe('task')
  })

  it('adds a user turn for the summary when the prompt ends with another role', async () => {
    const s = summariser()
    const prompt: ChatMessage[] = [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: 'ok' },
    ]
    const built = await summaryHistory(s.chat).build({ prompt, turns: turnsOf(2), context })
    expect(built.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user'])
    expect(built.messages[2]?.content).toMatch(/^Summary of your earlier attempts/)
  })

  it('names the summariser and the summary prompt version in its settings', () => {
    const policy = summaryHistory(summariser({}, 'gpt-x').chat)
    expect(policy.name).toBe('summary')
    expect(policy.settings).toMatchObject({ summariser: 'test:gpt-x', prompt: SUMMARY_PROMPT_VERSION })
  })

  // BUG (history.ts:71): the settings carry the summariser's provider and model but not its
  // decoding parameters, so two summary protocols whose summarisers differ only in temperature get
  // the same protocol fingerprint (DESIGN §1: the helper model *and its settings* are protocol).
  it("identifies the summariser's decoding parameters in its settings", () => {
    const cold = summaryHistory(summariser({ temperature: 0 }).chat)
    const hot = summaryHistory(summariser({ temperature: 1 }).chat)
    expect(cold.settings).not.toEqual(hot.settings)
  })
})

describe('checkHistoryBuild', () => {
  const policy = { name: 'mine' }
  const rejection = (value: unknown): ComponentError => {
    try {
      checkHistoryBuild(policy, value, { taskId: 't', attempt: 2 })
    } catch (error) {
      if (isComponentError(error)) return error
      throw error
    }
    throw new Error(`accepted ${JSON.stringify(value)}`)
  }

  it('returns a valid build (as it is on the fast path)', () => {
    const built = { messages: [...PROMPT], calls: [] }
    expect(checkHistoryBuild(policy, built)).toBe(built)
  })

  it.each([
    [
      'a bare message list (the usual mistake)',
      [...PROMPT],
      ['(root)'],
      /build\(\) must return \(or resolve to\) \{ messages, calls \}, not a bare array/,
    ],
    ['no calls', { messages: PROMPT }, ['calls'], /return `calls: \[\]` when the policy called no model/],
    ['no messages', { messages: [], calls: [] }, ['messages'], /at least one/],
    [
      'a message with an unknown role',
      { messages: [{ role: 'tool', content: 'x' }], calls: [] },
      ['messages[0].role'],
      /\(got "tool"\)/,
    ],
    [
      'a message without content',
      { messages: [{ role: 'user', content: 'x' }, { role: 'assistant' }], calls: [] },
      ['messages[1].content'],
      /each \{ role: 'system' \| 'user' \| 'assistant', content: string \}/,
    ],
    [
      'malformed calls',
      { messages: PROMPT, calls: [{ role: 'summariser' }] },
      ['calls[0].usage'],
      /recordCall\('summariser', response\)/,
    ],
  ])('rejects %s, naming the policy, the field and the fix', (_, value, fields, message) => {
    const error = rejection(value)
    expect(error.message).toMatch(/^history policy "mine" returned a malformed history for task "t", attempt 2: /)
    for (const field of fields) expect(error.fields).toContain(field)
    expect(error.message).toMatch(message)
  })

  it('has a fast path that accepts only builds HistoryBuildSchema accepts (seeded property)', () => {
    const message = fc.oneof(
      {
        arbitrary: fc.record({
          role: fc.constantFrom('system', 'user', 'assistant'),
          content: fc.string({ maxLength: 3 }),
        }),
        weight: 20,
      },
      {
        arbitrary: fc.constantFrom(
          null,
          [],
          { role: 'tool', content: '' },
          { role: 'user' },
          { role: 'user', content: 1 },
        ),
        weight: 1,
      },
    )
    const build = fc.record({
      messages: fc.oneof(
        { arbitrary: fc.array(message, { maxLength: 6 }), weight: 10 },
        { arbitrary: fc.constantFrom(null, 'x', {}), weight: 1 },
      ),
      calls: fc.constantFrom([], [], [], undefined, null, [{}]),
    })
    let fast = 0
    fc.assert(
      fc.property(fc.oneof({ arbitrary: build, weight: 4 }, { arbitrary: fc.anything(), weight: 1 }), (value) => {
        if (!isPlainHistoryBuild(value)) return
        fast++
        expect(HistoryBuildSchema.safeParse(value).success).toBe(true)
      }),
      { seed: 20261201, numRuns: 3000 },
    )
    expect(fast).toBeGreaterThan(300)
  })
})

describe('summaryHistory checks', () => {
  it('refuses a summariser that is not a chat model', () => {
    expect(() => summaryHistory('gpt-4.1-mini' as never)).toThrow(
      /summaryHistory\(summariser\): expected a chat model such as actors.openai/,
    )
    expect(() => summaryHistory({ id: 'x' } as never)).toThrow(/expected a chat model/)
  })

  it("fails with the summariser's name when it returns a malformed completion", async () => {
    const bad: ChatModel = {
      id: 'bad-summariser',
      descriptor: { provider: 'test', model: 'b', params: {} },
      chat: async () => ({ text: undefined }) as never,
    }
    const error = await Promise.resolve(
      summaryHistory(bad).build({ prompt: PROMPT, turns: turnsOf(3), context }),
    ).catch((e: unknown) => e)
    expect(isComponentError(error)).toBe(true)
    expect((error as Error).message).toMatch(
      /^chat model "bad-summariser" \(summariser, test:b\) returned a malformed completion for task "t", attempt 1: text: /,
    )
  })
})
