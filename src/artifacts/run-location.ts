/**
 * Where a run writes: the one reading of `SEQK_RESUME`, `SEQK_RUN_DIR`, `SEQK_RUN_ID` and
 * `SEQK_OUTPUT_DIR` (and the reporter's `outputDir`), used by the reporter in the main process and
 * by the workers when no reporter told them (a `--reporter=blob` shard), so both pick the same
 * directory. Pure: it reads the environment it is given and touches no file.
 */
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { DEFAULT_RUNS_DIR, newRunId } from './run-dir.js'

export interface RunLocation {
  /** `resume`: SEQK_RESUME names a run to continue; `fixed`: SEQK_RUN_DIR names the directory; `new`: a fresh one under the runs directory. */
  kind: 'resume' | 'fixed' | 'new'
  runDir: string
  /** The run id: the directory's name (a resumed run's own id is read from its files later). */
  runId: string
  /** The parent of run directories (`outputDir`, else SEQK_OUTPUT_DIR, else .seqk/runs), absolute. */
  runsDir: string
  /** Whether `<runsDir>/latest` should name this run: only for a directory in our own runs directory. */
  writeLatest: boolean
  /** Set when the variables contradict each other: why, and what to set instead. */
  conflict?: string
}

/**
 * Resolves the run's directory from the environment. Relative paths resolve against `root`
 * (the Vitest root in the reporter, the working directory in a worker).
 *
 * @example
 * resolveRunLocation({ SEQK_RUN_ID: 'nightly' }, { root: '/project' })
 * // => { kind: 'new', runDir: '/project/.seqk/runs/nightly', runId: 'nightly', runsDir: '/project/.seqk/runs', writeLatest: true }
 */
export function resolveRunLocation(
  env: Readonly<Record<string, string | undefined>>,
  options: { root: string; outputDir?: string; now?: Date },
): RunLocation {
  const outputDir = options.outputDir ?? env.SEQK_OUTPUT_DIR ?? DEFAULT_RUNS_DIR
  const runsDir = isAbsolute(outputDir) ? outputDir : resolve(options.root, outputDir)
  const fixed = env.SEQK_RUN_DIR ? resolve(options.root, env.SEQK_RUN_DIR) : undefined
  if (env.SEQK_RESUME) {
    const runDir = resolve(options.root, env.SEQK_RESUME)
    const location: RunLocation = {
      kind: 'resume',
      runDir,
      runId: basename(runDir),
      runsDir,
      writeLatest: dirname(runDir) === runsDir,
    }
    if (fixed && fixed !== runDir)
      location.conflict = `SEQK_RESUME (${runDir}) and SEQK_RUN_DIR (${fixed}) name different run directories; set only SEQK_RESUME to resume a run.`
    return location
  }
  if (fixed) return { kind: 'fixed', runDir: fixed, runId: basename(fixed), runsDir, writeLatest: false }
  const runId = env.SEQK_RUN_ID ?? newRunId(options.now)
  return { kind: 'new', runDir: join(runsDir, runId), runId, runsDir, writeLatest: true }
}
