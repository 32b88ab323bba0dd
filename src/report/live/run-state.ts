/**
 * A run's progress as records arrive: per cell the distinct trajectories finished and how they
 * ended, the plan's totals, the files that failed to load. A fold over the records of
 * `plan.jsonl`, `cells.jsonl` and `trajectories.jsonl`, in file order; each record returns what
 * it changed, which the live run gathers into one update per read.
 */
import type { CellRecord } from '../../artifacts/cells-file.js'
import type { PlanRecord } from '../../artifacts/plan-file.js'
import { shardOfTask } from '../../protocol/shard.js'
import {
  gaveOneAnswerTwoVerdicts,
  verifierUnstableFrom,
  verifierUnstableLine,
} from '../../protocol/verifier-unstable.js'
import type { LiveCell, LiveTrajectory } from './events.js'

/** Longest error message and verdict summary sent to the page, in characters. */
const MAX_MESSAGE = 600
const MAX_SUMMARY = 160

/** The fields of a trajectory the live view reads (a light parse of each line: no answers). */
export interface TrajectoryLine {
  runId: string
  benchmark: string
  cellId: string
  taskId: string
  repeat: number
  status: LiveTrajectory['status']
  firstSuccess: number | null
  error: { stage: string; attempt: number; message: string } | null
  attempts: { unmodified?: boolean | null; verdict: { pass?: boolean; diagnostics: { summary: string } } }[]
  durationMs: number
}

interface CellState {
  cell: LiveCell
  /** Each trajectory by task and repeat: a rerun (resumed) trajectory replaces its earlier line. */
  byKey: Map<string, LiveTrajectory>
  /** The duration of its last end before the current start (a resumed cell's earlier run). */
  earlierMs: number | null
  /** Trajectories (by task and repeat) that gave one answer two verdicts: the verifier flipped in this run. */
  flipped: Map<string, string>
  /** From the start record: the cell's tasks and the tasks the eval's stability report saw flip. */
  taskIds: readonly string[]
  reported: readonly string[] | undefined
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
 * Folds records into the run's state.
 *
 * @example
 * const state = new RunState()
 * state.cell(startRecord) // => the cell, { phase: 'running', progress: { done: 0, total: 12, … } }
 * state.trajectory(t) // => { cell: …, trajectory: … }
 */
export class RunState {
  private readonly cells = new Map<string, CellState>()
  /** The eval files the run queued (its last `files` record), and the files loaded or failed, by name. */
  private planned = 0
  private readonly loaded = new Set<string>()
  private readonly failedToLoad = new Map<string, string>()

  /** A plan record: the files, a file's cells with their planned totals, a file that failed to load, a skipped cell. */
  plan(record: PlanRecord): LiveCell[] {
    if (record.type === 'files') {
      this.planned = record.files.length
      return []
    }
    if (record.type === 'skipped') {
      const state = this.state(record)
      // A cell with lines of its own (a resume that skips a cell it ran before) keeps what it has.
      if (state.cell.phase !== 'planned') return []
      state.cell = { ...state.cell, phase: 'skipped', skipped: record.reason }
      return [state.cell]
    }
    this.loaded.add(record.file)
    if (record.type === 'load-error') {
      this.failedToLoad.set(record.file, record.error)
      return []
    }
    this.failedToLoad.delete(record.file)
    return record.cells.map((c) => {
      const state = this.state({ runId: record.runId, benchmark: c.benchmark, cellId: c.cellId })
      // A cell that started already counts from its start record, which knows its shard.
      if (state.cell.phase === 'planned')
        state.cell = { ...state.cell, progress: { ...state.cell.progress, total: c.trajectories } }
      return state.cell
    })
  }

  /** A cell's start or end record. */
  cell(record: CellRecord): LiveCell {
    const state = this.state(record)
    if (record.type === 'start') {
      // A shard runs only its share of the declared tasks.
      const shard = record.shard
      const tasks = shard
        ? record.taskIds.filter((id) => shardOfTask(id, shard.count) === shard.index).length
        : record.taskIds.length
      state.earlierMs = state.cell.durationMs ?? state.earlierMs
      state.cell = {
        ...state.cell,
        phase: 'running',
        progress: { ...state.cell.progress, total: tasks * record.repeats },
        durationMs: null,
        unfinished: null,
        verdict: null,
        failedChecks: null,
      }
      state.taskIds = record.taskIds
      state.reported = record.knownUnstable
      state.cell = { ...state.cell, verifierUnstable: unstableLine(state) }
      return state.cell
    }
    const total = state.cell.progress.total
    const kept = record.kept !== undefined && total !== null && record.kept >= total && total > 0
    state.cell = {
      ...state.cell,
      phase: record.unfinished !== undefined ? 'unfinished' : kept ? 'kept' : 'ended',
      durationMs: record.durationMs,
      keptDurationMs: kept ? state.earlierMs : null,
      unfinished: record.unfinished ?? null,
      verdict: record.verdict ?? (record.unfinished !== undefined ? 'fail' : null),
      failedChecks: record.failedChecks ?? (record.unfinished !== undefined ? 1 : null),
    }
    return state.cell
  }

