import type { SampleCounts } from './pass-at-k.js'
import type { TaskOutcomes } from './seq-at-k.js'
import { rateInterval, type Interval, type IntervalOptions } from './intervals.js'
import { assertBudget, assertCounts } from './validation.js'
import { hiddenSuccesses, type CensoredTries, type TriesValue } from './censored-tries.js'

/**
 * The share thresholds Cover@τ is reported at by default: "solved at least half the time" and
 * "solved every time".
 */
export const DEFAULT_COVER_TAUS = [0.5, 1] as const

/** A success share c/n reaches τ when c ≥ τ·n; the slack keeps 0.7·10 = 7.000000000000001 from deciding. */
const SLACK = 1e-9

function assertTau(tau: number): void {
  if (!(tau > 0 && tau <= 1)) throw new RangeError(`τ must be a share in (0, 1], e.g. 0.5 or 1 (got ${String(tau)})`)
}

/** Whether a task with `c` successes in `n` tries reaches the share τ. */
function reaches(n: number, c: number, tau: number): boolean {
  return c >= tau * n - SLACK
}

/** The measured tasks (n > 0), checked. */
function measured(tries: readonly SampleCounts[]): SampleCounts[] {
  return tries.filter((t) => {
    assertCounts(t.n, t.c, 1, `task '${t.taskId}'`)
    return t.n > 0
  })
}

/**
 * Cover@τ (Dragoi et al. 2025): the share of tasks whose success share over their tries is at
 * least τ (Cover@1: the tasks solved every time), their estimator of the share of tasks solved with
 * a chance of at least τ. Over n tries its value depends on n (Cover@1 over n tries estimates
 * E[q^n], not the share with q = 1): compare it only at equal tries. Tasks with no try are
 * skipped; NaN when none has one.
 *
 * @example
 * coverAt([{ taskId: 'a', n: 4, c: 4 }, { taskId: 'b', n: 4, c: 1 }], 0.5) // => 0.5
 */
export function coverAt(tries: readonly SampleCounts[], tau: number): number {
  assertTau(tau)
  const used = measured(tries)
  if (used.length === 0) return Number.NaN
  return used.filter((t) => reaches(t.n, t.c, tau)).length / used.length
}

/**
 * Cover@τ with its interval over tasks ({@link rateInterval} with one trial per task: each task
 * either reaches τ or not, so it is the Clopper–Pearson interval on the tasks). The interval is for
 * the chance that a task like these reaches τ over as many tries as it had here: more tries make a
 * share of 1 harder to reach, so the estimand depends on them and the artifact says how many.
 *
 * @example
 * coverAtInterval([{ taskId: 'a', n: 4, c: 4 }, { taskId: 'b', n: 4, c: 1 }], 1).point // => 0.5
 */
export function coverAtInterval(tries: readonly SampleCounts[], tau: number, options?: IntervalOptions): Interval {
  assertTau(tau)
  const used = measured(tries)
  return rateInterval(
    used.map((t) => (reaches(t.n, t.c, tau) ? 1 : 0)),
    used.map(() => 1),
    options,
  )
}

/** One step of the Cover@τ curve: Cover(τ) = `cover` for every τ in (previous step's `tau`, `tau`]. */
export interface CoverStep {
  tau: number
  cover: number
}

/**
 * The whole Cover@τ curve, a step function falling at each task's success share: one step per
 * distinct positive share, ascending (Cover@τ for τ above the largest share is 0). Empty when no
 * task has a try or none succeeded.
 *
 * @example
 * coverCurve([{ taskId: 'a', n: 2, c: 1 }, { taskId: 'b', n: 2, c: 2 }])
 * // => [{ tau: 0.5, cover: 1 }, { tau: 1, cover: 0.5 }]
 */
export function coverCurve(tries: readonly SampleCounts[]): CoverStep[] {
  const used = measured(tries)
  const shares = [...new Set(used.filter((t) => t.c > 0).map((t) => t.c / t.n))].sort((a, b) => a - b)
  return shares.map((tau) => ({ tau, cover: used.filter((t) => reaches(t.n, t.c, tau)).length / used.length }))
}

