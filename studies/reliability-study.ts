/**
 * A seeded coverage study of the reliability metrics' intervals. Each task's chance q that one try
 * succeeds (a sample, or a whole trajectory within the budget) is drawn from Beta(a, b); a task has
 * r tries; every metric here reads only how many of them succeeded, so one study serves sequential
 * and independent cells alike. The estimands are exact (beta-binomial moments): what the estimator
 * promises at r tries per task, over the population of tasks. `npm run studies` runs it
 * small (reliability-study.test.ts); `scripts/statistics-tables.ts` runs it large for docs/statistics.md.
 */
import { coverAtInterval } from '../src/metrics/cover-at.js'
import { coefficientOfVariation, outcomeConsistencyOf, resourceConsistency } from '../src/metrics/consistency.js'
import type { Interval } from '../src/metrics/intervals.js'
import type { SampleCounts } from '../src/metrics/pass-at-k.js'
import { passHatInterval } from '../src/metrics/pass-hat-k.js'
import { betaDraw } from '../src/metrics/population.js'
import { createRng, type Rng } from '../src/metrics/random.js'

/** A population of tasks: each task's success chance per try q ~ Beta(a, b). */
export interface TryPopulation {
  a: number
  b: number
}

/** The study's populations: most tasks reliable, most tasks flaky, and half and half (capable but inconsistent). */
export const TRY_POPULATIONS = {
  reliable: { a: 4, b: 0.6 },
  flaky: { a: 1.2, b: 1.2 },
  split: { a: 0.3, b: 0.3 },
} as const satisfies Record<string, TryPopulation>

/** E[q^m (1 − q)^l] for q ~ Beta(a, b). */
function moment(p: TryPopulation, m: number, l: number): number {
  let value = 1
  for (let j = 0; j < m; j++) value *= (p.a + j) / (p.a + p.b + j)
  for (let j = 0; j < l; j++) value *= (p.b + j) / (p.a + m + p.b + j)
  return value
}

function binomial(n: number, k: number): number {
  let value = 1
  for (let i = 1; i <= k; i++) value = (value * (n - k + i)) / i
  return value
}

/** What each interval estimates at r tries per task, exactly. */
export function reliabilityEstimands(p: TryPopulation, tries: number, k: number): Record<ReliabilityFigure, number> {
  const least = Math.ceil(0.5 * tries - 1e-9)
  let coverHalf = 0
  for (let c = least; c <= tries; c++) coverHalf += binomial(tries, c) * moment(p, c, tries - c)
  const all = moment(p, tries, 0)
  return {
    cover50: coverHalf,
    cover100: all,
    // Seq^K over r repeats is Cover@1: every try solved.
    passHat: moment(p, k, 0),
    consistency: 1 - 4 * (1 - 1 / tries) * moment(p, 1, 1),
    inconsistent: 1 - all - moment(p, 0, tries),
  }
}

/** The figures the study covers. */
export const RELIABILITY_FIGURES = ['cover50', 'cover100', 'passHat', 'consistency', 'inconsistent'] as const
/** One figure of the study: Cover@0.5, Cover@1 (= Seq^K), pass^k, consistency's mean, the inconsistent share. */
export type ReliabilityFigure = (typeof RELIABILITY_FIGURES)[number]

/** Each figure's coverage (share of simulated benchmarks whose interval held the estimand) and mean width. */
export type ReliabilityCoverage = Record<ReliabilityFigure, { coverage: number; width: number }>

function drawTries(rng: Rng, p: TryPopulation, tasks: number, tries: number): SampleCounts[] {
  return Array.from({ length: tasks }, (_, i) => {
    const q = betaDraw(rng, p.a, p.b)
    let c = 0
    for (let j = 0; j < tries; j++) if (rng() < q) c++
    return { taskId: `t${i}`, n: tries, c }
  })
}

/**
 * The coverage of each reliability interval over `benchmarks` simulated benchmarks of `tasks`
 * tasks with `tries` tries each; pass^k at k = `passK` (default 2, at most the tries).
 *
 * @example
 * reliabilityCoverage(TRY_POPULATIONS.flaky, 10, 5, 200).cover100.coverage // ≈ 0.97
 */
export function reliabilityCoverage(
  p: TryPopulation,
  tasks: number,
  tries: number,
  benchmarks: number,
  seed = 1,
  passK = 2,
): ReliabilityCoverage {
  const rng = createRng(seed)
  const k = Math.min(passK, tries)
  const truth = reliabilityEstimands(p, tries, k)
  const held = Object.fromEntries(RELIABILITY_FIGURES.map((f) => [f, { coverage: 0, width: 0 }])) as ReliabilityCoverage
  for (let b = 0; b < benchmarks; b++) {
    const sample = drawTries(rng, p, tasks, tries)
    const outcome = outcomeConsistencyOf(sample)
    const intervals: Record<ReliabilityFigure, Interval> = {
      cover50: coverAtInterval(sample, 0.5),
      cover100: coverAtInterval(sample, 1),
      passHat: passHatInterval(sample, k),
      consistency: outcome.mean,
      inconsistent: outcome.inconsistent,
    }
    for (const f of RELIABILITY_FIGURES) {
      const i = intervals[f]
      if (i.lo - 1e-12 <= truth[f] && truth[f] <= i.hi + 1e-12) held[f].coverage++
      held[f].width += i.hi - i.lo
    }
  }
  for (const f of RELIABILITY_FIGURES)
    held[f] = { coverage: held[f].coverage / benchmarks, width: held[f].width / benchmarks }
  return held
}