  /** A finished trajectory: the cell it changed and its compact record. */
  trajectory(t: TrajectoryLine): { cell: LiveCell; trajectory: LiveTrajectory } {
    const key = cellKey(t)
    const state = this.state(t)
    const last = t.attempts[t.attempts.length - 1]
    const trajectory: LiveTrajectory = {
      cell: key,
      benchmark: t.benchmark,
      cellId: t.cellId,
      taskId: t.taskId,
      repeat: t.repeat,
      status: t.status,
      attempts: t.attempts.length,
      firstSuccess: t.firstSuccess,
      error: t.error
        ? { stage: t.error.stage, attempt: t.error.attempt, message: cut(t.error.message, MAX_MESSAGE) }
        : null,
      summary: last ? cut(last.verdict.diagnostics.summary.split('\n')[0] ?? '', MAX_SUMMARY) : '',
      durationMs: t.durationMs,
    }
    const id = `${t.taskId}\u0000${t.repeat}`
    const before = state.byKey.get(id)
    const p = { ...state.cell.progress }
    if (before) p[countOf(before.status)] -= 1
    else p.done += 1
    p[countOf(t.status)] += 1
    // A trajectory can arrive before its cell's start line is read (or without one): the cell runs.
    state.byKey.set(id, trajectory)
    const wasFlipped = state.flipped.has(id)
    if (gaveOneAnswerTwoVerdicts(t)) state.flipped.set(id, t.taskId)
    else state.flipped.delete(id)
    state.cell = {
      ...state.cell,
      progress: p,
      phase: state.cell.phase === 'planned' ? 'running' : state.cell.phase,
      // Said again only when the flips changed: it reads every task of the cell (5 000 per
      // trajectory made catching up with 100 000 trajectories take ~35 s of CPU).
      verifierUnstable: wasFlipped !== state.flipped.has(id) ? unstableLine(state) : state.cell.verifierUnstable,
    }
    return { cell: state.cell, trajectory }
  }

  /** The files queued and loaded so far. */
  files(): { planned: number; loaded: number } {
    return { planned: Math.max(this.planned, this.loaded.size), loaded: this.loaded.size }
  }

  loadErrors(): { file: string; error: string }[] {
    return [...this.failedToLoad].map(([file, error]) => ({ file, error }))
  }

  /** Every cell, in the order first seen. */
  allCells(): LiveCell[] {
    return [...this.cells.values()].map((s) => s.cell)
  }

  /**
   * A page of a cell's trajectories (each task and repeat once, its last line), in the order
   * they finished, with how many there are.
   */
  page(key: string, offset: number, limit: number): { total: number; items: LiveTrajectory[] } {
    const state = this.cells.get(key)
    if (!state) return { total: 0, items: [] }
    // Only up to the page's end: a page of a big cell copies no more than it sends.
    const items: LiveTrajectory[] = []
    let i = 0
    for (const t of state.byKey.values()) {
      if (i >= offset + limit) break
      if (i++ >= offset) items.push(t)
    }
    return { total: state.byKey.size, items }
  }

  private state(record: { runId: string; benchmark: string; cellId: string }): CellState {
    const key = cellKey(record)
    let state = this.cells.get(key)
    if (state === undefined) {
      state = {
        cell: {
          key,
          benchmark: record.benchmark,
          cellId: record.cellId,
          phase: 'planned',
          progress: { done: 0, total: null, solved: 0, failed: 0, errored: 0, capped: 0 },
          durationMs: null,
          keptDurationMs: null,
          unfinished: null,
          verdict: null,
          failedChecks: null,
          verifierUnstable: null,
        },
        byKey: new Map(),
        earlierMs: null,
        flipped: new Map(),
        taskIds: [],
        reported: undefined,
      }
      this.cells.set(key, state)
    }
    return state
  }
}

/** The cell's verifier-unstable sentence from what is known so far, as the summary will say it. */
function unstableLine(state: CellState): string | null {
  const known = verifierUnstableFrom(state.flipped.values(), state.reported, state.taskIds)
  return verifierUnstableLine({ cellId: state.cell.cellId, ...(known ? { verifierUnstable: known } : {}) })
}

function countOf(status: LiveTrajectory['status']): 'solved' | 'failed' | 'errored' | 'capped' {
  return status === 'error' ? 'errored' : status
}
