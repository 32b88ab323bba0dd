import { passAtK } from '../metrics/index.js'
import type { CellSummary } from '../artifacts/schemas.js'

type TaskRow = CellSummary['perTask'][number]

/**
 * One task's success rate at k from its summary row: Seq@k as the share of its repeats solved by
 * attempt k, or the unbiased Pass@k from its samples (NaN when it has too few). The one place the
 * gate, the history comparison and the power simulation read a task's rate.
 */
export function taskRate(row: TaskRow, k: number, independent: boolean): number {
  if (independent) return row.samples && row.samples >= k ? passAtK(row.samples, row.passes ?? 0, k) : Number.NaN
  if (row.firstSuccess.length === 0) return Number.NaN
  let solved = 0
  for (const f of row.firstSuccess) if (f !== null && f <= k) solved++
  return solved / row.firstSuccess.length
}

/**
 * How many independent trials of the task a rate at k rests on: its repeats, or for Pass@k the
 * number of disjoint k-sample groups its samples hold (at least 1 for a measured task).
 */
export function taskTrials(row: TaskRow, k: number, independent: boolean): number {
  if (independent) return Math.max(1, Math.floor((row.samples ?? 0) / k))
  return Math.max(1, row.firstSuccess.length)
}
