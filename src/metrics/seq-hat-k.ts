import { coverAt, coverAtInterval, triesWithin } from './cover-at.js'
import type { TaskOutcomes } from './seq-at-k.js'
import type { Interval, IntervalOptions } from './intervals.js'
import { assertBudget } from './validation.js'
import type { TriesValue } from './censored-tries.js'

/**
 * A task's reading of Seq^k from its repeats: 1 when all n of them were solved within k (c = n),
 * else 0; NaN without a repeat. For {@link censoredFigure} over {@link censoredTriesWithin}.
 *
 * @example
 * allSolved(3, 3) // => 1
 */
export const allSolved: TriesValue = (n, c) => (n === 0 ? Number.NaN : c === n ? 1 : 0)

/**
 * The Seq^k curve for k = 1..budget: the share of tasks that every repeat solved within k
 * attempts. Per task, [all r repeats solved by k] is the unbiased estimate of p_k^r (the chance
 * that r fresh trajectories all get there), as pass^k's C(c, k)/C(n, k) is of p^k; with one repeat
 * Seq^k is Seq@k. It is Cover@1 of the tries within k. Tasks with no repeat are skipped; NaN when
 * none has one.
 *
 * @example
 * seqHatCurve([{ taskId: 'a', firstSuccess: [1, 2] }, { taskId: 'b', firstSuccess: [1, null] }], 2)
 * // => [0, 0.5]
 */
export function seqHatCurve(outcomes: readonly TaskOutcomes[], budget: number): number[] {
  assertBudget(budget)
  return Array.from({ length: budget }, (_, i) => coverAt(triesWithin(outcomes, i + 1), 1))
}

/**
 * Seq^k with its interval over tasks: each task all-solved or not, one trial, so the
 * Clopper–Pearson interval on the tasks (see {@link coverAtInterval}).
 *
 * @example
 * seqHatInterval([{ taskId: 'a', firstSuccess: [1, 2] }], 2).point // => 1
 */
export function seqHatInterval(outcomes: readonly TaskOutcomes[], k: number, options?: IntervalOptions): Interval {
  return coverAtInterval(triesWithin(outcomes, k), 1, options)
}
