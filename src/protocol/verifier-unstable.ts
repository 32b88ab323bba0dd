/**
 * When a cell's verifier is known to be unstable on some of its tasks: in the run itself (an
 * unmodified revision, the same answer as one attempt before, got another verdict) or by a
 * `seqk stability` report given to the eval. Pure, like the rest of the cell summary; the one
 * sentence every output prints comes from here.
 */
import type { CellSummary } from '../core/schemas.js'
import { plural } from '../metrics/format.js'

/** The cell summary's `verifierUnstable` block. */
export type VerifierUnstable = NonNullable<CellSummary['verifierUnstable']>

/** What {@link verifierUnstableOf} reads of a trajectory (a full one, or the live view's light parse of its line). */
export interface UnstableEvidence {
  taskId: string
  attempts: readonly { unmodified?: boolean | null; verdict: { pass?: boolean } }[]
}

/** The trajectory holds an unmodified revision (the same answer as one attempt before) with another verdict. */
export function gaveOneAnswerTwoVerdicts(t: UnstableEvidence): boolean {
  for (let i = 1; i < t.attempts.length; i++) {
    const attempt = t.attempts[i]!
    const before = t.attempts[i - 1]!.verdict.pass
    if (attempt.unmodified === true && attempt.verdict.pass !== undefined && before !== undefined)
      if (attempt.verdict.pass !== before) return true
  }
  return false
}

/**
 * The block from its parts: the tasks that flipped in the run, and the report's unstable tasks
 * that are in the cell; undefined when there are none.
 *
 * @example
 * verifierUnstableFrom(['t1'], undefined, ['t1', 't2']) // => { inRun: ['t1'] }
 */
export function verifierUnstableFrom(
  inRun: Iterable<string>,
  reported: readonly string[] | undefined,
  taskIds: readonly string[],
): VerifierUnstable | undefined {
  const flipped = [...new Set(inRun)].sort()
  const inCell = new Set(taskIds)
  const named = [...new Set(reported ?? [])].filter((id) => inCell.has(id)).sort()
  if (flipped.length === 0 && named.length === 0) return undefined
  return { inRun: flipped, ...(reported !== undefined ? { reported: named } : {}) }
}

/**
 * Tasks whose trajectories hold an unmodified revision with another verdict than the attempt
 * before it (same answer after the verifier's normalisation, so the verdict should be the same),
 * joined with the report's unstable tasks that are in the cell; undefined when there are none.
 *
 * @example
 * verifierUnstableOf(trajectories, ['humaneval-pro/55'], ['humaneval-pro/55', 'humaneval-pro/1'])
 * // => { inRun: [], reported: ['humaneval-pro/55'] }
 */
export function verifierUnstableOf(
  trajectories: readonly UnstableEvidence[],
  reported: readonly string[] | undefined,
  taskIds: readonly string[],
): VerifierUnstable | undefined {
  const inRun = trajectories.filter(gaveOneAnswerTwoVerdicts).map((t) => t.taskId)
  return verifierUnstableFrom(inRun, reported, taskIds)
}

const listed = (ids: readonly string[]) => (ids.length <= 5 ? ids.join(', ') : `${ids.slice(0, 5).join(', ')}, …`)

/**
 * The one sentence the table, Markdown, HTML report, JUnit export, live view and `seqk analyze` print for a cell whose
 * verifier is known to be unstable; null for every other cell.
 *
 * @example
 * verifierUnstableLine(cell)
 * // => 'verifier unstable, a · verifier: 1 task gave one answer two verdicts in this run (t1); a pass or failure on it may not reproduce (seqk stability)'
 */
export function verifierUnstableLine(cell: Pick<CellSummary, 'cellId' | 'verifierUnstable'>): string | null {
  const known = cell.verifierUnstable
  if (!known) return null
  const reported = known.reported ?? []
  const tasks = new Set([...known.inRun, ...reported])
  if (tasks.size === 0) return null
  const parts: string[] = []
  if (known.inRun.length > 0)
    parts.push(
      `${plural(known.inRun.length, 'task')} gave one answer two verdicts in this run (${listed(known.inRun)})`,
    )
  if (reported.length > 0)
    parts.push(`the stability report saw ${plural(reported.length, 'reference')} flip (${listed(reported)})`)
  return `verifier unstable, ${cell.cellId}: ${parts.join('; ')}; a pass or failure on ${tasks.size === 1 ? 'it' : 'them'} may not reproduce (seqk stability)`
}
