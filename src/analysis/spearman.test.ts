import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { averageRanks, pearson, spearman } from './spearman.js'

describe('averageRanks', () => {
  it('gives tied values the mean of the ranks they span', () => {
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1])
    expect(averageRanks([7, 7, 7])).toEqual([2, 2, 2])
    expect(averageRanks([])).toEqual([])
  })

  it('refuses non-finite values rather than ranking NaN somewhere', () => {
    expect(() => averageRanks([1, Number.NaN])).toThrow(/values\[1\] must be a finite number/)
  })
})

describe('spearman', () => {
  it('matches a hand-computed value with ties', () => {
    // x = [1, 2, 2, 3] → ranks [1, 2.5, 2.5, 4]; y = [1, 3, 2, 4] → ranks [1, 3, 2, 4].
    // Deviations from 2.5: dx = [-1.5, 0, 0, 1.5], dy = [-1.5, 0.5, -0.5, 1.5].
    // Σdxdy = 4.5, Σdx² = 4.5, Σdy² = 5 → rho = 4.5 / √22.5 = 0.9486832980505138.
    expect(spearman([1, 2, 2, 3], [1, 3, 2, 4])).toBeCloseTo(4.5 / Math.sqrt(22.5), 14)
    // The no-ties shortcut 1 − 6Σd²/(n(n²−1)) would give 1 − 6·0.5/60 = 0.95: wrong with ties.
    expect(spearman([1, 2, 2, 3], [1, 3, 2, 4])).not.toBeCloseTo(0.95, 6)
  })

  it('matches a hand-computed value with ties on both sides', () => {
    // x ranks [1.5, 1.5, 3, 4], y ranks [1, 2.5, 2.5, 4]; deviations from 2.5:
    // dx = [-1, -1, 0.5, 1.5], dy = [-1.5, 0, 0, 1.5] → Σdxdy = 3.75, Σdx² = 4.5, Σdy² = 4.5.
    expect(spearman([0.2, 0.2, 0.5, 0.9], [0.1, 0.4, 0.4, 0.8])).toBeCloseTo(3.75 / 4.5, 14)
  })

  it('is -0.5 on the paper-like three-actor reversal', () => {
    expect(spearman([0.9, 0.8, 0.7], [0.6, 0.9, 0.7])).toBeCloseTo(-0.5, 14)
  })

  it('is undefined (NaN), not 0, for fewer than two points or a constant variable', () => {
    expect(spearman([], [])).toBeNaN()
    expect(spearman([1], [2])).toBeNaN()
    expect(spearman([1, 2, 3], [5, 5, 5])).toBeNaN()
    expect(pearson([1, 1], [1, 2])).toBeNaN()
  })

  it('refuses inputs of different lengths', () => {
    expect(() => spearman([1, 2], [1])).toThrow(/same length \(got 2 and 1\)/)
  })

  const pairs = fc
    .array(fc.tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: -50, max: 50 })), {
      minLength: 2,
      maxLength: 25,
    })
    .map((ps) => ({ x: ps.map((p) => p[0]), y: ps.map((p) => p[1]) }))

  it('is in [-1, 1] and symmetric', () => {
    fc.assert(
      fc.property(pairs, ({ x, y }) => {
        const r = spearman(x, y)
        if (Number.isNaN(r)) return
        expect(r).toBeGreaterThanOrEqual(-1)
        expect(r).toBeLessThanOrEqual(1)
        expect(spearman(y, x)).toBe(r)
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('is 1 for identical rankings (and -1 for reversed ones)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: -1000, max: 1000 }), { minLength: 2, maxLength: 25 }), (x) => {
        expect(spearman(x, x)).toBeCloseTo(1, 12)
        expect(
          spearman(
            x,
            x.map((v) => 2 * v + 3),
          ),
        ).toBeCloseTo(1, 12)
        expect(
          spearman(
            x,
            x.map((v) => -v),
          ),
        ).toBeCloseTo(-1, 12)
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('is invariant under strictly increasing transforms of either variable', () => {
    // x³ + 5x is strictly increasing and exact in doubles for these integers, so ties stay ties.
    const f = (v: number): number => v ** 3 + 5 * v
    const g = (v: number): number => Math.exp(v / 20)
    fc.assert(
      fc.property(pairs, ({ x, y }) => {
        const r = spearman(x, y)
        const transformed = spearman(x.map(f), y.map(g))
        if (Number.isNaN(r)) expect(transformed).toBeNaN()
        else expect(transformed).toBe(r)
      }),
      { seed: 42, numRuns: 300 },
    )
  })
})

describe('ties between rates of the same count', () => {
  it('ranks 14/27 computed along two paths as one value', () => {
    const a = 14 / 27
    const b = 0.5185185185185186 // the same count, summed in another order
    expect(a).not.toBe(b)
    expect(averageRanks([a, b, 0.9])).toEqual([1.5, 1.5, 3])
    expect(spearman([a, b, 0.9], [0.1, 0.2, 0.3])).toBeCloseTo(0.866, 3)
  })
})
