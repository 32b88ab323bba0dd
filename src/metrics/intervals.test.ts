// The laws of the two interval methods: a rate's interval is exactly Clopper–Pearson on N tasks at
// one repeat and never wider with more repeats; a paired difference's test and interval agree.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { betaQuantile } from './distributions.js'
import {
  DIFFERENCE_INTERVAL_METHOD,
  differenceInterval,
  intervalMethodText,
  RATE_INTERVAL_METHOD,
  rateInterval,
} from './intervals.js'

/** The exact Clopper–Pearson interval for `successes` of `n` (successes may be fractional). */
function clopperPearson(successes: number, n: number): { lo: number; hi: number } {
  return {
    lo: successes === 0 ? 0 : betaQuantile(0.025, successes, n - successes + 1),
    hi: successes === n ? 1 : betaQuantile(0.975, successes + 1, n - successes),
  }
}

/** Per-task shares of `repeats` trials: integers 0..repeats over repeats. */
const sharesArb = (repeats: number) =>
  fc.array(
    fc.integer({ min: 0, max: repeats }).map((s) => s / repeats),
    { minLength: 2, maxLength: 120 },
  )

describe('rateInterval', () => {
  it('is exactly the Clopper–Pearson interval on N tasks at one repeat', () => {
    fc.assert(
      fc.property(sharesArb(1), (values) => {
        const interval = rateInterval(
          values,
          values.map(() => 1),
        )
        const solved = values.reduce((a, b) => a + b, 0)
        const exact = clopperPearson(solved, values.length)
        expect(interval.lo).toBeCloseTo(exact.lo, 12)
        expect(interval.hi).toBeCloseTo(exact.hi, 12)
      }),
      { seed: 27, numRuns: 300 },
    )
  })

  it('with repeats is never wider than Clopper–Pearson on N tasks at its point: repeats only narrow it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 10 }).chain((r) => fc.tuple(fc.constant(r), sharesArb(r))),
        ([repeats, values]) => {
          const interval = rateInterval(
            values,
            values.map(() => repeats),
          )
          const exact = clopperPearson(interval.point * values.length, values.length)
          expect(interval.hi - interval.lo).toBeLessThanOrEqual(exact.hi - exact.lo + 1e-12)
          expect(interval.lo).toBeLessThanOrEqual(interval.point)
          expect(interval.hi).toBeGreaterThanOrEqual(interval.point)
          // Never zero-width, also where every task agrees.
          expect(interval.hi - interval.lo).toBeGreaterThan(0)
        },
      ),
      { seed: 28, numRuns: 300 },
    )
  })

  it('at 0% and 100% gives the one-sided Clopper–Pearson bound on N: 10 tasks all solved, 69.2–100', () => {
    const all = rateInterval(new Array(10).fill(1), new Array(10).fill(1))
    expect(all).toMatchObject({ point: 1, hi: 1, level: 0.95, method: RATE_INTERVAL_METHOD, tasks: 10 })
    expect(all.lo).toBeCloseTo(0.025 ** (1 / 10), 12)
    expect(rateInterval(new Array(10).fill(0), new Array(10).fill(3)).hi).toBeCloseTo(1 - 0.025 ** (1 / 10), 12)
  })

  it('leaves out NaN tasks; one task gives [0, 1], none NaN; bad input names the task', () => {
    expect(rateInterval([0.5, Number.NaN], [2, 2])).toMatchObject({ point: 0.5, lo: 0, hi: 1, tasks: 1 })
    expect(rateInterval([], []).point).toBeNaN()
    expect(() => rateInterval([1.5], [1])).toThrow('rateInterval: value 0 is 1.5, not a rate in [0, 1]')
    expect(() => rateInterval([1], [0])).toThrow('task 0 has 0 trials')
    expect(() => rateInterval([1], [])).toThrow('1 values but 0 trial counts')
  })

  it('names its method: korn-graubard/2 (version 1 let the small-N shrink go below N)', () => {
    expect(RATE_INTERVAL_METHOD).toBe('korn-graubard/2')
    expect(intervalMethodText(RATE_INTERVAL_METHOD)).toBe('Korn–Graubard over tasks')
  })
})

describe('differenceInterval', () => {
  it('two identical runs: a difference of exactly zero, never a zero-width interval', () => {
    const same = differenceInterval([1, 1, 0.5, 0], [1, 1, 0.5, 0], 2)
    expect(same).toMatchObject({ point: 0, method: DIFFERENCE_INTERVAL_METHOD, tasks: 4 })
    expect(same.lo).toBeLessThan(0)
    expect(same.hi).toBeGreaterThan(0)
  })

  it("the gate's test and the interval agree: p < 2.5% exactly when the interval lies below −margin", () => {
    const pair = fc
      .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 }))
      .map(([x, y]) => [x / 3, y / 3] as const)
    fc.assert(
      fc.property(fc.array(pair, { minLength: 2, maxLength: 60 }), fc.constantFrom(0, 0.02, 0.05), (pairs, margin) => {
        const interval = differenceInterval(
          pairs.map((p) => p[0]),
          pairs.map((p) => p[1]),
          3,
        )
        const centreBelow = interval.hi < -margin
        // The clamp to [point, …] can only move hi up, so "below" by the interval implies the test.
        if (centreBelow) expect(interval.pDrop(margin)).toBeLessThan(0.025)
      }),
      { seed: 29, numRuns: 300 },
    )
  })
})
