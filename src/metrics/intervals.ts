import { betaQuantile, normalQuantile, studentTCdf, studentTQuantile } from './distributions.js'

/**
 * How a rate's interval is computed, recorded next to every interval in summary.json. The version
 * changes whenever the numbers would: `korn-graubard/1` let the shrink for a small benchmark's
 * degrees of freedom take the effective size below the number of tasks (18–41% wider than
 * Clopper–Pearson on the tasks at 5–10 tasks); `/2` never goes below it.
 */
export const RATE_INTERVAL_METHOD = 'korn-graubard/2'
/** How the interval of a paired difference (the gate, history comparisons) is computed. */
export const DIFFERENCE_INTERVAL_METHOD = 'paired-agresti-min-t/1'

/** A point estimate with its interval and how it was computed. */
export interface Interval {
  point: number
  lo: number
  hi: number
  /** Confidence level, e.g. 0.95. */
  level: number
  /** e.g. {@link RATE_INTERVAL_METHOD}, or `percentile-bootstrap/1` for the bootstrap. */
  method: string
  /** Tasks the interval is computed over (NaN values left out). */
  tasks: number
}

/** The options of an interval: its confidence level. */
export interface IntervalOptions {
  /** Confidence level in (0, 1); default 0.95. */
  level?: number
}

function levelOf(options: IntervalOptions | undefined): number {
  const level = options?.level ?? 0.95
  if (!(level > 0 && level < 1))
    throw new RangeError(`interval level must be strictly between 0 and 1, e.g. 0.95 (got ${String(level)})`)
  return level
}

/**
 * The interval of a rate that is a mean over tasks of per-task rates in [0, 1] (Seq@k: each task's
 * share of repeats solved by attempt k; Pass@k: each task's unbiased estimate), where a task
 * contributes `trials[i]` independent trials at most (its repeats).
 *
 * What it is an interval for: the rate of the population of tasks these were drawn from (the
 * benchmark's tasks taken as a sample of tasks like them), each task at its expected rate over
 * repeats. A paired difference ({@link differenceInterval}) is instead for the change on these tasks.
 *
 * Korn–Graubard (1998): a Clopper–Pearson interval at an effective sample size, the standard
 * interval for a proportion from a clustered sample. Repeats of one task are correlated, so the
 * effective size n* = p(1 − p) / Var(mean) lies between the number of tasks and the number of
 * trials; it is clamped to the number of tasks below and to twice that (or the trials, if fewer)
 * above, and shrunk for the few degrees of freedom a small benchmark has (n* · (z / t_{N−1})²),
 * but never below the number of tasks N. With one repeat per task it is exactly the Clopper–Pearson
 * interval on N tasks, the exact interval for a share of N: a wider one would be power thrown away
 * (the shrink alone made it 1.2–1.4× as wide at 5–10 tasks), a narrower one would under-cover.
 * Three things keep it honest where strong models live:
 * - the variance is estimated with two half-weight pseudo-tasks at 0 and 1, so a sample where
 *   (nearly) every task agrees never claims a tiny design effect;
 * - repeats narrow it at most as much as doubling the tasks would: a benchmark of alike tasks and
 *   a few impossible ones, sampled without the impossible ones, looks free of any design effect,
 *   and with n* up to every trial coverage fell to 87% at 200 tasks × 50 repeats;
 * - an observed 0% or 100% gives the Clopper–Pearson bound at N, never a zero-width interval
 *   (10 tasks all solved: 69.2–100).
 * scripts/statistics-tables.ts measures its coverage of the population value and its width against
 * Clopper–Pearson on N, by setting.
 *
 * With one task the interval is [0, 1] (nothing is known of the spread); with none, NaN.
 *
 * @param values - per-task rates in [0, 1]; NaN (a task with no measured repeat) is left out.
 * @param trials - per-task number of independent trials (repeats), ≥ 1, same order as `values`.
 * @throws RangeError on a value outside [0, 1], a trial count below 1, or mismatched lengths.
 * @example
 * rateInterval([1, 1, 1, 1, 1, 1, 1, 1, 1, 1], new Array(10).fill(1))
 * // => { point: 1, lo: 0.6915, hi: 1, level: 0.95, method: 'korn-graubard/2', tasks: 10 }
 */
export function rateInterval(
  values: readonly number[],
  trials: readonly number[],
  options?: IntervalOptions,
): Interval {
  const level = levelOf(options)
  if (values.length !== trials.length)
    throw new RangeError(`rateInterval: ${values.length} values but ${trials.length} trial counts`)
  let n = 0
  let sum = 0
  let totalTrials = 0
  for (const [i, value] of values.entries()) {
    if (Number.isNaN(value)) continue
    if (!(value >= 0 && value <= 1))
      throw new RangeError(`rateInterval: value ${i} is ${String(value)}, not a rate in [0, 1]`)
    const t = trials[i]!
    if (!(t >= 1))
      throw new RangeError(`rateInterval: task ${i} has ${String(t)} trials; a measured task has at least 1`)
    n += 1
    sum += value
    totalTrials += t
  }
  const base = { level, method: RATE_INTERVAL_METHOD, tasks: n }
  if (n === 0) return { point: Number.NaN, lo: Number.NaN, hi: Number.NaN, ...base }
  const point = sum / n
  if (n === 1) return { point, lo: 0, hi: 1, ...base }
  // Variance of the mean with the two half-weight pseudo-tasks (at 0 and at 1).
  const weight = n + 1
  const centre = (sum + 0.5) / weight
  let squares = 0.5 * (centre * centre + (1 - centre) * (1 - centre))
  for (const value of values) if (!Number.isNaN(value)) squares += (value - centre) * (value - centre)
  const varianceOfMean = squares / ((weight - 1) * weight)
  const clustered = Math.min(Math.max((centre * (1 - centre)) / varianceOfMean, n), totalTrials, 2 * n)
  const tail = (1 - level) / 2
  const z = normalQuantile(1 - tail)
  const t = studentTQuantile(1 - tail, n - 1)
  // The shrink is for the spread's few degrees of freedom; at one repeat the size is N exactly.
  const size = Math.max(n, clustered * (z / t) ** 2)
  const successes = point * size
  const lo = point === 0 ? 0 : betaQuantile(tail, successes, size - successes + 1)
  const hi = point === 1 ? 1 : betaQuantile(1 - tail, successes + 1, size - successes)
  return { point, lo: Math.min(lo, point), hi: Math.max(hi, point), ...base }
}

