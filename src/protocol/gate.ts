import { pairedBootstrap, passAtK } from '../metrics/index.js'
import type { CellSummary, Protocol } from '../artifacts/schemas.js'
import { protocolDifferences } from './fingerprint.js'

/** What a baseline keeps per cell: the protocol and the per-task outcomes (enough to recompute every number). */
export interface BaselineCell {
  fingerprint: string
  protocol: Protocol
  perTask: CellSummary['perTask']
  seqAt: (number | null)[]
  passAt: (number | null)[] | null
  recordedAt: string
  commit?: string | null
}

export interface GateOptions {
  /** Fail when the whole interval of the difference lies below −margin (default 0). */
  margin?: number
  /** Fail when the point drop exceeds this, whatever the interval (default 0.1 = 10 points). */
  maxDrop?: number
  /** Attempt counts gated besides K (e.g. the cell's Seq@k thresholds). */
  ks?: number[]
  seed?: number
  resamples?: number
}

export interface GateComparison {
  metric: 'seqAt' | 'passAt'
  k: number
  baseline: number
  current: number
  /** current − baseline over the common tasks, paired bootstrap over tasks. */
  diff: { point: number; lo: number; hi: number }
}

export interface GateResult {
  pass: boolean
  /** Why it failed, one sentence each (empty when it passed). */
  reasons: string[]
  comparisons: GateComparison[]
  /** Tasks whose success rate at K fell, e.g. "fx/003 3/3 → 0/3". */
  regressed: string[]
  improved: string[]
  added: string[]
  removed: string[]
  /** Tasks whose content (prompt, tests) changed: left out of the comparison. */
  changed: string[]
  /** Protocol fields that differ (apart from the task list), as dotted paths with both values. */
  protocolChanges: string[]
}

type TaskRow = CellSummary['perTask'][number]

/** The protocol without the task list: adding or removing tasks is compared on the common set instead. */
function withoutTaskList(p: Protocol): Protocol {
  return { ...p, benchmark: { ...p.benchmark, tasks: 0, contentHash: '' } }
}

function valueAt(p: unknown, path: string): string {
  const v = path.split('.').reduce<unknown>((o, key) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined), p)
  return JSON.stringify(v) ?? 'undefined'
}

/** Per-task success rate at k: Seq@k from first successes, or the unbiased Pass@k from samples. */
function taskRate(row: TaskRow, k: number, independent: boolean): number {
  if (independent) return row.samples && row.samples >= k ? passAtK(row.samples, row.passes ?? 0, k) : Number.NaN
  if (row.firstSuccess.length === 0) return Number.NaN
  return row.firstSuccess.filter((f) => f !== null && f <= k).length / row.firstSuccess.length
}

const mean = (rows: readonly TaskRow[], k: number, independent: boolean) => {
  const rates = rows.map((r) => taskRate(r, k, independent)).filter(Number.isFinite)
  return rates.length === 0 ? Number.NaN : rates.reduce((a, b) => a + b, 0) / rates.length
}

const pct = (v: number) => {
  const text = (v * 100).toFixed(1)
  return text === '-0.0' ? '0.0' : text
}
/**
 * Rates are ratios of small counts, computed in floating point: 8/10 - 7/10 is
 * -0.10000000000000009. A limit is crossed only by more than this, so rounding never decides.
 */
const TOLERANCE = 1e-9

function solvedText(row: TaskRow, K: number, independent: boolean): string {
  if (independent) return `${row.passes ?? 0}/${row.samples ?? 0} samples`
  return `${row.firstSuccess.filter((f) => f !== null && f <= K).length}/${row.firstSuccess.length}`
}

/**
 * Compares a cell with its baseline, like with like (DESIGN: every gate compares the same
 * protocol and says why it failed). A protocol change fails with the fields that changed. On the
 * same protocol, tasks are matched by id and content; the difference of Seq@K (Pass@K for
 * independent cells) and of any gated Seq@k gets a paired bootstrap over the common tasks; the
 * gate fails when a whole interval lies below −margin or a point drop exceeds maxDrop.
 *
 * @example
 * const result = compareToBaseline(baselineCell, summary, { margin: 0, maxDrop: 0.1 })
 * if (!result.pass) throw new Error(result.reasons.join('\n'))
 */
