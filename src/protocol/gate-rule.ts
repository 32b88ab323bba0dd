import { differenceInterval } from '../metrics/intervals.js'
import type { CellSummary } from '../core/schemas.js'
import { hasCensored, taskRates, taskTrials } from '../metrics/task-rates.js'
import { headlineMetric, METRICS, type MetricId } from '../metrics/registry.js'
import {
  intervalText,
  percent,
  percentText,
  plural,
  probability,
  pValueText,
  signedPercent,
} from '../metrics/format.js'

type TaskRow = CellSummary['perTask'][number]

/**
 * Rates are ratios of small counts, computed in floating point: 8/10 - 7/10 is
 * -0.10000000000000009. A limit is crossed only by more than this, so rounding never decides.
 */
export const TOLERANCE = 1e-9

const meanOf = (rates: readonly number[]) => {
  const finite = rates.filter(Number.isFinite)
  return finite.length === 0 ? Number.NaN : finite.reduce((a, b) => a + b, 0) / finite.length
}

/** One k the gate tested: both rates, their paired difference and the Holm step it was held to. */
export interface GateComparison {
  metric: MetricId
  k: number
  baseline: number
  current: number
  /** current − baseline over the common tasks: paired Agresti–Min t interval over tasks. */
  diff: { point: number; lo: number; hi: number }
  /** One-sided p-value of "no drop larger than the margin" (small: a real drop). */
  p: number
  /** The Holm threshold this k's p-value was compared with (NaN when the step-down stopped before it). */
  threshold: number
}

/** The settings {@link decideGate} needs, resolved. */
export interface GateRule {
  K: number
  ks: readonly number[]
  independent: boolean
  /** The metric compared task by task (default: the cell's headline rate, Seq@k or Pass@k). */
  metric?: MetricId
  margin: number
  maxDrop: number
  level: number
}

/**
 * The trials behind a per-task rate: the largest repeat count of the side with fewer. A side with
 * more repeats has less noisy rates, but the pseudo-tasks must match the noisier side: sized to
 * the larger count they let 1 repeat against 10 alarm a quarter of the time with no change.
 */
function commonTrials(a: readonly TaskRow[], b: readonly TaskRow[], k: number, metric: MetricId): number {
  const most = (rows: readonly TaskRow[]) => rows.reduce((m, row) => Math.max(m, taskTrials(row, k, metric)), 1)
  return Math.min(most(a), most(b))
}

/**
 * The gate's decision on paired per-task rows (a = baseline, b = current, same task order): one
 * comparison per gated k, and the failures. Pure, and the code the power simulation runs.
 *
 * Each gated k gets the paired Agresti–Min t interval of current − baseline and the one-sided
 * p-value of "no drop beyond the margin". Holm's step-down over the gated k keeps the chance of
 * any false alarm at (1 − level)/2 = 2.5% however many k are gated; a drop at K larger than
 * maxDrop also fails when its own p-value is below 2.5% (so at most 5% false alarms in all).
 * Rounding never decides: limits are crossed only by more than 1e-9.
 *
 * @example
 * const rule = { K: 5, ks: [5], independent: false, margin: 0, maxDrop: 0.1, level: 0.95 }
 * decideGate(baselineCell.perTask, summary.perTask, rule).failures // => [] when no drop is real
 */
export function decideGate(
  a: readonly TaskRow[],
  b: readonly TaskRow[],
  rule: GateRule,
): { comparisons: GateComparison[]; failures: { k: number; why: string }[] } {
  const alpha = (1 - rule.level) / 2
  const definition = rule.metric ? METRICS[rule.metric] : headlineMetric(rule.independent)
  const metric = definition.id
  const label = definition.label
  const comparisons: GateComparison[] = []
  const failures: { k: number; why: string }[] = []
  const censored = hasCensored(a) || hasCensored(b)
  for (const k of rule.ks) {
    const x = taskRates(a, k, metric, { K: rule.K })
    const y = taskRates(b, k, metric, { K: rule.K })
    const trials = commonTrials(a, b, k, metric)
    const interval = differenceInterval(x, y, trials, { level: rule.level })
    // With censored errors, a drop must also be real with the errored repeats left out (the rule
    // that errs upward): the censored estimate's small bias must not become "significant" at large N.
    const leftOut = censored
      ? differenceInterval(
          taskRates(a, k, metric, { censored: false, K: rule.K }),
          taskRates(b, k, metric, { censored: false, K: rule.K }),
          trials,
          { level: rule.level },
        )
      : null
    const p = Math.max(interval.pDrop(rule.margin), leftOut?.pDrop(rule.margin) ?? 0)
    comparisons.push({
      metric,
      k,
      baseline: meanOf(x),
      current: meanOf(y),
      diff: { point: interval.point, lo: interval.lo, hi: interval.hi },
      p,
      threshold: Number.NaN,
    })
  }
  const tasks = a.length
  const where = (c: GateComparison) =>
    `${label(c.k)} ${percentText(c.baseline)} → ${percentText(c.current)} on ${plural(tasks, 'common task')} (difference ${signedPercent(c.diff.point)} points, ${percent(rule.level, { digits: 0 })}% CI ${intervalText(c.diff.lo, c.diff.hi, { signed: true })})`
  // Fail closed: a difference that cannot be computed is never a pass.
  for (const c of comparisons)
    if (!Number.isFinite(c.diff.point) || !Number.isFinite(c.p))
      failures.push({ k: c.k, why: `${label(c.k)}: the difference could not be computed on the common tasks.` })
  const testable = comparisons.filter((c) => Number.isFinite(c.p)).sort((x, y) => x.p - y.p || x.k - y.k)
  const below = rule.margin === 0 ? 'zero' : `−${percent(rule.margin)} points`
  const family = testable.length > 1 ? `, Holm over ${testable.map((c) => label(c.k)).join(', ')}` : ''
  for (const [j, c] of testable.entries()) {
    c.threshold = alpha / (testable.length - j)
    if (!(c.p < c.threshold)) break
    failures.push({
      k: c.k,
      why: `${where(c)}: a real drop beyond ${below} (one-sided ${pValueText(c.p)}, below ${probability(c.threshold)}${family}).`,
    })
  }
  const atK = comparisons.find((c) => c.k === rule.K)
  const flagged = new Set(failures.map((f) => f.k))
  if (atK && !flagged.has(rule.K) && Number.isFinite(atK.diff.point) && atK.diff.point < -rule.maxDrop - TOLERANCE) {
    // Real on its own, beyond the margin like every other alarm: unadjusted for the other gated k.
    const p = atK.p
    if (p < alpha)
      failures.push({
        k: rule.K,
        why: `${where(atK)}: the drop exceeds the hard limit of ${percent(rule.maxDrop)} points and is real on its own (one-sided ${pValueText(p)}, below ${probability(alpha)}).`,
      })
  }
  return { comparisons: comparisons.sort((x, y) => x.k - y.k), failures }
}
