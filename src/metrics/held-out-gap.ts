/**
 * The feedback-overfitting gap: with held-out tests, Seq@k on the visible tests (what feedback
 * lets a revision aim at) against Seq@k on every test (the verdict that counts). A revision that
 * special-cases the failing call passes the visible tests and not the held-out ones: the gap is
 * how much of the apparent Seq@k such repairs make up. Pure math over plain outcomes.
 */
import { differenceInterval, type Interval, type IntervalOptions } from './intervals.js'
import { pooledShareInterval } from './pooled-share.js'

/** One attempt as the gap reads it. */
export interface HeldOutAttempt {
  /** Every test passed: the verdict that counts. */
  pass: boolean
  /** Every visible test passed. A passing attempt passed them too. */
  visiblePass: boolean
  /** Held-out statement indices that failed or did not run; null when not known (no run). */
  heldOutFailed: readonly number[] | null
}

/** One task's trajectories (one per repeat), each its attempts in order. */
export interface HeldOutTask {
  taskId: string
  repeats: readonly (readonly HeldOutAttempt[])[]
}

/** The gap of one cell: both curves, the gap curve, its paired interval at K, and the overfitting revisions. */
export interface HeldOutGap {
  /** Seq@k on the visible tests, k = 1..K (NaN without tasks). */
  visibleAt: number[]
  /** Seq@k on every test, k = 1..K. */
  allAt: number[]
  /** visibleAt − allAt, k = 1..K: never negative (a pass is a visible pass). */
  gapAt: number[]
  /** The paired interval of the gap at K over tasks (visible − all, the same trajectories). */
  gapInterval: Interval
  /** Revisions whose previous attempt failed a visible test and which pass every visible test. */
  visibleRepairs: number
  /** Of those, revisions that still fail a held-out test (broken or never fixed). */
  overfit: number
  /** Of the overfit ones, those that broke a held-out test the previous attempt passed. */
  broke: number
  /** overfit / visibleRepairs, pooled over revisions, its interval clustered by task. */
  overfitShare: Interval
}

function check(tasks: readonly HeldOutTask[], budget: number): void {
  if (!(Number.isInteger(budget) && budget >= 1))
    throw new RangeError(`heldOutGap: budget must be an integer >= 1 (got ${String(budget)})`)
  for (const task of tasks) {
    for (const [r, attempts] of task.repeats.entries()) {
      if (attempts.length > budget)
        throw new RangeError(
          `heldOutGap: task ${task.taskId} repeat ${r} has ${attempts.length} attempts, more than the budget ${budget}`,
        )
      for (const [i, a] of attempts.entries()) {
        if (a.pass && !a.visiblePass)
          throw new RangeError(
            `heldOutGap: task ${task.taskId} repeat ${r} attempt ${i + 1} passed every test but not the visible ones; a pass is a visible pass`,
          )
      }
    }
  }
}

/** The 1-based index of the first attempt that meets `met`, or null. */
function firstWhere(attempts: readonly HeldOutAttempt[], met: (a: HeldOutAttempt) => boolean): number | null {
  const i = attempts.findIndex(met)
  return i === -1 ? null : i + 1
}

/** A task's share of repeats whose first attempt meeting `met` is at k or earlier, for k = 1..K. */
function rates(task: HeldOutTask, budget: number, met: (a: HeldOutAttempt) => boolean): number[] {
  const firsts = task.repeats.map((attempts) => firstWhere(attempts, met))
  return Array.from({ length: budget }, (_, k) => firsts.filter((f) => f !== null && f <= k + 1).length / firsts.length)
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? Number.NaN : values.reduce((s, v) => s + v, 0) / values.length

/**
 * The feedback-overfitting gap of a cell's trajectories with held-out tests. Tasks without
 * repeats are left out. Seq@k on the visible tests counts a trajectory solved at its first attempt
 * passing every visible test; on every test, at its first pass. The gap's interval is the paired
 * difference of the per-task rates at K (`differenceInterval`, the trials being the most repeats of
 * a task), its lower bound cut at 0, below which the gap cannot be. The overfitting share is over visible repairs (a revision whose previous attempt failed
 * a visible test and which passes every visible one): those that fail a held-out test, split into
 * the ones that broke a held-out test the previous attempt passed and the ones that never fixed one.
 *
 * @throws RangeError on a budget below 1, a trajectory longer than the budget, or a pass that is not a visible pass.
 * @example
 * const special = { pass: false, visiblePass: true, heldOutFailed: [3] }
 * const wrong = { pass: false, visiblePass: false, heldOutFailed: [3] }
 * heldOutGap([{ taskId: 't', repeats: [[wrong, special]] }], 2).gapAt // => [0, 1]
 */
export function heldOutGap(tasks: readonly HeldOutTask[], budget: number, options?: IntervalOptions): HeldOutGap {
  check(tasks, budget)
  const measured = tasks.filter((t) => t.repeats.length > 0)
  const visible = measured.map((t) => rates(t, budget, (a) => a.visiblePass))
  const all = measured.map((t) => rates(t, budget, (a) => a.pass))
  const visibleAt = Array.from({ length: budget }, (_, k) => mean(visible.map((r) => r[k]!)))
  const allAt = Array.from({ length: budget }, (_, k) => mean(all.map((r) => r[k]!)))
  const trials = Math.max(1, ...measured.map((t) => t.repeats.length))
  const gapInterval = differenceInterval(
    all.map((r) => r[budget - 1]!),
    visible.map((r) => r[budget - 1]!),
    trials,
    options,
  )
  let visibleRepairs = 0
  let overfit = 0
  let broke = 0
  const clusters = measured.map((task) => {
    let trials = 0
    let hits = 0
    for (const attempts of task.repeats) {
      for (let i = 1; i < attempts.length; i++) {
        const before = attempts[i - 1]!
        const now = attempts[i]!
        if (before.visiblePass || !now.visiblePass) continue
        trials++
        if (now.pass) continue
        hits++
        // Broke: a held-out test failing now that the previous attempt is known to have passed.
        const failedBefore = before.heldOutFailed
        if (failedBefore !== null && (now.heldOutFailed ?? []).some((h) => !failedBefore.includes(h))) broke++
      }
    }
    visibleRepairs += trials
    overfit += hits
    return { hits, trials }
  })
  // The gap is never negative (a pass is a visible pass): a bound below 0 says nothing, so it is cut there.
  const { pDrop: _pDrop, ...paired } = gapInterval
  const gap = { ...paired, lo: Math.max(0, paired.lo) }
  return {
    visibleAt,
    allAt,
    gapAt: visibleAt.map((v, k) => v - allAt[k]!),
    gapInterval: gap,
    visibleRepairs,
    overfit,
    broke,
    overfitShare: pooledShareInterval(clusters, options),
  }
}
