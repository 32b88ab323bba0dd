import { seqAtInterval, type TaskOutcomes } from './seq-at-k.js'
import { assertBudget } from './validation.js'
import { rateInterval, type Interval, type IntervalOptions } from './intervals.js'

/**
 * One repeat of a task under the sequential protocol: solved at attempt `firstSuccess`, not solved
 * within the budget (`firstSuccess: null`), or **censored**: an infrastructure error at attempt
 * `censoredAt` (attempts 1..censoredAt-1 ran and failed; nothing is known from `censoredAt` on).
 *
 * A first success or an error later than the budget is a miss within the budget, as in
 * {@link seqAtCurve}, so a K-run truncated to k gives exactly the k-run's numbers.
 */
export type RepeatOutcome = { firstSuccess: number | null } | { censoredAt: number }

/** A task's repeats, some of which may have ended in an infrastructure error. */
export interface CensoredTaskOutcomes {
  taskId: string
  repeats: RepeatOutcome[]
}

/**
 * The cell's pooled hazard at one attempt: of the repeats (over all tasks) at risk at this attempt,
 * how many succeeded at it. Integer counts, so a share built from them stays an exact fraction.
 */
export interface AttemptHazard {
  atRisk: number
  successes: number
}

/**
 * Seq@k for k = 1..budget with errored trajectories counted as failed before their error and
 * censored from it on: each task's Kaplan–Meier estimate of P(first success <= k) (see
 * {@link censoredShares}) with the tails of similar tasks ({@link tailHazards}), then the mean over
 * tasks, as in {@link seqAtCurve}.
 *
 * Why not the two simple rules: errors hit long trajectories, and long trajectories are the failing
 * ones, so leaving errored trajectories out drops failures more often than successes and biases
 * Seq@K upward, while counting them as failures charges the model for the infrastructure.
 *
 * What it assumes: an error is missing at random given the task and the attempts made, that is,
 * it says nothing of how the trajectory would have ended. Per-call errors that fall alike on every
 * attempt satisfy it, and the bias stays within a few tenths of a point; errors likelier on
 * failing attempts or on hard tasks do not, and with one repeat per task (where no task's own
 * repeats can stand in) they bias it upward. The measured bias of each rule by mechanism is the
 * table in docs/statistics.md (scripts/statistics-tables.ts); a summary reports beside it the
 * bounds with every errored trajectory a failure and a success, and from the first errored
 * trajectory an interval that covers both ({@link seqAtIntervalReported}).
 *
 * Without censored repeats the curve equals `seqAtCurve` bit for bit. With one repeat per task it is
 * the pooled Kaplan–Meier estimate of all repeats (Efron's self-consistency). Tasks that carry no
 * information (every repeat errored at attempt 1, or no repeats) are skipped; when no task carries
 * any, every entry is NaN rather than 0. It is never below `seqAtCurve(errorsAsFailures(outcomes),
 * budget)`, and never above `seqAtCurve(errorsLeftOut(outcomes), budget)` unless some task lost every
 * repeat to an error (the left-out bound drops such a task; this estimate gives it a tail).
 * A summary reports those two bounds next to it.
 *
 * @returns an array of length `budget`, Seq@k at index k - 1.
 * @throws RangeError when `budget` is not an integer >= 1, or a repeat is not one of the three
 *   shapes of {@link RepeatOutcome} with a 1-based attempt number (the message names the task).
 * @example
 * seqAtCurveCensored(
 *   [
 *     { taskId: 'a', repeats: [{ firstSuccess: 1 }, { firstSuccess: null }] },
 *     { taskId: 'b', repeats: [{ censoredAt: 2 }, { firstSuccess: 3 }] },
 *   ],
 *   3,
 * ) // => [0.25, 0.25, 0.75]: task b's error at attempt 2 leaves one repeat at risk, which succeeds at 3
 */
