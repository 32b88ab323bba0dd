import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { passAtK } from './pass-at-k.js'
import { passHatCurve, passHatK } from './pass-hat-k.js'

function binomial(n: number, k: number): number {
  let value = 1
  for (let i = 1; i <= k; i++) value = (value * (n - k + i)) / i
  return value
}

const countsArb = (maxN: number) =>
  fc
    .integer({ min: 1, max: maxN })
    .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n })))

describe('passHatK', () => {
  it('matches hand-computed values', () => {
    expect(passHatK(10, 8, 2)).toBeCloseTo((8 / 10) * (7 / 9), 15)
    expect(passHatK(4, 2, 1)).toBe(0.5)
    expect(passHatK(5, 5, 5)).toBe(1)
    expect(passHatK(5, 2, 3)).toBe(0)
    expect(passHatK(10, 0, 1)).toBe(0)
  })

  it('is NaN when n < k and rejects invalid counts', () => {
    expect(passHatK(1, 1, 2)).toBeNaN()
    expect(passHatK(0, 0, 1)).toBeNaN()
    expect(() => passHatK(3, 4, 1)).toThrow(/must be <= n/)
    expect(() => passHatK(3, 1, 0)).toThrow(/k must be an integer >= 1/)
  })

  it('equals C(c, k) / C(n, k) for small n', () => {
    fc.assert(
      fc.property(countsArb(30), ([n, c, k]) => {
        expect(passHatK(n, c, k)).toBeCloseTo(binomial(c, k) / binomial(n, k), 12)
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('is never above Pass@k, equals it at k = 1, and never grows with k', () => {
    fc.assert(
      fc.property(countsArb(300), ([n, c, k]) => {
        const hat = passHatK(n, c, k)
        expect(hat).toBeGreaterThanOrEqual(0)
        expect(hat).toBeLessThanOrEqual(passAtK(n, c, k) + 1e-12)
        if (k === 1) expect(hat).toBeCloseTo(passAtK(n, c, 1), 14)
        if (k < n) expect(passHatK(n, c, k + 1)).toBeLessThanOrEqual(hat + 1e-12)
      }),
      { seed: 42, numRuns: 500 },
    )
  })
})

describe('passHatCurve', () => {
  it('averages pass^k over tasks with the same NaN rules as Pass@k', () => {
    expect(passHatCurve([{ taskId: 'a', n: 4, c: 2 }], 3)).toEqual([0.5, 1 / 6, 0])
    const curve = passHatCurve(
      [
        { taskId: 'a', n: 4, c: 4 },
        { taskId: 'b', n: 2, c: 1 },
        { taskId: 'errored', n: 0, c: 0 },
      ],
      3,
    )
    expect(curve.slice(0, 2)).toEqual([0.75, 0.5])
    expect(curve[2]).toBeNaN()
    expect(passHatCurve([], 2).every(Number.isNaN)).toBe(true)
  })
})