/**
 * Pass@k read off a measured Cover@τ curve: ∫₀¹ Cover(τ) · k(1 − τ)^{k−1} dτ, exact over the steps.
 * Dragoi et al.'s identity makes this Pass@k for the population's curve (the share of tasks with
 * q ≥ τ); over a curve measured from n tries it is the mean over tasks of 1 − (1 − c/n)^k, the
 * chance that one of k tries drawn with replacement from a task's own tries passes, which is below
 * the unbiased Pass@k (drawn without replacement): not a Pass@k to print beside it.
 *
 * @example
 * passAtFromCover([{ taskId: 'a', n: 2, c: 1 }], 2) // => 0.75
 */
export function passAtFromCover(tries: readonly SampleCounts[], k: number): number {
  assertBudget(k, 'k')
  if (measured(tries).length === 0) return Number.NaN
  let previous = 0
  let total = 0
  // ∫_{a}^{b} k(1 − τ)^{k−1} dτ = (1 − a)^k − (1 − b)^k
  for (const step of coverCurve(tries)) {
    total += step.cover * ((1 - previous) ** k - (1 - step.tau) ** k)
    previous = step.tau
  }
  return total
}

/**
 * A task's reading of Cover@τ from its tries: 1 when c of its n tries reach the share τ, else 0
 * (NaN without a try), for {@link censoredFigure}.
 *
 * @example
 * reachesShare(0.5)(4, 2) // => 1
 */
export function reachesShare(tau: number): TriesValue {
  assertTau(tau)
  return (n, c) => (n === 0 ? Number.NaN : reaches(n, c, tau) ? 1 : 0)
}

/**
 * The Cover@τ curve of tasks some of whose tries an error hid ({@link CensoredTries}): at each τ
 * the mean over tasks of the chance that the task's tries reach τ, each hidden try succeeding with
 * its chance, as {@link censoredFigure}'s point. Steps at every share a task can reach with some
 * chance; without hidden tries exactly {@link coverCurve}. Tasks with no try, or with a hidden try
 * that has no chance to give it, are left out.
 *
 * @example
 * coverCurveCensored([{ taskId: 'a', c: 1, f: 0, hidden: [0.5] }])
 * // => [{ tau: 0.5, cover: 1 }, { tau: 1, cover: 0.5 }]
 */
export function coverCurveCensored(tries: readonly CensoredTries[]): CoverStep[] {
  const used = tries
    .filter((t) => t.c + t.f + t.hidden.length > 0 && !t.hidden.some((p) => Number.isNaN(p)))
    .map((t) => ({ n: t.c + t.f + t.hidden.length, c: t.c, pmf: hiddenSuccesses(t.hidden) }))
  const shares = new Map<number, number>()
  for (const t of used)
    t.pmf.forEach((mass, x) => {
      const c = t.c + x
      if (mass > 0 && c > 0) shares.set(c / t.n, c / t.n)
    })
  const taus = [...shares.keys()].sort((a, b) => a - b)
  return taus.map((tau) => {
    // Without hidden tries every mass is 1: a count, so the curve is coverCurve's to the bit.
    let cover = 0
    for (const t of used) t.pmf.forEach((mass, x) => (cover += reaches(t.n, t.c + x, tau) ? mass : 0))
    return { tau, cover: cover / used.length }
  })
}

/**
 * A sequential cell's tries as Cover@τ reads them at budget k: each task's repeats, and how many
 * were solved within k attempts.
 *
 * @example
 * triesWithin([{ taskId: 'a', firstSuccess: [1, 3, null] }], 2) // => [{ taskId: 'a', n: 3, c: 1 }]
 */
export function triesWithin(outcomes: readonly TaskOutcomes[], k: number): SampleCounts[] {
  assertBudget(k, 'k')
  return outcomes.map((task) => ({
    taskId: task.taskId,
    n: task.firstSuccess.length,
    c: task.firstSuccess.filter((f) => f !== null && f <= k).length,
  }))
}
