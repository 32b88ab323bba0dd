import type { Rng } from './random.js'
import { regularizedBeta } from './distributions.js'

/**
 * A population of tasks for simulation: each task's chance to be solved within the budget K,
 * q ~ Beta(mean · concentration, (1 − mean) · concentration), reached by a memoryless actor (the
 * same per-attempt success p = 1 − (1 − q)^(1/K) at every attempt, first success geometric).
 *
 * `concentration` says how much tasks differ: 1 is a benchmark of mostly easy and mostly
 * impossible tasks (as real ones are), 100 one of tasks that are all alike.
 */
export interface TaskPopulation {
  /** Population Seq@K (equally Pass@K of one sample per attempt), in (0, 1). */
  mean: number
  concentration: number
  budget: number
}

/** Gamma(shape, 1) by Marsaglia–Tsang (with the shape < 1 boost). */
function gammaDraw(rng: Rng, shape: number): number {
  if (shape < 1) return gammaDraw(rng, shape + 1) * Math.pow(rng(), 1 / shape)
  const d = shape - 1 / 3
  const c = 1 / Math.sqrt(9 * d)
  for (;;) {
    let x: number
    let v: number
    do {
      // Box–Muller; 1 − u keeps the logarithm finite.
      x = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng())
      v = 1 + c * x
    } while (v <= 0)
    v = v * v * v
    const u = 1 - rng()
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v
  }
}

/** A Beta(a, b) draw. */
export function betaDraw(rng: Rng, a: number, b: number): number {
  const x = gammaDraw(rng, a)
  const y = gammaDraw(rng, b)
  return x + y === 0 ? 0.5 : x / (x + y)
}

/** One task's chance q of being solved within the budget, drawn from the population. */
export function drawTaskRate(rng: Rng, population: TaskPopulation): number {
  const { mean, concentration } = population
  return betaDraw(rng, mean * concentration, (1 - mean) * concentration)
}

/** The per-attempt success that reaches q within `budget` attempts for a memoryless actor. */
export function perAttemptSuccess(q: number, budget: number): number {
  return q >= 1 ? 1 : 1 - Math.pow(1 - q, 1 / budget)
}

/** A first success for per-attempt success `p`: an attempt in 1..budget, or null (not solved). */
export function drawFirstSuccess(rng: Rng, p: number, budget: number): number | null {
  for (let attempt = 1; attempt <= budget; attempt++) if (rng() < p) return attempt
  return null
}

/**
 * What one task's outcomes say about its per-attempt success p: the attempts (or samples) that
 * succeeded and those that failed. Its likelihood is p^successes · (1 − p)^failures, whichever way
 * the attempts were grouped into repeats: a repeat solved at attempt t is one success after t − 1
 * failures, an unsolved one K failures, a repeat an error stopped at attempt t only t − 1 failures.
 */
export interface TaskEvidence {
  successes: number
  failures: number
}

/** Logit grid the population's likelihood is integrated on: q from about 2e-22 to 1 − 2e-22. */
const GRID_REACH = 50
const GRID_STEP = 0.25

/** log(1 + e^x) without overflow. */
const softplus = (x: number): number => (x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x)))

/**
 * The Beta(a, b) probability of each cell of the logit grid (node j stands for the logits within
 * half a step of it; the first and last cells reach to q = 0 and q = 1). Near q = 1 the upper tail
 * I_{1−q}(b, a) is used, so masses within 1e-16 of 1 are not lost to rounding.
 */
function gridWeights(a: number, b: number, nodes: readonly number[]): number[] {
  const lower = (x: number) => regularizedBeta(1 / (1 + Math.exp(-x)), a, b)
  const upper = (x: number) => regularizedBeta(1 / (1 + Math.exp(x)), b, a)
  const weights = new Array<number>(nodes.length)
  for (let j = 0; j < nodes.length; j++) {
    const from = j === 0 ? -Infinity : nodes[j]! - GRID_STEP / 2
    const to = j === nodes.length - 1 ? Infinity : nodes[j]! + GRID_STEP / 2
    const below = (x: number) => (x === -Infinity ? 0 : lower(x))
    const above = (x: number) => (x === Infinity ? 0 : upper(x))
    const w =
      to <= 0
        ? below(to) - below(from)
        : from >= 0
          ? above(from) - above(to)
          : lower(0) - below(from) + (upper(0) - above(to))
    weights[j] = Math.max(0, w)
  }
  return weights
}

