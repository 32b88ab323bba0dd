import type { SampleCounts } from './pass-at-k.js'
import { rateInterval, type Interval, type IntervalOptions } from './intervals.js'
import { studentTQuantile } from './distributions.js'
import { assertCounts } from './validation.js'
import type { TriesValue } from './censored-tries.js'

/**
 * A task's outcome consistency over its tries: C_out = 1 − 4·p̂(1 − p̂) with p̂ = c/n, 1 when every
 * try ends the same way, 0 when half pass. NaN below two tries: one try shows no spread.
 *
 * @example
 * outcomeConsistency(4, 2) // => 0
 * outcomeConsistency(4, 4) // => 1
 */
export function outcomeConsistency(n: number, c: number): number {
  assertCounts(n, c, 1)
  if (n < 2) return Number.NaN
  const p = c / n
  return 1 - 4 * p * (1 - p)
}

/**
 * A task's outcome consistency and whether it is inconsistent (0 < c < n), as readings of its tries
 * for {@link censoredFigure}: NaN below two tries, as {@link outcomeConsistencyOf} leaves them out.
 *
 * @example
 * consistencyValues.inconsistent(4, 2) // => 1
 */
export const consistencyValues: Readonly<Record<'mean' | 'inconsistent', TriesValue>> = {
  mean: (n, c) => (n < 2 ? Number.NaN : outcomeConsistency(n, c)),
  inconsistent: (n, c) => (n < 2 ? Number.NaN : c > 0 && c < n ? 1 : 0),
}

/** A cell's outcome consistency: its mean over tasks and the share of tasks that were not consistent. */
export interface OutcomeConsistency {
  /** Mean over tasks of C_out, with its interval over tasks. */
  mean: Interval
  /** Share of tasks whose tries did not all end the same way (0 < c < n), with its interval. */
  inconsistent: Interval
}

/**
 * Outcome consistency over tasks with two tries or more (others are left out; NaN when none is
 * left). The intervals are over tasks, one trial each ({@link rateInterval}): C_out is in [0, 1],
 * and a mean of values in [0, 1] varies at most as a share does, so the share's interval holds.
 * They are for the value a task like these would show over as many tries as it had here.
 *
 * @example
 * outcomeConsistencyOf([{ taskId: 'a', n: 4, c: 2 }, { taskId: 'b', n: 4, c: 4 }]).mean.point // => 0.5
 */
export function outcomeConsistencyOf(tries: readonly SampleCounts[], options?: IntervalOptions): OutcomeConsistency {
  const used = tries.filter((t) => {
    assertCounts(t.n, t.c, 1, `task '${t.taskId}'`)
    return t.n >= 2
  })
  const ones = used.map(() => 1)
  return {
    mean: rateInterval(
      used.map((t) => outcomeConsistency(t.n, t.c)),
      ones,
      options,
    ),
    inconsistent: rateInterval(
      used.map((t) => (t.c > 0 && t.c < t.n ? 1 : 0)),
      ones,
      options,
    ),
  }
}

/**
 * The coefficient of variation of one task's use of a resource over its repeats (sample standard
 * deviation over the mean; 0 when every repeat used the same). NaN below two values or with an
 * unknown one (an unknown is never taken as 0).
 *
 * @example
 * coefficientOfVariation([2, 2, 2]) // => 0
 */
export function coefficientOfVariation(values: readonly (number | null)[]): number {
  if (values.length < 2 || values.some((v) => v === null || !Number.isFinite(v))) return Number.NaN
  const xs = values as number[]
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length
  const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1)
  if (variance === 0) return 0
  return mean > 0 ? Math.sqrt(variance) / mean : Number.NaN
}

