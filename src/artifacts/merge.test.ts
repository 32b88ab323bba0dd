import { describe, expect, it } from 'vitest'
import { simulatedActor } from '../models/simulated.js'
import { cellProtocol, runCell } from '../protocol/cell.js'
import { benchmarkHashes, protocolFingerprint } from '../protocol/fingerprint.js'
import { shardOfTask } from '../protocol/shard.js'
import { cellSpec, saysCorrect } from '../protocol/test-helpers.js'
import type { Task } from '../protocol/task.js'
import type { CellStartRecord } from './cells-file.js'
import { mergeShards, type ShardRun } from './merge.js'
import { recomputeCell, recomputeRun } from './recompute.js'

const tasks: Task[] = Array.from({ length: 12 }, (_, i) => ({
  id: `task-${i}`,
  prompt: `#${i}`,
  simulation: { difficulty: (i % 4) / 4, correct: ['CORRECT'], wrong: ['WRONG'] },
}))
const spec = cellSpec(tasks, simulatedActor({ profile: 'reviser' }), {
  verifier: saysCorrect,
  repeats: 2,
  budget: 3,
  errors: 'censored',
  thresholds: { seqAt: { 3: 0.2 } },
})

/** The cell run as `count` shards, one run directory (in memory) each. */
async function shards(
  count: number,
  tweak: (start: CellStartRecord, index: number) => CellStartRecord = (s) => s,
): Promise<{ runs: ShardRun[]; whole: Awaited<ReturnType<typeof runCell>> }> {
  const whole = await runCell(spec)
  const hashes = benchmarkHashes(tasks)
  const protocol = cellProtocol(spec, hashes.benchmark)
  const runs = Array.from({ length: count }, (_, i): ShardRun => {
    const index = i + 1
    const runId = `shard-${index}`
    const start: CellStartRecord = tweak(
      {
        schema: 'seqk.cell/1',
        type: 'start',
        runId,
        benchmark: spec.benchmark,
        cellId: spec.cellId,
        actorId: spec.actor.id,
        mode: 'binary',
        protocol,
        fingerprint: protocolFingerprint(protocol),
        taskIds: tasks.map((t) => t.id),
        taskHashes: hashes.tasks,
        repeats: 2,
        thresholds: { seqAt: { 3: 0.2 } },
        errors: 'censored',
        file: 'x.eval.ts',
        baseline: null,
        shard: { index, count },
      },
      index,
    )
    const mine = whole.trajectories.filter((t) => shardOfTask(t.taskId, count) === index).map((t) => ({ ...t, runId }))
    return {
      dir: `/runs/${runId}`,
      cells: [
        {
          start,
          end: {
            schema: 'seqk.cell/1',
            type: 'end',
            runId,
            benchmark: spec.benchmark,
            cellId: spec.cellId,
            durationMs: whole.summary.durationMs,
          },
        },
      ],
      trajectories: mine,
    }
  })
  return { runs, whole }
}

describe('mergeShards', () => {
  it('joins shards, an empty one included, into the unsharded cell', async () => {
    // 12 tasks over 20 shards: most shards have none of them.
    const { runs, whole } = await shards(20)
    expect(runs.some((r) => r.trajectories.length === 0)).toBe(true)
    const merged = mergeShards(runs, 'merged')
    const summary = recomputeRun({ runId: 'merged', createdAt: 'now', ...merged })
    expect(summary.benchmarks[0]!.cells[0]).toEqual({ ...whole.summary, runId: 'merged' })
  })

  it('refuses shards whose declarations differ beyond the protocol, naming the fields', async () => {
    const { runs } = await shards(3, (s, i) => (i === 2 ? { ...s, repeats: 1, thresholds: { seqAt: { 3: 0.9 } } } : s))
    expect(() => mergeShards(runs, 'merged')).toThrow(
      /cell "simulated:reviser · binary" of "test" was declared differently in \/runs\/shard-1 and \/runs\/shard-2 \(repeats: 2 → 1; thresholds: \{"seqAt":\{"3":0.2\}\} → \{"seqAt":\{"3":0.9\}\}\): shards of one run run the same eval/,
    )
  })
})

describe('mergeShards, a shard that never started a cell', () => {
  it('names the directory that has no record of the cell, rather than calling the shard missing', async () => {
    const { runs } = await shards(3)
    const other = { ...runs[1]!.cells[0]!.start, cellId: 'simulated:reviser · verifier' }
    // Shard 2 ran another cell only: its machine stopped before this one.
    const broken = [runs[0]!, { ...runs[1]!, cells: [{ start: other, end: undefined }], trajectories: [] }, runs[2]!]
    expect(() => mergeShards(broken, 'merged')).toThrow(
      'cell "simulated:reviser · binary" of "test": shard 2/3 in /runs/shard-2 never started this cell',
    )
  })
})

describe('recomputeCell of a shard', () => {
  it("gives the shard's own summary: its share of the tasks, thresholds waiting for the merge", async () => {
    const { runs } = await shards(3)
    const run = runs[1]!
    const cell = recomputeCell(run.cells[0]!.start, run.cells[0]!.end, run.trajectories)
    expect(cell.shard).toEqual({ index: 2, count: 3 })
    expect(cell.thresholds).toEqual([])
    expect(cell.verdict).toBe('shard')
    expect(cell.tasks).toBe(tasks.filter((t) => shardOfTask(t.id, 3) === 2).length)
  })
})
