/**
 * A cell's feedback-overfitting gap from its trajectories: the verdicts' held-out records read as
 * the outcomes `metrics/held-out-gap.ts` takes. Pure, like the rest of the cell summary.
 */
import type { HeldOutGapSummary, Trajectory } from '../core/schemas.js'
import { heldOutGap, type HeldOutAttempt, type HeldOutTask } from '../metrics/held-out-gap.js'
import { finiteOrNull, intervalJson } from './interval-json.js'

/** An attempt as the gap reads it: a verdict with no held-out record (no code was run) passed nothing visible unless it passed. */
function attemptOf(verdict: Trajectory['attempts'][number]['verdict']): HeldOutAttempt {
  const record = verdict.heldOut
  return { pass: verdict.pass, visiblePass: verdict.pass || (record?.visiblePass ?? false), heldOutFailed: record?.failed ?? null }
}

/**
 * The gap of a sequential cell whose verdicts hold out tests, over its trajectories that did not
 * error; null for an independent cell or when no verdict held out a test.
 *
 * @example
 * heldOutGapSummary(cell.trajectories, 5, false)?.gapAt // => [0, 0.1, 0.15, 0.2, 0.2]
 */
export function heldOutGapSummary(trajectories: readonly Trajectory[], budget: number, independent: boolean): HeldOutGapSummary | null {
  if (independent) return null
  const held = trajectories.some((t) => t.attempts.some((a) => (a.verdict.heldOut?.tests.length ?? 0) > 0))
  if (!held) return null
  const complete = trajectories.filter((t) => t.status !== 'error')
  const byTask = new Map<string, HeldOutAttempt[][]>()
  for (const t of complete) {
    const list = byTask.get(t.taskId) ?? []
    list.push(t.attempts.map((a) => attemptOf(a.verdict)))
    byTask.set(t.taskId, list)
  }
  const tasks: HeldOutTask[] = [...byTask].map(([taskId, repeats]) => ({ taskId, repeats }))
  const gap = heldOutGap(tasks, budget)
  return {
    trajectories: complete.length,
    visibleAt: gap.visibleAt.map(finiteOrNull),
    allAt: gap.allAt.map(finiteOrNull),
    gapAt: gap.gapAt.map(finiteOrNull),
    gapInterval: intervalJson(gap.gapInterval),
    visibleRepairs: gap.visibleRepairs,
    overfit: gap.overfit,
    broke: gap.broke,
    overfitShare: intervalJson(gap.overfitShare),
  }
}
