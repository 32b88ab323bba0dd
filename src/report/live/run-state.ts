/**
 * A run's progress as records arrive: per cell the distinct trajectories finished and how they
 * ended. A pure fold over the records of `cells.jsonl` and `trajectories.jsonl`, in file order;
 * each record becomes one compact event for the page.
 */
import type { CellRecord } from '../../artifacts/cells-file.js'
import { trajectoryKey } from '../../artifacts/trajectories-file.js'
import type { Trajectory } from '../../core/schemas.js'
import { shardOfTask } from '../../protocol/shard.js'
import type { CellEndEvent, CellProgress, CellStartEvent, TrajectoryEvent } from './events.js'

/** Longest error message and verdict summary sent to the page, in characters. */
const MAX_MESSAGE = 600
const MAX_SUMMARY = 160

interface CellState {
  total: number | null
  /** Status of each trajectory by key: a rerun (resumed) trajectory replaces its earlier line. */
  statuses: Map<string, Trajectory['status']>
  counts: Record<Trajectory['status'], number>
}

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/**
 * The cell key events carry: run, benchmark and cell id (one run directory may hold merged runs).
 *
 * @example
 * cellKey({ runId: 'r', benchmark: 'b', cellId: 'c' }) // => 'r\u0000b\u0000c'
 */
export function cellKey(record: { runId: string; benchmark: string; cellId: string }): string {
  return `${record.runId}\u0000${record.benchmark}\u0000${record.cellId}`
}

/**
 * Folds records into per-cell progress, returning the event each record makes.
 *
 * @example
 * const state = new RunState()
 * state.cell(startRecord) // => { type: 'cell-start', …, progress: { done: 0, total: 12, … } }
 * state.trajectory(trajectory) // => { type: 'trajectory', …, progress: { done: 1, total: 12, … } }
 */
export class RunState {
  private readonly cells = new Map<string, CellState>()

  /** A cell's start or end record. */
  cell(record: CellRecord): CellStartEvent | CellEndEvent {
    const key = cellKey(record)
    if (record.type === 'end') return { type: 'cell-end', cell: key, durationMs: record.durationMs, unfinished: record.unfinished ?? null }
    // A shard runs only its share of the declared tasks.
    const shard = record.shard
    const tasks = shard ? record.taskIds.filter((id) => shardOfTask(id, shard.count) === shard.index).length : record.taskIds.length
    const state = this.state(key)
    state.total = tasks * record.repeats
    return { type: 'cell-start', cell: key, benchmark: record.benchmark, cellId: record.cellId, actorId: record.actorId, mode: record.mode, progress: this.progress(state) }
  }

  /** A finished trajectory. */
  trajectory(t: Trajectory): TrajectoryEvent {
    const key = cellKey(t)
    const state = this.state(key)
    const id = trajectoryKey(t)
    const before = state.statuses.get(id)
    if (before !== undefined) state.counts[before] -= 1
    state.counts[t.status] += 1
    state.statuses.set(id, t.status)
    const last = t.attempts[t.attempts.length - 1]
    return {
      type: 'trajectory',
      cell: key,
      benchmark: t.benchmark,
      cellId: t.cellId,
      taskId: t.taskId,
      repeat: t.repeat,
      status: t.status,
      attempts: t.attempts.length,
      firstSuccess: t.firstSuccess,
      error: t.error ? { stage: t.error.stage, attempt: t.error.attempt, message: cut(t.error.message, MAX_MESSAGE) } : null,
      summary: last ? cut(last.verdict.diagnostics.summary.split('\n')[0] ?? '', MAX_SUMMARY) : '',
      durationMs: t.durationMs,
      progress: this.progress(state),
    }
  }

  private state(key: string): CellState {
    let state = this.cells.get(key)
    if (state === undefined) {
      state = { total: null, statuses: new Map(), counts: { solved: 0, failed: 0, error: 0 } }
      this.cells.set(key, state)
    }
    return state
  }

  private progress(state: CellState): CellProgress {
    return { done: state.statuses.size, total: state.total, solved: state.counts.solved, failed: state.counts.failed, errored: state.counts.error }
  }
}
