import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { gPassAtK, gPassCurve, gPassInterval, gPassThreshold } from './g-pass-at-k.js'
import { passAtK } from './pass-at-k.js'
import { passHatK } from './pass-hat-k.js'

/** C(a, b) exactly, as a BigInt. */
function choose(a: number, b: number): bigint {
  if (b < 0 || b > a) return 0n
  let r = 1n
  for (let i = 1; i <= b; i++) r = (r * BigInt(a - b + i)) / BigInt(i)
  return r
}

/** The hypergeometric tail as an exact fraction, turned into a double once. */
function exactTail(n: number, c: number, k: number, need: number): number {
  let num = 0n
  for (let j = need; j <= Math.min(c, k); j++) num += choose(c, j) * choose(n - c, k - j)
  const den = choose(n, k)
  // Scale so the division keeps 15 significant digits.
  return Number((num * 10n ** 18n) / den) / 1e18
}

/** P(Binomial(k, p) >= need). */
function binomialTail(k: number, p: number, need: number): number {
  let sum = 0
  for (let j = need; j <= k; j++) sum += Number(choose(k, j)) * p ** j * (1 - p) ** (k - j)
  return sum
}

const counts = fc
  .record({ n: fc.integer({ min: 1, max: 40 }), c: fc.nat(40), k: fc.integer({ min: 1, max: 40 }) })
  .map(({ n, c, k }) => ({ n, c: c % (n + 1), k: Math.min(k, n) }))

describe('gPassAtK', () => {
  it('hand values: the hypergeometric tail', () => {
    expect(gPassAtK(10, 6, 4, 0.5)).toBeCloseTo(37 / 42, 14)
    expect(gPassAtK(4, 2, 3, 0.5)).toBeCloseTo(0.5, 14)
    expect(gPassAtK(3, 3, 5, 0.5)).toBeNaN()
    expect(gPassAtK(10, 0, 3, 0.5)).toBe(0)
    expect(gPassAtK(10, 10, 3, 1)).toBe(1)
    // 3 of 4 failed: any 4 tries drawn from 10 hold at least 2 passes when 8 passed.
    expect(gPassAtK(10, 8, 4, 0.5)).toBe(1)
  })

  it('equals the exact hypergeometric tail (BigInt binomials), for every τ (seeded property)', () => {
    fc.assert(
      fc.property(counts, fc.double({ min: 0.01, max: 1, noNaN: true }), ({ n, c, k }, tau) => {
        expect(gPassAtK(n, c, k, tau)).toBeCloseTo(exactTail(n, c, k, gPassThreshold(k, tau)), 10)
      }),
      { seed: 4901, numRuns: 400 },
    )
  })

  it('agrees with enumerating every k-subset of n tries for small n (seeded property)', () => {
    // The estimator's meaning, by brute force: of all C(n, k) ways to pick k of the n tries (the
    // first c of which passed), the share holding at least ⌈τk⌉ passes.
    const small = fc
      .record({ n: fc.integer({ min: 1, max: 12 }), c: fc.nat(12), k: fc.integer({ min: 1, max: 12 }) })
      .map(({ n, c, k }) => ({ n, c: c % (n + 1), k: Math.min(k, n) }))
    fc.assert(
      fc.property(small, fc.double({ min: 0.01, max: 1, noNaN: true }), ({ n, c, k }, tau) => {
        const need = gPassThreshold(k, tau)
        let subsets = 0
        let held = 0
        for (let mask = 0; mask < 1 << n; mask++) {
          let size = 0
          let passes = 0
          for (let i = 0; i < n; i++)
            if (mask & (1 << i)) {
              size++
              if (i < c) passes++
            }
          if (size !== k) continue
          subsets++
          if (passes >= need) held++
        }
        expect(gPassAtK(n, c, k, tau)).toBeCloseTo(held / subsets, 12)
      }),
      { seed: 4905, numRuns: 200 },
    )
  })

  it('τ = 1 is pass^k and τ → 0⁺ (any τ ≤ 1/k) is Pass@k (seeded property)', () => {
    fc.assert(
      fc.property(counts, ({ n, c, k }) => {
        expect(gPassAtK(n, c, k, 1)).toBeCloseTo(passHatK(n, c, k), 12)
        expect(gPassAtK(n, c, k, Number.MIN_VALUE)).toBeCloseTo(passAtK(n, c, k), 12)
        expect(gPassAtK(n, c, k, 1 / k)).toBeCloseTo(passAtK(n, c, k), 12)
      }),
      { seed: 4902, numRuns: 400 },
    )
  })

  it('falls as τ rises, between pass^k and Pass@k (seeded property)', () => {
    fc.assert(
      fc.property(
        counts,
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        ({ n, c, k }, a, b) => {
          const [lo, hi] = a < b ? [a, b] : [b, a]
          const g = gPassAtK(n, c, k, hi)
          expect(g).toBeLessThanOrEqual(gPassAtK(n, c, k, lo) + 1e-12)
          expect(g).toBeGreaterThanOrEqual(passHatK(n, c, k) - 1e-12)
          expect(gPassAtK(n, c, k, lo)).toBeLessThanOrEqual(passAtK(n, c, k) + 1e-12)
        },
      ),
      { seed: 4903, numRuns: 400 },
    )
  })

  it('is unbiased: its mean over c ~ Binomial(n, p) is exactly P(Binomial(k, p) >= ⌈τk⌉) (seeded property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 1, max: 24 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (n0, k0, p, tau) => {
          const n = Math.max(n0, k0)
          const k = Math.min(n0, k0)
          let mean = 0
          for (let c = 0; c <= n; c++)
            mean += Number(choose(n, c)) * p ** c * (1 - p) ** (n - c) * gPassAtK(n, c, k, tau)
          expect(mean).toBeCloseTo(binomialTail(k, p, gPassThreshold(k, tau)), 9)
        },
      ),
      { seed: 4904, numRuns: 300 },
    )
  })

  it('refuses a τ outside (0, 1] and counts out of range, naming them', () => {
    for (const tau of [0, -0.5, 1.01, Number.NaN])
      expect(() => gPassAtK(10, 5, 2, tau)).toThrow('τ must be in (0, 1]: the share of k tries that must pass')
    expect(() => gPassAtK(3, 4, 2, 0.5)).toThrow('c (samples passed) must be <= n')
  })
})

