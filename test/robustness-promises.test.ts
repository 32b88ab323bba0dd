/**
 * The robustness ratio's promise (docs/robustness.md): its 95% interval covers the population's
 * ratio of Seq@K reworded over Seq@K original at least 95% of the time, in settings from a dozen
 * tasks to two hundred, one repeat or several, rewordings that only hurt (as the bundled simulated
 * actors' do) or that flip tasks both ways. The floor is the promise less two Monte-Carlo standard
 * errors of the run that checks it (as test/statistics-promises.test.ts).
 */
import { describe, expect, it } from 'vitest'
import { ratioCoverage, type RobustnessSetting } from '../studies/robustness-study.js'

const floor = (promised: number, n: number) => promised - 2 * Math.sqrt((promised * (1 - promised)) / n)

const SETTINGS: Record<string, RobustnessSetting> = {
  'a small benchmark, a third of tasks hurt, one repeat': {
    tasks: 12,
    repeats: 1,
    a: 2,
    b: 2,
    sensitive: 0.3,
    keep: 0.3,
    coupled: true,
  },
  'a high pass rate and few tasks hurt (few flips in a sample)': {
    tasks: 20,
    repeats: 1,
    a: 6,
    b: 1,
    sensitive: 0.1,
    keep: 0.5,
    coupled: true,
  },
  'no effect, wording noise flips tasks both ways, three repeats': {
    tasks: 50,
    repeats: 3,
    a: 1,
    b: 1.25,
    sensitive: 0,
    keep: 1,
    coupled: false,
  },
  'a large benchmark, half the tasks hurt, two repeats': {
    tasks: 100,
    repeats: 2,
    a: 0.7,
    b: 0.7,
    sensitive: 0.5,
    keep: 0.6,
    coupled: true,
  },
}

describe('the robustness ratio interval (seqEval perturb)', () => {
  const B = 1500
  for (const [name, setting] of Object.entries(SETTINGS))
    it(`covers at least 95%: ${name}`, () => {
      const result = ratioCoverage(setting, B, 49)
      expect(result.coverage).toBeGreaterThanOrEqual(floor(0.95, B))
      // An interval that is always unbounded would cover trivially.
      expect(result.unbounded).toBeLessThan(0.05)
    })
})
