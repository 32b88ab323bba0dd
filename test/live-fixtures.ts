// Records a run writes, for the live view's tests: a cell's start and end lines and its
// trajectories (solved, failed, or an infrastructure error with a message), as JSON lines.
import type { CellEndRecord, CellStartRecord } from '../src/artifacts/cells-file.js'
import type { Trajectory } from '../src/core/schemas.js'
import { fakeRun } from './report-fixtures.js'

/** One JSON line of a record, newline included. */
export const line = (record: unknown): string => `${JSON.stringify(record)}\n`

export interface LiveCell {
  start: CellStartRecord
  end: (durationMs?: number) => CellEndRecord
  /** A trajectory of this cell: `error` carries `message` as its error. */
  trajectory: (taskId: string, repeat: number, status: Trajectory['status'], message?: string) => Trajectory
}

/** A cell of `tasks` × `repeats` trajectories in run `runId`. */
export function liveCell(options: {
  runId: string
  benchmark?: string
  cellId?: string
  tasks?: string[]
  repeats?: number
}): LiveCell {
  const tasks = options.tasks ?? ['t/1', 't/2']
  const repeats = options.repeats ?? 1
  const benchmark = options.benchmark ?? 'toy benchmark'
  const template = fakeRun({
    runId: options.runId,
    benchmark,
    tasks: [tasks[0]!],
    repeats: 1,
    actors: [{ id: 'sim:quick', skill: 0.6 }],
    modes: ['binary'],
  }).trajectories[0]!
  const cellId = options.cellId ?? template.cellId
  const start: CellStartRecord = {
    schema: 'seqk.cell/1',
    type: 'start',
    runId: options.runId,
    benchmark,
    cellId,
    actorId: template.actorId,
    mode: template.mode,
    protocol: template.protocol,
    fingerprint: template.fingerprint,
    taskIds: tasks,
    taskHashes: Object.fromEntries(tasks.map((t) => [t, 'c0ffee'])),
    repeats,
    thresholds: {},
    errors: 'censored',
    file: 'live.eval.ts',
    baseline: null,
  }
  return {
    start,
    end: (durationMs = 1200) => ({
      schema: 'seqk.cell/1',
      type: 'end',
      runId: options.runId,
      benchmark,
      cellId,
      durationMs,
    }),
    trajectory: (taskId, repeat, status, message) => ({
      ...template,
      cellId,
      taskId,
      repeat,
      status,
      firstSuccess: status === 'solved' ? 1 : null,
      error: status === 'error' ? { stage: 'actor', attempt: 1, message: message ?? 'the endpoint failed' } : null,
    }),
  }
}
