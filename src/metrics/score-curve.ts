/**
 * The score curve (Score@k): the mean over tasks of the best score an attempt reached by attempt
 * k. It is the metric of the paper's reference harness, where every verdict has a score in
 * [0, 1]: for a binary verifier (scores 1 and 0) it is the solved rate, so it equals Seq@k of a
 * sequential cell; for a rubric verifier, whose score is soft (a compliance share), it credits
 * partial answers and so lies above the solved rate. Pure math over plain numbers.
 */
import { rateInterval, type Interval, type IntervalOptions } from './intervals.js'

/**
 * One repeat's scores, attempt by attempt (sequential) or sample by sample in draw order
 * (independent), each in [0, 1]. A trajectory that stopped at its first success has fewer
 * scores than the budget: its best so far holds for every later k. `censoredAt` marks a repeat
 * an infrastructure error stopped: nothing is known from that attempt on, so it counts only for
 * k below it.
 */
export interface ScoredRepeat {
  readonly scores: readonly number[]
  readonly censoredAt?: number
}

/** One task's scored repeats. */
export interface TaskScores {
  readonly taskId: string
  readonly repeats: readonly ScoredRepeat[]
}

function checkScore(score: number, where: string): void {
  if (!(score >= 0 && score <= 1)) throw new RangeError(`${where}: score ${String(score)} is not in [0, 1]`)
}

/**
 * The best score reached by attempt k, for k = 1..K: a running maximum, carried past the last
 * attempt (a solved trajectory stays solved; a trajectory with no attempt has best 0).
 *
 * @example
 * bestScoreCurve([0.25, 0.75, 0.5], 4) // => [0.25, 0.75, 0.75, 0.75]
 */
export function bestScoreCurve(scores: readonly number[], K: number): number[] {
  const out: number[] = []
  let best = 0
  for (let k = 1; k <= K; k++) {
    const s = scores[k - 1]
    if (s !== undefined) {
      checkScore(s, `attempt ${k}`)
      if (s > best) best = s
    }
    out.push(best)
  }
  return out
}

/**
 * A task's best score by attempt k, for k = 1..K: the mean over its repeats measured at k (a
 * censored repeat only below its error), NaN where no repeat was.
 *
 * @example
 * taskBestScores({ taskId: 't', repeats: [{ scores: [0.5, 1] }, { scores: [0, 0] }] }, 2) // => [0.25, 0.5]
 */
export function taskBestScores(task: TaskScores, K: number): number[] {
  const sums = new Array<number>(K).fill(0)
  const counts = new Array<number>(K).fill(0)
  for (const repeat of task.repeats) {
    const curve = bestScoreCurve(repeat.scores, K)
    const until = repeat.censoredAt === undefined ? K : Math.min(K, repeat.censoredAt - 1)
    for (let k = 1; k <= until; k++) {
      sums[k - 1] = sums[k - 1]! + curve[k - 1]!
      counts[k - 1] = counts[k - 1]! + 1
    }
  }
  return sums.map((s, i) => (counts[i] === 0 ? Number.NaN : s / counts[i]!))
}

/** Repeats of a task measured at k (a censored repeat counts below its error only). */
function measuredAt(task: TaskScores, k: number): number {
  return task.repeats.filter((r) => r.censoredAt === undefined || r.censoredAt > k).length
}

/**
 * Score@k for k = 1..K: the mean over tasks of each task's best score by attempt k (tasks with no
 * repeat measured at k are left out; NaN when none is left).
 *
 * @example
 * scoreCurve([{ taskId: 'a', repeats: [{ scores: [0.5, 1] }] }, { taskId: 'b', repeats: [{ scores: [0, 0.5] }] }], 2)
 * // => [0.25, 0.75]
 */
export function scoreCurve(tasks: readonly TaskScores[], K: number): number[] {
  const perTask = tasks.map((t) => taskBestScores(t, K))
  return Array.from({ length: K }, (_, i) => {
    let sum = 0
    let n = 0
    for (const curve of perTask) {
      const v = curve[i]!
      if (Number.isNaN(v)) continue
      sum += v
      n++
    }
    return n === 0 ? Number.NaN : sum / n
  })
}

/**
 * Score@k's interval over tasks (the task is the unit; its repeats stay inside it): the interval
 * of a rate over tasks ({@link rateInterval}). A task's best score is a mean of values in [0, 1],
 * and such a mean spreads at most as a share with the same mean does, so the share's interval
 * keeps its promise for it; on soft scores it is conservative.
 *
 * @example
 * scoreInterval([{ taskId: 'a', repeats: [{ scores: [1] }] }, { taskId: 'b', repeats: [{ scores: [0.5] }] }], 1).point // => 0.75
 */
export function scoreInterval(tasks: readonly TaskScores[], k: number, options?: IntervalOptions): Interval {
  const values = tasks.map((t) => taskBestScores(t, k)[k - 1]!)
  const trials = tasks.map((t) => Math.max(1, measuredAt(t, k)))
  return rateInterval(values, trials, options)
}

/**
 * Whether every score is 0 or 1: then Score@k is a solved rate (of a sequential cell, Seq@k).
 *
 * @example
 * binaryScores([{ taskId: 'a', repeats: [{ scores: [0, 1] }] }]) // => true
 */
export function binaryScores(tasks: readonly TaskScores[]): boolean {
  return tasks.every((t) => t.repeats.every((r) => r.scores.every((s) => s === 0 || s === 1)))
}
