/**
 * What the report's charts draw, computed from a run's summary and trajectories (pure): curves
 * with per-k bootstrap bands, cost–success points, ranks. The cell summary carries an interval only
 * at K; the bands here are recomputed per k with the cell's own seed and resample count, so the
 * band at K is the summary's interval.
 */
import { readStatistic } from '../protocol/statistics/index.js'
import { headlineCurve } from '../protocol/cell-metrics.js'
import { headlineMetric } from '../metrics/registry.js'
import type { CellSummary, Trajectory } from '../core/schemas.js'
import type { Usage } from '../core/contract.js'
import { passAtInterval, seqAtInterval, seqAtIntervalCensored, type SampleCounts } from '../metrics/index.js'
import { censoredRow } from '../metrics/task-rates.js'
import { competitionRanks } from '../metrics/ranks.js'
import { plural } from '../metrics/format.js'

export interface CurvePoint {
  k: number
  value: number | null
  lo: number | null
  hi: number | null
}

export interface CellCurve {
  /** `Seq` for sequential cells, `Pass` (unbiased Pass@k) for independent ones. */
  label: 'Seq' | 'Pass'
  points: CurvePoint[]
}

const finite = (v: number): number | null => (Number.isFinite(v) ? v : null)

/**
 * A cell's success curve for k = 1..K with the cell's own interval method at every k (Seq@k:
 * Korn–Graubard over tasks, repeats kept together). Points whose rate is not defined (budget
 * disclosed, too few samples) have null value and band.
 *
 * @example
 * curveWithBands(cell).points[4] // => { k: 5, value: 0.87, lo: 0.74, hi: 0.97 }
 */
export function curveWithBands(cell: CellSummary): CellCurve {
  const independent = cell.protocol.kind === 'independent'
  const headline = headlineCurve(cell)
  const interval = headline.interval ?? cell.seqAtInterval
  const options = { level: interval.level }
  // Errors censored (the default): the bands come from the same Kaplan–Meier shares as the rates.
  const censored = cell.perTask.some((t) => (t.censoredAt?.length ?? 0) > 0)
  const curve = headline.curve
  const samples: SampleCounts[] | null =
    independent && cell.perTask.every((t) => t.samples !== undefined && t.passes !== undefined)
      ? cell.perTask.map((t) => ({ taskId: t.taskId, n: t.samples ?? 0, c: t.passes ?? 0 }))
      : null
  const points = Array.from({ length: cell.budget }, (_, i): CurvePoint => {
    const k = i + 1
    const value = curve[i] ?? null
    if (value === null) return { k, value, lo: null, hi: null }
    const band = independent
      ? samples
        ? passAtInterval(samples, k, options)
        : null
      : censored
        ? seqAtIntervalCensored(cell.perTask.map(censoredRow), k, options)
        : seqAtInterval(cell.perTask, k, options)
    return { k, value, lo: band ? finite(band.lo) : null, hi: band ? finite(band.hi) : null }
  })
  return { label: headlineMetric(independent).family as 'Seq' | 'Pass', points }
}

/**
 * Mean tokens (input + output, helpers included) per task of running a cell with budget k and
 * stopping at the first success, k = 1..K: the token analogue of `costAtK`, for runs whose models
 * have no price (simulated actors, local models). Errored trajectories are left out, as they are
 * from the rates. Null at a k where a counted call reported no usage.
 */