export function seqAtCurveCensored(outcomes: readonly CensoredTaskOutcomes[], budget: number): number[] {
  assertBudget(budget)
  const counts = outcomes.map((task) => countAttempts(task, budget))
  const tails = tailHazards(outcomes, budget)
  const sums = new Array<number>(budget).fill(0)
  let tasks = 0
  for (const [i, task] of counts.entries()) {
    const shares = sharesFromCounts(task, tails[i]!)
    // Every entry is NaN or none is: the task carries information at attempt 1 or not at all.
    if (Number.isNaN(shares[0])) continue
    tasks += 1
    // Summed in task order and divided once, exactly as seqAtCurve does, so the two agree bit for
    // bit when nothing is censored.
    for (let k = 0; k < budget; k++) sums[k] = (sums[k] ?? 0) + (shares[k] ?? Number.NaN)
  }
  if (tasks === 0) return sums.fill(Number.NaN)
  return sums.map((sum) => sum / tasks)
}

/**
 * The hazards {@link censoredShares} continues a task with once every remaining repeat of it has
 * errored: at each attempt j = 1..budget, the repeats of all tasks at risk at j and the successes
 * among them. Pooled over repeats, not weighted per task: the tail stands for "a repeat still
 * running at attempt j", and repeats, not tasks, are what get censored.
 *
 * @returns an array of length `budget`, attempt j at index j - 1.
 * @throws RangeError as {@link seqAtCurveCensored}.
 * @example
 * pooledHazards([{ taskId: 'a', repeats: [{ firstSuccess: 1 }, { censoredAt: 2 }] }], 2)
 * // => [{ atRisk: 2, successes: 1 }, { atRisk: 0, successes: 0 }]
 */
export function pooledHazards(outcomes: readonly CensoredTaskOutcomes[], budget: number): AttemptHazard[] {
  assertBudget(budget)
  return poolCounts(
    outcomes.map((task) => countAttempts(task, budget)),
    budget,
  )
}

/** Below this many repeats at risk at an attempt, a stratum's hazard there is the whole cell's. */
const STRATUM_AT_RISK = 5

/**
 * The hazards each task's Kaplan–Meier tail continues with ({@link censoredShares}), pooled over
 * repeats of tasks in the same situation rather than over the whole cell. A task needs its tail
 * at attempt j once none of its repeats is still running there: each one either succeeded before
 * j or errored. Its errored repeat, had it run on, would have been the last of its task still
 * running at j, so its hazard at j is taken from the repeats that are exactly that: at risk at j,
 * with every other repeat of their task already done, and like the task's own, either with some
 * of those siblings solved before j (a task that solves) or with all of them errored (a task
 * nothing is known of, the cell's share of them). A repeat enters by its siblings' outcomes,
 * never its own, so no stratum is bent by the selection that defines it; and by outcomes before
 * j only, so a K-run truncated to k gives the k-run's tails.
 *
 * Where a stratum has fewer than 5 repeats at risk at an attempt, the cell's pooled hazard
 * ({@link pooledHazards}) stands in there. With one repeat per task every repeat is the last of its
 * task, and the tails are the cell's pooled hazards.
 *
 * Why: with the cell's pooled hazards, a censored repeat of a task that solves everything early
 * inherited the late hazards of the cell's hardest tasks (the ones still running late), and the
 * estimate fell below the truth; errors that fall on hard tasks push the other way, and there the
 * strata of errored siblings carry it.
 *
 * @returns per task (in order), an array of length `budget`, attempt j at index j - 1.
 * @throws RangeError as {@link seqAtCurveCensored}.
 * @example
 * const a = { taskId: 'a', repeats: [{ firstSuccess: 1 }, { censoredAt: 2 }] }
 * tailHazards([a], 2)[0]
 * // => the cell's hazards [{ atRisk: 2, successes: 1 }, { atRisk: 0, successes: 0 }]: a stratum needs 5 at risk
 */
export function tailHazards(outcomes: readonly CensoredTaskOutcomes[], budget: number): AttemptHazard[][] {
  assertBudget(budget)
  const empty = () => Array.from({ length: budget }, () => ({ atRisk: 0, successes: 0 }))
  const strata = { solving: empty(), unknown: empty() }
  const counts = outcomes.map((task) => countAttempts(task, budget))
  const pooled = poolCounts(counts, budget)
  // Per task and attempt: which stratum its tail would use there, if it needs one.
  const own = counts.map(({ atRisk, successes }) => {
    let solvedBefore = 0
    return atRisk.map((risk, j) => {
      if (j > 0) solvedBefore += successes[j - 1] ?? 0
      // The last repeat still running at j: its siblings are all done (solved or errored).
      if (risk === 1) {
        const stratum = solvedBefore > 0 ? strata.solving : strata.unknown
        stratum[j]!.atRisk++
        stratum[j]!.successes += successes[j] ?? 0
      }
      return solvedBefore > 0 ? 'solving' : 'unknown'
    })
  })
  return own.map((kinds) =>
    kinds.map((kind, j) => {
      const hazard = strata[kind][j]!
      return hazard.atRisk >= STRATUM_AT_RISK ? { ...hazard } : { ...pooled[j]! }
    }),
  )
}

