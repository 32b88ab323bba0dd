import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { passHatInterval, passHatK } from './pass-hat-k.js'
import { seqAtCurve } from './seq-at-k.js'
import { seqHatCurve, seqHatInterval } from './seq-hat-k.js'

const K = 5
const outcomesArb = fc.array(
  fc.record({
    taskId: fc.constant('t'),
    firstSuccess: fc.array(fc.option(fc.integer({ min: 1, max: 7 }), { nil: null }), { minLength: 0, maxLength: 6 }),
  }),
  { minLength: 1, maxLength: 12 },
)

function binomial(n: number, k: number): number {
  let value = 1
  for (let i = 1; i <= k; i++) value = (value * (n - k + i)) / i
  return value
}

describe('Seq^k', () => {
  it('is the brute-force share of tasks every repeat of which solved within k', () => {
    fc.assert(
      fc.property(outcomesArb, (outcomes) => {
        const curve = seqHatCurve(outcomes, K)
        const used = outcomes.filter((o) => o.firstSuccess.length > 0)
        for (let k = 1; k <= K; k++) {
          const brute =
            used.length === 0
              ? Number.NaN
              : used.filter((o) => o.firstSuccess.every((f) => f !== null && f <= k)).length / used.length
          expect(curve[k - 1]).toBe(brute)
          expect(seqHatInterval(outcomes, k).point).toBe(brute)
        }
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('rises with k, never exceeds Seq@k, and is Seq@k at one repeat', () => {
    fc.assert(
      fc.property(outcomesArb, (outcomes) => {
        fc.pre(outcomes.some((o) => o.firstSuccess.length > 0))
        const hat = seqHatCurve(outcomes, K)
        const seq = seqAtCurve(outcomes, K)
        for (let k = 1; k <= K; k++) {
          expect(hat[k - 1]!).toBeLessThanOrEqual(seq[k - 1]! + 1e-12)
          if (k > 1) expect(hat[k - 1]!).toBeGreaterThanOrEqual(hat[k - 2]!)
        }
        const single = outcomes.map((o) => ({ ...o, firstSuccess: o.firstSuccess.slice(0, 1) }))
        expect(seqHatCurve(single, K)).toEqual(seqAtCurve(single, K))
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('is unbiased for p^r, exactly: its expectation over every outcome of r repeats', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 8 }), (p, r) => {
        // The task's share solved within k is Binomial(r, p); Seq^k reads [c = r].
        let expected = 0
        for (let c = 0; c <= r; c++) expected += binomial(r, c) * p ** c * (1 - p) ** (r - c) * (c === r ? 1 : 0)
        expect(expected).toBeCloseTo(p ** r, 12)
      }),
      { seed: 42, numRuns: 100 },
    )
  })
})

describe('pass^k interval', () => {
  it('has pass^k as its point, and is unbiased for p^k over every outcome of n samples', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 10 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 1, max: n }))),
        (p, [n, k]) => {
          let expected = 0
          for (let c = 0; c <= n; c++) expected += binomial(n, c) * p ** c * (1 - p) ** (n - c) * passHatK(n, c, k)
          expect(expected).toBeCloseTo(p ** k, 10)
        },
      ),
      { seed: 42, numRuns: 100 },
    )
    const samples = [
      { taskId: 'a', n: 10, c: 9 },
      { taskId: 'b', n: 10, c: 2 },
    ]
    expect(passHatInterval(samples, 2).point).toBeCloseTo((0.8 + 1 / 45) / 2, 12)
    expect(passHatInterval([{ taskId: 'a', n: 1, c: 1 }], 2).point).toBeNaN()
  })
})
