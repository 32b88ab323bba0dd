// Scale of `seqk merge` (issue 16, item 7): 4 task shards of a 10 000-trajectory run (2 cells ×
// 1250 tasks × 4 repeats, K = 5, every trajectory failing to its last attempt: 50 000 attempts),
// merged and every cell recomputed (`--no-report`: the report is the one output that needs every
// answer). Each procedure runs in a process of its own (tsx, the same interpreter), measured for
// wall time and peak resident memory, with answers of 1 KiB and of 4 KiB per attempt:
//
// - parse: every line of every shard JSON.parse'd once, nothing kept (the floor of any merge);
// - whole: every trajectory read and held whole (what a merge that does not stream would hold);
// - merge: `seqk merge … --no-report --no-history`.
//
// Streaming, the merge's memory should not grow with what the attempts wrote (4 KiB vs 1 KiB).
//
//   npx vitest bench --run --project integration test/merge-scale.bench.ts
import { execFileSync } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, bench, describe } from 'vitest'
import { appendCellRecord, type CellStartRecord } from '../src/artifacts/cells-file.js'
import type { Trajectory } from '../src/core/schemas.js'
import { simulatedActor } from '../src/models/simulated.js'
import { cellProtocol, runCell } from '../src/protocol/cell.js'
import { benchmarkHashes, protocolFingerprint } from '../src/protocol/fingerprint.js'
import { shardOfTask } from '../src/protocol/shard.js'
import { cellSpec } from '../src/protocol/test-helpers.js'
import type { Task } from '../src/protocol/task.js'

const root = new URL('..', import.meta.url).pathname
const TASKS = 1250
const REPEATS = 4
const SHARDS = 4
const tmp = mkdtempSync(join(tmpdir(), 'seqk-merge-scale-'))
const results: { answerKiB: number; procedure: string; ms: number; maxRssMb: number }[] = []

/** Writes the 4 shards of the run with answers of `answerKiB` KiB, and returns their directories. */
async function writeShards(answerKiB: number): Promise<string[]> {
  const tasks: Task[] = Array.from({ length: TASKS }, (_, i) => ({
    id: `task-${i}`,
    prompt: `#${i}`,
    simulation: { difficulty: 1, correct: ['CORRECT'], wrong: ['WRONG'] },
  }))
  const dirs = Array.from({ length: SHARDS }, (_, i) => join(tmp, `kib-${answerKiB}`, `shard-${i + 1}`))
  for (const d of dirs) mkdirSync(d, { recursive: true })
  const padding = 'x'.repeat(answerKiB * 1024)
  for (const actor of [simulatedActor({ profile: 'stubborn' }), simulatedActor({ profile: 'memoryless' })]) {
    const spec = cellSpec(tasks.slice(0, 1), actor, { budget: 5, repeats: 1, errors: 'censored' })
    const [template] = (await runCell(spec)).trajectories
    const hashes = benchmarkHashes(tasks)
    const protocol = cellProtocol({ ...spec, tasks }, hashes.benchmark)
    const fingerprint = protocolFingerprint(protocol)
    for (let s = 1; s <= SHARDS; s++) {
      const dir = dirs[s - 1]!
      const runId = `shard-${s}`
      const start: CellStartRecord = {
        schema: 'seqk.cell/1',
        type: 'start',
        runId,
        benchmark: spec.benchmark,
        cellId: spec.cellId,
        actorId: actor.id,
        mode: 'binary',
        protocol,
        fingerprint,
        taskIds: tasks.map((t) => t.id),
        taskHashes: hashes.tasks,
        repeats: REPEATS,
        thresholds: {},
        errors: 'censored',
        file: 'scale.eval.ts',
        baseline: null,
        shard: { index: s, count: SHARDS },
      }
      appendCellRecord(join(dir, 'cells.jsonl'), start)
      let chunk = ''
      for (const task of tasks) {
        if (shardOfTask(task.id, SHARDS) !== s) continue
        for (let repeat = 0; repeat < REPEATS; repeat++) {
          const t: Trajectory = {
            ...template!,
            runId,
            fingerprint,
            protocol,
            taskId: task.id,
            repeat,
            attempts: template!.attempts.map((a) => ({ ...a, answer: `${a.answer} ${padding}` })),
          }
          chunk += `${JSON.stringify(t)}\n`
        }
      }
      appendFileSync(join(dir, 'trajectories.jsonl'), chunk)
      appendCellRecord(join(dir, 'cells.jsonl'), {
        schema: 'seqk.cell/1',
        type: 'end',
        runId,
        benchmark: spec.benchmark,
        cellId: spec.cellId,
        durationMs: 1,
      })
    }
  }
  return dirs
}

function measure(procedure: string, answerKiB: number, dirs: string[]): void {
  const out = join(tmp, `kib-${answerKiB}`, `merged-${procedure}`)
  const line = execFileSync(
    process.execPath,
    [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'test/merge-scale-child.ts'), procedure, out, ...dirs],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  )
  results.push({
    answerKiB,
    procedure,
    ...(JSON.parse(line.trim().split('\n').pop()!) as { ms: number; maxRssMb: number }),
  })
}

const ONCE = { iterations: 1, time: 0, warmupIterations: 0, warmupTime: 0 }

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true })
  if (results.length === 0) return
  const floor = (kib: number) => results.find((r) => r.procedure === 'parse' && r.answerKiB === kib)!
  const lines = [
    `seqk merge, 4 shards of ${TASKS * REPEATS * 2} trajectories (${TASKS * REPEATS * 2 * 5} attempts), each procedure in its own process:`,
  ]
  lines.push(
    `  ${'answer'.padEnd(8)} ${'procedure'.padEnd(10)} ${'wall'.padStart(9)} ${'vs parse'.padStart(9)} ${'peak RSS'.padStart(10)}`,
  )
  for (const r of results)
    lines.push(
      `  ${`${r.answerKiB} KiB`.padEnd(8)} ${r.procedure.padEnd(10)} ${`${(r.ms / 1000).toFixed(2)} s`.padStart(9)} ${`${(r.ms / floor(r.answerKiB).ms).toFixed(2)}x`.padStart(9)} ${`${r.maxRssMb.toFixed(0)} MB`.padStart(10)}`,
    )
  console.log(lines.join('\n'))
})

describe('seqk merge at scale', () => {
  bench(
    'parse, hold whole, merge: 1 KiB and 4 KiB answers (figures printed after the run)',
    async () => {
      for (const answerKiB of [1, 4]) {
        const dirs = await writeShards(answerKiB)
        for (const procedure of ['parse', 'whole', 'merge']) measure(procedure, answerKiB, dirs)
      }
    },
    ONCE,
  )
})
