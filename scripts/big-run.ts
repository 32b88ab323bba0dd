// A big run directory for measuring the live view and the report at scale: 4 cells (2 simulated
// actors × binary and verifier feedback) × TASKS tasks × REPEATS repeats, K = 5, run by the real
// cell loop and written as a run writes it (plan.jsonl, cells.jsonl, trajectories.jsonl), then
// summary.json and report.html through the reporter's own emitters.
//
//   npx tsx scripts/big-run.ts /tmp/big-run [tasks=5000] [repeats=5]
//
// 5000 × 5 × 4 = 100 000 trajectories (the figure docs/performance.md quotes).
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { appendCellRecord, CELLS_FILE, readCells, type CellStartRecord } from '../src/artifacts/cells-file.js'
import { appendPlanRecord, PLAN_FILE } from '../src/artifacts/plan-file.js'
import { recomputeRun } from '../src/artifacts/recompute.js'
import { TRAJECTORIES_FILE } from '../src/artifacts/run-dir.js'
import { readTrajectories } from '../src/artifacts/trajectories-file.js'
import { verifierFeedback } from '../src/feedback/verifier-feedback.js'
import { simulatedActor } from '../src/models/simulated.js'
import { cellProtocol, runCell } from '../src/protocol/cell.js'
import { benchmarkHashes, protocolFingerprint } from '../src/protocol/fingerprint.js'
import { runVerdict, verdictBlock } from '../src/protocol/verdict.js'
import { cellSpec, saysCorrect } from '../src/protocol/test-helpers.js'
import type { Task } from '../src/protocol/task.js'
import { emitRun, runEmitters } from '../src/report/emitters.js'

const [dir = '/tmp/big-run', tasksArg = '5000', repeatsArg = '5'] = process.argv.slice(2)
const TASKS = Number(tasksArg)
const REPEATS = Number(repeatsArg)
const runId = 'big-run'
const benchmark = 'big benchmark'
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
const started = performance.now()
const tasks: Task[] = Array.from({ length: TASKS }, (_, i) => ({
  id: `task-${i}`,
  prompt: `Say CORRECT. #${i}`,
  simulation: { difficulty: (i % 10) / 10, correct: ['CORRECT'], wrong: ['WRONG A', 'WRONG B'] },
}))
const specs = ['reviser', 'stubborn'].flatMap((profile) => {
  const actor = simulatedActor({ profile: profile as 'reviser' })
  return [
    cellSpec(tasks, actor, {
      runId,
      benchmark,
      cellId: `${actor.id} · binary`,
      verifier: saysCorrect,
      budget: 5,
      repeats: REPEATS,
      concurrency: 64,
      thresholds: { seqAt: { 5: 0.2 } },
      errors: 'censored',
    }),
    cellSpec(tasks, actor, {
      runId,
      benchmark,
      cellId: `${actor.id} · verifier`,
      verifier: saysCorrect,
      mode: { name: 'verifier', feedback: verifierFeedback() },
      budget: 5,
      repeats: REPEATS,
      concurrency: 64,
      thresholds: {},
      errors: 'censored',
    }),
  ]
})
appendPlanRecord(join(dir, PLAN_FILE), { schema: 'seqk.plan/1', runId, type: 'files', files: ['big.eval.ts'] })
appendPlanRecord(join(dir, PLAN_FILE), {
  schema: 'seqk.plan/1',
  runId,
  type: 'file',
  file: 'big.eval.ts',
  cells: specs.map((s) => ({ benchmark, cellId: s.cellId, trajectories: TASKS * REPEATS })),
})
writeFileSync(join(dir, TRAJECTORIES_FILE), '')
for (const spec of specs) {
  const hashes = benchmarkHashes(tasks)
  const protocol = cellProtocol(spec, hashes.benchmark)
  const start: CellStartRecord = {
    schema: 'seqk.cell/1',
    type: 'start',
    runId,
    benchmark,
    cellId: spec.cellId,
    actorId: spec.actor.id,
    mode: spec.mode?.name ?? 'independent',
    protocol,
    fingerprint: protocolFingerprint(protocol),
    taskIds: tasks.map((t) => t.id),
    taskHashes: hashes.tasks,
    repeats: REPEATS,
    thresholds: spec.thresholds,
    errors: 'censored',
    file: 'big.eval.ts',
    baseline: null,
  }
  appendCellRecord(join(dir, CELLS_FILE), start)
  let chunk = ''
  const result = await runCell({
    ...spec,
    onTrajectory: (t) => {
      chunk += `${JSON.stringify(t)}\n`
      if (chunk.length > 1 << 22) {
        appendFileSync(join(dir, TRAJECTORIES_FILE), chunk)
        chunk = ''
      }
    },
  })
  appendFileSync(join(dir, TRAJECTORIES_FILE), chunk)
  appendCellRecord(join(dir, CELLS_FILE), {
    schema: 'seqk.cell/1',
    type: 'end',
    runId,
    benchmark,
    cellId: spec.cellId,
    durationMs: result.summary.durationMs,
  })
}
const ran = performance.now()
const { trajectories } = readTrajectories(join(dir, TRAJECTORIES_FILE))
const recomputed = recomputeRun({
  runId,
  createdAt: new Date().toISOString(),
  cells: readCells(join(dir, CELLS_FILE)).cells,
  trajectories,
})
const summary = { ...recomputed, verdict: verdictBlock(runVerdict(recomputed)) }
const emitted = performance.now()
const { written, failures } = await emitRun(runEmitters({ html: true }), {
  summary,
  runDir: dir,
  root: dir,
  trajectories: () => trajectories,
  color: false,
  print: () => {},
  env: {},
})
if (failures.length > 0) throw new Error(failures.map((f) => f.message).join('\n'))
const done = performance.now()
process.stdout.write(
  `${JSON.stringify({ dir, trajectories: trajectories.length, runMs: Math.round(ran - started), readMs: Math.round(emitted - ran), emitMs: Math.round(done - emitted), written })}\n`,
)
