import type { Trajectory } from '../core/schemas.js'
import type { CellEndRecord, CellStartRecord } from './cells-file.js'
import { protocolChangeLines } from '../protocol/resume.js'
import { shardOfTask } from '../protocol/shard.js'
import { canonicalJson } from '../core/fingerprint.js'

/** One shard's run directory, read. */
export interface ShardRun {
  dir: string
  cells: readonly { start: CellStartRecord; end: CellEndRecord | undefined }[]
  trajectories: readonly Trajectory[]
}

/** Shards that do not make one run; the message names the cell, the shards and what is missing or different. */
export class MergeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MergeError'
  }
}

/**
 * Joins the shards of one run (`SEQK_SHARD=i/N` on N machines) into one: per cell, every shard
 * 1..N present exactly once under one protocol, each trajectory in the shard its task hashes to,
 * none twice. The merged cells are the cells as declared (all their tasks), with the trajectories
 * renamed into `runId`; a cell is finished when every shard of it was. Refuses, naming what is
 * wrong, anything that would not be the run a single machine would have made.
 *
 * @example
 * const merged = mergeShards([shard1, shard2, shard3, shard4], 'merged-run')
 * const summary = recomputeRun({ runId: 'merged-run', createdAt, ...merged })
 */
export function mergeShards(
  runs: readonly ShardRun[],
  runId: string,
): { cells: { start: CellStartRecord; end: CellEndRecord | undefined }[]; trajectories: Trajectory[] } {
  if (runs.length === 0) throw new MergeError('no run directories to merge')
  const groups = new Map<string, { run: ShardRun; start: CellStartRecord; end: CellEndRecord | undefined }[]>()
  for (const run of runs) {
    for (const cell of run.cells) {
      const key = `${cell.start.benchmark}\u0000${cell.start.cellId}`
      if (!groups.has(key)) groups.set(key, [])
      groups.get(key)!.push({ run, ...cell })
    }
  }
  if (groups.size === 0)
    throw new MergeError(`no cells to merge: ${runs.map((r) => r.dir).join(', ')} declare none (cells.jsonl is empty)`)
  const cells: { start: CellStartRecord; end: CellEndRecord | undefined }[] = []
  const trajectories: Trajectory[] = []
  for (const parts of groups.values()) {
    const first = parts[0]!
    const name = `"${first.start.cellId}" of "${first.start.benchmark}"`
    const count = first.start.shard?.count ?? 1
    for (const part of parts.slice(1)) {
      if (part.start.fingerprint !== first.start.fingerprint) {
        throw new MergeError(
          `cell ${name} ran under different protocols in ${first.run.dir} and ${part.run.dir} (${protocolChangeLines(first.start.protocol, part.start.protocol).join('; ') || 'fingerprints differ'}): shards of one run share one protocol`,
        )
      }
      const changed = declarationChanges(first.start, part.start)
      if (changed.length > 0)
        throw new MergeError(
          `cell ${name} was declared differently in ${first.run.dir} and ${part.run.dir} (${changed.join('; ')}): shards of one run run the same eval`,
        )
      if ((part.start.shard?.count ?? 1) !== count)
        throw new MergeError(
          `cell ${name} was split ${count} ways in ${first.run.dir} and ${part.start.shard?.count ?? 1} in ${part.run.dir}: every shard of one run uses the same SEQK_SHARD count`,
        )
    }
    const byIndex = new Map<number, (typeof parts)[number]>()
    for (const part of parts) {
      const index = part.start.shard?.index ?? 1
      const other = byIndex.get(index)
      if (other)
        throw new MergeError(
          `cell ${name}: shard ${index}/${count} is in both ${other.run.dir} and ${part.run.dir}; give each shard once`,
        )
      byIndex.set(index, part)
    }
    const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i))
    if (missing.length > 0) {
      // A shard given whose directory never started this cell (its machine failed before) is not a missing argument.
      const silent = missing.flatMap((i) =>
        runs
          .filter((r) => r.cells.some((c) => c.start.shard?.index === i && c.start.shard.count === count))
          .map(
            (r) =>
              `shard ${i}/${count} in ${r.dir} never started this cell (see that machine's log; resume it there with SEQK_SHARD=${i}/${count})`,
          ),
      )
      if (silent.length > 0) throw new MergeError(`cell ${name}: ${silent.join('; ')}`)
      const have = [...byIndex.entries()].sort(([a], [b]) => a - b).map(([i, p]) => `${i}/${count} in ${p.run.dir}`)
      throw new MergeError(
        `cell ${name}: ${missing.length === 1 ? 'shard' : 'shards'} ${missing.map((i) => `${i}/${count}`).join(', ')} missing (have ${have.join(', ')}); merge every shard of the run`,
      )
    }
    const seen = new Set<string>()
    for (const part of parts) {
      const index = part.start.shard?.index ?? 1
      for (const t of part.run.trajectories) {
        if (
          t.runId !== part.start.runId ||
          t.benchmark !== part.start.benchmark ||
          t.cellId !== part.start.cellId ||
          t.fingerprint !== part.start.fingerprint
        )
          continue
        if (count > 1 && shardOfTask(t.taskId, count) !== index)
          throw new MergeError(
            `${part.run.dir}: a trajectory of cell ${name} for task ${t.taskId} is in shard ${index}/${count}, but that task belongs to shard ${shardOfTask(t.taskId, count)}/${count}`,
          )
        const key = `${t.taskId}\u0000${t.repeat}`
        if (seen.has(key))
          throw new MergeError(`cell ${name}: task ${t.taskId}, repeat ${t.repeat} is in more than one shard`)
        seen.add(key)
        trajectories.push({ ...t, runId })
      }
    }
    const ends = parts.map((p) => p.end)
    const { shard: _shard, ...declared } = first.start
    const end = ends.every((e): e is CellEndRecord => e !== undefined)
      ? { ...ends[0]!, runId, durationMs: Math.max(...ends.map((e) => e.durationMs)) }
      : undefined
    cells.push({ start: { ...declared, runId }, end })
  }
  return { cells, trajectories }
}

/** The fields two shards' declarations of one cell differ in, besides the run id and the shard: `field: a → b`. */
function declarationChanges(a: CellStartRecord, b: CellStartRecord): string[] {
  const fields = [
    'actorId',
    'mode',
    'taskIds',
    'taskHashes',
    'repeats',
    'thresholds',
    'errors',
    'file',
    'baseline',
    'knownUnstable',
  ] as const
  return fields
    .filter((f) => canonicalJson(a[f]) !== canonicalJson(b[f]))
    .map((f) => `${f}: ${short(a[f])} → ${short(b[f])}`)
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined'
  return text.length > 80 ? `${text.slice(0, 77)}…` : text
}
