import { describe, expect, it } from 'vitest'
import { RELIABILITY_FIGURES, reliabilityCoverage, reliabilityEstimands, TRY_POPULATIONS } from './reliability-study.js'

describe('the reliability intervals keep their promise (seeded coverage study, small)', () => {
  it('the estimands are exact: a huge simulated benchmark lands on them', () => {
    // 4000 tasks: each Clopper–Pearson interval is about ±1.5 points around the estimand.
    const coverage = reliabilityCoverage(TRY_POPULATIONS.flaky, 4000, 4, 20, 3)
    for (const f of RELIABILITY_FIGURES) expect(coverage[f].coverage, f).toBeGreaterThanOrEqual(0.8)
    const truth = reliabilityEstimands({ a: 1, b: 1 }, 2, 2)
    // q ~ Uniform: Cover@1 at 2 tries = E[q²] = 1/3; consistency = 1 − 4·(1/2)·E[q(1 − q)] = 2/3.
    expect(truth.cover100).toBeCloseTo(1 / 3, 12)
    expect(truth.consistency).toBeCloseTo(2 / 3, 12)
  })

  for (const [name, population] of Object.entries(TRY_POPULATIONS)) {
    for (const tries of [2, 10]) {
      it(`${name} tasks, N = 10, ${tries} tries: every 95% interval covers at least 94% of 400 benchmarks`, () => {
        const coverage = reliabilityCoverage(population, 10, tries, 400, 11)
        for (const f of RELIABILITY_FIGURES) expect(coverage[f].coverage, f).toBeGreaterThanOrEqual(0.94)
      })
    }
  }
})