/**
 * Resource consistency: the mean over tasks of exp(−CV), each task's coefficient of variation of a
 * resource across its repeats, 1 when every repeat of every task costs the same. This is how the
 * reliability framework's reference code aggregates it (Rabanser et al. 2026, the HAL harness's
 * `reliability_eval/metrics/consistency.py`: per task exp(−CV), then their mean); exp(−mean CV),
 * what this function computed before (`exp-neg-mean-cv-hall-t/2`), is lower by Jensen's
 * inequality, 1.2–8.3 points in our settings, and not comparable with the framework's figures.
 * Tasks with fewer than two known values are left out; NaN when none is left. The interval is for
 * the population mean of exp(−CV) at the repeats the run had: Student's t with Hall's (1992)
 * transformation for skewness (a task's exp(−CV) is skewed to the left: most tasks vary little, a
 * few a lot), clamped to [0, 1]; studies/reliability-study.ts measures its coverage
 * (resourceCoverage).
 *
 * @param perTask - for each task, the resource each of its repeats used (null: unknown).
 * @example
 * resourceConsistency([[3, 3], [1, 3]]).point // => (1 + exp(−0.7071)) / 2 ≈ 0.747
 */
export function resourceConsistency(
  perTask: readonly (readonly (number | null)[])[],
  options?: IntervalOptions,
): Interval {
  const level = options?.level ?? 0.95
  const values = perTask
    .map(coefficientOfVariation)
    .filter(Number.isFinite)
    .map((cv) => Math.exp(-cv))
  const n = values.length
  const base = { level, method: RESOURCE_CONSISTENCY_METHOD, tasks: n }
  if (n === 0) return { point: Number.NaN, lo: Number.NaN, hi: Number.NaN, ...base }
  const point = values.reduce((a, b) => a + b, 0) / n
  if (n === 1) return { point, lo: 0, hi: 1, ...base }
  const [lo, hi] = hallInterval(values, level)
  return { point, lo: Math.max(0, Math.min(point, lo)), hi: Math.min(1, Math.max(point, hi)), ...base }
}

/** The weight of each pseudo-task at 0 and 1 in resource consistency's spread (see hallInterval). */
const PSEUDO_WEIGHT = 0.2

/**
 * A mean's interval of values in [0, 1] by Student's t with Hall's transformation, which removes the first-order effect
 * of skewness: with T = √n(x̄ − μ)/s and a = γ̂/(3√n) (γ̂ the sample skewness), g(T) = ((1 + aT)³ −
 * 1)/(3a) + a/2 is nearly pivotal, monotone in T, and inverted in closed form. Without skewness (or
 * spread) it is the plain t interval.
 */
function hallInterval(xs: readonly number[], level: number): [number, number] {
  const n = xs.length
  const mean = xs.reduce((a, b) => a + b, 0) / n
  // The spread with two pseudo-tasks at 0 and 1 of a fifth of a task each: a benchmark whose tasks
  // nearly all sit at 1 (never varying) never claims a tiny spread. Without them the attempts used
  // (many ties at 1) covered 91.8% at 10 tasks × 5 repeats; at the half weight rateInterval uses,
  // 98–100% at 10 tasks, a third wider (studies/reliability-study.ts: resourceCoverage).
  const w = PSEUDO_WEIGHT
  const centre = (mean * n + w) / (n + 2 * w)
  const squares = xs.reduce((s, x) => s + (x - centre) ** 2, 0) + w * centre ** 2 + w * (1 - centre) ** 2
  const se = Math.sqrt(squares / ((n + 2 * w - 1) * (n + 2 * w)))
  const t = studentTQuantile(1 - (1 - level) / 2, n - 1)
  const variance = xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1)
  const skewness = variance === 0 ? 0 : xs.reduce((s, x) => s + (x - mean) ** 3, 0) / n / variance ** 1.5
  const a = skewness / (3 * Math.sqrt(n))
  const inverse = (y: number) => (Math.abs(a) < 1e-12 ? y : (Math.cbrt(1 + 3 * a * (y - a / 2)) - 1) / a)
  return [mean - se * inverse(t), mean - se * inverse(-t)]
}

/** How resource consistency's interval is computed (stored next to it). */
export const RESOURCE_CONSISTENCY_METHOD = 'mean-exp-neg-cv-hall-t/1'
