import type { Rng } from './random.js'

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
 * The population's concentration estimated from observed per-task shares (method of moments):
 * Var(share) = m(1 − m)(1 + c/r)/(c + 1) for r repeats, solved for c and kept in [0.05, 1000].
 * With no spread beyond what the repeats explain the tasks are taken as alike (1000).
 *
 * @example
 * concentrationFrom([1, 0, 1, 0, 1, 0], 1) // => 0.05: all or nothing, as different as tasks get
 */
export function concentrationFrom(shares: readonly number[], repeats: number): number {
  const values = shares.filter((s) => Number.isFinite(s))
  const n = values.length
  if (n < 2) return 1
  const mean = values.reduce((a, b) => a + b, 0) / n
  if (mean <= 0 || mean >= 1) return 1000
  const variance = values.reduce((a, s) => a + (s - mean) ** 2, 0) / (n - 1)
  const v = variance / (mean * (1 - mean))
  if (v <= 1 / repeats) return 1000
  if (v >= 1) return 0.05
  return Math.min(1000, Math.max(0.05, (1 - v) / (v - 1 / repeats)))
}
