import { betaQuantile, normalQuantile, studentTQuantile } from './distributions.js'
import type { Interval, IntervalOptions } from './intervals.js'

/** How a pooled share's interval is computed, recorded next to it in summary.json. */
export const POOLED_SHARE_INTERVAL_METHOD = 'korn-graubard-ratio/1'

/** One cluster's units and how many of them have the property: a task's revisions and, e.g., those addressing all feedback. */
export interface ClusterCount {
  /** Units with the property, 0..trials. */
  hits: number
  /** Units in the cluster; a cluster with none is left out. */
  trials: number
}

/**
 * The interval of a share pooled over units that come in clusters: Σ hits / Σ trials, e.g. the
 * share of a cell's revisions that addressed all feedback, where a task's revisions (over its
 * attempts and repeats) are one cluster. The estimand is the population's pooled share
 * E[hits] / E[trials] per task (what the paper reports: 367 of 842 revisions), not the mean of
 * per-task shares, so a task with many revisions weighs more.
 *
 * Revisions of one task are alike (the same model on the same task), so a binomial interval over
 * revisions is far too narrow. This is Korn–Graubard (as `rateInterval` in intervals.ts) for a ratio
 * estimator: the variance is the linearised cluster variance of the ratio,
 * n/(n − 1) · Σ (hits − R·trials)² / (Σ trials)², estimated with two half-weight pseudo-clusters
 * of average size, one all hits and one none (so a cell where every revision agrees never claims
 * a tiny variance); the effective size n* = R(1 − R)/Var is kept between 1 and the number of
 * units, then shrunk for n − 1 degrees of freedom (n* · (z / t_{n−1})²) and handed to
 * Clopper–Pearson. Unlike `rateInterval`, n* is not capped at twice the clusters: revisions of
 * alike tasks are nearly independent, and with the cap the interval covered 99.5% where 95% was
 * promised. An observed 0% or 100% gets the Clopper–Pearson bound at the effective number of
 * clusters (Kish: (Σ trials)² / Σ trials², n for equal clusters), shrunk the same way. One
 * cluster gives [0, 1]; none, NaN. Its coverage on clustered data
 * is measured by `pooledShareCoverage` (studies/statistics-study.ts, outside the package).
 *
 * @param clusters - per cluster (task), units and hits; clusters with no units are left out.
 * @throws RangeError on a negative or non-integer count, or hits above trials.
 * @example
 * pooledShareInterval([{ hits: 2, trials: 4 }, { hits: 0, trials: 1 }, { hits: 3, trials: 3 }]).point // => 5 / 8
 */
export function pooledShareInterval(clusters: readonly ClusterCount[], options?: IntervalOptions): Interval {
  const level = options?.level ?? 0.95
  if (!(level > 0 && level < 1))
    throw new RangeError(`interval level must be strictly between 0 and 1, e.g. 0.95 (got ${String(level)})`)
  let n = 0
  let units = 0
  let hits = 0
  let squaredSizes = 0
  for (const [i, c] of clusters.entries()) {
    if (!(
      Number.isInteger(c.trials) &&
      c.trials >= 0 &&
      Number.isInteger(c.hits) &&
      c.hits >= 0 &&
      c.hits <= c.trials
    )) {
      throw new RangeError(
        `pooledShareInterval: cluster ${i} has ${String(c.hits)} hits of ${String(c.trials)} trials; both must be integers with 0 ≤ hits ≤ trials`,
      )
    }
    if (c.trials === 0) continue
    n += 1
    units += c.trials
    hits += c.hits
    squaredSizes += c.trials * c.trials
  }
  const base = { level, method: POOLED_SHARE_INTERVAL_METHOD, tasks: n }
  if (n === 0) return { point: Number.NaN, lo: Number.NaN, hi: Number.NaN, ...base }
  const point = hits / units
  if (n === 1) return { point, lo: 0, hi: 1, ...base }
  const kish = (units * units) / squaredSizes
  // Two half-weight pseudo-clusters of the mean size: one all hits, one none.
  const size = units / n
  const weight = n + 1
  const centre = (hits + 0.5 * size) / (units + size)
  let squares = 0.5 * (size * (1 - centre)) ** 2 + 0.5 * (size * centre) ** 2
  for (const c of clusters) if (c.trials > 0) squares += (c.hits - centre * c.trials) ** 2
  const variance = ((weight / (weight - 1)) * squares) / (units + size) ** 2
  const tail = (1 - level) / 2
  const shrink = (normalQuantile(1 - tail) / studentTQuantile(1 - tail, n - 1)) ** 2
  const effective = point === 0 || point === 1 ? kish : Math.min(Math.max((centre * (1 - centre)) / variance, 1), units)
  const m = effective * shrink
  const successes = point * m
  const lo = point === 0 ? 0 : betaQuantile(tail, successes, m - successes + 1)
  const hi = point === 1 ? 1 : betaQuantile(1 - tail, successes + 1, m - successes)
  return { point, lo: Math.min(lo, point), hi: Math.max(hi, point), ...base }
}
