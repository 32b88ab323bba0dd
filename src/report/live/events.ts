/**
 * What `seqk view` sends its page over server-sent events: compact records of a run's progress,
 * never whole answers. Types only (no Node, no zod), so the browser script in `../client/` reads
 * the same shapes the server writes.
 */
import type { TrajectoryStatus } from '../../core/kinds.js'

/** Which run is shown; the page starts over on each (the first event of every stream). */
export interface RunEvent {
  type: 'run'
  /** The run directory's name (its run id), or null while the runs directory holds no run yet. */
  runId: string | null
  /** The run directory, or the runs directory being waited on. */
  dir: string
}

/** A cell's counts after the event that changed them: distinct trajectories, a rerun one counted once (its last line). */
export interface CellProgress {
  done: number
  /** Trajectories the cell will run (its tasks in this shard × repeats), null until its start record is read. */
  total: number | null
  solved: number
  failed: number
  errored: number
}

/** A cell started (its start record in `cells.jsonl`; a resumed cell starts again). */
export interface CellStartEvent {
  type: 'cell-start'
  cell: string
  benchmark: string
  cellId: string
  actorId: string
  mode: string
  progress: CellProgress
}

/** A cell ended (its end record); `unfinished` says why when it did not run to its end. */
export interface CellEndEvent {
  type: 'cell-end'
  cell: string
  durationMs: number
  unfinished: string | null
}

/** One finished trajectory (a line of `trajectories.jsonl`), without its answers. */
export interface TrajectoryEvent {
  type: 'trajectory'
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
  progress: CellProgress
}

/** A line of a run file that is not a valid record: shown on the page, skipped. */
export interface MalformedEvent {
  type: 'malformed'
  file: string
  line: number
  message: string
}

/** A provider batch of the run: submitted, in progress n/m, finalizing, ended (from `batches.jsonl`). */
export interface BatchEvent {
  type: 'batch'
  provider: string
  batchId: string
  status: string
  done: number
  total: number
}

/** The run ended (`summary.json` appeared), or its report became available. */
export interface EndedEvent {
  type: 'ended'
  /** `report.html` is complete and served at `/report`. */
  report: boolean
}

export type LiveEvent = RunEvent | CellStartEvent | CellEndEvent | TrajectoryEvent | BatchEvent | MalformedEvent | EndedEvent
