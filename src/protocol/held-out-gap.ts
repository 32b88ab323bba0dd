/**
 * A cell's feedback-overfitting gap from its trajectories: the verdicts' held-out records read as
 * the outcomes `metrics/held-out-gap.ts` takes. Pure, like the rest of the cell summary.
 */
import type { CellSummary, HeldOutGapSummary, Trajectory } from '../core/schemas.js'
import { intervalText, percent, percentText, plural } from '../metrics/format.js'
import { heldOutGap, type HeldOutAttempt, type HeldOutTask } from '../metrics/held-out-gap.js'
import { finiteOrNull, intervalJson } from './interval-json.js'

/** An attempt as the gap reads it: a verdict with no held-out record (no code was run) passed nothing visible unless it passed. */
function attemptOf(verdict: Trajectory['attempts'][number]['verdict']): HeldOutAttempt {
  const record = verdict.heldOut
  return {
    pass: verdict.pass,
    visiblePass: verdict.pass || (record?.visiblePass ?? false),
    heldOutFailed: record?.failed ?? null,
  }
}

/**
 * The gap of a sequential cell whose verdicts hold out tests or criteria, over its trajectories that did not
 * error; null for an independent cell or when no verdict held out a test.
 *
 * @example
 * heldOutGapSummary(cell.trajectories, 5, false)?.gapAt // => [0, 0.1, 0.15, 0.2, 0.2]
 */
export function heldOutGapSummary(
  trajectories: readonly Trajectory[],
  budget: number,
  independent: boolean,
): HeldOutGapSummary | null {
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
  // A rubric verdict keeps its visible criteria in `criteria`; a python-tests verdict has none.
  const criteria = complete.some((t) => t.attempts.some((a) => a.verdict.heldOut && a.verdict.criteria))
  return {
    over: criteria ? 'criteria' : 'tests',
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

/** The sentence's nouns: what a cell held out, as its summary says (older files: tests). */
function nouns(over: HeldOutGapSummary['over']) {
  return over === 'criteria'
    ? { plural: 'criteria', every: 'every criterion', one: 'a held-out criterion' }
    : { plural: 'tests', every: 'every test', one: 'a held-out test' }
}

/**
 * The one sentence every output prints for a cell with held-out tests or criteria: Seq@K on the
 * visible ones and on all of them, the gap with its interval, and the visible repairs that still
 * fail a held-out one. Null for a cell that holds nothing out.
 *
 * @example
 * heldOutGapLine(cell)
 * // => 'held-out tests, overfitter · verifier: Seq@3 100.0% on the visible tests, 0.0% on every test, gap 100.0 points (95% CI …); 3 of 3 visible repairs (100.0%) still fail a held-out test, 0 broke one'
 * heldOutGapLine(rubricCell)
 * // => 'held-out criteria, overfitter · verifier: Seq@3 100.0% on the visible criteria, 0.0% on every criterion, gap 100.0 points (95% CI …); …'
 */
export function heldOutGapLine(cell: Pick<CellSummary, 'cellId' | 'budget' | 'heldOut'>): string | null {
  const gap = cell.heldOut
  if (!gap) return null
  const K = cell.budget
  const n = nouns(gap.over)
  const ci = intervalText(gap.gapInterval.lo, gap.gapInterval.hi)
  const repairs =
    gap.visibleRepairs === 0
      ? 'no revision repaired a visible failure'
      : `${gap.overfit} of ${plural(gap.visibleRepairs, 'visible repair')} (${percentText(gap.overfitShare.point)}) still fail ${n.one}, ${gap.broke} broke one`
  return `held-out ${n.plural}, ${cell.cellId}: Seq@${K} ${percentText(gap.visibleAt[K - 1])} on the visible ${n.plural}, ${percentText(gap.allAt[K - 1])} on ${n.every}, gap ${percent(gap.gapAt[K - 1])} points (95% CI ${ci}); ${repairs}`
}
