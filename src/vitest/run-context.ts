import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { inject } from 'vitest'
import { RUN_FILE, TRAJECTORIES_FILE } from '../artifacts/run-dir.js'
import { resolveRunLocation } from '../artifacts/run-location.js'
import { readTrajectories } from '../artifacts/trajectories-file.js'
import { prepareResume } from '../artifacts/resume-dir.js'
import { shardFromEnv } from '../protocol/shard.js'
import type { Trajectory } from '../core/schemas.js'
import { wrapText } from '../core/text-layout.js'
import type { CostCapLimits } from '../core/cost-cap.js'
import { capsFromEnv, RUN_CAP_ENV } from './cost-caps.js'

/** The run every cell of one `vitest run` writes into. */
export interface SeqkRun {
  runId: string
  runDir: string
  /**
   * Set when this run resumes `runDir` (SEQK_RESUME): cells keep the trajectories that had ended
   * there. `bytes` is the file's length before this run appended, so a worker never mistakes a
   * line this run wrote for one it found.
   */
  resume?: { bytes?: number }
  /** Set when the reporter refused the run directory: every cell fails with this message. */
  refused?: string
  /** How Vitest was started (its arguments and directory), recorded so `seqk resume` can start it again. */
  invocation?: { argv: string[]; cwd: string }
  /** The run's cost cap, and the session its shared spend is counted under (a resume starts a new one). */
  costCap?: { limits: CostCapLimits; session: string }
}

/** Raised by a cell when the run directory cannot be used as asked (it holds another run, or cannot be resumed). */
export class SeqkRunDirError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SeqkRunDirError'
  }
}

declare module 'vitest' {
  interface ProvidedContext {
    /** Set by the seqk reporter in the main process so every worker writes into one run directory. */
    seqkRun: SeqkRun
  }
}

let fallback: SeqkRun | undefined

/**
 * The current run directory, created on first use. With the seqk reporter, the directory it chose
 * (it reads `SEQK_RESUME`, `SEQK_RUN_DIR`, `SEQK_RUN_ID` and `SEQK_OUTPUT_DIR`); without it, the
 * same variables read here, else one directory per worker process under `.seqk/runs`. Throws
 * {@link SeqkRunDirError} when the reporter refused the directory.
 */
export function currentRun(): SeqkRun {
  const provided = inject('seqkRun')
  if (!provided) warnWithoutReporter()
  if (provided?.refused) throw new SeqkRunDirError(provided.refused)
  let run = provided
  if (!run) {
    // No seqk reporter (e.g. --reporter=blob replaced it): honour the same variables it reads.
    fallback ??= (() => {
      // The reporter's own reading of the variables (resolveRunLocation), from this worker's directory.
      const location = resolveRunLocation(process.env, { root: process.cwd() })
      if (location.conflict) throw new SeqkRunDirError(location.conflict)
      // Without the reporter, the run's cap is each worker's own: no session spans the workers.
      const limits = capsFromEnv(process.env, RUN_CAP_ENV)
      const costCap =
        Object.keys(limits).length > 0 ? { costCap: { limits, session: `worker-${process.pid}-${Date.now()}` } } : {}
      if (location.kind !== 'resume') return { runId: location.runId, runDir: location.runDir, ...costCap }
      // The reporter prepares the directory before any worker starts; without it, each worker does.
      const start = prepareResume(location.runDir, shardFromEnv(process.env))
      return { runId: start.runId, runDir: location.runDir, resume: {}, ...costCap }
    })()
    run = fallback
  }
  mkdirSync(run.runDir, { recursive: true })
  if (run.invocation) recordInvocation(run)
  return run
}

const recorded = new Set<string>()

/** Writes `run.json` once per run directory (the first worker to get here wins; the rest find it). */
function recordInvocation(run: SeqkRun): void {
  if (recorded.has(run.runDir)) return
  recorded.add(run.runDir)
  try {
    writeFileSync(
      join(run.runDir, RUN_FILE),
      `${JSON.stringify({ schema: 'seqk.run/1', runId: run.runId, ...run.invocation }, null, 2)}\n`,
      { flag: 'wx' },
    )
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
}

const onFile = new Map<string, Trajectory[]>()

/**
 * The trajectories a resumed run found in its directory (read once per worker), superseded
 * lines already dropped. Empty when the run is not a resume.
 */
export function resumedTrajectories(run: SeqkRun): readonly Trajectory[] {
  if (!run.resume) return []
  let found = onFile.get(run.runDir)
  if (!found) {
    const file = join(run.runDir, TRAJECTORIES_FILE)
    try {
      found = existsSync(file) ? readTrajectories(file, { bytes: run.resume.bytes }).trajectories : []
    } catch (error) {
      throw new SeqkRunDirError(`cannot resume ${run.runDir}: ${(error as Error).message}`)
    }
    onFile.set(run.runDir, found)
  }
  return found
}

let warned = false

/** Says once per worker that nothing will report the run, and what to add. */
function warnWithoutReporter(): void {
  if (warned || process.env.SEQK_QUIET) return
  warned = true
  console.warn(
    wrapText(
      "vitest-seqk: no seqk reporter in this Vitest run, so no tables, summary.json or report will be written (the trajectories still are). Add 'vitest-seqk/reporter' to test.reporters (e.g. reporters: ['default', 'vitest-seqk/reporter']); a --reporter=blob shard is fine: --merge-reports with the seqk reporter reports it.",
    ),
  )
}