export function tokensAtK(cell: CellSummary, trajectories: readonly Trajectory[]): (number | null)[] {
  const byTask = new Map<string, Trajectory[]>()
  for (const t of trajectories) {
    if (t.cellId !== cell.cellId || t.benchmark !== cell.benchmark) continue
    if ((t.status === 'error' && !cell.errors.countedAsFailures) || t.status === 'capped') continue
    if (!byTask.has(t.taskId)) byTask.set(t.taskId, [])
    byTask.get(t.taskId)!.push(t)
  }
  // A call that reported no usage makes the tokens at every k it enters unknown: null, never a smaller number.
  const tokens = (usage: Usage | null): number => (usage === null ? Number.NaN : usage.inputTokens + usage.outputTokens)
  return Array.from({ length: cell.budget }, (_, i) => {
    const k = i + 1
    if (byTask.size === 0) return null
    let sum = 0
    for (const ts of byTask.values()) {
      let taskSum = 0
      for (const t of ts) {
        const stop = Math.min(k, t.firstSuccess ?? k)
        for (const a of t.attempts) {
          if (a.index > stop) continue
          taskSum += tokens(a.usage)
          for (const call of a.helperCalls) taskSum += tokens(call.usage)
        }
        // What an attempt that failed part way had spent, as costAtK counts it.
        if (t.error && t.error.attempt <= stop) for (const call of t.error.calls ?? []) taskSum += tokens(call.usage)
      }
      sum += taskSum / ts.length
    }
    if (Number.isNaN(sum)) return null
    return sum / byTask.size
  })
}

/** One point of the cost–success chart: a cell run with budget k. */
export interface CostPoint {
  actor: string
  cellId: string
  mode: string
  fingerprint: string
  k: number
  cost: number
  value: number
}

/**
 * Cost–success points of a benchmark's cells, in USD when every cell is priced and at least one
 * costs something, otherwise in tokens (a run of simulated or free models would put every point at
 * $0, which says nothing).
 */
export function costPoints(
  cells: readonly CellSummary[],
  trajectories: readonly Trajectory[],
): { unit: 'usd' | 'tokens'; points: CostPoint[] } {
  const priced =
    cells.every((c) => c.costAtK.every((v) => v !== null)) &&
    cells.some((c) => c.costAtK.some((v) => v !== null && v > 0))
  const points: CostPoint[] = []
  for (const cell of cells) {
    const cost = priced ? cell.costAtK : tokensAtK(cell, trajectories)
    const curve = headlineCurve(cell).curve
    for (let i = 0; i < cell.budget; i++) {
      const c = cost[i]
      const v = curve[i]
      if (c === null || c === undefined || v === null || v === undefined) continue
      points.push({
        actor: cell.actorId,
        cellId: cell.cellId,
        mode: cell.mode,
        fingerprint: cell.fingerprint,
        k: i + 1,
        cost: c,
        value: v,
      })
    }
  }
  return { unit: priced ? 'usd' : 'tokens', points }
}

/** One actor's rate and rank in one column of the rank-change chart. */
export interface RankRow {
  actor: string
  column: string
  order: number
  rank: number
  value: number
  fingerprint: string
}

/**
 * The rank-change (slope) chart's rows: Pass@K, then Seq@K per feedback mode, for the actors that
 * have all of them. Empty unless at least two actors have an independent cell and a sequential one.
 * Ranks tie by the terminal table's rule (metrics/ranks.ts), so chart and table agree on ties.
 */
export function rankRows(cells: readonly CellSummary[]): RankRow[] {
  const K = Math.max(...cells.map((c) => c.budget))
  const atK = (c: CellSummary) => headlineCurve(c).curve[K - 1] ?? null
  const independent = cells.filter((c) => c.protocol.kind === 'independent' && c.budget === K && atK(c) !== null)
  const modes = [...new Set(cells.filter((c) => c.protocol.kind === 'sequential').map((c) => c.mode))]
  const columns = [
    { name: `Pass@${K}`, cells: independent },
    ...modes.map((mode) => ({
      name: `Seq@${K} · ${mode}`,
      cells: cells.filter(
        (c) => c.mode === mode && c.protocol.kind === 'sequential' && c.budget === K && atK(c) !== null,
      ),
    })),
  ]
  const actors = [...new Set(independent.map((c) => c.actorId))].filter((a) =>
    columns.every((col) => col.cells.some((c) => c.actorId === a)),
  )
  if (actors.length < 2 || columns.length < 2) return []
  return columns.flatMap((col, order) => {
    const values = new Map(actors.map((a) => [a, atK(col.cells.find((c) => c.actorId === a)!)!]))
    const ranks = competitionRanks(values)
    return actors.map((actor) => ({
      actor,
      column: col.name,
      order,
      rank: ranks.get(actor)!,
      value: values.get(actor)!,
      fingerprint: col.cells.find((c) => c.actorId === actor)!.fingerprint,
    }))
  })
}

