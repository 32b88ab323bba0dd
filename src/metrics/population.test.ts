// How much tasks differ, read three ways (repeats, two runs, independent samples), and the
// population the power simulation draws from.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  betaDraw,
  CONCENTRATION_RANGE,
  concentrationFromSamples,
  concentrationFromSpread,
  drawTaskRate,
  perAttemptSuccess,
  populationLogLikelihood,
  withinTaskVariance,
  withinVarianceFromPairs,
} from './population.js'
import { createRng } from './random.js'

describe('concentrationFromSpread', () => {
  it('inverts E[q(1 − q)] = m(1 − m) · c / (c + 1) inside the range, and clamps outside it', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        fc.double({ min: 0.06, max: 900, noNaN: true }),
        (mean, c) => {
          const within = (mean * (1 - mean) * c) / (c + 1)
          expect(concentrationFromSpread(within, mean)).toBeCloseTo(c, 6)
        },
      ),
      { seed: 31, numRuns: 200 },
    )
    expect(concentrationFromSpread(0.16, 0.8)).toBe(CONCENTRATION_RANGE[1])
    expect(concentrationFromSpread(0, 0.8)).toBe(CONCENTRATION_RANGE[0])
    expect(concentrationFromSpread(Number.NaN, 0.8)).toBe(CONCENTRATION_RANGE[1])
  })
})

describe('withinTaskVariance', () => {
  it('is unbiased for E[q(1 − q)]: seeded draws of 3 repeats of 4000 tasks land within 0.005', () => {
    const rng = createRng(5)
    const q = Array.from({ length: 4000 }, () => betaDraw(rng, 0.8, 0.2))
    const solved = q.map((x) => [0, 1, 2].filter(() => rng() < x).length)
    const truth = q.reduce((sum, x) => sum + x * (1 - x), 0) / q.length
    expect(
      withinTaskVariance(
        solved,
        q.map(() => 3),
      ),
    ).toBeCloseTo(truth, 2)
  })

  it('reads only tasks with two repeats or more; none gives NaN', () => {
    expect(withinTaskVariance([1, 2, 0], [2, 2, 2])).toBeCloseTo(0.5 / 3, 14)
    expect(withinTaskVariance([1, 1], [1, 2])).toBe(0.5)
    expect(withinTaskVariance([1], [1])).toBeNaN()
  })
})

describe('withinVarianceFromPairs', () => {
  it('with no change between two runs of one repeat, estimates E[q(1 − q)]', () => {
    const rng = createRng(6)
    const q = Array.from({ length: 6000 }, () => drawTaskRate(rng, { mean: 0.7, concentration: 1, budget: 5 }))
    const [a, b] = [0, 1].map(() => q.map((x) => (rng() < x ? 1 : 0)))
    const truth = q.reduce((sum, x) => sum + x * (1 - x), 0) / q.length
    expect(withinVarianceFromPairs(a!, b!, 1)).toBeCloseTo(truth, 2)
  })

  it('a real change only adds to it (tasks read as more alike), and NaN pairs are left out', () => {
    expect(withinVarianceFromPairs([1, 1, 0, 0], [1, 0, 0, 1], 1)).toBe(0.25)
    expect(withinVarianceFromPairs([1, 1, 1, 1], [0, 0, 1, 1], 1)).toBeGreaterThan(
      withinVarianceFromPairs([1, 1, 1, 1], [1, 1, 1, 1], 1),
    )
    expect(withinVarianceFromPairs([1, Number.NaN], [0, 1], 1)).toBe(0.5)
    expect(withinVarianceFromPairs([Number.NaN], [1], 1)).toBeNaN()
  })
})

describe('concentrationFromSamples', () => {
  it('recovers how alike tasks are from K independent samples each, one group per task', () => {
    for (const [c, lo, hi] of [
      [0.3, 0.15, 0.6],
      [5, 2.5, 12],
    ] as const) {
      const rng = createRng(7)
      const evidence = Array.from({ length: 400 }, () => {
        const p = perAttemptSuccess(drawTaskRate(rng, { mean: 0.6, concentration: c, budget: 5 }), 5)
        const successes = [0, 1, 2, 3, 4].filter(() => rng() < p).length
        return { successes, failures: 5 - successes }
      })
      const estimate = concentrationFromSamples(evidence, 0.6, 5)
      expect(estimate, `concentration ${c}`).toBeGreaterThan(lo)
      expect(estimate, `concentration ${c}`).toBeLessThan(hi)
    }
  })

  it('all-or-nothing tasks give the floor, and too little to read gives 1', () => {
    const split = [
      ...Array.from({ length: 20 }, () => ({ successes: 5, failures: 0 })),
      ...Array.from({ length: 20 }, () => ({ successes: 0, failures: 5 })),
    ]
    expect(concentrationFromSamples(split, 0.5, 5)).toBe(CONCENTRATION_RANGE[0])
    expect(concentrationFromSamples([{ successes: 1, failures: 0 }], 0.5, 5)).toBe(1)
  })
})

describe('populationLogLikelihood', () => {
  it('integrates to the exact Beta-binomial probability (within 0.5%: a quarter-logit grid)', () => {
    // One attempt with budget 1: p = q, so P(success) = E[q] = mean whatever the concentration.
    for (const concentration of [0.1, 1, 50]) {
      const population = { mean: 0.3, concentration, budget: 1 }
      expect(populationLogLikelihood([{ successes: 1, failures: 0 }], population)).toBeCloseTo(Math.log(0.3), 2)
      expect(populationLogLikelihood([{ successes: 0, failures: 1 }], population)).toBeCloseTo(Math.log(0.7), 2)
    }
    // Two samples: P(both) = E[q²] = m(m·c + 1)/(c + 1).
    const m = 0.3
    const c = 2
    expect(
      populationLogLikelihood([{ successes: 2, failures: 0 }], { mean: m, concentration: c, budget: 1 }),
    ).toBeCloseTo(Math.log((m * (m * c + 1)) / (c + 1)), 2)
  })
})
