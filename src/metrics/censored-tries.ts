import { intervalUnion, pooledHazards, tailHazards, type CensoredTaskOutcomes } from './censored.js'
import { rateInterval, type Interval, type IntervalOptions } from './intervals.js'
import { assertBudget } from './validation.js'

/**
 * A task's tries when an infrastructure error hid the outcome of some: `c` tries known to have
 * succeeded, `f` known to have failed, and per hidden try the chance it would have succeeded
 * (NaN: nothing to estimate it from). The task had `c + f + hidden.length` tries in all, and a
 * reliability figure is about that many (Seq^k over all r repeats, not over those that ended).
 */
export interface CensoredTries {
  taskId: string
  c: number
  f: number
  hidden: readonly number[]
}

/** A task's value of a figure over its tries, and how far hidden tries could move it. */
export interface CensoredValue {
  /** The expected value with each hidden try a success with its chance (NaN without one). */
  point: number
  /** The least value any outcome of the hidden tries gives. */
  lo: number
  /** The greatest. */
  hi: number
}

/**
 * How a reliability figure reads a task with `c` successes of `n` tries (Seq^k: all of them; Cover@τ:
 * at least τ·n; outcome consistency: 1 − 4·(c/n)(1 − c/n)); NaN: the task does not count.
 */
export type TriesValue = (n: number, c: number) => number

/**
 * The distribution of the number of hidden tries that succeed (Poisson–binomial), index x = x
 * successes. Exact by convolution, one hidden try at a time.
 *
 * @example
 * hiddenSuccesses([0.5, 0.5]) // => [0.25, 0.5, 0.25]
 */
export function hiddenSuccesses(hidden: readonly number[]): number[] {
  let pmf = [1]
  for (const p of hidden) {
    const next = new Array<number>(pmf.length + 1).fill(0)
    pmf.forEach((mass, x) => {
      next[x] = (next[x] ?? 0) + mass * (1 - p)
      next[x + 1] = (next[x + 1] ?? 0) + mass * p
    })
    pmf = next
  }
  return pmf
}

/**
 * A task's value of a figure with its hidden tries: its expectation (each hidden try succeeding
 * with its chance, as the censored rates credit an errored trajectory) and the least and greatest
 * value the hidden tries could give. Without hidden tries all three are `value(n, c)`.
 *
 * @example
 * censoredValue({ taskId: 'a', c: 2, f: 0, hidden: [0.5] }, (n, c) => (c === n ? 1 : 0))
 * // => { point: 0.5, lo: 0, hi: 1 }: two of three repeats solved, the third hidden by an error
 */
export function censoredValue(tries: CensoredTries, value: TriesValue): CensoredValue {
  const n = tries.c + tries.f + tries.hidden.length
  const outcomes = Array.from({ length: tries.hidden.length + 1 }, (_, x) => value(n, tries.c + x))
  const counted = outcomes.filter((v) => !Number.isNaN(v))
  if (counted.length === 0) return { point: Number.NaN, lo: Number.NaN, hi: Number.NaN }
  const lo = Math.min(...counted)
  const hi = Math.max(...counted)
  // With nothing known of the task (every try hidden, no chance to give them) it has no estimate.
  if (tries.hidden.some((p) => Number.isNaN(p))) return { point: Number.NaN, lo, hi }
  const pmf = hiddenSuccesses(tries.hidden)
  const point = outcomes.reduce((sum, v, x) => sum + (pmf[x] ?? 0) * v, 0)
  return { point: Math.min(hi, Math.max(lo, point)), lo, hi }
}

/** A reliability figure over tasks with hidden tries: its interval, and the tries it rests on. */
export interface CensoredFigure {
  /**
   * The figure with its interval: without hidden tries exactly `rateInterval` over the tasks'
   * values; with some, the union of the intervals of the expected values and of the least and
   * greatest values (method `error-bounds-union/2`).
   */
  interval: Interval
  /** The figure with every hidden try a failure and with every one a success (null: no hidden try). */
  bounds: { lo: number; hi: number } | null
  /** Tries in all (over the tasks counted) and how many of them an error hid. */
  tries: number
  hidden: number
}

/**
 * A reliability figure (a mean over tasks of a per-task value in [0, 1]) when errors hid some tries.
 *
 * Why the union: the expected value credits a hidden try the chance that a try in its situation
 * succeeds, which is right when an error says nothing of how the try would have ended and biased
 * when errors fall on hard tasks or failing tries. The least and greatest values bound the figure
 * the full tries would have given, whatever the errors hide; a one-sided 97.5% bound on each
 * keeps the truth inside with 95% under any mechanism of errors (studies/reliability-errors.ts
 * measures it). The price is width: about the share of hidden tries.
 *
 * @param trials - per task, the independent trials its value rests on (default 1: the figures
 *   that are one reading per task; pass^k passes ⌊n/k⌋).
 * @param point - a task's estimate when not the expected value (pass^k keeps its unbiased
 *   estimator over the tries that ended).
 * @example
 * const allSolved = (n: number, c: number) => (c === n ? 1 : 0)
 * censoredFigure([{ taskId: 'a', c: 3, f: 0, hidden: [] }, { taskId: 'b', c: 2, f: 0, hidden: [0.5] }], allSolved)
 *   .interval.point // => 0.75
 */
