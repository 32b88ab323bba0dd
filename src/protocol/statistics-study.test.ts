// The statistics' promises, checked by seeded simulation (issue 14): coverage at the ceiling and in
// the middle for small N, the gate's false alarms with one and several gated k, its power, and the
// bias of each error policy. Small enough for the suite; scripts/statistics-tables.ts runs them large.
import { describe, expect, it } from 'vitest'
import { gatePower } from './gate-power.js'
import type { GateRule } from './gate-rule.js'
import { differenceCoverage, errorBias, gateFalseAlarms, intervalCoverage, passAtCoverage, pooledShareCoverage, populationPooledShare, populationSeqAt, POPULATIONS, REVISION_POPULATIONS } from './statistics-study.js'

const rule = (ks: number[], maxDrop = 0.1): GateRule => ({ K: 5, ks, independent: false, margin: 0, maxDrop, level: 0.95 })

describe('populationSeqAt', () => {
  it('is exact: 1 − E[(1 − p)^k] for p ~ Beta(a, b)', () => {
    // Beta(1, 1) is uniform: E[(1 − p)^k] = 1 / (k + 1).
    expect(populationSeqAt({ a: 1, b: 1, budget: 5 })).toBeCloseTo(5 / 6, 14)
    expect(populationSeqAt(POPULATIONS.ceiling)).toBeGreaterThan(0.95)
    expect(populationSeqAt(POPULATIONS.middle)).toBeCloseTo(0.769, 3)
  })
})

describe('interval coverage (korn-graubard/1)', () => {
  it('at the ceiling (Seq@5 ≈ 95%) with 10 and 20 tasks × 1 repeat: ≥ 92%, never zero-width', () => {
    for (const tasks of [10, 20]) {
      const result = intervalCoverage(POPULATIONS.ceiling, tasks, 1, 400)
      expect(result.coverage, `${tasks} tasks`).toBeGreaterThanOrEqual(0.92)
      expect(result.zeroWidth).toBe(0)
    }
  })

  it('in the middle and low with 10–40 tasks and 1–3 repeats: ≥ 92%', () => {
    for (const population of [POPULATIONS.middle, POPULATIONS.low]) {
      for (const [tasks, repeats] of [[10, 3], [20, 1], [40, 3]] as const) {
        expect(intervalCoverage(population, tasks, repeats, 300).coverage, `${population.a}/${population.b} ${tasks}×${repeats}`).toBeGreaterThanOrEqual(0.92)
      }
    }
  })

  it('Pass@5 from independent samples, at the ceiling and in the middle: ≥ 92%, never zero-width', () => {
    for (const population of [POPULATIONS.ceiling, POPULATIONS.middle]) {
      const result = passAtCoverage(population, 10, 1, 300)
      expect(result.coverage).toBeGreaterThanOrEqual(0.92)
      expect(result.zeroWidth).toBe(0)
    }
  })

  it('the paired difference: ≥ 92% with no change and with a real drop, never zero-width', () => {
    for (const scale of [1, 0.6]) {
      const result = differenceCoverage(POPULATIONS.middle, 20, 3, scale, 300)
      expect(result.coverage, `scale ${scale}`).toBeGreaterThanOrEqual(0.92)
      expect(result.zeroWidth).toBe(0)
    }
    // Two identical runs at the ceiling: every task unchanged, still an interval of some width.
    expect(differenceCoverage(POPULATIONS.ceiling, 10, 1, 1, 200).zeroWidth).toBe(0)
  })
})

describe('gate false alarms (seqk.gate/2)', () => {
  it('with Seq@5 alone: ≤ 5% from 8 tasks up, maxDrop included', () => {
    for (const [tasks, repeats] of [[8, 1], [8, 3], [20, 3]] as const) {
      expect(gateFalseAlarms(POPULATIONS.middle, tasks, repeats, rule([5]), 400), `${tasks}×${repeats}`).toBeLessThanOrEqual(0.05)
    }
  })

  it('with Seq@1..5 all gated (Holm): ≤ 5% family-wise, where a maxDrop at every k gave 22%', () => {
    for (const [tasks, repeats] of [[8, 1], [20, 1], [40, 3]] as const) {
      expect(gateFalseAlarms(POPULATIONS.middle, tasks, repeats, rule([1, 2, 3, 4, 5]), 400), `${tasks}×${repeats}`).toBeLessThanOrEqual(0.05)
    }
  })
})

describe('gate power', () => {
  it('grows with the drop and the tasks, and a large benchmark catches a 10-point drop', () => {
    const at = (tasks: number, drop: number) => gatePower({ tasks, repeats: 3, rate: 0.75, concentration: 1, rule: rule([5]), simulations: 150 }, drop)
    const small = [0.05, 0.1, 0.2].map((d) => at(40, d))
    expect(small).toEqual([...small].sort((a, b) => a - b))
    expect(at(164, 0.1)).toBeGreaterThanOrEqual(0.9)
    expect(at(164, 0.1)).toBeGreaterThan(at(40, 0.1))
    // No drop: power is the false-alarm rate.
    expect(at(40, 0)).toBeLessThanOrEqual(0.05)
  })
})

describe('error bias (memoryless actor, Seq@5 = 91.9%)', () => {
  it("errors: 'censored' stays within 1 point at 5% per-call errors; the two simple rules do not", () => {
    const bias = errorBias({ a: 15, b: 21, budget: 5 }, 300, 3, 0.05, 40)
    expect(Math.abs(bias.censored)).toBeLessThanOrEqual(0.01)
    expect(bias.leftOut).toBeGreaterThan(0.005)
    expect(bias.asFailures).toBeLessThan(-0.05)
  })
})

describe('pooled share of clustered revisions (korn-graubard-ratio/1)', () => {
  it('the population pooled share is exact: E[m·q]/E[m] for q ~ Beta(a, b), m ~ Binomial(M, 1 − q)', () => {
    // Beta(1, 1): E[q] = 1/2, E[q²] = 1/3, so (1/2 − 1/3) / (1/2) = 1/3.
    expect(populationPooledShare(REVISION_POPULATIONS.middle)).toBeCloseTo(1 / 3, 14)
  })

  it('covers the pooled share near its 95% level for 20–100 tasks × 1–3 repeats, where a binomial interval over revisions does not', () => {
    for (const [name, population] of Object.entries(REVISION_POPULATIONS)) {
      for (const [tasks, repeats] of [[20, 1], [30, 3], [100, 3]] as const) {
        const { coverage } = pooledShareCoverage(population, tasks, repeats, 400)
        expect(coverage, `${name} ${tasks}×${repeats}`).toBeGreaterThanOrEqual(0.93)
        expect(coverage, `${name} ${tasks}×${repeats}`).toBeLessThanOrEqual(tasks >= 100 ? 0.985 : 1)
      }
    }
    // Revisions of different tasks, pooled as if independent: the naive interval promises 95% and gives about 78%.
    expect(pooledShareCoverage(REVISION_POPULATIONS.middle, 30, 3, 400, 1, 'binomial').coverage).toBeLessThan(0.85)
  })
})
