/**
 * Reads runs for the analyses: a run directory (holding `summary.json`), a `summary.json` file, or
 * a runs directory / its `latest` file (the newest run). The analyses themselves only ever see the
 * validated summaries: the reporter and the analyses read artifacts, they never re-run anything.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { SUMMARY_FILE } from '../artifacts/run-dir.js'
import type { RunSummary } from '../core/schemas.js'
import { readSummary } from '../artifacts/summary-file.js'
import type { SourcedCell } from './comparability.js'

/** A validated summary and the file it came from (null when handed over in memory). */
export interface LoadedRun {
  path: string | null
  summary: RunSummary
}

/** What the analyses accept: loaded runs, or bare summaries (e.g. from the HTML report). */
export type RunInput = LoadedRun | RunSummary

/** A path that does not lead to a readable, valid summary; the message says which and why. */
export class RunLoadError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RunLoadError'
  }
}

function latestIn(dir: string, latestFile: string): string {
  const id = readFileSync(latestFile, 'utf8').trim()
  const runDir = join(dir, id)
  if (id === '' || !existsSync(join(runDir, SUMMARY_FILE))) {
    throw new RunLoadError(`${latestFile} names run "${id}", but ${join(runDir, SUMMARY_FILE)} does not exist`)
  }
  return join(runDir, SUMMARY_FILE)
}

/**
 * The `summary.json` a path stands for: the file itself; `<dir>/summary.json` for a run
 * directory; for a runs directory (or its `latest` file), the run named in `latest`.
 *
 * @throws RunLoadError when the path does not exist or holds no summary.
 * @example
 * resolveSummaryPath('.seqk/runs/20261130-050411-65ed48') // => '.seqk/runs/20261130-050411-65ed48/summary.json'
 * resolveSummaryPath('.seqk/runs') // => the latest run's summary.json
 */
export function resolveSummaryPath(path: string): string {
  const full = resolve(path)
  if (!existsSync(full)) throw new RunLoadError(`${path}: no such file or directory`)
  if (statSync(full).isDirectory()) {
    if (existsSync(join(full, SUMMARY_FILE))) return join(full, SUMMARY_FILE)
    if (existsSync(join(full, 'latest'))) return latestIn(full, join(full, 'latest'))
    throw new RunLoadError(
      `${path}: a directory without ${SUMMARY_FILE} (pass a run directory, e.g. .seqk/runs/<run id>, or a summary.json file; run the evals first if there is none)`,
    )
  }
  // `.seqk/runs/latest` is a one-line file naming the newest run, not JSON.
  if (basename(full) === 'latest') return latestIn(dirname(full), full)
  return full
}

/**
 * Loads and validates each path's summary. The same file passed twice (e.g. `.seqk/runs` and the
 * run it points at) is read once, with a note, rather than refused as a duplicate measurement.
 *
 * @throws RunLoadError naming the path and, for an invalid summary, the field.
 * @example
 * const { runs, notes } = loadRuns(['.seqk/runs/latest'])
 */
export function loadRuns(paths: readonly string[]): { runs: LoadedRun[]; notes: string[] } {
  if (paths.length === 0) throw new RunLoadError('no runs given: pass run directories or summary.json files')
  const runs: LoadedRun[] = []
  const notes: string[] = []
  const seen = new Map<string, string>()
  for (const path of paths) {
    const file = resolveSummaryPath(path)
    const real = realpathSync(file)
    const earlier = seen.get(real)
    if (earlier !== undefined) {
      notes.push(`${path} is the same summary as ${earlier}: read once`)
      continue
    }
    seen.set(real, path)
    let summary: RunSummary
    try {
      summary = readSummary(file)
    } catch (error) {
      throw new RunLoadError((error as Error).message)
    }
    runs.push({ path: file, summary })
  }
  return { runs, notes }
}

/** Loaded runs from either input shape. */
export function asLoadedRuns(inputs: readonly RunInput[]): LoadedRun[] {
  return inputs.map((input) => ('summary' in input ? input : { path: null, summary: input }))
}

/** Every cell of every run, tagged with the run it came from. */
export function sourcedCells(runs: readonly LoadedRun[]): SourcedCell[] {
  return runs.flatMap((run) =>
    run.summary.benchmarks.flatMap((b) => b.cells.map((cell) => ({ cell, runId: run.summary.runId }))),
  )
}
