import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  afterRefusal,
  afterSuccess,
  FEW_SUCCESSES,
  FIRST_SPACING_MS,
  MIN_SPACING_MS,
  NOISE_UP,
  refusalHoldMs,
  SHORT_HOLD,
  SPACING_UP,
  UNPACED,
  type LearnedSpacing,
} from './learned-spacing.js'

const SEED = { seed: 28, numRuns: 200 }

/** Any sequence of outcomes: true a success, false a new 429. */
const outcomes = fc.array(fc.boolean(), { maxLength: 300 })
const replay = (events: readonly boolean[], maxMs = 1000) =>
  events.reduce<LearnedSpacing>((s, ok) => (ok ? afterSuccess(s) : afterRefusal(s, maxMs)), UNPACED)

describe('learned spacing: its laws', () => {
  it('stays off (0) or within [MIN_SPACING_MS, the server wait]; a 429 never narrows it, a success never widens it', () => {
    fc.assert(
      fc.property(outcomes, fc.boolean(), fc.integer({ min: 10, max: 1000 }), (events, next, maxMs) => {
        const before = replay(events, maxMs)
        const after = next ? afterSuccess(before) : afterRefusal(before, maxMs)
        for (const s of [before, after]) {
          expect(s.spacingMs === 0 || (s.spacingMs >= MIN_SPACING_MS && s.spacingMs <= maxMs)).toBe(true)
        }
        if (next) expect(after.spacingMs).toBeLessThanOrEqual(before.spacingMs)
        else expect(after.spacingMs).toBeGreaterThanOrEqual(before.spacingMs)
      }),
      SEED,
    )
  })

  it('doubles from the first guess while learning; once learned widens by 3% after a success, by a tenth on a second 429 in a row', () => {
    fc.assert(
      fc.property(outcomes, (events) => {
        const before = replay(events)
        const after = afterRefusal(before, 1000)
        if (!before.learned)
          expect(after.spacingMs).toBe(Math.min(1000, Math.max(FIRST_SPACING_MS, 2 * before.spacingMs)))
        else
          expect(after.spacingMs).toBeCloseTo(
            Math.min(1000, before.spacingMs * (before.sinceRefusal > 0 ? NOISE_UP : SPACING_UP)),
            9,
          )
        // Learned once is learned for good (while pacing), and only after FEW_SUCCESSES in a row.
        if (before.learned && before.spacingMs > 0) expect(afterSuccess(before).learned).toBe(true)
        if (!before.learned && before.sinceRefusal + 1 < FEW_SUCCESSES) expect(afterSuccess(before).learned).toBe(false)
      }),
      SEED,
    )
  })

  it('a 429 after a success, once learned, holds a tenth of the spacing; two in a row, or while learning, a whole one', () => {
    fc.assert(
      fc.property(outcomes, (events) => {
        const before = replay(events)
        const after = afterRefusal(before, 1000)
        const hold = refusalHoldMs(before, after)
        expect(hold).toBe(before.learned && before.sinceRefusal > 0 ? after.spacingMs * SHORT_HOLD : after.spacingMs)
        // The second of two in a row holds a whole spacing.
        expect(refusalHoldMs(after, afterRefusal(after, 1000))).toBe(afterRefusal(after, 1000).spacingMs)
      }),
      SEED,
    )
  })

  it('successes alone end the pacing', () => {
    let s = afterRefusal(afterRefusal(UNPACED, 1000), 1000)
    let n = 0
    for (; s.spacingMs > 0; n++) s = afterSuccess(s)
    expect(s).toEqual(UNPACED)
    expect(n).toBeLessThan(1000)
  })
})

/** A deterministic PRNG (mulberry32) for the simulation's noise. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * One endpoint paced by the learned spacing against a server's token bucket (burst `burst`, one
 * token every `tokenMs`), with always a call waiting (the demand of a cell above the rate), as
 * the limiter does it: a start takes the pacing's next slot a spacing after the last start (late
 * by a timer's lag), reaches the server after a one-way delay and comes back after another; a 429
 * holds the endpoint from its arrival (the next start then), a success narrows the spacing.
 * Returns the served share of the rate from the first 429 on, the share of starts refused, and
 * the most 429s in a row one call got (calls take their turns in order of arrival).
 */
function simulate(input: {
  tokenMs: number
  burst: number
  lagMs: number
  seed: number
  calls: number
  concurrency?: number
}) {
  const random = prng(input.seed)
  const { tokenMs, burst } = input
  let tokens = burst
  let bucketAt = 0
  let state = UNPACED
  let nextAt = 0
  let served = 0
  let refused = 0
  // Calls take their turns in order of arrival: one refused goes to the back of the queue with its 429s in a row.
  const queue: number[] = Array.from({ length: input.concurrency ?? 8 }, () => 0)
  let worstInARow = 0
  let firstRefusalAt: number | undefined
  let servedSince = 0
  let lastAcceptedAt = 0
  for (let start = 0; served < input.calls;) {
    // A timer fires late now and then (a loaded machine): mostly by little, sometimes by much.
    start = nextAt + input.lagMs * random() ** 3
    const arrives = start + 0.5 + random()
    tokens = Math.min(burst, tokens + (arrives - bucketAt) / tokenMs)
    bucketAt = arrives
    const back = arrives + 0.5 + random()
    if (tokens >= 1) {
      tokens -= 1
      served++
      if (firstRefusalAt !== undefined) {
        servedSince++
        lastAcceptedAt = arrives
      }
      queue.shift()
      queue.push(0)
      state = afterSuccess(state)
      nextAt = start + state.spacingMs
    } else {
      refused++
      firstRefusalAt ??= arrives
      const inARow = queue.shift()! + 1
      queue.push(inARow)
      worstInARow = Math.max(worstInARow, inARow)
      const next = afterRefusal(state, 1000)
      nextAt = back + refusalHoldMs(state, next)
      state = next
    }
  }
  const window = lastAcceptedAt - (firstRefusalAt ?? 0)
  return {
    ofRate: servedSince / (burst + window / tokenMs),
    refusedShare: refused / (served + refused),
    worstInARow,
    spacingMs: state.spacingMs,
  }
}

describe('learned spacing against a token bucket (simulated, seeded)', () => {
  it('serves at least 0.9 of the rate at a burst of 1 to 3 with timers late by up to a fifth of a token, few 429s and never six in a row', () => {
    fc.assert(
      fc.property(
        fc.record({
          tokenMs: fc.integer({ min: 20, max: 400 }),
          burst: fc.integer({ min: 1, max: 3 }),
          lagShare: fc.double({ min: 0, max: 0.2, noNaN: true }),
          seed: fc.integer(),
        }),
        ({ tokenMs, burst, lagShare, seed }) => {
          const run = simulate({ tokenMs, burst, lagMs: lagShare * tokenMs, seed, calls: 400 })
          expect(run.ofRate).toBeGreaterThanOrEqual(0.9)
          expect(run.refusedShare).toBeLessThan(0.2)
          // Each 429 spends one of a call's retries (5 by default): six in a row would error a trajectory.
          expect(run.worstInARow).toBeLessThan(6)
        },
      ),
      { seed: 28, numRuns: 100 },
    )
  })
})
