import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'

/** Default parent of run directories, relative to the project root. */
export const DEFAULT_RUNS_DIR = '.seqk/runs'

/** A sortable, unique run id: UTC date and time plus 6 random hex digits, e.g. `20261130-052301-9f2c4a` (shards on many machines may start in the same second). */
export function newRunId(now = new Date()): string {
  const iso = now.toISOString()
  return `${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}-${randomBytes(3).toString('hex')}`
}

/** Where a run's files go: `<root>/<runsDir>/<runId>`, created if missing. */
export function ensureRunDir(root: string, runsDir: string, runId: string): string {
  const dir = join(isAbsolute(runsDir) ? runsDir : resolve(root, runsDir), runId)
  mkdirSync(dir, { recursive: true })
  return dir
}

/** The name of the run directory's trajectory file (one JSON line per trajectory). */
export const TRAJECTORIES_FILE = 'trajectories.jsonl'
/** The name of the run directory's summary file. */
export const SUMMARY_FILE = 'summary.json'
/** How Vitest was started for this run (written by the first cell), so `seqk resume` can start it again. */
export const RUN_FILE = 'run.json'
