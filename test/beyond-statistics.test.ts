// The statistics of issue 49 checked by seeded simulation, CI-sized (a few seconds): G-Pass@k_τ's
// estimator against the exact population value and its interval's coverage. The large runs are in
// studies/beyond-study.test.ts (npm run studies).
import { describe, expect, it } from 'vitest'
import { gPassStudy, populationGPass, TRY_POPULATIONS } from '../studies/beyond-study.js'

describe('G-Pass@k_τ over a population of tasks (seeded, 600 benchmarks per setting)', () => {
  it('the population value is the beta-binomial tail: uniform p gives (k + 1 − ⌈τk⌉)/(k + 1)', () => {
    // For p ~ Beta(1, 1) each count 0..k of k tries is equally likely.
    expect(populationGPass({ a: 1, b: 1 }, 5, 0.5)).toBeCloseTo(3 / 6, 14)
    expect(populationGPass({ a: 1, b: 1 }, 5, 1)).toBeCloseTo(1 / 6, 14)
    expect(populationGPass({ a: 1, b: 1 }, 4, 0.01)).toBeCloseTo(4 / 5, 14)
  })

  for (const [name, population] of Object.entries(TRY_POPULATIONS))
    it(`${name}: the estimate is unbiased and the 95% interval covers ≥ 95%, at 20 tasks × 5 tries and 40 × 10`, () => {
      for (const [tasks, tries] of [
        [20, 5],
        [40, 10],
      ] as const)
        for (const tau of [0.5, 0.75]) {
          const r = gPassStudy(population, { tasks, tries, k: 5, tau, benchmarks: 600 })
          const where = `${name}, ${tasks} tasks × ${tries} tries, τ = ${tau}: truth ${r.truth.toFixed(3)}, coverage ${(r.coverage * 100).toFixed(1)}%`
          expect(Math.abs(r.bias), where).toBeLessThan(3.5 * r.biasSe + 1e-9)
          expect(r.coverage, where).toBeGreaterThanOrEqual(0.95)
          expect(r.zeroWidth, where).toBe(0)
        }
    })
})
