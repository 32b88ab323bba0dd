/**
 * When revisions pay off (paper section 5.2.1, Table 4): EGS, the share of ΔSeq@K earned by the
 * first revision, and LGS, the share earned by the last one. A high EGS suits deployments that
 * allow few revisions; a non-zero LGS says more attempts could still help.
 */
import type { CellSummary } from '../core/schemas.js'
import { revisionTiming } from '../metrics/index.js'
import { isIndependent } from './cell-scores.js'
import type { TimingRow } from './report-schema.js'

/**
 * EGS and LGS of one sequential cell over Seq@1..k (k defaults to the cell's budget K). Both are
 * null with the reason when undefined: ΔSeq@k ≤ 0 (no gain to share), k = 1 (no revision), or a
 * budget disclosed to the actor (Seq@2 … Seq@(K−1) do not exist then, so neither do the shares).
 *
 * @throws RangeError for an independent cell or a k outside 1..K.
 * @example
 * revisionTimingRow(verifierCell) // => { egs: 0.85, lgs: 0, reason: null, … }
 * revisionTimingRow(stubbornCell) // => { egs: null, lgs: null, reason: 'ΔSeq@5 ≤ 0: no revision gain to share', … }
 */
export function revisionTimingRow(cell: CellSummary, k: number = cell.budget): TimingRow {
  if (isIndependent(cell)) throw new RangeError(`cell "${cell.cellId}" is independent: revision timing needs revisions`)
  if (!Number.isInteger(k) || k < 1 || k > cell.budget)
    throw new RangeError(`k must be an integer in 1..${cell.budget} for cell "${cell.cellId}" (got ${String(k)})`)
  const base = { benchmark: cell.benchmark, actorId: cell.actorId, mode: cell.mode, k }
  const seqAtK = cell.seqAt[k - 1] ?? null
  if (cell.protocol.budgetDisclosed && k > 1) {
    return {
      ...base,
      seqAt1: null,
      seqAtK,
      gain: null,
      egs: null,
      lgs: null,
      reason: `budget disclosed to the actor: only Seq@${cell.budget} is valid, so EGS and LGS are undefined`,
    }
  }
  const curve = cell.seqAt.slice(0, k).map((v) => v ?? Number.NaN)
  const timing = revisionTiming(curve)
  const seqAt1 = cell.seqAt[0] ?? null
  const gain = seqAt1 === null || seqAtK === null ? null : seqAtK - seqAt1
  // The metric's reason says "ΔSeq@K"; name the k actually used.
  const reason = timing.reason === undefined ? null : timing.reason.replace('ΔSeq@K <= 0', `ΔSeq@${k} ≤ 0`)
  return { ...base, seqAt1, seqAtK, gain, egs: timing.egs, lgs: timing.lgs, reason }
}

/**
 * The revision-timing table: one row per sequential cell, in the order given.
 *
 * @example
 * revisionTimingTable(cells) // rows for every (actor, feedback mode) cell, independent cells skipped
 */
export function revisionTimingTable(cells: readonly CellSummary[], k?: number): TimingRow[] {
  return cells.filter((c) => !isIndependent(c)).map((c) => revisionTimingRow(c, Math.min(k ?? c.budget, c.budget)))
}