describe('gPassThreshold', () => {
  it('is ⌈τk⌉, at least one, without floating-point surprises', () => {
    expect(gPassThreshold(16, 0.5)).toBe(8)
    expect(gPassThreshold(5, 0.5)).toBe(3)
    expect(gPassThreshold(10, 0.3)).toBe(3)
    expect(gPassThreshold(10, 0.7)).toBe(7)
    expect(gPassThreshold(4, 0.01)).toBe(1)
    expect(gPassThreshold(4, 1)).toBe(4)
  })
})

describe('gPassCurve and gPassInterval', () => {
  it('average over tasks, NaN where a task has fewer than k tries', () => {
    const curve = gPassCurve([{ taskId: 'a', n: 4, c: 2 }], 3, 0.5)
    expect(curve[0]).toBeCloseTo(0.5, 14)
    expect(curve[1]).toBeCloseTo(5 / 6, 14)
    expect(curve[2]).toBeCloseTo(0.5, 14)
    expect(gPassCurve([{ taskId: 'a', n: 2, c: 1 }], 3, 0.5)[2]).toBeNaN()
    const interval = gPassInterval(
      [
        { taskId: 'a', n: 10, c: 9 },
        { taskId: 'b', n: 10, c: 2 },
      ],
      4,
      0.5,
    )
    expect(interval.point).toBeCloseTo((gPassAtK(10, 9, 4, 0.5) + gPassAtK(10, 2, 4, 0.5)) / 2, 14)
    expect(interval.lo).toBeLessThanOrEqual(interval.point)
    expect(interval.hi).toBeGreaterThanOrEqual(interval.point)
    expect(gPassInterval([{ taskId: 'a', n: 3, c: 1 }], 4, 0.5).point).toBeNaN()
  })
})
