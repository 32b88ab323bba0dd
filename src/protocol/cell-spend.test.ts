import { describe, expect, it } from 'vitest'
import type { Trajectory } from '../core/schemas.js'
import { spendAtK } from './cell-spend.js'

const usage = (tokens: number) => ({ inputTokens: tokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 })

/** A trajectory reduced to what spend reads: each attempt's tokens and dollars, its first success, a part-way failure. */
function trajectory(
  attempts: { tokens: number | null; usd: number | null; helperTokens?: number }[],
  firstSuccess: number | null,
  failedCalls?: { tokens: number; usd: number },
): Trajectory {
  return {
    attempts: attempts.map((a, i) => ({
      index: i + 1,
      usage: a.tokens === null ? null : usage(a.tokens),
      costUsd: a.usd,
      helperCalls: a.helperTokens === undefined ? [] : [{ role: 'critic', usage: usage(a.helperTokens), costUsd: 0 }],
    })),
    firstSuccess,
    error: failedCalls
      ? {
          attempt: attempts.length + 1,
          calls: [{ role: 'actor', usage: usage(failedCalls.tokens), costUsd: failedCalls.usd }],
        }
      : null,
  } as unknown as Trajectory
}

describe('spendAtK', () => {
  it('sequential: a solved task stops spending; the mean over repeats, then over tasks', () => {
    const byTask = new Map([
      // Solved at attempt 1: spends 100 whatever the budget.
      ['a', [trajectory([{ tokens: 100, usd: 0.1 }], 1)]],
      // Two repeats: one solved at 2, one never (3 attempts), a critic call of 10 on each attempt.
      [
        'b',
        [
          trajectory(
            [
              { tokens: 100, usd: 0.1, helperTokens: 10 },
              { tokens: 200, usd: 0.2, helperTokens: 10 },
            ],
            2,
          ),
          trajectory(
            [
              { tokens: 100, usd: 0.1, helperTokens: 10 },
              { tokens: 200, usd: 0.2, helperTokens: 10 },
              { tokens: 300, usd: 0.3, helperTokens: 10 },
            ],
            null,
          ),
        ],
      ],
    ])
    const spend = spendAtK(byTask, 'sequential', 3)
    // b at k: (110 + 110)/2, (320 + 320)/2, (320 + 630)/2.
    expect(spend.tokens).toEqual([(100 + 110) / 2, (100 + 320) / 2, (100 + 475) / 2])
    spend.usd.forEach((v, i) => expect(v).toBeCloseTo([0.1, 0.2, 0.275][i]!, 12))
  })

  it('independent: k samples cost k times the mean per sample, an early pass included', () => {
    const byTask = new Map([
      [
        'a',
        [
          trajectory(
            [
              { tokens: 100, usd: 0.1 },
              { tokens: 300, usd: 0.3 },
            ],
            1,
          ),
        ],
      ],
      // A sample that failed part way counts, with what it billed.
      ['b', [trajectory([{ tokens: 50, usd: 0.05 }], null, { tokens: 10, usd: 0.01 })]],
    ])
    const spend = spendAtK(byTask, 'independent', 3)
    // a: 200 per sample, b: 30 per sample.
    expect(spend.tokens).toEqual([115, 230, 345])
    spend.usd.forEach((v, i) => expect(v).toBeCloseTo(0.115 * (i + 1), 12))
  })

  it('an unknown usage or price is unknown (null), never 0; tasks with no trajectory are left out', () => {
    const byTask = new Map<string, Trajectory[]>([
      [
        'a',
        [
          trajectory(
            [
              { tokens: null, usd: null },
              { tokens: 5, usd: 0 },
            ],
            2,
          ),
        ],
      ],
      ['none', []],
    ])
    expect(spendAtK(byTask, 'sequential', 2)).toEqual({ tokens: [null, null], usd: [null, null] })
    expect(spendAtK(byTask, 'independent', 2)).toEqual({ tokens: [null, null], usd: [null, null] })
    expect(spendAtK(new Map(), 'sequential', 2)).toEqual({ tokens: [null, null], usd: [null, null] })
  })
})