export function compareToBaseline(baseline: BaselineCell, current: CellSummary, options: GateOptions = {}): GateResult {
  const margin = options.margin ?? 0
  const maxDrop = options.maxDrop ?? 0.1
  const result: GateResult = { pass: true, reasons: [], comparisons: [], regressed: [], improved: [], added: [], removed: [], changed: [], protocolChanges: [] }
  const differences = protocolDifferences(withoutTaskList(baseline.protocol), withoutTaskList(current.protocol))
  if (differences.length > 0) {
    result.pass = false
    result.protocolChanges = differences.map((path) => `${path}: ${valueAt(baseline.protocol, path)} → ${valueAt(current.protocol, path)}`)
    result.reasons.push(`the protocol changed since the baseline (${result.protocolChanges.join('; ')}); numbers from different protocols are not comparable. If the change is intended, accept it with \`vitest run -u\` or SEQK_UPDATE_BASELINE=1.`)
    return result
  }
  const independent = current.protocol.kind === 'independent'
  const K = current.budget
  const before = new Map(baseline.perTask.map((r) => [r.taskId, r]))
  const now = new Map(current.perTask.map((r) => [r.taskId, r]))
  result.added = [...now.keys()].filter((id) => !before.has(id))
  result.removed = [...before.keys()].filter((id) => !now.has(id))
  result.changed = [...now.keys()].filter((id) => {
    const a = before.get(id)?.contentHash
    const b = now.get(id)?.contentHash
    return before.has(id) && a !== undefined && b !== undefined && a !== b
  })
  const common = [...now.keys()].filter((id) => before.has(id) && !result.changed.includes(id))
  if (common.length === 0) {
    result.pass = false
    result.reasons.push('no task is common to the baseline and this run (same id and content), so nothing can be compared; accept the new task set with `vitest run -u` or SEQK_UPDATE_BASELINE=1.')
    return result
  }
  const ks = [...new Set([K, ...(options.ks ?? [])])].filter((k) => k >= 1 && k <= K).sort((x, y) => x - y)
  // A task with no measured outcome on either side (all its trajectories errored) is left out of
  // both, so the comparison stays paired.
  const measured = common.filter((id) => Number.isFinite(taskRate(before.get(id)!, K, independent)) && Number.isFinite(taskRate(now.get(id)!, K, independent)))
  if (measured.length === 0) {
    result.pass = false
    result.reasons.push('no common task has a measured outcome in both the baseline and this run (every trajectory errored on one side), so nothing can be compared; fix the errors, then accept the baseline with `vitest run -u` if it is the one that is empty.')
    return result
  }
  const a = measured.map((id) => before.get(id)!)
  const b = measured.map((id) => now.get(id)!)
  const metric = independent ? 'passAt' : 'seqAt'
  const label = independent ? 'Pass' : 'Seq'
  for (const k of ks) {
    if (!independent && current.protocol.budgetDisclosed && k < K) continue
    const interval = pairedBootstrap(a, b, (r) => r.taskId, (rows) => mean(rows, k, independent), { seed: options.seed ?? 1, resamples: options.resamples ?? 2000 })
    const comparison: GateComparison = { metric, k, baseline: mean(a, k, independent), current: mean(b, k, independent), diff: { point: interval.point, lo: interval.lo, hi: interval.hi } }
    result.comparisons.push(comparison)
    const where = `${label}@${k} ${pct(comparison.baseline)} → ${pct(comparison.current)} on ${measured.length} common tasks (difference ${pct(interval.point)} points, 95% CI ${pct(interval.lo)} to ${pct(interval.hi)})`
    // Fail closed: a difference that cannot be computed is never a pass.
    if (!Number.isFinite(interval.point) || !Number.isFinite(interval.hi)) result.reasons.push(`${label}@${k}: the difference could not be computed on the common tasks.`)
    else if (interval.hi < -margin - TOLERANCE) result.reasons.push(`${where}: the whole interval lies below ${margin === 0 ? 'zero' : `−${pct(margin)} points`}.`)
    else if (interval.point < -maxDrop - TOLERANCE) result.reasons.push(`${where}: the drop exceeds the hard limit of ${pct(maxDrop)} points.`)
  }
  for (const id of measured) {
    const x = taskRate(before.get(id)!, K, independent)
    const y = taskRate(now.get(id)!, K, independent)
    const text = `${id} ${solvedText(before.get(id)!, K, independent)} → ${solvedText(now.get(id)!, K, independent)}`
    if (y < x - TOLERANCE) result.regressed.push(text)
    else if (y > x + TOLERANCE) result.improved.push(text)
  }
  if (result.reasons.length > 0) {
    result.pass = false
    if (result.regressed.length > 0) result.reasons.push(`tasks that got worse: ${result.regressed.join(', ')}`)
  }
  return result
}
