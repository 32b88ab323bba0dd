// The large runs of issue 49's statistics (test/beyond-statistics.test.ts runs them small).
import { describe, expect, it } from 'vitest'
import { gPassStudy, TRY_POPULATIONS } from './beyond-study.js'

describe('G-Pass@k_τ: 4000 benchmarks per setting', () => {
  it('unbiased and covering ≥ 95% from 10 tasks × 5 tries to 40 × 15, τ = 0.5 and 0.75, k = 5 and 8', () => {
    for (const population of Object.values(TRY_POPULATIONS))
      for (const [tasks, tries, k] of [
        [10, 5, 5],
        [20, 5, 5],
        [40, 15, 5],
        [20, 16, 8],
      ] as const)
        for (const tau of [0.5, 0.75]) {
          const r = gPassStudy(population, { tasks, tries, k, tau, benchmarks: 4000, seed: 2 })
          const where = `Beta(${population.a}, ${population.b}), ${tasks} × ${tries}, k ${k}, τ ${tau}: ${(r.coverage * 100).toFixed(1)}%`
          expect(Math.abs(r.bias), where).toBeLessThan(3.5 * r.biasSe + 1e-9)
          expect(r.coverage, where).toBeGreaterThanOrEqual(0.95)
        }
  })
})
