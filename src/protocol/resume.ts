import type { CellSummary, Protocol, Trajectory } from '../core/schemas.js'
import { protocolDifferences } from '../core/fingerprint.js'

/** The key a cell looks a finished trajectory up by: its task and repeat. */
export function reuseKey(taskId: string, repeat: number): string {
  return `${taskId}\u0000${repeat}`
}

/** Raised when a run directory cannot be resumed as asked; the message says why and what to do. */
export class ResumeRefusedError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ResumeRefusedError'
  }
}

/** What a resumed cell keeps from the run directory, and what it must run again. */
export interface ResumePlan {
  /** Finished trajectories (solved or failed) to keep as they are, by `reuseKey`. */
  reuse: Map<string, Trajectory>
  /** Trajectories on file that ended in an infrastructure error: run again, the new line supersedes them. */
  errored: number
  /** Trajectories a cost cap stopped: run again under this run's cap, the new line supersedes them. */
  capped: number
  /**
   * An extended run (the same protocol at a larger budget): the trajectories that ended at the
   * smaller budget, by `reuseKey`, to go on from their records (`CellSpec.extend`), and that budget.
   */
  extend: Map<string, Trajectory>
  extendedFrom: number | null
}

/**
 * Whether `was` is this protocol at a smaller budget, and nothing else changed: a run that can be
 * extended (its trajectories kept and continued) rather than refused.
 */
export function extendsTo(was: Protocol, is: Protocol): boolean {
  if (!(was.budget < is.budget)) return false
  return protocolDifferences(was, is).every((path) => path === 'budget')
}

/** `path: was → is` for each protocol field that differs. */
export function protocolChangeLines(was: Protocol, is: Protocol): string[] {
  const at = (p: unknown, path: string) =>
    JSON.stringify(
      path
        .split('.')
        .reduce<unknown>(
          (o, key) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined),
          p,
        ),
    ) ?? 'undefined'
  return protocolDifferences(was, is).map((path) => `${path}: ${at(was, path)} → ${at(is, path)}`)
}

/**
 * Which of a cell's trajectories a resumed run keeps. Only trajectories that ended (solved or
 * failed) under exactly this cell's protocol, for a task and repeat the cell still declares, are
 * kept; errored, capped and missing ones run again. Trajectories that ended under this protocol at
 * a smaller budget (the eval's budget raised, or `seqk resume --budget K`) are extended: each goes
 * on from its record (`extend`). A trajectory on file under any other protocol refuses the resume
 * with the fields that changed: its numbers and new ones would not be one run.
 *
 * @example
 * const { reuse } = planResume(onFile, { benchmark, cellId, fingerprint, protocol, taskIds, repeats }, dir)
 */
export function planResume(
  onFile: readonly Trajectory[],
  cell: {
    benchmark: string
    cellId: string
    fingerprint: string
    protocol: Protocol
    taskIds: readonly string[]
    repeats: number
  },
  runDir: string,
): ResumePlan {
  const all = onFile.filter((t) => t.benchmark === cell.benchmark && t.cellId === cell.cellId)
  // A trajectory already extended (a resumed extension) supersedes its line at the smaller budget.
  const extendedKeys = new Set(
    all.filter((t) => t.fingerprint === cell.fingerprint).map((t) => reuseKey(t.taskId, t.repeat)),
  )
  const smaller = all.filter(
    (t) =>
      t.fingerprint !== cell.fingerprint &&
      extendsTo(t.protocol, cell.protocol) &&
      !extendedKeys.has(reuseKey(t.taskId, t.repeat)),
  )
  const budgets = new Set(smaller.map((t) => t.protocol.budget))
  if (budgets.size > 1)
    throw new ResumeRefusedError(
      `cannot extend "${cell.cellId}" from ${runDir}: its trajectories ran under several budgets (${[...budgets].sort((a, b) => a - b).join(', ')}); extend it from one`,
    )
  const toExtend = new Set(smaller)
  const mine = all.filter((t) => t.fingerprint === cell.fingerprint || toExtend.has(t))
  // Any other protocol on file refuses the resume: its numbers and new ones would not be one run.
  const other = all.find(
    (t) =>
      t.fingerprint !== cell.fingerprint &&
      !extendsTo(t.protocol, cell.protocol) &&
      !extendedKeys.has(reuseKey(t.taskId, t.repeat)),
  )
  if (other) {
    const changes = protocolChangeLines(other.protocol, cell.protocol)
    throw new ResumeRefusedError(
      `cannot resume "${cell.cellId}" from ${runDir}: its protocol changed since those trajectories ran (${changes.length > 0 ? changes.join('; ') : `fingerprint ${other.fingerprint} → ${cell.fingerprint}`}). Restore the eval as it was to resume, or run without SEQK_RESUME into a new run directory.`,
    )
  }
  const declared = new Set(cell.taskIds)
  const reuse = new Map<string, Trajectory>()
  const extend = new Map<string, Trajectory>()
  let errored = 0
  let capped = 0
  for (const t of mine) {
    if (!declared.has(t.taskId) || t.repeat >= cell.repeats) continue
    if (t.status === 'error') errored++
    else if (t.status === 'capped') capped++
    else if (t.fingerprint === cell.fingerprint) reuse.set(reuseKey(t.taskId, t.repeat), t)
    else extend.set(reuseKey(t.taskId, t.repeat), t)
  }
  return { reuse, errored, capped, extend, extendedFrom: budgets.size === 1 ? [...budgets][0]! : null }
}

/**
 * The line every output prints under a cell extended from a smaller budget: from which K, how many
 * trajectories went on, and what that means for its numbers (null for a cell run at its budget).
 *
 * @example
 * extendedLine(summary) // => 'simulated:reviser · binary: extended from K = 3 to K = 5 (12 trajectories kept their attempts …)'
 */
export function extendedLine(cell: Pick<CellSummary, 'cellId' | 'budget' | 'extended' | 'protocol'>): string | null {
  const e = cell.extended
  if (!e) return null
  const what = `${cell.cellId}: extended from K = ${e.from} to K = ${cell.budget} (${e.trajectories} ${e.trajectories === 1 ? 'trajectory' : 'trajectories'} kept ${e.trajectories === 1 ? 'its' : 'their'} attempts and the unsolved went on from their last feedback)`
  return cell.protocol.budgetDisclosed
    ? `${what}; the budget was disclosed, so their first ${e.from} attempts were told K = ${e.from}: not a run at K = ${cell.budget}`
    : `${what}; the budget was not disclosed, so this is the run a budget of ${cell.budget} from the start would give`
}
