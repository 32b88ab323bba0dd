import { mkdirSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { inject } from 'vitest'
import { DEFAULT_RUNS_DIR, newRunId } from '../artifacts/run-dir.js'

/** The run every cell of one `vitest run` writes into. */
export interface SeqkRun {
  runId: string
  runDir: string
}

declare module 'vitest' {
  interface ProvidedContext {
    /** Set by the seqk reporter in the main process so every worker writes into one run directory. */
    seqkRun: SeqkRun
  }
}

let fallback: SeqkRun | undefined

/**
 * The current run directory, created on first use. `SEQK_RUN_DIR` wins; else the directory the
 * reporter provided; else (no seqk reporter configured) one per worker process under `.seqk/runs`.
 */
export function currentRun(): SeqkRun {
  const provided = inject('seqkRun')
  if (!provided) warnWithoutReporter()
  const fromEnv = process.env.SEQK_RUN_DIR
  let run: SeqkRun | undefined = fromEnv ? { runId: basename(fromEnv), runDir: fromEnv } : provided
  if (!run) {
    // No seqk reporter (e.g. --reporter=blob replaced it): honour the same variables it reads.
    fallback ??= (() => {
      const runId = process.env.SEQK_RUN_ID ?? newRunId()
      return { runId, runDir: resolve(process.cwd(), process.env.SEQK_OUTPUT_DIR ?? DEFAULT_RUNS_DIR, runId) }
    })()
    run = fallback
  }
  mkdirSync(run.runDir, { recursive: true })
  return run
}

let warned = false

/** Says once per worker that nothing will report the run, and what to add. */
function warnWithoutReporter(): void {
  if (warned || process.env.SEQK_QUIET) return
  warned = true
  console.warn("vitest-seqk: no seqk reporter in this Vitest run, so no tables, summary.json or report will be written (the trajectories still are). Add 'vitest-seqk/reporter' to test.reporters (e.g. reporters: ['default', 'vitest-seqk/reporter']); a --reporter=blob shard is fine: --merge-reports with the seqk reporter reports it.")
}
