import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Attempt } from '../core/schemas.js'
import { ZERO_USAGE } from '../models/chat-model.js'
import { simulatedActor } from '../models/simulated.js'
import type { ChatModel } from '../models/chat-model.js'
import type { Verifier, VerifyOptions } from '../verifiers/verifier.js'
import { StageError, addCost, proposeAndVerify, spend, stageFailure, totals } from './attempt.js'

function attempt(index: number, costUsd: number | null, overheadCost: number | null): Attempt {
  return {
    index,
    answer: 'a',
    verdict: { pass: false, diagnostics: { outcome: 'failed', summary: '' } },
    feedback: null,
    finishReason: 'stop',
    usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 1, cacheWriteTokens: 0 },
    latencyMs: 0,
    costUsd,
    costUsdWithoutCache: costUsd === null ? null : costUsd * 2,
    replayed: index === 2,
    helperCalls: [
      {
        role: 'critic',
        usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 4 },
        latencyMs: 0,
        costUsd: overheadCost,
        costUsdWithoutCache: overheadCost,
        replayed: false,
      },
    ],
    unmodified: null,
  }
}

describe('addCost', () => {
  it('adds known costs and keeps unknown (null) unknown', () => {
    expect(addCost(1, 2)).toBe(3)
    expect(addCost(1, undefined)).toBeNull()
    expect(addCost(null, 2)).toBeNull()
    expect(addCost(1, null)).toBeNull()
  })
})

describe('totals', () => {
  it('sums actor and helper usage and cost over attempts, in total and per role', () => {
    expect(totals([attempt(1, 0.5, 0.25), attempt(2, 1, 0)])).toEqual({
      usage: { inputTokens: 26, outputTokens: 6, cacheReadTokens: 2, cacheWriteTokens: 8 },
      usageUnknownCalls: 0,
      costUsd: 1.75,
      costUsdWithoutCache: 3.25,
      byRole: {
        actor: {
          usage: { inputTokens: 20, outputTokens: 4, cacheReadTokens: 2, cacheWriteTokens: 0 },
          usageUnknownCalls: 0,
          costUsd: 1.5,
          calls: 2,
        },
        critic: {
          usage: { inputTokens: 6, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 8 },
          usageUnknownCalls: 0,
          costUsd: 0.25,
          calls: 2,
        },
      },
      replayedCalls: 1,
      calls: 4,
      batch: { calls: 0, costUsd: 0, listCostUsd: 0 },
    })
  })

  it('counts batched calls apart, with their list price', () => {
    const batched = { ...attempt(1, 0.5, 0.25), batched: true, costUsdAtListPrice: 1 }
    expect(totals([batched, attempt(2, 1, 0)]).batch).toEqual({ calls: 1, costUsd: 0.5, listCostUsd: 1 })
  })

  it('is zero for no attempts and null when any cost is unknown', () => {
    expect(totals([])).toEqual({
      usage: ZERO_USAGE,
      usageUnknownCalls: 0,
      costUsd: 0,
      costUsdWithoutCache: 0,
      byRole: {},
      replayedCalls: 0,
      calls: 0,
      batch: { calls: 0, costUsd: 0, listCostUsd: 0 },
    })
    expect(totals([attempt(1, 0.5, null), attempt(2, 1, 0)]).costUsd).toBeNull()
  })

  it('adds only the usage replies reported and counts the calls that reported none, never as zero', () => {
    const unknown = { ...attempt(1, null, 0.25), usage: null }
    const t = totals([unknown, attempt(2, 1, 0)])
    expect(t.usage).toEqual({ inputTokens: 16, outputTokens: 4, cacheReadTokens: 1, cacheWriteTokens: 8 })
    expect(t.usageUnknownCalls).toBe(1)
    expect(t.byRole.actor).toMatchObject({
      usage: { inputTokens: 10, outputTokens: 2 },
      usageUnknownCalls: 1,
      costUsd: null,
    })
    // Every call without usage: unknown, not zero.
    const none = totals([{ ...unknown, helperCalls: [] }])
    expect([none.usage, none.usageUnknownCalls, none.byRole.actor!.usage]).toEqual([null, 1, null])
  })
})

