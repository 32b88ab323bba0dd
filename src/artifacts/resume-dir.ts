import { existsSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { CELLS_FILE, readCells } from './cells-file.js'
import { RUN_FILE, TRAJECTORIES_FILE } from './run-dir.js'
import { cutTornTail, readTrajectories, summaryView } from './trajectories-file.js'
import { ResumeRefusedError } from '../protocol/resume.js'
import type { Shard } from '../protocol/shard.js'

/** What a run directory holds when a resume starts, after its torn last lines are cut. */
export interface ResumeStart {
  /** The run's own id (run.json's, else its trajectories'): new lines must carry it to supersede the old. */
  runId: string
  /** trajectories.jsonl's length now: workers read no further, so they never take this run's lines for old ones. */
  bytes: number
  /** Bytes of torn last lines cut (trajectories.jsonl and cells.jsonl). */
  cut: number
  onFile: number
  errored: number
}

/**
 * Prepares a run directory for a resume, before anything appends: cuts the torn last line a crash
 * can leave in trajectories.jsonl and cells.jsonl, checks that every file reads, and finds the
 * run's id. Refuses (ResumeRefusedError, saying what to do) a directory with nothing to resume, a
 * file that does not read, and a resume whose `SEQK_SHARD` differs from the run's: a shard resumed
 * whole, or a whole run resumed as a shard, would not be the run it resumes.
 *
 * @example
 * const { runId, bytes } = prepareResume('.seqk/runs/20261201-101500-9f2c4a', parseShard(process.env.SEQK_SHARD))
 */
export function prepareResume(runDir: string, shard: Shard | null): ResumeStart {
  const file = join(runDir, TRAJECTORIES_FILE)
  if (!existsSync(file))
    throw new ResumeRefusedError(
      `nothing to resume in ${runDir}: it has no ${TRAJECTORIES_FILE} (a run directory looks like .seqk/runs/<run id>; a run that never finished a trajectory has nothing to keep: run it afresh).`,
    )
  const cellsFile = join(runDir, CELLS_FILE)
  try {
    let cut = cutTornTail(file)
    let declared: { shard?: Shard }[] = []
    if (existsSync(cellsFile)) {
      cut += cutTornTail(cellsFile)
      declared = readCells(cellsFile).cells.map((c) => c.start)
    }
    const shards = new Set(declared.map((s) => (s.shard ? `${s.shard.index}/${s.shard.count}` : 'none')))
    const now = shard ? `${shard.index}/${shard.count}` : 'none'
    if (shards.size > 0 && !shards.has(now)) {
      const was = [...shards][0]!
      throw new ResumeRefusedError(
        `cannot resume ${runDir} ${shard ? `as shard ${now}` : 'unsharded'}: it ran ${was === 'none' ? 'unsharded' : `as shard ${was}`}. Resume it ${was === 'none' ? 'without SEQK_SHARD' : `with SEQK_SHARD=${was}`}.`,
      )
    }
    const { trajectories } = readTrajectories(file, { view: summaryView })
    return {
      runId: recordedRunId(
        runDir,
        trajectories.map((t) => t.runId),
      ),
      bytes: statSync(file).size,
      cut,
      onFile: trajectories.length,
      errored: trajectories.filter((t) => t.status === 'error').length,
    }
  } catch (error) {
    if (error instanceof ResumeRefusedError) throw error
    throw new ResumeRefusedError(`cannot resume ${runDir}: ${(error as Error).message}`)
  }
}

/** The id the run was written under: run.json's, else the most common on its trajectories, else the directory's name. */
function recordedRunId(runDir: string, onFile: readonly string[]): string {
  try {
    const recorded = (JSON.parse(readFileSync(join(runDir, RUN_FILE), 'utf8')) as { runId?: unknown }).runId
    if (typeof recorded === 'string' && recorded !== '') return recorded
  } catch {
    // No run.json (or an unreadable one): the trajectories say.
  }
  const counts = new Map<string, number>()
  for (const id of onFile) counts.set(id, (counts.get(id) ?? 0) + 1)
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? basename(runDir)
}