/**
 * The log-likelihood of the tasks' evidence under a population of mean `mean` and concentration
 * `concentration` (see {@link TaskPopulation}): each task's p^s (1 − p)^f integrated over the
 * population's q, p = 1 − (1 − q)^(1/budget), summed over tasks.
 */
export function populationLogLikelihood(evidence: readonly TaskEvidence[], population: TaskPopulation): number {
  const { mean, concentration, budget } = population
  const nodes = Array.from(
    { length: Math.round((2 * GRID_REACH) / GRID_STEP) + 1 },
    (_, j) => -GRID_REACH + j * GRID_STEP,
  )
  const weights = gridWeights(mean * concentration, (1 - mean) * concentration, nodes)
  // log(1 − p) = log(1 − q) / K, exactly, from the logit: no q within rounding of 1 turns into p = 1.
  const logMiss = nodes.map((x) => -softplus(x) / budget)
  const logHit = logMiss.map((m) => Math.log(-Math.expm1(m)))
  const byEvidence = new Map<string, { e: TaskEvidence; count: number }>()
  for (const e of evidence) {
    const key = `${e.successes}/${e.failures}`
    const seen = byEvidence.get(key)
    if (seen) seen.count++
    else byEvidence.set(key, { e, count: 1 })
  }
  let total = 0
  for (const { e, count } of byEvidence.values()) {
    let top = -Infinity
    const terms = nodes.map((_, j) => {
      if (!(weights[j]! > 0)) return -Infinity
      const term =
        Math.log(weights[j]!) +
        (e.successes > 0 ? e.successes * logHit[j]! : 0) +
        (e.failures > 0 ? e.failures * logMiss[j]! : 0)
      if (term > top) top = term
      return term
    })
    if (top === -Infinity) return -Infinity
    total += count * (top + Math.log(terms.reduce((sum, t) => sum + Math.exp(t - top), 0)))
  }
  return total
}

/** The range a concentration is estimated in: from all-or-nothing tasks to tasks all alike. */
export const CONCENTRATION_RANGE = [0.05, 1000] as const

/**
 * How much tasks differ, estimated from samples that are exchangeable within a task (independent
 * sampling: each of a task's samples is drawn alone from the same prompt): the concentration of
 * maximum likelihood (see {@link populationLogLikelihood}) at the given mean, in
 * {@link CONCENTRATION_RANGE}. With one group of K samples per task the Pass@K rates are nearly all
 * 0 or 1, but how many of the K samples passed still shows how alike the tasks are.
 *
 * Not for the attempts of a sequential trajectory: they are not exchangeable (each sees feedback),
 * and an actor whose revisions help less than its first try would read as tasks that differ more
 * than they do. Use {@link concentrationFromSpread} there.
 *
 * @param evidence - per task, its passed and failed samples ({@link TaskEvidence}).
 * @param mean - the population's Pass@K, strictly between 0 and 1.
 * @example
 * // 40 tasks, half passing every sample and half none: as different as tasks get.
 * const [all, none] = [{ successes: 5, failures: 0 }, { successes: 0, failures: 5 }]
 * concentrationFromSamples([...Array(20).fill(all), ...Array(20).fill(none)], 0.5, 5)
 * // => 0.05
 */
