import type { Protocol, Trajectory } from '../core/schemas.js'
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
 * kept; errored, capped and missing ones run again. A trajectory on file under another protocol refuses the
 * resume with the fields that changed: its numbers and new ones would not be one run.
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
  const mine = onFile.filter((t) => t.benchmark === cell.benchmark && t.cellId === cell.cellId)
  const other = mine.find((t) => t.fingerprint !== cell.fingerprint)
  if (other) {
    const changes = protocolChangeLines(other.protocol, cell.protocol)
    throw new ResumeRefusedError(
      `cannot resume "${cell.cellId}" from ${runDir}: its protocol changed since those trajectories ran (${changes.length > 0 ? changes.join('; ') : `fingerprint ${other.fingerprint} → ${cell.fingerprint}`}). Restore the eval as it was to resume, or run without SEQK_RESUME into a new run directory.`,
    )
  }
  const declared = new Set(cell.taskIds)
  const reuse = new Map<string, Trajectory>()
  let errored = 0
  let capped = 0
  for (const t of mine) {
    if (!declared.has(t.taskId) || t.repeat >= cell.repeats) continue
    if (t.status === 'error') errored++
    else if (t.status === 'capped') capped++
    else reuse.set(reuseKey(t.taskId, t.repeat), t)
  }
  return { reuse, errored, capped }
}