/**
 * How a task's repeats spend a resource in the resource-consistency study: `lognormal` draws each
 * repeat's use as exp(σ·Z) with the task's σ uniform in [lo, hi] (tokens, cost: always positive);
 * `attempts` draws each repeat's attempts used, min(K, first success) with the task's per-attempt
 * chance q ~ Beta(a, b) (integers, many ties); `mixed` makes each task constant (CV 0) with chance
 * `constant`, else lognormal at σ (a skewed spread of CVs).
 */
export type ResourcePopulation =
  | { kind: 'lognormal'; lo: number; hi: number }
  | { kind: 'attempts'; a: number; b: number; K: number }
  | { kind: 'mixed'; constant: number; sigma: number }

/** The resource study's settings: tokens that vary a little, heavy-tailed cost, attempts used at K = 5, half the tasks constant. */
export const RESOURCE_POPULATIONS = {
  tokens: { kind: 'lognormal', lo: 0.05, hi: 0.6 },
  heavy: { kind: 'lognormal', lo: 0.2, hi: 1.5 },
  attempts: { kind: 'attempts', a: 1.2, b: 1.2, K: 5 },
  mixed: { kind: 'mixed', constant: 0.5, sigma: 1 },
} as const satisfies Record<string, ResourcePopulation>

function normalDraw(rng: Rng): number {
  const u = Math.max(rng(), 1e-300)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng())
}

/** One task's use of the resource over its repeats. */
function drawUses(rng: Rng, p: ResourcePopulation, repeats: number): number[] {
  if (p.kind === 'attempts') {
    const q = betaDraw(rng, p.a, p.b)
    return Array.from({ length: repeats }, () => {
      let k = 1
      while (k < p.K && rng() >= q) k++
      return k
    })
  }
  if (p.kind === 'mixed' && rng() < p.constant) return Array.from({ length: repeats }, () => 1)
  const sigma = p.kind === 'mixed' ? p.sigma : p.lo + (p.hi - p.lo) * rng()
  return Array.from({ length: repeats }, () => Math.exp(sigma * normalDraw(rng)))
}

/**
 * What resource consistency estimates at `repeats` repeats per task: E[exp(−CV)], the population
 * mean of exp(−CV) of a task's sample coefficient of variation over that many repeats (`aggregate:
 * 'exp-of-mean'`: exp(−E[CV]), the figure before `mean-exp-neg-cv-hall-t/1`). Not a closed form:
 * a seeded Monte-Carlo mean over `draws` tasks (its error about 0.001 at the default).
 *
 * @example
 * resourceEstimand(RESOURCE_POPULATIONS.tokens, 5) // ≈ 0.75
 */
export function resourceEstimand(
  p: ResourcePopulation,
  repeats: number,
  draws = 200_000,
  seed = 99,
  aggregate: 'mean-of-exp' | 'exp-of-mean' = 'mean-of-exp',
): number {
  const rng = createRng(seed)
  let sum = 0
  for (let i = 0; i < draws; i++) {
    const cv = coefficientOfVariation(drawUses(rng, p, repeats))
    sum += aggregate === 'mean-of-exp' ? Math.exp(-cv) : cv
  }
  return aggregate === 'mean-of-exp' ? sum / draws : Math.exp(-sum / draws)
}

/**
 * The coverage of resource consistency's 95% interval over `benchmarks` simulated benchmarks of
 * `tasks` tasks with `repeats` repeats each, against {@link resourceEstimand} (pass it as `truth`
 * to reuse it across calls).
 *
 * @example
 * resourceCoverage(RESOURCE_POPULATIONS.heavy, 10, 5, 400).coverage // ≈ 0.94
 */
export function resourceCoverage(
  p: ResourcePopulation,
  tasks: number,
  repeats: number,
  benchmarks: number,
  seed = 1,
  truth = resourceEstimand(p, repeats),
): { coverage: number; width: number } {
  const rng = createRng(seed)
  let held = 0
  let width = 0
  for (let b = 0; b < benchmarks; b++) {
    const i = resourceConsistency(Array.from({ length: tasks }, () => drawUses(rng, p, repeats)))
    if (i.lo - 1e-12 <= truth && truth <= i.hi + 1e-12) held++
    width += i.hi - i.lo
  }
  return { coverage: held / benchmarks, width: width / benchmarks }
}