export function concentrationFromSamples(evidence: readonly TaskEvidence[], mean: number, budget: number): number {
  const [floor, ceiling] = CONCENTRATION_RANGE
  if (evidence.length < 2 || !(mean > 0 && mean < 1)) return 1
  const at = (logC: number) => populationLogLikelihood(evidence, { mean, concentration: Math.exp(logC), budget })
  // A coarse scan, then golden-section search around the best point (the likelihood in log c is
  // smooth and, over this range, single-peaked in every case the tests draw).
  const [lo, hi] = [Math.log(floor), Math.log(ceiling)]
  const steps = 16
  let best = 0
  let bestValue = -Infinity
  const scan = Array.from({ length: steps + 1 }, (_, i) => lo + ((hi - lo) * i) / steps)
  for (const [i, x] of scan.entries()) {
    const value = at(x)
    if (value > bestValue) [best, bestValue] = [i, value]
  }
  let a = scan[Math.max(0, best - 1)]!
  let b = scan[Math.min(steps, best + 1)]!
  const ratio = (Math.sqrt(5) - 1) / 2
  let c = b - ratio * (b - a)
  let d = a + ratio * (b - a)
  let fc = at(c)
  let fd = at(d)
  for (let i = 0; i < 20; i++) {
    if (fc >= fd) {
      ;[b, d, fd] = [d, c, fc]
      c = b - ratio * (b - a)
      fc = at(c)
    } else {
      ;[a, c, fc] = [c, d, fd]
      d = a + ratio * (b - a)
      fd = at(d)
    }
  }
  const x = bestValue > Math.max(fc, fd) ? scan[best]! : fc >= fd ? c : d
  return Math.min(ceiling, Math.max(floor, Math.exp(x)))
}

/**
 * The concentration whose population has this within-task variance at this mean: a task's chance
 * q varies around the mean as Beta(mean · c, (1 − mean) · c), so E[q(1 − q)] = mean(1 − mean) · c / (c + 1),
 * solved for c and kept in {@link CONCENTRATION_RANGE}. A within-task variance as large as the
 * mean's binomial variance says the tasks are alike (the range's top); none says each task is all
 * or nothing (its floor).
 *
 * @param within - an estimate of E[q(1 − q)], e.g. {@link withinTaskVariance}.
 * @example
 * concentrationFromSpread(0.08, 0.8) // => 1: half the binomial variance 0.16
 */
export function concentrationFromSpread(within: number, mean: number): number {
  const [floor, ceiling] = CONCENTRATION_RANGE
  const total = mean * (1 - mean)
  if (!(total > 0) || !Number.isFinite(within)) return ceiling
  if (within >= total) return ceiling
  if (within <= 0) return floor
  return Math.min(ceiling, Math.max(floor, within / (total - within)))
}

/**
 * An unbiased estimate of the within-task variance E[q(1 − q)] from repeats: per task with n ≥ 2
 * repeats of which s succeeded, s(n − s) / (n(n − 1)) is unbiased for its q(1 − q); their mean over
 * such tasks. NaN when no task has two repeats.
 *
 * @param solved - per task, its repeats that succeeded.
 * @param repeats - per task, its repeats (same order).
 * @example
 * withinTaskVariance([1, 2, 0], [2, 2, 2]) // => (0.5 + 0 + 0) / 3
 */
export function withinTaskVariance(solved: readonly number[], repeats: readonly number[]): number {
  let sum = 0
  let tasks = 0
  for (const [i, n] of repeats.entries()) {
    if (!(n >= 2)) continue
    const s = solved[i]!
    sum += (s * (n - s)) / (n * (n - 1))
    tasks++
  }
  return tasks === 0 ? Number.NaN : sum / tasks
}

/**
 * The within-task variance E[q(1 − q)] from two runs of the same tasks: with no change a task's two
 * rates, each a share of `trials` repeats, differ by a variance 2 · q(1 − q) / trials, so
 * trials · mean((b − a)²) / 2 estimates it. A real change between the runs only adds to the
 * differences, so under a change it errs large (tasks read as more alike, the gate as seeing less).
 * NaN pairs are left out; NaN when none is left.
 *
 * @example
 * withinVarianceFromPairs([1, 1, 0, 0], [1, 0, 0, 1], 1) // => 0.25
 */
export function withinVarianceFromPairs(a: readonly number[], b: readonly number[], trials: number): number {
  let sum = 0
  let n = 0
  for (const [i, x] of a.entries()) {
    const y = b[i]!
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue
    sum += (y - x) ** 2
    n++
  }
  return n === 0 ? Number.NaN : (trials * sum) / (2 * n)
}
