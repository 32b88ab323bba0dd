/**
 * The statistics' promises, each checked by a seeded simulation small enough for every `npm test`
 * (the studies/ runs of the same functions are larger, in the long lane): what docs/statistics.md
 * says of the reliability block under errors, of censored rates, of a rate's interval, of the
 * power the gate reports and of the reliability intervals. A test fails when its promise does not
 * hold; each floor is the promise less two Monte-Carlo standard errors of the run that checks it.
 */
import { describe, expect, it } from 'vitest'
import { ERROR_FIGURES, reliabilityErrorStudy } from '../studies/reliability-errors.js'
import {
  errorStudy,
  namedDropPower,
  POPULATIONS,
  powerAccuracy,
  predictionCoverage,
  taskRateTruth,
} from '../studies/statistics-study.js'
import { RELIABILITY_FIGURES, reliabilityCoverage, TRY_POPULATIONS } from '../studies/reliability-study.js'

/** A coverage of `promised` read over n draws: the promise less two Monte-Carlo standard errors. */
const floor = (promised: number, n: number) => promised - 2 * Math.sqrt((promised * (1 - promised)) / n)

describe('the reliability block under errors (docs/statistics.md, Reliability: Errors)', () => {
  const B = 120
  for (const mechanism of ['none', 'failing-attempts', 'hard-tasks', 'hard-tasks-extreme'] as const) {
    it(`errors on ${mechanism}: every figure's 95% interval holds it`, () => {
      const result = reliabilityErrorStudy(POPULATIONS.middle, 100, 3, mechanism, 0.025, B, { seed: 11 })
      expect(result.errored).toBeGreaterThan(0.04)
      for (const f of ERROR_FIGURES) expect(result.figures[f].coverage, f).toBeGreaterThanOrEqual(floor(0.95, B))
    })
  }

  it('errors at random: every figure within a point of what the full repeats estimate', () => {
    const result = reliabilityErrorStudy(POPULATIONS.middle, 200, 3, 'none', 0.03, B, { seed: 12 })
    expect(result.errored).toBeGreaterThan(0.06)
    for (const f of ERROR_FIGURES)
      expect(Math.abs(result.figures[f].bias), f).toBeLessThanOrEqual(0.01 + 2 * result.figures[f].se)
  })
})

describe('censored rates (docs/statistics.md, Errors)', () => {
  const population = { a: 1, b: 1.25, budget: 5 }
  const B = 300

  it('errors at random: the censored Seq@5 within a point', () => {
    const result = errorStudy(population, 200, 1, 'none', 0.042, 150, 13)
    expect(Math.abs(result.bias.censored)).toBeLessThanOrEqual(0.01 + 2 * result.se)
  })

  for (const [rate, errored] of [
    [0.0003, '1%'],
    [0.00075, '3%'],
    [0.0045, '11%'],
  ] as const) {
    it(`errors on hard tasks, ${errored} errored, one repeat: the bounds bracket the truth and the interval covers 95%`, () => {
      const result = errorStudy(population, 200, 1, 'hard-tasks-extreme', rate, B, 14)
      // In expectation, within the Monte-Carlo error of the mean (the censored estimate's, alike).
      expect(result.bias.asFailures).toBeLessThanOrEqual(2 * result.se)
      expect(result.bias.asSuccesses).toBeGreaterThanOrEqual(-2 * result.se)
      expect(result.reported.coverage).toBeGreaterThanOrEqual(floor(0.95, B))
    })
  }
})

describe("a rate's interval is a confidence interval for the rate, not a prediction interval", () => {
  it('holds the population rate in 95 of 100 benchmarks; another draw of as many tasks lands in it less often', () => {
    for (const [name, tasks] of [
      ['middle', 40],
      ['ceiling', 164],
    ] as const) {
      const B = 600
      const result = predictionCoverage(POPULATIONS[name], tasks, 1, B, 15)
      expect(result.coverage, name).toBeGreaterThanOrEqual(floor(0.95, B))
      // The docs say 73–90% for another draw; at these sizes it is well under the 95% it was once promised.
      expect(result.prediction, name).toBeLessThan(0.93)
      expect(result.prediction, name).toBeGreaterThan(0.7)
    }
  })
})

describe('the power the gate reports (docs/statistics.md, Power)', () => {
  const truth = taskRateTruth(0.75, 1)
  const options = { pairs: 300, runs: 8, simulations: 120, seed: 16 }

  for (const alternative of ['proportional', 'concentrated'] as const) {
    it(`40 tasks × 3 repeats, a 10-point drop ${alternative}: reported within 8 points of the simulated power`, () => {
      const result = powerAccuracy(truth, 40, 3, 0.1, alternative, options)
      const error = Math.hypot(result.se.simulated, result.se.reported)
      expect(Math.abs(result.reported - result.simulated)).toBeLessThanOrEqual(0.08 + 2 * error)
    })
  }

  it('the drop it names as caught 80% of the time is caught 65–95% of the time', () => {
    const runs = namedDropPower(truth, 40, 3, 'concentrated', { ...options, runs: 4 })
    expect(runs.length).toBeGreaterThan(0)
    const delivered = runs.reduce((s, r) => s + r.delivered, 0) / runs.length
    expect(delivered).toBeGreaterThanOrEqual(0.65)
    expect(delivered).toBeLessThanOrEqual(0.95)
  })
})

describe('the reliability intervals (docs/statistics.md, Reliability)', () => {
  const B = 800
  for (const [name, population] of Object.entries(TRY_POPULATIONS)) {
    it(`${name} tasks, N = 10 and 40, 2 and 10 tries: every interval covers at least 94%`, () => {
      for (const [tasks, tries] of [
        [10, 2],
        [10, 10],
        [40, 2],
      ] as const) {
        const coverage = reliabilityCoverage(population, tasks, tries, B, 17)
        for (const f of RELIABILITY_FIGURES)
          expect(coverage[f].coverage, `${f} at ${tasks} × ${tries}`).toBeGreaterThanOrEqual(floor(0.94, B))
      }
    })
  }
})
