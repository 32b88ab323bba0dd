/**
 * Per-task rates from a cell summary's `perTask` rows: the one place the gate, the history
 * comparison, the analyses and the power simulation read a task's rate, so none re-implements it.
 */
import { METRICS, type MetricId } from './registry.js'
import { censoredShares, tailHazards, type CensoredTaskOutcomes } from './censored.js'
import type { TaskEvidence } from './population.js'

/**
 * One task's outcomes as a cell summary keeps them (`perTask[]` in summary.json): each repeat's
 * first successful attempt (null: never), the attempts at which errored repeats were censored,
 * and for independent sampling the samples drawn and how many passed.
 */
export interface TaskRow {
  readonly taskId: string
  readonly firstSuccess: readonly (number | null)[]
  readonly censoredAt?: readonly number[]
  readonly samples?: number
  readonly passes?: number
  /** Its best score by attempt k, k = 1..K (null or NaN: not measured there): the score curve's per-task value. */
  readonly bestScore?: readonly (number | null)[]
}

/**
 * One task's value of a metric at k (τ for Cover@τ, read at the budget `K`) from its summary row:
 * Seq@k as the share of its repeats solved by attempt k, the unbiased Pass@k from its samples (NaN
 * when it has too few), and so on for each metric of the registry. The one place the gate, the
 * history comparison and the power simulation read a task's rate.
 */
export function taskRate(row: TaskRow, k: number, metric: MetricId, K = k): number {
  return METRICS[metric].taskValue(row, k, K)
}

/**
 * What a task's row says about its per-attempt (per-sample) success: the attempts that succeeded
 * and those that failed, within the budget K. A repeat solved at attempt t is one success after
 * t − 1 failures, an unsolved one K failures, one an error stopped at attempt t only t − 1 failures
 * (nothing is known after it); independent sampling counts its samples.
 */
export function taskEvidence(row: TaskRow, K: number, independent: boolean): TaskEvidence {
  if (independent) return { successes: row.passes ?? 0, failures: (row.samples ?? 0) - (row.passes ?? 0) }
  let successes = 0
  let failures = 0
  for (const f of row.firstSuccess) {
    if (f !== null && f <= K) {
      successes++
      failures += f - 1
    } else failures += K
  }
  for (const c of row.censoredAt ?? []) failures += Math.min(c, K + 1) - 1
  return { successes, failures }
}

/** Whether some row has repeats censored by an infrastructure error. */
export function hasCensored(rows: readonly TaskRow[]): boolean {
  return rows.some((row) => (row.censoredAt?.length ?? 0) > 0)
}

/** A task's repeats (first successes and censored ones). */
export function repeatsOf(row: TaskRow): number {
  return row.firstSuccess.length + (row.censoredAt?.length ?? 0)
}

/**
 * The row cut to its first `n` repeats (first successes before censored ones: rows keep no
 * order between the two), so two runs with different repeat counts compare like with like.
 */
export function firstRepeats<R extends TaskRow>(row: R, n: number): R {
  if (repeatsOf(row) <= n) return row
  const firstSuccess = row.firstSuccess.slice(0, n)
  const censoredAt = (row.censoredAt ?? []).slice(0, Math.max(0, n - firstSuccess.length))
  const { censoredAt: _dropped, ...rest } = row
  return (censoredAt.length > 0 ? { ...rest, firstSuccess, censoredAt } : { ...rest, firstSuccess }) as unknown as R
}

/**
 * How many independent trials of the task a rate at k rests on: its repeats, or for Pass@k the
 * number of disjoint k-sample groups its samples hold (at least 1 for a measured task).
 */
export function taskTrials(row: TaskRow, k: number, metric: MetricId): number {
  return METRICS[metric].trials(row, k)
}

/** A summary row as censored outcomes: its first successes, and its errored repeats where they stopped. */
export function censoredRow(row: TaskRow): CensoredTaskOutcomes {
  return {
    taskId: row.taskId,
    repeats: [
      ...row.firstSuccess.map((f) => ({ firstSuccess: f })),
      ...(row.censoredAt ?? []).map((c) => ({ censoredAt: c })),
    ],
  }
}

/**
 * Every row's value at k, as the cell's summary computes it: {@link taskRate}, or for Seq@k where
 * some row has censored repeats (errors under `errors: 'censored'`) each task's Kaplan–Meier share
 * with the tails of similar tasks (see seqAtCurveCensored).
 */
export function taskRates(
  rows: readonly TaskRow[],
  k: number,
  metric: MetricId,
  options: { censored?: boolean; K?: number } = {},
): number[] {
  // censored: false reads the rows as if errored repeats were left out (the upper bound).
  if (metric !== 'seqAt' || options.censored === false || !rows.some((row) => (row.censoredAt?.length ?? 0) > 0))
    return rows.map((row) => taskRate(row, k, metric, options.K))
  const outcomes = rows.map(censoredRow)
  const tails = tailHazards(outcomes, k)
  return outcomes.map((task, i) => censoredShares(task, k, tails[i]!)[k - 1]!)
}
