import { describe, expect, it } from 'vitest'
import type { CallContext, ChatMessage, ChatModel } from '../models/chat-model.js'
import type { Verifier } from '../verifiers/verifier.js'
import { runIndependent, type IndependentInput } from './independent.js'
import { defaultPromptBuilder } from './prompt-builder.js'
import type { Task } from './task.js'

function scriptedModel(answers: readonly (string | Error)[]) {
  const calls: { messages: ChatMessage[]; context: CallContext }[] = []
  const model: ChatModel = {
    id: 'scripted',
    descriptor: { provider: 'test', model: 'scripted', params: {} },
    async chat({ messages, context }) {
      calls.push({ messages: messages.map((m) => ({ ...m })), context: { ...context } })
      const next = answers[calls.length - 1]
      if (next === undefined) throw new Error('out of answers')
      if (next instanceof Error) throw next
      return {
        text: next,
        usage: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        latencyMs: 2,
        finishReason: 'stop',
        costUsd: 0.5,
      }
    },
  }
  return { model, calls }
}

const verifier: Verifier = {
  name: 'equals',
  version: '1',
  settings: {},
  async verify(_task, answer) {
    const pass = answer === 'OK'
    return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: pass ? 'ok' : 'wrong' } }
  },
}

const TASK: Task = {
  id: 'ind-1',
  prompt: [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: 'Say OK.' },
  ],
}

function run(input: Partial<IndependentInput> & Pick<IndependentInput, 'actor'>) {
  return runIndependent({ task: TASK, repeat: 0, verifier, promptBuilder: defaultPromptBuilder, budget: 4, ...input })
}

describe('runIndependent', () => {
  it('draws all K samples from the initial prompt alone, with no early stop', async () => {
    const actor = scriptedModel(['BAD', 'OK', 'BAD', 'OK'])
    const outcome = await run({ actor: actor.model })
    expect(actor.calls).toHaveLength(4)
    for (const call of actor.calls) {
      expect(call.messages).toEqual(TASK.prompt)
      expect(call.messages.some((m) => m.role === 'assistant')).toBe(false)
    }
    expect(outcome.attempts.map((a) => a.answer)).toEqual(['BAD', 'OK', 'BAD', 'OK'])
    expect(outcome.attempts.map((a) => a.index)).toEqual([1, 2, 3, 4])
  })

  it('firstSuccess is the first passing sample in draw order', async () => {
    expect((await run({ actor: scriptedModel(['BAD', 'BAD', 'OK', 'OK']).model })).firstSuccess).toBe(3)
    expect((await run({ actor: scriptedModel(['OK', 'BAD', 'BAD', 'BAD']).model })).firstSuccess).toBe(1)
    expect((await run({ actor: scriptedModel(['BAD', 'BAD', 'BAD', 'BAD']).model })).firstSuccess).toBeNull()
  })

  it('tells the actor it is an independent sample, with the sample index as attempt', async () => {
    const actor = scriptedModel(['BAD', 'BAD', 'BAD'])
    await run({ actor: actor.model, budget: 3, repeat: 2 })
    expect(actor.calls.map((c) => c.context)).toEqual(
      [1, 2, 3].map((attempt) => ({
        role: 'actor',
        taskId: 'ind-1',
        attempt,
        repeat: 2,
        protocol: 'independent',
        prompt: TASK.prompt, // no feedback: a sample sees none
      })),
    )
  })

  it('records samples with no feedback, no helper calls and no unmodified flag', async () => {
    const outcome = await run({ actor: scriptedModel(['BAD', 'BAD', 'BAD', 'BAD']).model })
    for (const a of outcome.attempts) {
      expect(a.feedback).toBeNull()
      expect(a.unmodified).toBeNull()
      expect(a.helperCalls).toEqual([])
      expect(a.costUsd).toBe(0.5)
    }
  })

  it('never discloses a budget, even for a long run', async () => {
    const actor = scriptedModel(['BAD', 'BAD'])
    await run({ actor: actor.model, budget: 2 })
    expect(JSON.stringify(actor.calls)).not.toMatch(/attempts/)
  })

  it('an actor error ends the run with the samples so far and no firstSuccess', async () => {
    const actor = scriptedModel(['OK', 'BAD', new Error('provider 503')])
    const outcome = await run({ actor: actor.model })
    expect(outcome.error).toEqual({ stage: 'actor', attempt: 3, message: 'provider 503' })
    expect(outcome.attempts.map((a) => a.answer)).toEqual(['OK', 'BAD'])
    expect(outcome.firstSuccess).toBeNull()
  })

  it('an aborted signal rejects instead of becoming an error', async () => {
    const controller = new AbortController()
    controller.abort(new Error('timeout'))
    await expect(run({ actor: scriptedModel(['OK']).model, signal: controller.signal })).rejects.toThrow('timeout')
  })
})
