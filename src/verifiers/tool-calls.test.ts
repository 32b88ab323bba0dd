import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Episode, ToolCallRecord } from '../core/episode.js'
import type { AnyTask } from '../core/task.js'
import { toolCalls } from './tool-calls.js'
import type { Verdict } from './verifier.js'

let id = 0
const made = (name: string, args: unknown, error: string | null = null): ToolCallRecord => ({
  id: `c${id++}`,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
  result: error === null ? 'ok' : null,
  error,
  durationMs: 1,
})
/** An episode of one turn per call, then an answer. */
const episode = (...calls: ToolCallRecord[]): Episode => ({
  endedBy: 'answer',
  turns: [
    ...calls.map((c, i) => ({
      index: i + 1,
      text: '',
      toolCalls: [c],
      usage: null,
      costUsd: null,
      latencyMs: 1,
      replayed: false,
    })),
    { index: calls.length + 1, text: 'done', toolCalls: [], usage: null, costUsd: null, latencyMs: 1, replayed: false },
  ],
})
const task: AnyTask = {
  id: 'route',
  prompt: 'Look up the weather in Paris, then book a table.',
  expectedToolCalls: [{ name: 'weather', arguments: { city: 'Paris' } }, { name: 'book' }],
}
const verify = (v: ReturnType<typeof toolCalls>, e: Episode, t: AnyTask = task) =>
  v.verify(t, 'done', { episode: e }) as Verdict

describe('verifiers.toolCalls()', () => {
  it('passes when every expected call was made with the expected arguments (a subset by default)', () => {
    const verdict = verify(
      toolCalls(),
      episode(made('weather', { city: 'Paris', units: 'C' }), made('book', { at: 8 })),
    )
    expect(verdict.pass).toBe(true)
    expect(verdict.score).toBe(1)
    expect(verdict.diagnostics.summary).toBe('all 2 expected tool calls were made')
  })

  it('names what is missing, with the closest call made by that name, for feedback', () => {
    const verdict = verify(toolCalls(), episode(made('weather', { city: 'Lyon' })))
    expect(verdict.pass).toBe(false)
    expect(verdict.score).toBe(0)
    expect(verdict.diagnostics.summary).toBe(
      '2 of 2 expected tool calls were not made: weather({"city":"Paris"}), book()',
    )
    expect(verdict.diagnostics.tests).toEqual([
      {
        index: 0,
        source: 'weather({"city":"Paris"})',
        pass: false,
        actual: 'weather({"city":"Lyon"})',
        error: 'no call of weather with these arguments',
      },
      { index: 1, source: 'book()', pass: false, error: 'no call of book' },
    ])
  })

  it('a call that failed does not count unless allowErrors; exact arguments; strict order; no extra calls', () => {
    const failed = episode(made('weather', { city: 'Paris' }, 'invalid arguments'), made('book', {}))
    expect(verify(toolCalls(), failed).diagnostics.tests![0]!.error).toBe(
      'the call of weather failed: invalid arguments',
    )
    expect(verify(toolCalls({ allowErrors: true }), failed).pass).toBe(true)
    const extraKey = episode(made('weather', { city: 'Paris', units: 'C' }), made('book', {}))
    expect(verify(toolCalls({ arguments: 'exact' }), extraKey).pass).toBe(false)
    const reversed = episode(made('book', {}), made('weather', { city: 'Paris' }))
    expect(verify(toolCalls(), reversed).pass).toBe(true)
    expect(verify(toolCalls({ order: 'strict' }), reversed).pass).toBe(false)
    const extra = episode(made('weather', { city: 'Paris' }), made('search', { q: 'x' }), made('book', {}))
    expect(verify(toolCalls({ order: 'strict' }), extra).pass).toBe(true)
    const strictExtra = verify(toolCalls({ allowExtra: false }), extra)
    expect(strictExtra.pass).toBe(false)
    expect(strictExtra.diagnostics.summary).toBe(
      'all 2 expected tool calls were made; 1 other call (allowExtra: false): search',
    )
    // Malformed arguments never match expected arguments.
    expect(verify(toolCalls(), episode(made('weather', '{"city": '), made('book', {}))).pass).toBe(false)
  })

  it('an attempt without an episode, or a task without expected calls, is an error, never a verdict', () => {
    expect(() => toolCalls().verify(task, 'done')).toThrow(
      /has no episode of tool calls; the actor must be actors\.agent/,
    )
    expect(toolCalls().checkTask!({ id: 'x', prompt: 'p' })).toEqual([
      'task x: tool-calls needs `expectedToolCalls` ([{ name, arguments? }]), but the task has none',
    ])
    expect(() => toolCalls({ order: 'sorted' as 'any' })).toThrow(/order must be 'any' or 'strict'/)
  })

  // Laws: each recorded call matches at most one expected call, so n expected calls of one
  // name need n calls of it; any permutation passes under 'any'; under 'strict' only an order
  // that keeps the expected one as a subsequence.
  it('any permutation of the expected calls passes; one call fewer fails; strict order follows the subsequence rule', () => {
    const names = fc.constantFrom('a', 'b', 'c')
    fc.assert(
      fc.property(fc.array(names, { minLength: 1, maxLength: 6 }), fc.infiniteStream(fc.nat()), (expected, picks) => {
        const t: AnyTask = { id: 't', prompt: 'p', expectedToolCalls: expected.map((name) => ({ name })) }
        const order = [...expected.keys()]
        for (let i = order.length - 1; i > 0; i--) {
          const j = picks.next().value % (i + 1)
          ;[order[i], order[j]] = [order[j]!, order[i]!]
        }
        const shuffled = order.map((i) => expected[i]!)
        const calls = shuffled.map((name) => made(name, {}))
        expect(verify(toolCalls(), episode(...calls), t).pass).toBe(true)
        expect(verify(toolCalls(), episode(...calls.slice(1)), t).pass).toBe(false)
        const isSubsequence = (() => {
          let k = 0
          for (const name of shuffled) if (name === expected[k]) k++
          return k === expected.length
        })()
        expect(verify(toolCalls({ order: 'strict' }), episode(...calls), t).pass).toBe(isSubsequence)
      }),
      { seed: 20261202, numRuns: 300 },
    )
  })
})