/**
 * A task's Kaplan–Meier estimate of P(first success <= k) for k = 1..budget: its term in
 * {@link seqAtCurveCensored}, and the per-task value an interval resamples (pass the hazards of the
 * whole cell, `pooledHazards(outcomes, budget)`, for the same numbers as the curve). Shares
 * resampled with the hazards held fixed leave out the hazards' own noise, small next to the tasks'
 * (they pool every repeat of the cell); resampling `seqAtCurveCensored` itself includes it.
 *
 * At attempt j the at-risk set is the repeats that neither succeeded before j nor were censored at or
 * before j (a repeat censored at j got no verdict at j); d_j of them succeed at j; S(k) = prod over
 * j <= k of (1 - d_j / n_j), and the share is 1 - S(k). A repeat censored at j therefore counts as
 * failed for every k < j: the share at k < j equals the share with that repeat as
 * `firstSuccess: null`.
 *
 * Once every remaining repeat of the task has errored (n_j = 0), nothing of the task is left to
 * estimate from, and S continues with the given hazards instead (the summary's are those of
 * similar tasks, {@link tailHazards}): S(k) = S(j - 1) * prod over the attempts from j to k of
 * (1 - successes / atRisk), an attempt with nobody at risk contributing 1 (S carried forward). This
 * is Efron's self-consistency (the censored repeat is credited the chance that a repeat still
 * running at its error succeeds by k) with similar tasks standing in for the task. Carrying S
 * forward instead credits no success never observed, but it is biased down by more than a point
 * (see the tests): a strong model solves most repeats early, so its last repeat at risk is often
 * the one an error stops. Pass
 * `pooledHazards([], budget)` (nobody at risk) to get that carry-forward estimate.
 *
 * The product is kept as an exact fraction of integers and rounded once per k, so without
 * censoring the share is exactly `solved / repeats`, the same double as `seqAtCurve`'s.
 *
 * @returns an array of length `budget`, the share at k in index k - 1; NaN everywhere when no repeat
 *   reached a verdict at attempt 1 (no repeats, or every repeat errored at attempt 1), the same rule
 *   as seqAtCurve's "tasks with zero repeats are skipped".
 * @throws RangeError as {@link seqAtCurveCensored}, or when `hazards` has fewer than `budget`
 *   entries or an entry that is not integer counts with 0 <= successes <= atRisk.
 * @example
 * const task = { taskId: 'a', repeats: [{ firstSuccess: 3 }, { censoredAt: 2 }, { firstSuccess: null }] }
 * censoredShares(task, 3, pooledHazards([task], 3))
 * // => [0, 0, 0.5]: three at risk at 1, two at 2 and 3 (one errored at 2), one of them succeeds at 3
 */
export function censoredShares(
  task: CensoredTaskOutcomes,
  budget: number,
  hazards: readonly AttemptHazard[],
): number[] {
  assertBudget(budget)
  if (hazards.length < budget) {
    throw new RangeError(
      `hazards must have an entry per attempt 1..budget (got ${hazards.length} for budget ${budget})`,
    )
  }
  hazards.slice(0, budget).forEach(({ atRisk, successes }, index) => {
    if (!Number.isInteger(atRisk) || !Number.isInteger(successes) || successes < 0 || successes > atRisk) {
      throw new RangeError(
        `hazards[${index}] must be integer counts with 0 <= successes <= atRisk (got ${String(successes)} of ${String(atRisk)})`,
      )
    }
  })
  return sharesFromCounts(countAttempts(task, budget), hazards)
}

