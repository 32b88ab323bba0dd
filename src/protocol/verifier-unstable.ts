/**
 * When a cell's verifier is known to be unstable on some of its tasks: in the run itself (an
 * unmodified revision, the same answer as one attempt before, got another verdict) or by a
 * `seqk stability` report given to the eval. Pure, like the rest of the cell summary; the one
 * sentence every output prints comes from here.
 */
import type { CellSummary, Trajectory } from '../core/schemas.js'
import { plural } from '../metrics/format.js'

/** The cell summary's `verifierUnstable` block. */
export type VerifierUnstable = NonNullable<CellSummary['verifierUnstable']>

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
  trajectories: readonly Trajectory[],
  reported: readonly string[] | undefined,
  taskIds: readonly string[],
): VerifierUnstable | undefined {
  const inRun = new Set<string>()
  for (const t of trajectories)
    for (let i = 1; i < t.attempts.length; i++) {
      const attempt = t.attempts[i]!
      if (attempt.unmodified === true && attempt.verdict.pass !== t.attempts[i - 1]!.verdict.pass) inRun.add(t.taskId)
    }
  const inCell = new Set(taskIds)
  const named = [...new Set(reported ?? [])].filter((id) => inCell.has(id)).sort()
  if (inRun.size === 0 && named.length === 0) return undefined
  return { inRun: [...inRun].sort(), ...(reported !== undefined ? { reported: named } : {}) }
}

const listed = (ids: readonly string[]) => (ids.length <= 5 ? ids.join(', ') : `${ids.slice(0, 5).join(', ')}, …`)

/**
 * The one sentence the table, Markdown, HTML report and `seqk analyze` print for a cell whose
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