/**
 * Under which isolation the cells' code ran, in words (empty when no verdict recorded one):
 * "code sandboxed with bubblewrap", or a warning naming the attempts that ran without it.
 *
 * @example
 * sandboxText(cells) // => 'code sandboxed with bubblewrap (312 attempts)'
 */
export function sandboxText(cells: readonly CellSummary[]): string {
  let bwrap = 0
  let none = 0
  for (const cell of cells) {
    bwrap += cell.sandboxes?.bwrap ?? 0
    none += cell.sandboxes?.none ?? 0
  }
  const attempts = (n: number): string => plural(n, 'attempt')
  if (none === 0) return bwrap === 0 ? '' : `code sandboxed with bubblewrap (${attempts(bwrap)})`
  return `code ran WITHOUT a sandbox in ${attempts(none)}${bwrap > 0 ? ` (bubblewrap in ${attempts(bwrap)})` : ''}`
}

/** The revision classes in the order every view shows them, with their words (paper §5.2.2). */
export const REVISION_CLASS_LABELS = { unhelpful: 'unhelpful', some: 'addressed some', all: 'addressed all' } as const
export type RevisionClassName = keyof typeof REVISION_CLASS_LABELS

/** One cell's share of one revision class and that class's next-attempt success, for the revision charts. */
export interface RevisionClassPoint {
  cellId: string
  actor: string
  mode: string
  fingerprint: string
  cls: RevisionClassName
  /** 0, 1, 2: the order of the classes in a stacked bar and on an axis. */
  order: number
  annotated: number
  revisions: number
  share: number | null
  shareLo: number | null
  shareHi: number | null
  solved: number
  /** Null when the class is empty. */
  success: number | null
  successLo: number | null
  successHi: number | null
}

/**
 * A cell's revision classes (paper Figure 5b): per class its share of the annotated revisions and
 * its next-attempt success, with their intervals, straight from `summary.json`. Null when the cell
 * has no annotation (independent sampling, feedback that names no request, annotation off): the
 * report says so instead of drawing an empty chart.
 *
 * @example
 * revisionClassPoints(cell)?.map((p) => [p.cls, p.share]) // => [['unhelpful', 0.3], ['some', 0.32], ['all', 0.38]]
 */
export function revisionClassPoints(cell: CellSummary): RevisionClassPoint[] | null {
  const a = cell.revisionAnnotation
  if (!a || a.annotated === 0) return null
  return (Object.keys(REVISION_CLASS_LABELS) as RevisionClassName[]).map((cls, order) => {
    const k = a.classes[cls]
    const empty = k.revisions === 0
    return {
      cellId: cell.cellId,
      actor: cell.actorId,
      mode: cell.mode,
      fingerprint: cell.fingerprint,
      cls,
      order,
      annotated: a.annotated,
      revisions: k.revisions,
      share: k.share.point,
      shareLo: k.share.lo,
      shareHi: k.share.hi,
      solved: k.solved,
      success: empty ? null : k.success.point,
      successLo: empty ? null : k.success.lo,
      successHi: empty ? null : k.success.hi,
    }
  })
}

/**
 * Why a sequential cell has no revision annotation, in words, for the report's note.
 *
 * @example
 * unannotatedReason(binaryCell) // => 'binary feedback names no request to check a revision against'
 */
export function unannotatedReason(cell: CellSummary): string {
  const f = cell.protocol.feedback
  if (cell.protocol.kind !== 'sequential') return 'independent samples are not revisions'
  if ((readStatistic(cell, 'unmodifiedRevisions')?.n ?? 0) === 0)
    return 'no revision (every trajectory ended at attempt 1)'
  if (f?.kind === 'binary') return 'binary feedback names no request to check a revision against'
  if (f?.kind === 'critic') return 'critic feedback names no structured request (an LLM annotator can judge it)'
  return 'its feedback named no request (load errors, timeouts) or annotation was off'
}