/**
 * The lower bound reported next to {@link seqAtCurveCensored}: every errored trajectory counted as
 * a failure (`firstSuccess: null`), today's `countErrorsAsFailures: true`. Feed it to `seqAtCurve`.
 *
 * @throws RangeError when a repeat is malformed (the message names the task).
 * @example
 * seqAtCurve(errorsAsFailures([{ taskId: 'a', repeats: [{ firstSuccess: 1 }, { censoredAt: 1 }] }]), 2)
 * // => [0.5, 0.5]
 */
export function errorsAsFailures(outcomes: readonly CensoredTaskOutcomes[]): TaskOutcomes[] {
  return outcomes.map((task) => ({
    taskId: task.taskId,
    firstSuccess: task.repeats.map((repeat, index) => {
      const attempt = checkedRepeat(task.taskId, repeat, index)
      return attempt.censored ? null : attempt.at
    }),
  }))
}

/**
 * The upper bound reported next to {@link seqAtCurveCensored}: errored trajectories dropped, today's
 * `countErrorsAsFailures: false`. A task whose every repeat errored keeps zero repeats, which
 * `seqAtCurve` skips. Feed it to `seqAtCurve`.
 *
 * @throws RangeError when a repeat is malformed (the message names the task).
 * @example
 * seqAtCurve(errorsLeftOut([{ taskId: 'a', repeats: [{ firstSuccess: 1 }, { censoredAt: 1 }] }]), 2)
 * // => [1, 1]
 */
export function errorsLeftOut(outcomes: readonly CensoredTaskOutcomes[]): TaskOutcomes[] {
  return outcomes.map((task) => {
    const firstSuccess: (number | null)[] = []
    task.repeats.forEach((repeat, index) => {
      const attempt = checkedRepeat(task.taskId, repeat, index)
      if (!attempt.censored) firstSuccess.push(attempt.at)
    })
    return { taskId: task.taskId, firstSuccess }
  })
}

/**
 * The upper bound reported next to {@link seqAtCurveCensored}: every errored trajectory counted as
 * succeeding at the attempt its error stopped (`firstSuccess: censoredAt`), the most any outcome
 * the error hid could give. With {@link errorsAsFailures} it bounds Seq@k whatever the errors hid:
 * leaving errored trajectories out ({@link errorsLeftOut}) lies between the two, and is an upper
 * bound only when errors fall on failing trajectories at least as often as on passing ones.
 * Feed it to `seqAtCurve`.
 *
 * @throws RangeError when a repeat is malformed (the message names the task).
 * @example
 * seqAtCurve(errorsAsSuccesses([{ taskId: 'a', repeats: [{ firstSuccess: null }, { censoredAt: 2 }] }]), 2)
 * // => [0, 0.5]
 */
export function errorsAsSuccesses(outcomes: readonly CensoredTaskOutcomes[]): TaskOutcomes[] {
  return outcomes.map((task) => ({
    taskId: task.taskId,
    firstSuccess: task.repeats.map((repeat, index) => checkedRepeat(task.taskId, repeat, index).at),
  }))
}

/** A validated repeat: the attempt of its first success (null: none) or of its error. */
type CheckedRepeat = { censored: false; at: number | null } | { censored: true; at: number }

function checkedRepeat(taskId: string, repeat: RepeatOutcome, index: number): CheckedRepeat {
  // Plain data from JSON can carry both keys; which one wins would be a silent guess.
  const hasCensoredAt = 'censoredAt' in repeat && repeat.censoredAt !== undefined
  const hasFirstSuccess = 'firstSuccess' in repeat && repeat.firstSuccess !== undefined
  if (hasCensoredAt && hasFirstSuccess) {
    throw new RangeError(
      `a repeat has either firstSuccess or censoredAt, not both (task '${taskId}', repeat ${index + 1})`,
    )
  }
  if (hasCensoredAt) {
    const at = repeat.censoredAt
    if (!Number.isInteger(at) || at < 1) {
      throw new RangeError(`censoredAt must be a 1-based attempt number (task '${taskId}' has ${String(at)})`)
    }
    return { censored: true, at }
  }
  const at = 'firstSuccess' in repeat ? repeat.firstSuccess : undefined
  if (at !== null && (at === undefined || !Number.isInteger(at) || at < 1)) {
    throw new RangeError(`firstSuccess must be a 1-based attempt number or null (task '${taskId}' has ${String(at)})`)
  }
  return { censored: false, at }
}

