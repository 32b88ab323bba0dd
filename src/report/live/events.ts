/**
 * What `seqk view` sends its page: the run's state as a snapshot first (also rendered into the
 * page itself, so it shows the state known at request time before any event arrives), then
 * updates, at most one per read of the files, with what changed. Never whole answers, and never
 * one event per trajectory: a run of 100 000 trajectories costs a client one snapshot, and its
 * trajectories are paged on demand (`/trajectories`). Types only (no Node, no zod), so the
 * browser script in `../client/` reads the same shapes the server writes.
 */
import type { CellVerdictStatus, TrajectoryStatus } from '../../core/kinds.js'

/** A cell's counts: distinct trajectories, a rerun one counted once (its last line). */
export interface CellProgress {
  done: number
  /** Trajectories the cell will run (its tasks in this shard × repeats): from the run's plan, then its start record; null until either is read. */
  total: number | null
  solved: number
  failed: number
  errored: number
  /** Stopped at a cost cap: never started, or stopped at their next model call. */
  capped: number
}

/**
 * Where a cell is: `planned` (its file is loaded, it has not started), `running`, `ended`,
 * `unfinished` (a timeout, a crash, a cancel), `kept` (a resume kept every trajectory it had), or
 * `skipped` (it will not run: a model without a key, data that is absent).
 */
export type CellPhase = 'planned' | 'running' | 'ended' | 'unfinished' | 'kept' | 'skipped'

export interface LiveCell {
  /** Run, benchmark and cell id: one run directory may hold merged runs. */
  key: string
  benchmark: string
  cellId: string
  phase: CellPhase
  progress: CellProgress
  /** Wall time of its last end (null while it runs). */
  durationMs: number | null
  /** A kept cell's wall time in the run it was kept from (its own end took no time). */
  keptDurationMs: number | null
  /** Why it did not finish. */
  unfinished: string | null
  /** Why it was skipped (its phase `skipped`); absent in states written before skips were sent. */
  skipped?: string | null
  /** Its verdict and failed checks, as the end record says them (null until it ends, and in files written before they existed). */
  verdict: CellVerdictStatus | null
  failedChecks: number | null
  /**
   * The sentence every output prints when the cell's verifier is known to be unstable (an
   * unmodified revision got another verdict in this run, or the eval's stability report saw a
   * task flip; `verifierUnstableLine`); null otherwise. Set as the evidence arrives.
   */
  verifierUnstable: string | null
}

/** One finished trajectory (a line of `trajectories.jsonl`), without its answers. */
export interface LiveTrajectory {
  cell: string
  benchmark: string
  cellId: string
  taskId: string
  repeat: number
  status: TrajectoryStatus
  attempts: number
  firstSuccess: number | null
  /** Set for `error`: where it failed and the message (cut to a few hundred characters). */
  error: { stage: string; attempt: number; message: string } | null
  /** The last verdict's one-line summary (cut), e.g. `1 of 2 tests failed`. */
  summary: string
  durationMs: number
}

/** A line of a run file that is not a valid record: shown on the page, skipped. */
export interface MalformedLine {
  file: string
  line: number
  message: string
}

/** A provider batch of the run: submitted, in progress n/m, finalizing, ended (from `batches.jsonl`). */
export interface LiveBatch {
  provider: string
  batchId: string
  status: string
  done: number
  total: number
}

/** The run's verdict once it ended (from its summary.json), in the words every output uses. */
export interface LiveVerdict {
  status: 'pass' | 'fail' | 'no-thresholds'
  /** The counts, e.g. `14 cells · 2 failed (3 checks) · 1 file failed to load`. */
  text: string
  reasons: string[]
}

/** The whole state of the shown run. */
export interface LiveSnapshot {
  /** The run directory's name (its run id), or null while the runs directory holds no run yet. */
  runId: string | null
  /** The run directory, or the runs directory being waited on. */
  dir: string
  /** The eval files the run queued, and how many of them have loaded (or failed to). */
  files: { planned: number; loaded: number }
  /** Files that failed to load: failed entries of the run. */
  loadErrors: { file: string; error: string }[]
  /** Every cell planned or started, in the order first seen. */
  cells: LiveCell[]
  /** The newest finished trajectories, newest last. */
  recent: LiveTrajectory[]
  /** The newest infrastructure errors, newest last. */
  errors: LiveTrajectory[]
  batches: LiveBatch[]
  malformed: MalformedLine[]
  /** While the server reads files written before it started: how far (bytes read of the trajectories file). */
  reading: { bytes: number; of: number } | null
  /** Set once `summary.json` exists: whether `report.html` is complete, and the run's verdict. */
  ended: { report: boolean; verdict: LiveVerdict | null } | null
}

/** How many trajectories, errors and malformed lines a snapshot keeps (the newest). */
export const KEEP = { recent: 30, errors: 50, malformed: 20 } as const

/** The first event of every stream, and of a new run: the state, whole. */
export interface SnapshotEvent {
  type: 'snapshot'
  snapshot: LiveSnapshot
}

/** What changed since the last event: cells replaced by key, trajectories, errors and lines appended, the rest replaced. */
export interface UpdateEvent {
  type: 'update'
  cells?: LiveCell[]
  recent?: LiveTrajectory[]
  errors?: LiveTrajectory[]
  malformed?: MalformedLine[]
  batches?: LiveBatch[]
  files?: LiveSnapshot['files']
  loadErrors?: LiveSnapshot['loadErrors']
  reading?: LiveSnapshot['reading']
  ended?: LiveSnapshot['ended']
}

export type LiveEvent = SnapshotEvent | UpdateEvent

/** The last `n` of a list. */
const tail = <T>(items: readonly T[], n: number): T[] => (items.length > n ? items.slice(items.length - n) : [...items])

/**
 * Applies an event to a snapshot (pure: returns a new snapshot). The server keeps its state with
 * this and the page follows the stream with it: both read the same state.
 *
 * @example
 * let state = emptySnapshot(null, '/runs')
 * state = applyEvent(state, { type: 'update', files: { planned: 2, loaded: 1 } })
 */
export function applyEvent(snapshot: LiveSnapshot, event: LiveEvent): LiveSnapshot {
  if (event.type === 'snapshot') return event.snapshot
  const next: LiveSnapshot = { ...snapshot }
  if (event.cells) {
    const byKey = new Map(next.cells.map((c) => [c.key, c]))
    for (const c of event.cells) byKey.set(c.key, c)
    next.cells = [...byKey.values()]
  }
  if (event.recent) next.recent = tail([...next.recent, ...event.recent], KEEP.recent)
  if (event.errors) next.errors = tail([...next.errors, ...event.errors], KEEP.errors)
  if (event.malformed) next.malformed = tail([...next.malformed, ...event.malformed], KEEP.malformed)
  if (event.batches) {
    const byId = new Map(next.batches.map((b) => [b.batchId, b]))
    for (const b of event.batches) byId.set(b.batchId, b)
    next.batches = [...byId.values()]
  }
  if (event.files) next.files = event.files
  if (event.loadErrors) next.loadErrors = event.loadErrors
  if (event.reading !== undefined) next.reading = event.reading
  if (event.ended !== undefined) next.ended = event.ended
  return next
}

/** The state of a run before anything of it is read. */
export function emptySnapshot(runId: string | null, dir: string): LiveSnapshot {
  return {
    runId,
    dir,
    files: { planned: 0, loaded: 0 },
    loadErrors: [],
    cells: [],
    recent: [],
    errors: [],
    batches: [],
    malformed: [],
    reading: null,
    ended: null,
  }
}
