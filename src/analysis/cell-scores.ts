/**
 * Reading Pass@k and Seq@k out of cell summaries, with the protocol's one rule about it: Seq@k for
 * k < K may be read from a K-run by truncation only when the actor was not told its budget
 * (the protocol's rule). Everything else in `analysis/` goes through these, so that rule lives in one place.
 */
import type { CellSummary } from '../core/schemas.js'
import { passAtK } from '../metrics/index.js'
import { taskRate } from '../metrics/index.js'

/** Thrown when an analysis would read Seq@k (k < K) from a run whose actor knew its budget K. */
export class TruncationRefusedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TruncationRefusedError'
  }
}

/** A mistake in what was asked (a k beyond the budget, an unknown mode): exit code 1, like a refusal. */
export class AnalysisInputError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'AnalysisInputError'
  }
}

export const INDEPENDENT = 'independent'

export function isIndependent(cell: CellSummary): boolean {
  return cell.protocol.kind === 'independent'
}

/**
 * Why Seq@k cannot be read from this sequential cell by truncation, or null when it can.
 *
 * @example
 * truncationProblem(cellWithBudgetDisclosed, 3) // => 'simulated:a · verifier was told its budget (K=5) …'
 * truncationProblem(cellWithBudgetDisclosed, 5) // => null (Seq@K itself is always valid)
 */
export function truncationProblem(cell: CellSummary, k: number): string | null {
  if (k > cell.budget) return `k=${k} exceeds the budget K=${cell.budget} of cell "${cell.cellId}"`
  if (k < cell.budget && cell.protocol.budgetDisclosed) {
    return `cell "${cell.cellId}" told the actor its budget (K=${cell.budget}), so Seq@${k} cannot be read from it by truncation: only Seq@${cell.budget} is valid (use k=${cell.budget}, or run with budget ${k})`
  }
  return null
}

function assertK(cell: CellSummary, k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new AnalysisInputError(`k must be an integer >= 1 (got ${String(k)})`)
  if (k > cell.budget)
    throw new AnalysisInputError(
      `k=${k} exceeds the budget K=${cell.budget} of cell "${cell.cellId}" (benchmark "${cell.benchmark}")`,
    )
}

/**
 * The unbiased Pass@k of an independent cell, null when undefined (fewer than k samples).
 *
 * @throws AnalysisInputError when the cell is not independent or k is out of 1..K.
 * @example
 * passAtFromCell(independentCell, 5) // => 0.929
 */
export function passAtFromCell(cell: CellSummary, k: number): number | null {
  if (!isIndependent(cell))
    throw new AnalysisInputError(`cell "${cell.cellId}" is not an independent cell, so it has no Pass@k`)
  assertK(cell, k)
  return cell.passAt?.[k - 1] ?? null
}

/**
 * Seq@1..k of a sequential cell (null entries where undefined).
 *
 * @throws TruncationRefusedError when k < K and the budget was disclosed to the actor.
 * @throws AnalysisInputError when the cell is independent or k is out of 1..K.
 * @example
 * seqCurveFromCell(verifierCell, 3) // => [0.487, 0.923, 0.974]
 */
export function seqCurveFromCell(cell: CellSummary, k: number): (number | null)[] {
  if (isIndependent(cell))
    throw new AnalysisInputError(`cell "${cell.cellId}" is an independent cell, so it has no Seq@k`)
  assertK(cell, k)
  const problem = truncationProblem(cell, k)
  if (problem !== null) throw new TruncationRefusedError(problem)
  return cell.seqAt.slice(0, k)
}

/**
 * Seq@k of a sequential cell, null when undefined.
 *
 * @throws TruncationRefusedError when k < K and the budget was disclosed to the actor.
 * @example
 * seqAtFromCell(verifierCell, 5) // => 1
 */
export function seqAtFromCell(cell: CellSummary, k: number): number | null {
  return seqCurveFromCell(cell, k)[k - 1] ?? null
}

type PerTask = CellSummary['perTask'][number]

/**
 * One task's share of repeats solved by attempt (or sample) k; null when every repeat errored.
 *
 * @example
 * taskSolvedBy({ taskId: 't', firstSuccess: [1, 3, null], errors: 0, costAtK: [] }, 2) // => 1/3
 */
export function taskSolvedBy(task: PerTask, k: number): number | null {
  // The one per-task Seq@k (protocol/task-rates.ts), with "undefined" as null for the analyses.
  const rate = taskRate(task, k, 'seqAt')
  return Number.isNaN(rate) ? null : rate
}

/**
 * One task's Pass@k in an independent cell: the unbiased estimator over its samples when the
 * counts are recorded (what the cell's Pass@k averages), else the share of repeats solved within
 * k samples. Null when the task has no sample.
 *
 * @example
 * taskPassAt({ taskId: 't', firstSuccess: [2, null, 1], samples: 15, passes: 4, errors: 0, costAtK: [] }, 5) // ≈ 0.846
 */
export function taskPassAt(task: PerTask, k: number): number | null {
  if (task.samples !== undefined && task.passes !== undefined) {
    if (task.samples === 0) return null
    if (task.samples >= k) return passAtK(task.samples, task.passes, k)
  }
  return taskSolvedBy(task, k)
}
