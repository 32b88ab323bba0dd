import { describe, expect, it } from 'vitest'
import { resourceConsistency } from '../src/metrics/consistency.js'
import {
  RELIABILITY_FIGURES,
  reliabilityCoverage,
  reliabilityEstimands,
  RESOURCE_POPULATIONS,
  resourceCoverage,
  resourceEstimand,
  TRY_POPULATIONS,
} from './reliability-study.js'

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

describe('pass^k at a larger k keeps its promise (⌊n/k⌋ trials per task)', () => {
  for (const [name, population] of Object.entries(TRY_POPULATIONS)) {
    for (const [tries, k] of [
      [5, 5],
      [10, 5],
      [10, 3],
    ] as const) {
      it(`${name} tasks, N = 10, ${tries} samples: pass^${k}'s 95% interval covers at least 94% of 400 benchmarks`, () => {
        expect(reliabilityCoverage(population, 10, tries, 400, 11, k).passHat.coverage).toBeGreaterThanOrEqual(0.94)
      })
    }
  }
})

describe("resource consistency's interval keeps its promise (seeded coverage study)", () => {
  it('the estimand is E[exp(−CV)]: constant tasks give 1, and a huge benchmark lands on it', () => {
    expect(resourceEstimand({ kind: 'mixed', constant: 1, sigma: 1 }, 3, 1000)).toBe(1)
    const truth = resourceEstimand(RESOURCE_POPULATIONS.tokens, 5)
    // 4000 tasks from another seed: the interval is about ±1 point wide and holds the estimand.
    expect(resourceCoverage(RESOURCE_POPULATIONS.tokens, 4000, 5, 5, 3, truth).coverage).toBeGreaterThanOrEqual(0.8)
    // Skewed coefficients (one task far more variable): the corrected interval still holds its point.
    const i = resourceConsistency([
      [1, 1],
      [1, 1.1],
      [1, 1.2],
      [1, 3],
      [1, 1],
      [2, 2.1],
      [1, 1.05],
      [4, 1],
      [1, 1],
      [1, 1],
    ])
    expect(i.lo).toBeLessThan(i.point)
    expect(i.hi).toBeGreaterThan(i.point)
  })

  // 2000 benchmarks: a coverage's Monte-Carlo standard error is 0.5 points, so 94% less two of them.
  const B = 2000
  const floor = 0.94 - 2 * Math.sqrt((0.95 * 0.05) / B)
  for (const [name, population] of Object.entries(RESOURCE_POPULATIONS)) {
    for (const repeats of [2, 10]) {
      it(`${name}, N = 10, ${repeats} repeats: the 95% interval covers at least ${(floor * 100).toFixed(1)}% of ${B} benchmarks`, () => {
        const coverage = resourceCoverage(population, 10, repeats, B, 11, resourceEstimand(population, repeats, 50_000))
        expect(coverage.coverage).toBeGreaterThanOrEqual(floor)
      })
    }
  }
})
