import { assertBudget, assertCounts } from './validation.js'
import { rateInterval, type Interval, type IntervalOptions } from './intervals.js'

/**
 * The unbiased Pass@k estimator for one task: 1 - C(n-c, k) / C(n, k), the chance that at least one
 * of k samples drawn without replacement from the n observed ones passed.
 *
 * Computed as 1 - prod_{i=n-c+1..n} (1 - k/i) (Chen et al. 2021, "Evaluating Large Language Models
 * Trained on Code"): the binomials overflow doubles from n ≈ 1030 on, the product never does.
 * With fewer samples than k the estimator is undefined; returning 1 there (as `n - c < k` would
 * suggest) is a known pitfall that inflates Pass@k, so it is NaN.
 *
 * @param n - samples drawn (integer >= 0).
 * @param c - samples that passed (integer, 0 <= c <= n).
 * @param k - budget (integer >= 1).
 * @returns NaN when n < k, 0 when c = 0, 1 when n - c < k.
 * @throws RangeError when the arguments are not integers in range.
 * @example
 * passAtK(10, 3, 1) // => 0.3
 * passAtK(10, 3, 5) // => 1 - C(7,5)/C(10,5) = 1 - 21/252 ≈ 0.9167
 * passAtK(3, 3, 5) // => NaN (only 3 samples for a budget of 5)
 */
export function passAtK(n: number, c: number, k: number): number {
  assertCounts(n, c, k)
  if (n < k) return Number.NaN
  if (c === 0) return 0
  if (n - c < k) return 1
  let allFail = 1
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i
  return 1 - allFail
}

/** Independent samples of one task: `n` samples drawn from the original prompt, `c` of them passed. */
export interface SampleCounts {
  taskId: string
  n: number
  c: number
}

/**
 * Averages a per-task estimator over tasks for k = 1..budget. Tasks with n = 0 carry no information
 * and are skipped; an entry is NaN when any remaining task has n < k, because averaging over only
 * the tasks that happen to have enough samples would silently change the task set per k.
 */
export function curveOverTasks(
  samples: readonly SampleCounts[],
  budget: number,
  estimator: (n: number, c: number, k: number) => number,
): number[] {
  assertBudget(budget)
  const curve: number[] = []
  for (let k = 1; k <= budget; k++) {
    let sum = 0
    let tasks = 0
    for (const { taskId, n, c } of samples) {
      assertCounts(n, c, k, `task '${taskId}'`)
      if (n === 0) continue
      sum += estimator(n, c, k)
      tasks += 1
    }
    curve.push(tasks === 0 ? Number.NaN : sum / tasks)
  }
  return curve
}

/**
 * The Pass@k curve for k = 1..budget: mean over tasks of {@link passAtK}(n, c, k).
 *
 * Tasks with n = 0 are skipped. An entry is NaN when any task has n < k (so the mean is never
 * silently taken over a subset of tasks), and every entry is NaN when no task has a sample.
 *
 * @returns an array of length `budget`, Pass@k at index k - 1.
 * @throws RangeError on a budget < 1 or counts out of range (the message names the task).
 * @example
 * passAtCurve([{ taskId: 'a', n: 2, c: 1 }, { taskId: 'b', n: 2, c: 0 }], 3)
 * // => [0.25, 0.5, NaN]
 */
export function passAtCurve(samples: readonly SampleCounts[], budget: number): number[] {
  return curveOverTasks(samples, budget, passAtK)
}

/**
 * Pass@k with its interval over tasks ({@link rateInterval}): each task's unbiased estimate, resting
 * on ⌊n / k⌋ independent k-sample groups. NaN bounds wherever {@link passAtCurve} is NaN.
 *
 * @example
 * passAtInterval([{ taskId: 'a', n: 10, c: 3 }, { taskId: 'b', n: 10, c: 0 }], 5).method // => 'korn-graubard/2'
 */
export function passAtInterval(samples: readonly SampleCounts[], k: number, options?: IntervalOptions): Interval {
  assertBudget(k, 'k')
  const measured = samples.filter((s) => {
    assertCounts(s.n, s.c, k, `task '${s.taskId}'`)
    return s.n > 0
  })
  // Like the curve: a task with fewer samples than k makes the whole estimate undefined.
  if (measured.some((s) => s.n < k)) return { ...rateInterval([], [], options), tasks: measured.length }
  return rateInterval(
    measured.map((s) => passAtK(s.n, s.c, k)),
    measured.map((s) => Math.max(1, Math.floor(s.n / k))),
    options,
  )
}
