/**
 * `seqk summarize <run dir>`: recomputes a run's summary.json from its cells.jsonl and
 * trajectories.jsonl alone, as the run's own cells computed it.
 */
import type { CellRef } from '../protocol/gate-match.js'
import { existsSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { readCells, CELLS_FILE, type CellStartRecord } from '../artifacts/cells-file.js'
import type { CellSummary, GateJson } from '../core/schemas.js'
import { recomputeRun } from '../artifacts/recompute.js'
import { SUMMARY_FILE, TRAJECTORIES_FILE } from '../artifacts/run-dir.js'
import { readTrajectories, summaryView } from '../artifacts/trajectories-file.js'
import { writeSummary } from '../artifacts/summary-file.js'
import { applyBaseline } from '../vitest/baseline.js'
import { planLoadErrors, planNotRun, PLAN_FILE } from '../artifacts/plan-file.js'
import { runCountsText, runVerdict, verdictBlock } from '../protocol/verdict.js'
import { plural } from '../metrics/format.js'
import { wrapText } from '../core/text-layout.js'
import type { CommandSpec, FlagValues } from './args.js'
import { UsageError } from './args.js'
import type { CliIo } from './run.js'

export const summarizeSpec: CommandSpec = {
  name: 'summarize',
  usage: 'seqk summarize <run dir> [--out <file>]',
  summary:
    "Recompute a run's summary.json: from its trajectories.jsonl and cells.jsonl alone, as its cells computed it (the same numbers, thresholds and baseline verdicts).",
  details: [
    'Baselines are read, never written: a baseline the run itself wrote (locally, when it was',
    'missing) now gates the cell it came from. A cell that did not finish is failed, with how far',
    'it got. Writes <run dir>/summary.json unless --out says where (`-` prints it).',
    '',
    'Example:  npx seqk summarize .seqk/runs/20261201-101500-9f2c4a --out recomputed.json',
  ].join('\n'),
  flags: [
    {
      name: 'out',
      kind: 'string',
      value: '<file>',
      description: 'write the summary here instead of <run dir>/summary.json (`-` prints it to stdout)',
    },
  ],
}

/** A run directory that cannot be summarised; the message names the file and why. */
export class SummarizeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SummarizeError'
  }
}

/** Runs `seqk summarize`; returns its exit code. */
export function runSummarize(paths: readonly string[], flags: FlagValues, io: CliIo): number {
  if (paths.length !== 1)
    throw new UsageError(`seqk summarize: give exactly one run directory (got ${paths.length})`, 'summarize')
  const cwd = io.cwd ?? process.cwd()
  const runDir = resolve(cwd, paths[0]!)
  for (const file of [TRAJECTORIES_FILE, CELLS_FILE]) {
    if (!existsSync(join(runDir, file)))
      throw new SummarizeError(
        `nothing to summarize in ${runDir}: it has no ${file} (a run directory looks like .seqk/runs/<run id>${file === CELLS_FILE ? '; runs written before cells.jsonl existed cannot be recomputed' : ''})`,
      )
  }
  let cells, trajectories
  try {
    cells = readCells(join(runDir, CELLS_FILE)).cells
    trajectories = readTrajectories(join(runDir, TRAJECTORIES_FILE), { view: summaryView }).trajectories
  } catch (error) {
    throw new SummarizeError(`cannot summarize ${runDir}: ${(error as Error).message}`)
  }
  // Baseline paths are relative to the project root: here, where the command runs (the run may have been made elsewhere).
  const root = cwd
  // A run is named after its directory (the reporter's rule), whoever's cells it holds (merged blobs).
  const runId = basename(runDir)
  const recomputed = recomputeRun({
    runId,
    createdAt: new Date().toISOString(),
    cells,
    trajectories,
    gate: baselineGate(root),
  })
  // The files that failed to load and the cells skipped are in the run's plan: here as in the run.
  const loadErrors = planLoadErrors(join(runDir, PLAN_FILE))
  const notRun = planNotRun(join(runDir, PLAN_FILE), recomputed.benchmarks)
  const withErrors = {
    ...recomputed,
    ...(loadErrors.length > 0 ? { loadErrors } : {}),
    ...(notRun.length > 0 ? { notRun } : {}),
  }
  const verdict = runVerdict(withErrors)
  const summary = { ...withErrors, verdict: verdictBlock(verdict) }
  const out = typeof flags.out === 'string' ? flags.out : undefined
  if (out === '-') {
    io.stdout(`${JSON.stringify(summary, null, 2)}\n`)
    return 0
  }
  const file = out === undefined ? join(runDir, SUMMARY_FILE) : resolve(cwd, out)
  writeSummary(file, summary)
  io.stdout(
    `${wrapText(`seqk summarize: ${plural(trajectories.length, 'trajectory', 'trajectories')} · ${runCountsText(verdict)}; wrote ${file}`)}\n`,
  )
  for (const reason of verdict.reasons) io.stdout(`${wrapText(`  ✗ ${reason}`)}\n`)
  return 0
}

/** Gates a recomputed cell against its baseline, read and never written; paths are relative to `root`. */
export function baselineGate(
  root: string,
): (start: CellStartRecord, cell: CellSummary, cells: readonly CellRef[]) => GateJson {
  return (start, cell, cells) =>
    applyBaseline({
      path: resolve(root, start.baseline!.file),
      benchmark: start.benchmark,
      summary: cell,
      mode: 'none',
      gate: start.baseline!,
      cells,
    })
}