/**
 * A task's counts per attempt j = 1..budget (index j - 1): repeats at risk at j and successes at j.
 * Outcomes after the budget are misses within it: such repeats stay at risk through attempt `budget`.
 */
interface AttemptCounts {
  atRisk: number[]
  successes: number[]
}

function countAttempts(task: CensoredTaskOutcomes, budget: number): AttemptCounts {
  const successes = new Array<number>(budget).fill(0)
  const censored = new Array<number>(budget).fill(0)
  task.repeats.forEach((repeat, index) => {
    const attempt = checkedRepeat(task.taskId, repeat, index)
    if (attempt.at === null || attempt.at > budget) return
    const counts = attempt.censored ? censored : successes
    counts[attempt.at - 1] = (counts[attempt.at - 1] ?? 0) + 1
  })
  const atRisk = new Array<number>(budget)
  let running = task.repeats.length
  for (let j = 0; j < budget; j++) {
    // A repeat censored at j + 1 got no verdict there: it leaves the risk set before, not after.
    running -= (censored[j] ?? 0) + (j > 0 ? (successes[j - 1] ?? 0) : 0)
    atRisk[j] = running
  }
  return { atRisk, successes }
}

function poolCounts(tasks: readonly AttemptCounts[], budget: number): AttemptHazard[] {
  const pooled = Array.from({ length: budget }, () => ({ atRisk: 0, successes: 0 }))
  for (const task of tasks) {
    pooled.forEach((hazard, j) => {
      hazard.atRisk += task.atRisk[j] ?? 0
      hazard.successes += task.successes[j] ?? 0
    })
  }
  return pooled
}

function sharesFromCounts({ atRisk, successes }: AttemptCounts, hazards: readonly AttemptHazard[]): number[] {
  const budget = atRisk.length
  const shares = new Array<number>(budget)
  if ((atRisk[0] ?? 0) === 0) return shares.fill(Number.NaN)
  // S(k) as a reduced fraction survivors / total. BigInt because the denominator is a product of
  // at-risk counts; without censoring it stays at most the number of repeats.
  let survivors = 1n
  let total = 1n
  for (let j = 0; j < budget; j++) {
    const own = atRisk[j] ?? 0
    const [risk, events] = own > 0 ? [own, successes[j] ?? 0] : [hazards[j]?.atRisk ?? 0, hazards[j]?.successes ?? 0]
    if (risk > 0 && survivors !== 0n) {
      survivors *= BigInt(risk - events)
      total *= BigInt(risk)
      const divisor = gcd(survivors, total)
      survivors /= divisor
      total /= divisor
    }
    shares[j] = ratioToNumber(total - survivors, total)
  }
  return shares
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b]
  return a
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * The double nearest to numerator / denominator (ties to even), for 0 <= numerator <= denominator.
 * Exported for its test only (index.ts does not re-export it).
 *
 * Both operands exact doubles: one IEEE division is correctly rounded. Beyond 2^53, a quotient of
 * 55-56 bits with a sticky bit for the remainder, which `Number()` rounds once, correctly. The
 * scaling by 2^-shift is exact while the result is a normal double, always so for a share, which is
 * 0 or at least 1 / repeats.
 */
export function ratioToNumber(numerator: bigint, denominator: bigint): number {
  if (denominator <= MAX_SAFE) return Number(numerator) / Number(denominator)
  if (numerator === 0n) return 0
  const shift = denominator.toString(2).length - numerator.toString(2).length + 55
  const scaled = numerator << BigInt(shift)
  let quotient = scaled / denominator
  if (scaled % denominator !== 0n) quotient |= 1n
  return Number(quotient) * 2 ** -shift
}

/**
 * Seq@k of censored outcomes with its interval ({@link rateInterval} over each task's
 * {@link censoredShares}, the tails of {@link tailHazards} held fixed; a task's trials are its repeats that
 * reached a verdict at attempt 1). Without censored repeats it equals `seqAtInterval`.
 *
 * @example
 * seqAtIntervalCensored([{ taskId: 'a', repeats: [{ firstSuccess: 1 }, { censoredAt: 2 }] }], 2).point // => 1
 */