/** A paired difference b − a over tasks, with its interval and the one-sided test behind the gate. */
export interface DifferenceInterval extends Interval {
  /**
   * One-sided p-value of "b is not worse than a by more than `margin`" (H0: δ ≥ −margin): the
   * gate's evidence of a drop. Small means a real drop.
   */
  pDrop: (margin: number) => number
}

/**
 * The interval of the mean paired difference of per-task rates, b − a, over the tasks both runs
 * measured: Agresti–Min (2005) generalised from one trial per task to `trials`.
 *
 * Agresti–Min add half an observation to each cell of the paired 2 × 2 table before a Wald
 * interval: here, two half-weight pseudo-tasks that moved by 1/√trials in each direction (for one
 * trial, exactly Agresti–Min's half discordant pair each way; for r repeats, the spread a share of
 * r trials has) and one that did not move, then a Student t interval with N − 1 degrees of
 * freedom. Pairing removes task difficulty from the noise; the pseudo-tasks keep two identical runs
 * (every task unchanged, as at the ceiling) from claiming a zero-width interval.
 *
 * What it estimates is the difference on these tasks (the mean over them of each task's change in
 * success rate), which is what a gate on a fixed benchmark asks. It is not an interval for a
 * population of tasks the benchmark was drawn from: a change that breaks 2% of tasks may well
 * break none of these. scripts/statistics-tables.ts measures its coverage, and the paired
 * percentile bootstrap's beside it.
 *
 * @param a - per-task rates of the reference run (NaN: not measured; such tasks are left out of both).
 * @param b - per-task rates of the other run, same tasks in the same order.
 * @param trials - independent trials behind a per-task rate: the repeats (the largest repeat count of the two runs).
 * @example
 * differenceInterval([1, 1, 0.5], [1, 0.5, 0.5], 2).point // => -1/6
 */
export function differenceInterval(
  a: readonly number[],
  b: readonly number[],
  trials: number,
  options?: IntervalOptions,
): DifferenceInterval {
  const level = levelOf(options)
  if (a.length !== b.length)
    throw new RangeError(
      `differenceInterval: ${a.length} reference rates but ${b.length} others; pair them by task first`,
    )
  if (!(trials >= 1))
    throw new RangeError(
      `differenceInterval: trials must be the repeats behind a per-task rate, >= 1 (got ${String(trials)})`,
    )
  const unit = 1 / Math.sqrt(trials)
  const diffs: number[] = []
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (Number.isNaN(x) || Number.isNaN(y)) continue
    if (!(x >= 0 && x <= 1 && y >= 0 && y <= 1))
      throw new RangeError(
        `differenceInterval: task ${i} has rates ${String(x)} and ${String(y)}; both must be in [0, 1]`,
      )
    diffs.push(y - x)
  }
  const n = diffs.length
  const base = { level, method: DIFFERENCE_INTERVAL_METHOD, tasks: n }
  if (n === 0) return { point: Number.NaN, lo: Number.NaN, hi: Number.NaN, ...base, pDrop: () => Number.NaN }
  const sum = diffs.reduce((s, d) => s + d, 0)
  const point = sum / n
  if (n === 1) return { point, lo: -1, hi: 1, ...base, pDrop: () => 1 }
  const weight = n + 2
  const centre = sum / weight
  let squares = 0.5 * (unit - centre) ** 2 + 0.5 * (unit + centre) ** 2 + centre * centre
  for (const d of diffs) squares += (d - centre) ** 2
  const se = Math.sqrt(squares / ((weight - 1) * weight))
  const t = studentTQuantile(1 - (1 - level) / 2, n - 1)
  return {
    point,
    lo: Math.max(-1, Math.min(point, centre - t * se)),
    hi: Math.min(1, Math.max(point, centre + t * se)),
    ...base,
    // The same t statistic the interval inverts: p < (1 − level)/2 exactly when hi < −margin.
    pDrop: (margin: number) => studentTCdf((centre + margin) / se, n - 1),
  }
}

/**
 * A method id in words, for tables and reports.
 *
 * @example
 * intervalMethodText('korn-graubard/1') // => 'Korn–Graubard over tasks'
 */
export function intervalMethodText(method: string): string {
  const [name] = method.split('/')
  if (name === 'korn-graubard') return 'Korn–Graubard over tasks'
  if (name === 'korn-graubard-ratio') return 'Korn–Graubard ratio, clustered by task'
  if (name === 'paired-agresti-min-t') return 'paired Agresti–Min t over tasks'
  if (name === 'percentile-bootstrap') return 'percentile bootstrap over tasks'
  return method
}
