/**
 * A cell's score curve (Score@k, metrics/score-curve.ts) from its trajectories: every attempt's
 * verdict score, errored trajectories entering as the cell's error policy says. Kept apart from
 * the rest of the summary so the curve can move into a registry of statistics as one piece.
 */
import { verdictScore } from '../core/contract.js'
import type { CellSummary, ErrorPolicy, Trajectory } from '../core/schemas.js'
import { binaryScores, scoreCurve, scoreInterval, taskBestScores, type TaskScores } from '../metrics/score-curve.js'
import { finiteOrNull, intervalJson } from './interval-json.js'

/**
 * Each task's scored repeats, in the order of `byTask`, and its best score by attempt k. An errored
 * trajectory is, by the policy: `censored`, measured below the attempt its error stopped;
 * `failures`, a trajectory whose best stays what it reached; `left-out`, not there.
 *
 * @example
 * scoredTasks(new Map([['t1', trajectories]]), 'censored', 5).bestScores[0] // => [0.4, 0.8, 0.8, 1, 1]
 */
export function scoredTasks(
  byTask: ReadonlyMap<string, readonly Trajectory[]>,
  policy: ErrorPolicy,
  K: number,
): { tasks: TaskScores[]; bestScores: number[][] } {
  const tasks = [...byTask].map(([taskId, ts]) => ({
    taskId,
    repeats: ts
      .filter((t) => !(policy === 'left-out' && t.status === 'error'))
      .map((t) => ({
        scores: t.attempts.map((a) => verdictScore(a.verdict)),
        ...(policy === 'censored' && t.status === 'error' ? { censoredAt: t.attempts.length + 1 } : {}),
      })),
  }))
  return { tasks, bestScores: tasks.map((t) => taskBestScores(t, K)) }
}

/**
 * The summary's `score` block: Score@k for k = 1..K, its interval at K over tasks, and whether every
 * score was 0 or 1.
 */
export function scoreSummaryOf(tasks: readonly TaskScores[], K: number): NonNullable<CellSummary['score']> {
  return {
    at: scoreCurve(tasks, K).map(finiteOrNull),
    interval: intervalJson(scoreInterval(tasks, K)),
    binary: binaryScores(tasks),
  }
}
