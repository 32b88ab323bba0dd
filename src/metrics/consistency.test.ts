import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { coefficientOfVariation, outcomeConsistency, outcomeConsistencyOf, resourceConsistency } from './consistency.js'

const countsArb = fc.integer({ min: 0, max: 20 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n })))

describe('outcome consistency', () => {
  it('matches hand values and is NaN below two tries', () => {
    expect(outcomeConsistency(4, 2)).toBe(0)
    expect(outcomeConsistency(4, 4)).toBe(1)
    expect(outcomeConsistency(4, 0)).toBe(1)
    expect(outcomeConsistency(4, 1)).toBeCloseTo(0.25, 12)
    expect(outcomeConsistency(1, 1)).toBeNaN()
  })

  it('is symmetric in pass and fail, in [0, 1], and 1 exactly when every try ends alike', () => {
    fc.assert(
      fc.property(countsArb, ([n, c]) => {
        fc.pre(n >= 2)
        const v = outcomeConsistency(n, c)
        expect(v).toBeCloseTo(outcomeConsistency(n, n - c), 12)
        expect(v).toBeGreaterThanOrEqual(0)
        expect(v).toBeLessThanOrEqual(1)
        expect(v === 1).toBe(c === 0 || c === n)
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('over tasks: the brute-force mean and inconsistent share of the tasks with two tries or more', () => {
    fc.assert(
      fc.property(fc.array(countsArb, { minLength: 1, maxLength: 15 }), (counts) => {
        const tries = counts.map(([n, c], i) => ({ taskId: `t${i}`, n, c }))
        const used = tries.filter((t) => t.n >= 2)
        const result = outcomeConsistencyOf(tries)
        if (used.length === 0) {
          expect(result.mean.point).toBeNaN()
          return
        }
        const brute = used.reduce((s, t) => s + 1 - 4 * (t.c / t.n) * (1 - t.c / t.n), 0) / used.length
        expect(result.mean.point).toBeCloseTo(brute, 12)
        expect(result.inconsistent.point).toBe(used.filter((t) => t.c !== 0 && t.c !== t.n).length / used.length)
      }),
      { seed: 42, numRuns: 300 },
    )
  })
})

describe('resource consistency', () => {
  it('matches hand values; an unknown is never taken as 0', () => {
    expect(coefficientOfVariation([2, 2, 2])).toBe(0)
    expect(coefficientOfVariation([1, 3])).toBeCloseTo(Math.SQRT2 / 2, 12)
    expect(coefficientOfVariation([1, null])).toBeNaN()
    expect(coefficientOfVariation([1])).toBeNaN()
    expect(
      resourceConsistency([
        [3, 3],
        [1, 3],
      ]).point,
    ).toBeCloseTo((1 + Math.exp(-Math.SQRT2 / 2)) / 2, 12)
    expect(resourceConsistency([[1, null]]).point).toBeNaN()
    // Every task constant: 1, and never a zero-width interval (two tasks say little).
    const constant = resourceConsistency([
      [5, 5],
      [2, 2],
    ])
    expect(constant).toMatchObject({ point: 1, hi: 1, method: 'mean-exp-neg-cv-hall-t/1' })
    expect(constant.lo).toBeLessThan(0.9)
  })

  it('is the mean of exp(−CV) as the HAL reference code aggregates it, by brute force; unchanged when a task is scaled; its interval holds the point', () => {
    const valuesArb = fc.array(fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 2, maxLength: 6 }), {
      minLength: 2,
      maxLength: 10,
    })
    fc.assert(
      fc.property(valuesArb, fc.integer({ min: 2, max: 9 }), (perTask, scale) => {
        const cv = (xs: number[]) => {
          const m = xs.reduce((a, b) => a + b, 0) / xs.length
          return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1)) / m
        }
        const brute = perTask.reduce((s, xs) => s + Math.exp(-cv(xs)), 0) / perTask.length
        const r = resourceConsistency(perTask)
        expect(r.point).toBeCloseTo(brute, 12)
        expect(
          resourceConsistency(perTask.map((xs, i) => (i === 0 ? xs.map((x) => x * scale) : xs))).point,
        ).toBeCloseTo(brute, 12)
        expect(r.lo).toBeLessThanOrEqual(r.point + 1e-12)
        expect(r.hi).toBeGreaterThanOrEqual(r.point - 1e-12)
        expect(r.hi).toBeLessThanOrEqual(1)
        expect(r.lo).toBeGreaterThanOrEqual(0)
        // exp(−mean CV), the figure before, is never above it (Jensen).
        expect(Math.exp(-perTask.reduce((s, xs) => s + cv(xs), 0) / perTask.length)).toBeLessThanOrEqual(
          r.point + 1e-12,
        )
      }),
      { seed: 42, numRuns: 200 },
    )
  })
})
