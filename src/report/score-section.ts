/**
 * The score curve as every output shows it (terminal, Markdown, HTML): Score@k, the mean over tasks
 * of the best score reached by attempt k, beside the cell's solved rate. One module words it, so
 * the table, the pull-request comment and the report say the same thing of the same number.
 */
import type { CellSummary } from '../core/schemas.js'
import { intervalText, percent } from '../metrics/format.js'
import { headlineCurve } from '../protocol/cell-metrics.js'

/** What Score@k is, in one sentence (every output's heading of the score curve). */
export const SCORE_CURVE_MEANING =
  "Score@k: the mean over tasks of the best verdict score reached by attempt k (the paper's reference harness's metric@k); with soft (rubric) scores it credits partial answers and lies above the solved rate"

/** One cell's row of the score-curve table (cells chosen by {@link scoreCurveCells}). */
export interface ScoreRow {
  cellId: string
  /** Score@k at each k asked, as percentages (`—` where undefined). */
  at: string[]
  /** Its 95% interval at K. */
  ci: string
  /** The cell's solved rate at K, labelled (`Seq@5 30.6`, `Pass@5 …`). */
  solved: string
  /** Told its budget: Score@k for k < K is read within the K-run. */
  disclosed: boolean
}

/**
 * Cells whose score curve says something their solved-rate row does not: some verdict scored
 * between 0 and 1, or the budget was disclosed (Seq@k below K is left empty; the curve within the
 * K-run, as the reference harness reads it, is only here).
 */
export function scoreCurveCells(cells: readonly CellSummary[]): CellSummary[] {
  return cells.filter(
    (c) => c.score && (!c.score.binary || (c.protocol.kind === 'sequential' && c.protocol.budgetDisclosed)),
  )
}

/**
 * The score-curve rows of the cells with soft scores, at `ks` (default every k of the widest budget).
 *
 * @example
 * scoreRows(cells)[0] // => { cellId: 'simulated:reviser · critic-aware', at: ['70.8', …], ci: '62.1–78.4', solved: 'Seq@5 97.2', disclosed: false }
 */
export function scoreRows(cells: readonly CellSummary[], ks?: readonly number[]): ScoreRow[] {
  const soft = scoreCurveCells(cells)
  if (soft.length === 0) return []
  const K = Math.max(...soft.map((c) => c.budget))
  const at = ks ?? Array.from({ length: K }, (_, i) => i + 1)
  return soft.map((cell) => {
    const headline = headlineCurve(cell)
    const score = cell.score!
    return {
      cellId: cell.cellId,
      at: at.map((k) => percent(score.at[k - 1] ?? null)),
      ci: intervalText(score.interval.lo, score.interval.hi),
      solved: `${headline.label}@${cell.budget} ${percent(headline.curve[cell.budget - 1] ?? null)}`,
      disclosed: cell.protocol.budgetDisclosed,
    }
  })
}

/**
 * The line under a table whose cells all scored 0 or 1 (and none was told its budget): the score
 * curve adds nothing to read, and this says why (null when a score-curve table is shown instead,
 * or no cell has a score curve).
 *
 * @example
 * binaryScoreLine(codeCells) // => 'Score@k (mean best score) is the solved rate here: every verdict scored 1 or 0'
 */
export function binaryScoreLine(cells: readonly CellSummary[]): string | null {
  const scored = cells.filter((c) => c.score)
  if (scored.length === 0 || scoreCurveCells(cells).length > 0) return null
  return "Score@k (mean best score by attempt k, the reference harness's metric) is the solved rate here: every verdict scored 1 or 0 (Seq@k for feedback cells; for independent cells the share solved by sample k, in draw order)"
}

/** The note for cells told their budget: their Score@k below K is a within-run reading. */
export function disclosedScoreLine(rows: readonly ScoreRow[]): string | null {
  const ids = rows.filter((r) => r.disclosed).map((r) => r.cellId)
  if (ids.length === 0) return null
  return `budget disclosed (${ids.join(', ')}): Score@k for k < K is read within the K-run, as the reference harness reads it, not a budget-k number`
}