export function seqAtIntervalCensored(
  outcomes: readonly CensoredTaskOutcomes[],
  k: number,
  options?: IntervalOptions,
): Interval {
  assertBudget(k, 'k')
  const tails = tailHazards(outcomes, k)
  return rateInterval(
    outcomes.map((task, i) => censoredShares(task, k, tails[i]!)[k - 1]!),
    outcomes.map((task) =>
      Math.max(
        1,
        task.repeats.filter((r) => !('censoredAt' in r && r.censoredAt !== undefined && r.censoredAt <= 1)).length,
      ),
    ),
    options,
  )
}

/**
 * The method of a rate's interval that is such a union: the interval says it is no longer Korn–Graubard alone.
 * `/1` was the union with errors as failures and left out, and only past 2% errored trajectories;
 * `/2` is the union with errors as failures and as successes, from the first errored trajectory.
 */
export const ERROR_BOUNDS_INTERVAL_METHOD = 'error-bounds-union/2'

/**
 * The union of intervals around a point: the lowest lo and the highest hi, over the tasks of the
 * widest.
 *
 * @example
 * const a = { point: 0.4, lo: 0.3, hi: 0.5, level: 0.95, method: 'a', tasks: 10 }
 * intervalUnion(0.5, [a, { ...a, point: 0.6, lo: 0.5, hi: 0.7, tasks: 9 }])
 * // => { point: 0.5, lo: 0.3, hi: 0.7, level: 0.95, method: 'error-bounds-union/2', tasks: 10 }
 */
export function intervalUnion(point: number, intervals: readonly Interval[]): Interval {
  const finite = intervals.filter((i) => Number.isFinite(i.lo) && Number.isFinite(i.hi))
  if (finite.length === 0 || !Number.isFinite(point))
    return { ...intervals[0]!, point, lo: Number.NaN, hi: Number.NaN, method: ERROR_BOUNDS_INTERVAL_METHOD }
  return {
    point,
    lo: Math.min(point, ...finite.map((i) => i.lo)),
    hi: Math.max(point, ...finite.map((i) => i.hi)),
    level: finite[0]!.level,
    method: ERROR_BOUNDS_INTERVAL_METHOD,
    tasks: Math.max(...finite.map((i) => i.tasks)),
  }
}

/**
 * The interval a summary reports for Seq@k of censored outcomes: {@link seqAtIntervalCensored}
 * without errored trajectories, and from the first one the union of it with the intervals of the
 * two bounds, every errored trajectory a failure ({@link errorsAsFailures}) and every one a success
 * at the attempt its error stopped ({@link errorsAsSuccesses}).
 *
 * Why: the censored estimate assumes an error says nothing of how the trajectory would have ended
 * (missing at random, given its task and the attempts it had made). Errors that fall more on hard
 * tasks or on failing attempts break that, and then it is biased upward (at one repeat per task,
 * where a task's own repeats cannot stand in: 1.6–5 points at 10% errored trajectories, a quarter
 * of that at 2–3%) and its own interval stops covering; no estimate can know what an error hid.
 * The two bounds hold Seq@k whatever it hid: the as-failures interval's lower end and the
 * as-successes' upper end each miss with at most 2.5%, so the union keeps 95% under any mechanism
 * of errors, from the first errored trajectory on (a switch at 2% let it cover 92–94% just below).
 * Its price is width, about the share of errored trajectories. docs/statistics.md has both,
 * measured by scripts/statistics-tables.ts.
 *
 * @example
 * const a = { taskId: 'a', repeats: [{ firstSuccess: 1 }, { censoredAt: 2 }] }
 * seqAtIntervalReported([a, { taskId: 'b', repeats: [{ firstSuccess: null }, { firstSuccess: 2 }] }], 2).method
 * // => 'error-bounds-union/2': one of four trajectories errored
 */
export function seqAtIntervalReported(
  outcomes: readonly CensoredTaskOutcomes[],
  k: number,
  options?: IntervalOptions,
): Interval {
  const censored = seqAtIntervalCensored(outcomes, k, options)
  const errored = outcomes.some((task) => task.repeats.some((r) => 'censoredAt' in r && r.censoredAt !== undefined))
  if (!errored) return censored
  return intervalUnion(censored.point, [
    seqAtInterval(errorsAsFailures(outcomes), k, options),
    seqAtInterval(errorsAsSuccesses(outcomes), k, options),
    censored,
  ])
}
