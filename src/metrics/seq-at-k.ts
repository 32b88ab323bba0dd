import { rateInterval, type Interval, type IntervalOptions } from './intervals.js'
import { assertBudget } from './validation.js'

/**
 * Per-task outcomes of the sequential protocol over r repeats.
 *
 * `firstSuccess[j]` is the 1-based attempt at which repeat j first passed, or `null` when no attempt
 * within the budget passed. Errored trajectories are left out by the caller: an error is not a
 * failure of the model, and counting it as `null` would silently lower Seq@K.
 */
export interface TaskOutcomes {
  taskId: string
  firstSuccess: (number | null)[]
}

/**
 * The Seq@k curve for k = 1..budget: Seq@k = mean over tasks of (mean over repeats of
 * [firstSuccess <= k]).
 *
 * Averaging per task first (rather than pooling all trajectories) weights every task equally even
 * when some tasks have fewer usable repeats, as in the paper's definition. A first success later
 * than `budget` counts as a miss, so a K-run truncated to k gives exactly Seq@k (valid only when
 * the actor was not told its budget). Tasks with zero repeats are skipped;
 * when no task has a repeat every entry is NaN rather than 0.
 *
 * @returns an array of length `budget`, Seq@k at index k - 1.
 * @throws RangeError when `budget` is not an integer >= 1 or a first success is not an integer >= 1.
 * @example
 * seqAtCurve([{ taskId: 'a', firstSuccess: [1, null] }, { taskId: 'b', firstSuccess: [3, 2] }], 3)
 * // => [0.25, 0.5, 0.75]
 */
export function seqAtCurve(outcomes: readonly TaskOutcomes[], budget: number): number[] {
  assertBudget(budget)
  const sums = new Array<number>(budget).fill(0)
  let tasks = 0
  const hits = new Array<number>(budget)
  for (const task of outcomes) {
    const repeats = task.firstSuccess.length
    if (repeats === 0) continue
    tasks += 1
    hits.fill(0)
    for (const attempt of task.firstSuccess) {
      if (attempt === null) continue
      if (!Number.isInteger(attempt) || attempt < 1) {
        throw new RangeError(
          `firstSuccess must be a 1-based attempt number or null (task '${task.taskId}' has ${String(attempt)})`,
        )
      }
      if (attempt <= budget) hits[attempt - 1] = (hits[attempt - 1] ?? 0) + 1
    }
    // Integer running counts, divided once per k: entry k then depends only on the outcomes, not on
    // the budget, so truncation gives bit-identical values.
    let solved = 0
    for (let k = 0; k < budget; k++) {
      solved += hits[k] ?? 0
      sums[k] = (sums[k] ?? 0) + solved / repeats
    }
  }
  if (tasks === 0) return sums.fill(Number.NaN)
  return sums.map((sum) => sum / tasks)
}

/**
 * Seq@k for a single k: the share of tasks solved by attempt k (see {@link seqAtCurve}).
 *
 * @example
 * seqAt([{ taskId: 'a', firstSuccess: [2] }], 1) // => 0
 * seqAt([{ taskId: 'a', firstSuccess: [2] }], 2) // => 1
 */
export function seqAt(outcomes: readonly TaskOutcomes[], k: number): number {
  assertBudget(k, 'k')
  return seqAtCurve(outcomes, k)[k - 1] ?? Number.NaN
}

/**
 * A task's share of repeats solved by attempt k (NaN when it has no repeats): its term in Seq@k.
 * The same division as {@link seqAtCurve}, so a mean of shares equals Seq@k bit for bit.
 */
function solvedShare(task: TaskOutcomes, k: number): number {
  const repeats = task.firstSuccess.length
  if (repeats === 0) return Number.NaN
  let solved = 0
  for (const attempt of task.firstSuccess) {
    if (attempt === null) continue
    if (!Number.isInteger(attempt) || attempt < 1) {
      throw new RangeError(
        `firstSuccess must be a 1-based attempt number or null (task '${task.taskId}' has ${String(attempt)})`,
      )
    }
    if (attempt <= k) solved += 1
  }
  return solved / repeats
}

/**
 * Seq@k with its interval over tasks ({@link rateInterval}: Korn–Graubard, each task's share of
 * its repeats, the repeats its trials). Never zero-width: 10 tasks all solved give 69.2–100.
 *
 * @example
 * seqAtInterval(outcomes, 5) // { point: 0.62, lo: 0.45, hi: 0.77, level: 0.95, method: 'korn-graubard/2', tasks: 20 }
 */
export function seqAtInterval(outcomes: readonly TaskOutcomes[], k: number, options?: IntervalOptions): Interval {
  assertBudget(k, 'k')
  return rateInterval(
    outcomes.map((task) => solvedShare(task, k)),
    outcomes.map((task) => Math.max(1, task.firstSuccess.length)),
    options,
  )
}
