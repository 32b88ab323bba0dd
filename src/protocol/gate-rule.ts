import { differenceInterval } from '../metrics/intervals.js'
import type { CellSummary } from '../artifacts/schemas.js'
import { taskRates, taskTrials } from './task-rates.js'

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

const pct = (v: number) => {
  const text = (v * 100).toFixed(1)
  return text === '-0.0' ? '0.0' : text
}

export interface GateComparison {
  metric: 'seqAt' | 'passAt'
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
  margin: number
  maxDrop: number
  level: number
}

/** The largest repeat count of either side: the trials behind a per-task rate. */
function finestTrials(a: readonly TaskRow[], b: readonly TaskRow[], k: number, independent: boolean): number {
  let most = 1
  for (const row of [...a, ...b]) most = Math.max(most, taskTrials(row, k, independent))
  return most
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
 */
export function decideGate(a: readonly TaskRow[], b: readonly TaskRow[], rule: GateRule): { comparisons: GateComparison[]; failures: { k: number; why: string }[] } {
  const alpha = (1 - rule.level) / 2
  const label = rule.independent ? 'Pass' : 'Seq'
  const metric = rule.independent ? 'passAt' : 'seqAt'
  const comparisons: GateComparison[] = []
  const failures: { k: number; why: string }[] = []
  const intervals = new Map<number, ReturnType<typeof differenceInterval>>()
  for (const k of rule.ks) {
    const x = taskRates(a, k, rule.independent)
    const y = taskRates(b, k, rule.independent)
    const interval = differenceInterval(x, y, finestTrials(a, b, k, rule.independent), { level: rule.level })
    intervals.set(k, interval)
    comparisons.push({ metric, k, baseline: meanOf(x), current: meanOf(y), diff: { point: interval.point, lo: interval.lo, hi: interval.hi }, p: interval.pDrop(rule.margin), threshold: Number.NaN })
  }
  const tasks = intervals.get(rule.K)?.tasks ?? 0
  const where = (c: GateComparison) =>
    `${label}@${c.k} ${pct(c.baseline)} → ${pct(c.current)} on ${tasks} common tasks (difference ${pct(c.diff.point)} points, ${Math.round(rule.level * 100)}% CI ${pct(c.diff.lo)} to ${pct(c.diff.hi)})`
  // Fail closed: a difference that cannot be computed is never a pass.
  for (const c of comparisons) if (!Number.isFinite(c.diff.point) || !Number.isFinite(c.p)) failures.push({ k: c.k, why: `${label}@${c.k}: the difference could not be computed on the common tasks.` })
  const testable = comparisons.filter((c) => Number.isFinite(c.p)).sort((x, y) => x.p - y.p || x.k - y.k)
  const below = rule.margin === 0 ? 'zero' : `−${pct(rule.margin)} points`
  const family = testable.length > 1 ? `, Holm over ${testable.map((c) => `${label}@${c.k}`).join(', ')}` : ''
  for (const [j, c] of testable.entries()) {
    c.threshold = alpha / (testable.length - j)
    if (!(c.p < c.threshold)) break
    failures.push({ k: c.k, why: `${where(c)}: a real drop beyond ${below} (one-sided p = ${pValue(c.p)} < ${pValue(c.threshold)}${family}).` })
  }
  const atK = comparisons.find((c) => c.k === rule.K)
  const flagged = new Set(failures.map((f) => f.k))
  if (atK && !flagged.has(rule.K) && Number.isFinite(atK.diff.point) && atK.diff.point < -rule.maxDrop - TOLERANCE) {
    const p0 = intervals.get(rule.K)!.pDrop(0)
    if (p0 < alpha) failures.push({ k: rule.K, why: `${where(atK)}: the drop exceeds the hard limit of ${pct(rule.maxDrop)} points and is real on its own (one-sided p = ${pValue(p0)} < ${pValue(alpha)}).` })
  }
  return { comparisons: comparisons.sort((x, y) => x.k - y.k), failures }
}

function pValue(p: number): string {
  return p >= 0.001 ? p.toFixed(p >= 0.01 ? 3 : 4) : p.toExponential(1)
}

