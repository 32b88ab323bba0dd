/**
 * Seeded simulations of the promises of issue 49's statistics: G-Pass@k_τ's estimator and interval
 * over a population of tasks. Research code: imported by studies/ and test/, never by src/.
 */
import { createRng, seedFrom, type Rng } from '../src/metrics/random.js'
import { betaDraw } from '../src/metrics/population.js'
import { gPassInterval, gPassThreshold } from '../src/metrics/g-pass-at-k.js'

/** Tasks whose per-try success p is drawn from Beta(a, b). */
export interface TryPopulation {
  a: number
  b: number
}

/** Populations of per-try success: mostly solved, in the middle, mostly failed. */
export const TRY_POPULATIONS = {
  /** Mean p ≈ 0.69. */
  high: { a: 1.8, b: 0.8 },
  /** Mean p = 0.4. */
  middle: { a: 1, b: 1.5 },
  /** Mean p ≈ 0.13, most tasks near 0. */
  low: { a: 0.3, b: 2 },
} as const satisfies Record<string, TryPopulation>

/**
 * The population's G-Pass@k_τ, exactly: E_p[P(Binomial(k, p) ≥ ⌈τk⌉)] for p ~ Beta(a, b), the
 * beta-binomial tail Σ_{j ≥ ⌈τk⌉} C(k, j) B(a + j, b + k − j) / B(a, b), each term a product.
 */
export function populationGPass(population: TryPopulation, k: number, tau: number): number {
  const { a, b } = population
  let sum = 0
  for (let j = gPassThreshold(k, tau); j <= k; j++) {
    let term = 1
    for (let i = 1; i <= j; i++) term *= (k - j + i) / i
    for (let i = 0; i < j; i++) term *= a + i
    for (let i = 0; i < k - j; i++) term *= b + i
    for (let i = 0; i < k; i++) term /= a + b + i
    sum += term
  }
  return sum
}

/** One benchmark: `tasks` tasks drawn from the population, each tried `tries` times. */
function drawSamples(rng: Rng, population: TryPopulation, tasks: number, tries: number) {
  return Array.from({ length: tasks }, (_, i) => {
    const p = betaDraw(rng, population.a, population.b)
    let c = 0
    for (let j = 0; j < tries; j++) if (rng() < p) c++
    return { taskId: `t${i}`, n: tries, c }
  })
}

/** What a coverage study measured: the truth, the share of intervals that held it, and the estimator's bias. */
export interface GPassStudy {
  truth: number
  coverage: number
  /** Mean point estimate minus the truth, and its Monte-Carlo standard error. */
  bias: number
  biasSe: number
  meanWidth: number
  zeroWidth: number
}

/**
 * How often G-Pass@k_τ's 95% interval covers the population value, and how far its estimate is
 * from it on average, over `benchmarks` simulated benchmarks.
 */
export function gPassStudy(
  population: TryPopulation,
  options: { tasks: number; tries: number; k: number; tau: number; benchmarks: number; seed?: number },
): GPassStudy {
  const { tasks, tries, k, tau, benchmarks } = options
  const rng = createRng(seedFrom('g-pass', options.seed ?? 1, population.a, population.b, tasks, tries, k, tau))
  const truth = populationGPass(population, k, tau)
  let covered = 0
  let zero = 0
  let width = 0
  let sum = 0
  let squares = 0
  for (let s = 0; s < benchmarks; s++) {
    const interval = gPassInterval(drawSamples(rng, population, tasks, tries), k, tau)
    if (interval.lo <= truth && truth <= interval.hi) covered++
    if (interval.hi - interval.lo < 1e-12) zero++
    width += interval.hi - interval.lo
    sum += interval.point
    squares += interval.point * interval.point
  }
  const mean = sum / benchmarks
  const variance = squares / benchmarks - mean * mean
  return {
    truth,
    coverage: covered / benchmarks,
    bias: mean - truth,
    biasSe: Math.sqrt(Math.max(0, variance) / benchmarks),
    meanWidth: width / benchmarks,
    zeroWidth: zero / benchmarks,
  }
}
