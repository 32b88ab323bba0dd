import { differenceInterval } from '../metrics/index.js'
import type { CellSummary, Protocol } from '../core/schemas.js'
import { finiteOrNull } from './cell-summary.js'
import { protocolDifferences } from '../core/fingerprint.js'
import { taskRates } from '../metrics/task-rates.js'

/** The paired effect of one history policy against another on the same tasks (paper Table 6). */
export interface HistoryComparison {
  actorId: string
  mode: string
  /** e.g. `full` and `summary`. */
  baseline: { history: string; benchmark: string; seqAtK: number | null }
  other: { history: string; benchmark: string; seqAtK: number | null }
  /** other − baseline, Seq@K, paired Agresti–Min t interval over common tasks. */
  diff: { point: number | null; lo: number | null; hi: number | null }
  commonTasks: number
}

/** The protocol without what a history comparison varies: the history policy and the block's name. */
function comparable(p: Protocol): Protocol {
  return { ...p, history: null, benchmark: { ...p.benchmark, name: '' } }
}

/**
 * Pairs of sequential cells whose protocols differ only in the history policy (and the seqEval
 * block's name), with the paired difference of Seq@K over their common tasks: how much
 * summarising the history costs (the paper found up to 14 points). `full` is the reference side.
 *
 * @example
 * historyComparisons(summary.benchmarks.flatMap((b) => b.cells))
 * // [{ actorId: 'simulated:reviser', mode: 'critic-aware', baseline: { history: 'full', … }, other: { history: 'summary', … }, diff: { point: -0.12, … } }]
 */
export function historyComparisons(
  cells: readonly CellSummary[],
  options: { level?: number } = {},
): HistoryComparison[] {
  const sequential = cells.filter((c) => c.protocol.kind === 'sequential' && c.protocol.history)
  const out: HistoryComparison[] = []
  for (const a of sequential) {
    for (const b of sequential) {
      const ha = a.protocol.history!.name
      const hb = b.protocol.history!.name
      // Each unordered pair once, with `full` (or the alphabetically first policy) as the reference.
      if (ha === hb || !(ha === 'full' || (hb !== 'full' && ha < hb))) continue
      if (protocolDifferences(comparable(a.protocol), comparable(b.protocol)).length > 0) continue
      const K = a.budget
      const rows = (c: CellSummary) => c.perTask.filter((r) => r.firstSuccess.length > 0)
      const common = new Set(
        rows(a)
          .map((r) => r.taskId)
          .filter((id) => rows(b).some((r) => r.taskId === id)),
      )
      // Paired by task id, in one order on both sides.
      const ids = [...common].sort()
      const byId = (c: CellSummary) => new Map(rows(c).map((r) => [r.taskId, r]))
      const [ra, rb] = [byId(a), byId(b)]
      const repeats = Math.max(
        1,
        ...ids.flatMap((id) => [ra.get(id)!.firstSuccess.length, rb.get(id)!.firstSuccess.length]),
      )
      const interval = differenceInterval(
        taskRates(
          ids.map((id) => ra.get(id)!),
          K,
          'seqAt',
        ),
        taskRates(
          ids.map((id) => rb.get(id)!),
          K,
          'seqAt',
        ),
        repeats,
        options,
      )
      out.push({
        actorId: a.actorId,
        mode: a.mode,
        baseline: { history: ha, benchmark: a.benchmark, seqAtK: a.seqAt[K - 1] ?? null },
        other: { history: hb, benchmark: b.benchmark, seqAtK: b.seqAt[K - 1] ?? null },
        diff: { point: finiteOrNull(interval.point), lo: finiteOrNull(interval.lo), hi: finiteOrNull(interval.hi) },
        commonTasks: common.size,
      })
    }
  }
  return out
}
