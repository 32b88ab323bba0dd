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
  const fromEnv = process.env.SEQK_RUN_DIR
  let run: SeqkRun | undefined = fromEnv ? { runId: basename(fromEnv), runDir: fromEnv } : undefined
  run ??= inject('seqkRun')
  if (!run) {
    fallback ??= (() => {
      // No seqk reporter (e.g. --reporter=blob replaced it): honour the same variables it reads.
      const runId = process.env.SEQK_RUN_ID ?? newRunId()
      return { runId, runDir: resolve(process.cwd(), process.env.SEQK_OUTPUT_DIR ?? DEFAULT_RUNS_DIR, runId) }
    })()
    run = fallback
  }
  mkdirSync(run.runDir, { recursive: true })
  return run
}
