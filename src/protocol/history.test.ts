import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ChatMessage, ChatModel, ChatRequest } from '../models/chat-model.js'
import { SUMMARY_PROMPT_VERSION, fullHistory, lastHistory, summaryHistory, type Turn } from './history.js'

const PROMPT: ChatMessage[] = [{ role: 'system', content: 'sys' }, { role: 'user', content: 'task' }]
const context = { taskId: 't', attempt: 1, repeat: 0 }
const turnsOf = (n: number): Turn[] => Array.from({ length: n }, (_, i) => ({ answer: `answer-${i + 1}`, reply: `reply-${i + 1}` }))

function summariser(params: Record<string, string | number | boolean | null> = {}, model = 'summ-1') {
  const requests: ChatRequest[] = []
  const chat: ChatModel = {
    id: `s:${model}`,
    descriptor: { provider: 'test', model, params },
    async chat(request) {
      requests.push(request)
      return { text: `summary #${requests.length}`, usage: { inputTokens: 50, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 }, latencyMs: 0, finishReason: 'stop', costUsd: 0.2 }
    },
  }
  return { chat, requests }
}

describe('fullHistory', () => {
  it('is the prompt followed by every (answer, reply) pair, roles alternating, for any number of turns', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ answer: fc.string(), reply: fc.string() }), { maxLength: 8 }), async (turns) => {
        const { messages, calls } = await fullHistory.build({ prompt: PROMPT, turns, context })
        expect(messages.slice(0, 2)).toEqual(PROMPT)
        expect(messages).toHaveLength(2 + 2 * turns.length)
        turns.forEach((turn, i) => {
          expect(messages[2 + 2 * i]).toEqual({ role: 'assistant', content: turn.answer })
          expect(messages[3 + 2 * i]).toEqual({ role: 'user', content: turn.reply })
        })
        expect(calls).toEqual([])
      }),
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
    expect(messages).toEqual([...PROMPT, { role: 'assistant', content: 'answer-3' }, { role: 'user', content: 'reply-3' }])
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
    expect(one.messages).toEqual([...PROMPT, { role: 'assistant', content: 'answer-1' }, { role: 'user', content: 'reply-1' }])
    expect(one.calls).toEqual([])
    expect(s.requests).toHaveLength(0)
  })

  it('summarises all but the latest turn and appends the summary to the prompt user turn', async () => {
    const s = summariser()
    const built = await summaryHistory(s.chat).build({ prompt: PROMPT, turns: turnsOf(3), context: { taskId: 'x', attempt: 4, repeat: 2 } })
    expect(s.requests).toHaveLength(1)
    expect(s.requests[0]?.context).toEqual({ role: 'summariser', taskId: 'x', attempt: 4, repeat: 2, protocol: 'sequential' })
    const request = s.requests[0]?.messages.map((m) => m.content).join('\n') ?? ''
    expect(request).toContain('### Attempt 1\nanswer-1')
    expect(request).toContain('### Feedback on attempt 2\nreply-2')
    expect(request).not.toContain('answer-3')
    expect(built.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(built.messages[1]?.content).toBe('task\n\nSummary of your earlier attempts and the feedback on them:\nsummary #1')
    expect(built.messages.slice(2)).toEqual([{ role: 'assistant', content: 'answer-3' }, { role: 'user', content: 'reply-3' }])
    expect(built.calls).toEqual([{ role: 'summariser', usage: { inputTokens: 50, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 }, latencyMs: 0, costUsd: 0.2, costUsdWithoutCache: 0.2, replayed: false }])
    expect(PROMPT[1]?.content).toBe('task')
  })

  it('adds a user turn for the summary when the prompt ends with another role', async () => {
    const s = summariser()
    const prompt: ChatMessage[] = [{ role: 'user', content: 'task' }, { role: 'assistant', content: 'ok' }]
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
