/**
 * Finding the previous run a cell's cost estimate learns from: the newest finished run beside the
 * current one (or the one named) that ran the same cell, or at least the same benchmark and mode.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { canonicalJson } from '../core/fingerprint.js'
import type { Protocol, Trajectory } from '../core/schemas.js'
import { priorCell, type PriorCell } from '../protocol/estimate.js'
import { CELLS_FILE, readCells, type CellStartRecord } from './cells-file.js'
import { SUMMARY_FILE, TRAJECTORIES_FILE } from './run-dir.js'
import { readTrajectories, summaryView } from './trajectories-file.js'

/** The cell an estimate is for: what a previous run's cell is matched on. */
export interface EstimatedCell {
  benchmark: string
  cellId: string
  mode: string
  fingerprint: string
  protocol: Protocol
}

// A worker estimates every cell of its files from the same previous run: read each file once.
const trajectoriesByFile = new Map<string, Trajectory[]>()

/**
 * Finished run directories in `runsDir` (those with a summary.json), newest first, leaving out
 * `exceptRunId`. Unreadable entries are skipped: an estimate never fails a run.
 */
export function finishedRuns(runsDir: string, exceptRunId?: string): string[] {
  if (!existsSync(runsDir)) return []
  const found: { dir: string; time: number }[] = []
  for (const name of readdirSync(runsDir)) {
    if (name === exceptRunId) continue
    const dir = join(runsDir, name)
    try {
      if (!existsSync(join(dir, SUMMARY_FILE)) || !existsSync(join(dir, CELLS_FILE))) continue
      found.push({ dir, time: statSync(join(dir, SUMMARY_FILE)).mtimeMs })
    } catch {
      continue
    }
  }
  return found.sort((a, b) => b.time - a.time).map((f) => f.dir)
}

/**
 * The previous cell that best matches `cell` in `runDir`: the same protocol (fingerprint), else
 * the same benchmark and cell id, else the same benchmark content and mode. Undefined when the run
 * has none, or its files cannot be read.
 *
 * @example
 * const prior = priorFromRun('.seqk/runs/20261201-101500-9f2c4a', cell)
 */
export function priorFromRun(runDir: string, cell: EstimatedCell): PriorCell | undefined {
  let starts: CellStartRecord[]
  try {
    starts = readCells(join(runDir, CELLS_FILE)).cells.map((c) => c.start)
  } catch {
    return undefined
  }
  const hash = cell.protocol.benchmark.contentHash
  const candidates: [PriorCell['match'], (s: CellStartRecord) => boolean][] = [
    ['same-protocol', (s) => s.fingerprint === cell.fingerprint],
    [
      'same-cell',
      (s) => s.benchmark === cell.benchmark && s.cellId === cell.cellId && s.protocol.kind === cell.protocol.kind,
    ],
    [
      'same-benchmark-and-mode',
      (s) =>
        s.protocol.benchmark.contentHash === hash && s.mode === cell.mode && s.protocol.kind === cell.protocol.kind,
    ],
  ]
  for (const [match, test] of candidates) {
    const start = starts.find(test)
    if (!start) continue
    const trajectories = cellTrajectories(runDir, start)
    if (trajectories === undefined || trajectories.length === 0) continue
    const sameActor = canonicalJson(start.protocol.actor) === canonicalJson(cell.protocol.actor)
    return priorCell(trajectories, { runId: start.runId || basename(runDir), match, sameActor })
  }
  return undefined
}

/** The newest previous run's best match for `cell` among `runDirs` (see {@link priorFromRun}). */
export function findPrior(runDirs: readonly string[], cell: EstimatedCell): PriorCell | undefined {
  for (const dir of runDirs) {
    const prior = priorFromRun(dir, cell)
    if (prior) return prior
  }
  return undefined
}

function cellTrajectories(runDir: string, start: CellStartRecord): Trajectory[] | undefined {
  const file = join(runDir, TRAJECTORIES_FILE)
  let all = trajectoriesByFile.get(file)
  if (!all) {
    try {
      all = readTrajectories(file, { view: summaryView }).trajectories
    } catch {
      return undefined
    }
    trajectoriesByFile.set(file, all)
  }
  return all.filter(
    (t) => t.benchmark === start.benchmark && t.cellId === start.cellId && t.fingerprint === start.fingerprint,
  )
}