export function censoredFigure(
  tasks: readonly CensoredTries[],
  value: TriesValue,
  options: IntervalOptions & {
    trials?: (tries: CensoredTries) => number
    point?: (tries: CensoredTries) => number
  } = {},
): CensoredFigure {
  const values = tasks.map((t) => {
    const v = censoredValue(t, value)
    return options.point && !Number.isNaN(v.lo) ? { ...v, point: options.point(t) } : v
  })
  const trials = tasks.map((t) => Math.max(1, options.trials?.(t) ?? 1))
  const counted = tasks.filter((_, i) => !Number.isNaN(values[i]!.lo))
  const tries = counted.reduce((n, t) => n + t.c + t.f + t.hidden.length, 0)
  const hidden = counted.reduce((n, t) => n + t.hidden.length, 0)
  const estimate = rateInterval(
    values.map((v) => v.point),
    trials,
    options,
  )
  if (hidden === 0) return { interval: estimate, bounds: null, tries, hidden }
  const lows = rateInterval(
    values.map((v) => v.lo),
    trials,
    options,
  )
  const highs = rateInterval(
    values.map((v) => v.hi),
    trials,
    options,
  )
  return {
    interval: intervalUnion(estimate.point, [lows, highs, estimate]),
    bounds: { lo: lows.point, hi: highs.point },
    tries,
    hidden,
  }
}

/**
 * How many repeats' worth of the hazards of similar tasks a hidden repeat's chance starts from,
 * before its own task's repeats still at risk count. With none, a task's single sibling at risk
 * decides the hidden repeat outright (hazard 0 or 1), its outcome is copied, and the figures that
 * are not linear in a task's successes read tasks as more consistent than they are (measured
 * under errors at random, 200 tasks × 3 repeats, 7.5% errored: Seq^5 +1.6 points, outcome
 * consistency +2.4); with 2, every figure there is within 0.7 points (studies/reliability-errors.ts).
 */
export const PRIOR_REPEATS = 2

/**
 * A sequential cell's tries at budget k with errored repeats hidden where the error left them
 * unknown: a repeat solved by k is a success; one that failed k attempts (unsolved, solved later,
 * or errored after attempt k) a failure; one an error stopped at attempt c ≤ k is hidden, with the
 * chance that it would have succeeded at one of attempts c..k. That chance is a Kaplan–Meier
 * product over those attempts, as the censored rates', of hazards that blend the task's own
 * repeats still at risk (d_j successes of n_j) with {@link PRIOR_REPEATS} repeats at the hazard H_j
 * of similar tasks ({@link tailHazards}): (d_j + 2·H_j) / (n_j + 2).
 *
 * Why not the task's own Kaplan–Meier curve alone, which would make a task's expected successes
 * exactly its censored Seq@k: that is right for a rate (linear in the successes), but a figure such
 * as Seq^k or outcome consistency reads the hidden repeat together with its siblings, and a chance
 * taken from the siblings themselves copies their outcome into it.
 *
 * @throws RangeError when `k` is not an integer >= 1, or a repeat is malformed.
 * @example
 * const a = { taskId: 'a', repeats: [{ firstSuccess: 1 }, { censoredAt: 2 }] }
 * censoredTriesWithin([a, { taskId: 'b', repeats: [{ firstSuccess: 2 }, { firstSuccess: null }] }], 2)[0]
 * // => { taskId: 'a', c: 1, f: 0, hidden: [0.5] }: none of a's repeats is at risk at attempt 2, and of
 * //    the cell's two there one succeeded: (0 + 2 · 1/2) / (0 + 2)
 */
export function censoredTriesWithin(outcomes: readonly CensoredTaskOutcomes[], k: number): CensoredTries[] {
  assertBudget(k, 'k')
  const tails = tailHazards(outcomes, k)
  return outcomes.map((task, i) => {
    let c = 0
    let f = 0
    const stopped: number[] = []
    for (const repeat of task.repeats) {
      if ('censoredAt' in repeat && repeat.censoredAt !== undefined) {
        if (repeat.censoredAt > k) f++
        else stopped.push(repeat.censoredAt)
      } else if ('firstSuccess' in repeat && repeat.firstSuccess !== null && repeat.firstSuccess <= k) c++
      else f++
    }
    if (stopped.length === 0) return { taskId: task.taskId, c, f, hidden: [] }
    const own = pooledHazards([task], k)
    // Nothing is known of a task none of whose repeats reached a verdict: no chance, as Seq@k skips it.
    if (own[0]!.atRisk === 0) return { taskId: task.taskId, c, f, hidden: stopped.map(() => Number.NaN) }
    const similar = tails[i]!
    const hidden = stopped.map((at) => {
      let miss = 1
      for (let j = at; j <= k; j++) {
        const { atRisk, successes } = similar[j - 1]!
        // Nobody at risk anywhere at j: the similar tasks say nothing there, so they weigh nothing.
        const weight = atRisk > 0 ? PRIOR_REPEATS : 0
        const risk = own[j - 1]!.atRisk + weight
        if (risk > 0) miss *= 1 - (own[j - 1]!.successes + (weight > 0 ? (weight * successes) / atRisk : 0)) / risk
      }
      return 1 - miss
    })
    return { taskId: task.taskId, c, f, hidden }
  })
}