describe('spend', () => {
  it("equals totals' usage and cost for any attempts and unfinished calls", () => {
    const cost = fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: null })
    const attempts = fc
      .array(fc.tuple(cost, cost), { maxLength: 6 })
      .map((costs) => costs.map(([c, h], i) => attempt(i + 1, c, h)))
    const usage = fc.option(fc.constant({ inputTokens: 5, outputTokens: 1, cacheReadTokens: 2, cacheWriteTokens: 3 }), {
      nil: null,
    })
    const unfinished = fc.array(
      fc.tuple(cost, usage).map(([c, u]) => ({
        role: 'grader' as const,
        usage: u,
        latencyMs: 1,
        costUsd: c,
        costUsdWithoutCache: c,
        replayed: false,
      })),
      { maxLength: 3 },
    )
    fc.assert(
      fc.property(attempts, unfinished, (as, calls) => {
        const all = totals(as, calls)
        expect(spend(as, calls)).toEqual({
          usage: all.usage,
          usageUnknownCalls: all.usageUnknownCalls,
          costUsd: all.costUsd,
        })
      }),
      { seed: 42, numRuns: 200 },
    )
  })
})

describe('stageFailure', () => {
  it('wraps a failure in a StageError naming the stage and attempt, with the calls already spent', () => {
    const spent = [
      {
        role: 'actor' as const,
        usage: ZERO_USAGE,
        costUsd: 0.5,
        costUsdWithoutCache: 0.5,
        latencyMs: 1,
        replayed: false,
      },
    ]
    const error = stageFailure('verifier', 3, undefined, new Error('boom'), spent)
    expect(error).toBeInstanceOf(StageError)
    expect(error).toMatchObject({ stage: 'verifier', attempt: 3, message: 'boom' })
    expect(error.cause).toBeInstanceOf(Error)
    expect(error.toJSON().calls).toEqual(spent)
  })

  it('rethrows the abort reason instead when the signal aborted', () => {
    const controller = new AbortController()
    const reason = new Error('aborted by test')
    controller.abort(reason)
    expect(() => stageFailure('actor', 1, controller.signal, new Error('fetch failed'))).toThrow(reason)
  })
})

describe('proposeAndVerify: who wrote the answer', () => {
  const task = { id: 't', prompt: 'p', simulation: { difficulty: 0, correct: ['right'], wrong: ['wrong'] } }
  const recording = (): { verifier: Verifier; seen: (VerifyOptions | undefined)[] } => {
    const seen: (VerifyOptions | undefined)[] = []
    return {
      seen,
      verifier: {
        name: 'record',
        version: '1',
        settings: {},
        verify: (_task, _answer, options) => (
          seen.push(options),
          { pass: true, diagnostics: { outcome: 'passed', summary: '' } }
        ),
      },
    }
  }
  const context = {
    role: 'actor' as const,
    taskId: 't',
    attempt: 1,
    repeat: 0,
    protocol: 'sequential' as const,
    simulation: task.simulation,
  }

  it('tells the verifier that a bundled simulated actor wrote it, and that anything else is a model', async () => {
    const simulated = recording()
    await proposeAndVerify({
      actor: simulatedActor({ profile: 'reviser' }),
      verifier: simulated.verifier,
      task,
      messages: [{ role: 'user', content: 'p' }],
      context,
    })
    expect(simulated.seen[0]?.origin).toBe('bundled-simulation')

    // A look-alike (same descriptor, or a wrapper around the real one) is a model: fail closed.
    const real = simulatedActor({ profile: 'reviser' })
    const lookAlike: ChatModel = { ...real, chat: (request) => real.chat(request) }
    const model = recording()
    await proposeAndVerify({
      actor: lookAlike,
      verifier: model.verifier,
      task,
      messages: [{ role: 'user', content: 'p' }],
      context,
    })
    expect(model.seen[0]?.origin).toBe('model')
  })
})
