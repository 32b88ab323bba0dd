import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { passAtCurve, passAtK } from './pass-at-k.js'

/** All k-subsets of {0..n-1}, to check the estimator against its definition. */
function* subsets(n: number, k: number, start = 0): Generator<number[]> {
  if (k === 0) {
    yield []
    return
  }
  for (let first = start; first <= n - k; first++) {
    for (const rest of subsets(n, k - 1, first + 1)) yield [first, ...rest]
  }
}

/** Exact mean over all k-subsets of n samples (the first c passed) of [some sample passed]. */
function passAtKByEnumeration(n: number, c: number, k: number): number {
  let total = 0
  let hit = 0
  for (const subset of subsets(n, k)) {
    total += 1
    if (subset.some((index) => index < c)) hit += 1
  }
  return hit / total
}

const countsArb = (maxN: number) =>
  fc
    .integer({ min: 1, max: maxN })
    .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n })))

describe('passAtK', () => {
  it('matches hand-computed values', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 15)
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 15)
    expect(passAtK(5, 2, 2)).toBeCloseTo(1 - 3 / 10, 15)
  })

  it('is 0 with no pass, 1 when fewer than k samples failed, NaN (never 1) with fewer than k samples', () => {
    expect(passAtK(10, 0, 3)).toBe(0)
    expect(passAtK(5, 5, 5)).toBe(1)
    expect(passAtK(5, 3, 3)).toBe(1)
    expect(passAtK(3, 3, 5)).toBeNaN()
    expect(passAtK(0, 0, 1)).toBeNaN()
  })

  it('stays accurate where the binomials would overflow', () => {
    // With one pass the estimator is exactly k/n; C(100000, 10) is ~2.8e43 and C(2000, 1000) overflows.
    expect(passAtK(100_000, 1, 10)).toBeCloseTo(1e-4, 15)
    const large = passAtK(2000, 1000, 100)
    expect(large).toBeGreaterThan(0.999_999)
    expect(large).toBeLessThanOrEqual(1)
  })

  it('rejects counts that are not non-negative integers with c <= n and k >= 1', () => {
    expect(() => passAtK(-1, 0, 1)).toThrow(/n \(samples drawn\) must be an integer >= 0 \(got -1\)/)
    expect(() => passAtK(2.5, 0, 1)).toThrow(RangeError)
    expect(() => passAtK(5, -1, 1)).toThrow(/c \(samples passed\) must be an integer >= 0/)
    expect(() => passAtK(5, 6, 1)).toThrow(/must be <= n .*got c = 6, n = 5/)
    expect(() => passAtK(5, 2, 0)).toThrow(/k must be an integer >= 1 \(got 0\)/)
    expect(() => passAtK(5, 2, Number.NaN)).toThrow(RangeError)
  })

  it('equals the exact mean over all k-subsets for small n', () => {
    fc.assert(
      fc.property(countsArb(9), ([n, c, k]) => {
        expect(passAtK(n, c, k)).toBeCloseTo(passAtKByEnumeration(n, c, k), 12)
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('is 0 when c = 0 and 1 when c = n, for every n >= k', () => {
    fc.assert(
      fc.property(countsArb(200), ([n, , k]) => {
        expect(passAtK(n, 0, k)).toBe(0)
        expect(passAtK(n, n, k)).toBe(1)
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('is NaN whenever n < k', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 1, max: 50 }), fc.nat(), (n, extra, cSeed) => {
        const c = n === 0 ? 0 : cSeed % (n + 1)
        expect(passAtK(n, c, n + extra)).toBeNaN()
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('stays in [0, 1] and grows with k and with c', () => {
    fc.assert(
      fc.property(countsArb(300), ([n, c, k]) => {
        const value = passAtK(n, c, k)
        expect(value).toBeGreaterThanOrEqual(0)
        expect(value).toBeLessThanOrEqual(1)
        if (k < n) expect(passAtK(n, c, k + 1)).toBeGreaterThanOrEqual(value - 1e-12)
        if (c < n) expect(passAtK(n, c + 1, k)).toBeGreaterThanOrEqual(value - 1e-12)
      }),
      { seed: 42, numRuns: 500 },
    )
  })
})

describe('passAtCurve', () => {
  it('averages the estimator over tasks for each k', () => {
    const curve = passAtCurve(
      [
        { taskId: 'a', n: 2, c: 1 },
        { taskId: 'b', n: 2, c: 0 },
      ],
      3,
    )
    expect(curve.slice(0, 2)).toEqual([0.25, 0.5])
    expect(curve[2]).toBeNaN()
  })

  it('is NaN at k when any task has n < k, instead of averaging over the tasks that have enough', () => {
    const curve = passAtCurve(
      [
        { taskId: 'many', n: 10, c: 10 },
        { taskId: 'few', n: 2, c: 0 },
      ],
      4,
    )
    expect(curve.slice(0, 2)).toEqual([0.5, 0.5])
    expect(curve[2]).toBeNaN()
    expect(curve[3]).toBeNaN()
  })

  it('skips tasks without samples, and is NaN everywhere when no task has one', () => {
    expect(
      passAtCurve(
        [
          { taskId: 'a', n: 4, c: 4 },
          { taskId: 'errored', n: 0, c: 0 },
        ],
        2,
      ),
    ).toEqual([1, 1])
    expect(passAtCurve([{ taskId: 'errored', n: 0, c: 0 }], 2).every(Number.isNaN)).toBe(true)
    expect(passAtCurve([], 3).every(Number.isNaN)).toBe(true)
  })

  it('names the task whose counts are invalid, and rejects a budget below 1', () => {
    expect(() => passAtCurve([{ taskId: 'humaneval/7', n: 3, c: 4 }], 1)).toThrow(/task 'humaneval\/7'/)
    expect(() => passAtCurve([], 0)).toThrow(/budget must be an integer >= 1/)
  })

  it('has Pass@1 equal to the mean pass rate', () => {
    fc.assert(
      fc.property(fc.array(countsArb(20), { minLength: 1, maxLength: 15 }), (tasks) => {
        const samples = tasks.map(([n, c], i) => ({ taskId: `t${i}`, n, c }))
        const meanRate = samples.reduce((sum, { n, c }) => sum + c / n, 0) / samples.length
        expect(passAtCurve(samples, 1)[0]).toBeCloseTo(meanRate, 12)
      }),
      { seed: 42, numRuns: 200 },
    )
  })
})
