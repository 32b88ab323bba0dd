import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { simulatedActor } from '../models/simulated.js'
import { runCell } from '../protocol/cell.js'
import { cellSpec, saysCorrect } from '../protocol/test-helpers.js'
import type { Task } from '../protocol/task.js'
import { appendCellRecord, type CellStartRecord } from './cells-file.js'
import { prepareResume } from './resume-dir.js'
import { appendTrajectory } from './trajectories-file.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-resume-dir-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const tasks: Task[] = Array.from({ length: 3 }, (_, i) => ({
  id: `t${i}`,
  prompt: `#${i}`,
  simulation: { difficulty: 0.5, correct: ['CORRECT'], wrong: ['WRONG'] },
}))

async function runDir(
  name: string,
  runId: string,
  options: { runJson?: boolean; shard?: { index: number; count: number } } = {},
): Promise<string> {
  const d = join(dir, name)
  mkdirSync(d, { recursive: true })
  const spec = cellSpec(tasks, simulatedActor({ profile: 'reviser' }), { verifier: saysCorrect, runId })
  const { trajectories } = await runCell(spec)
  for (const t of trajectories) appendTrajectory(join(d, 'trajectories.jsonl'), t)
  const t = trajectories[0]!
  const start: CellStartRecord = {
    schema: 'seqk.cell/1',
    type: 'start',
    runId,
    benchmark: spec.benchmark,
    cellId: spec.cellId,
    actorId: spec.actor.id,
    mode: 'binary',
    protocol: t.protocol,
    fingerprint: t.fingerprint,
    taskIds: tasks.map((x) => x.id),
    taskHashes: {},
    repeats: 1,
    thresholds: {},
    errors: 'left-out',
    file: 'x.eval.ts',
    baseline: null,
    ...(options.shard ? { shard: options.shard } : {}),
  }
  appendCellRecord(join(d, 'cells.jsonl'), start)
  if (options.runJson)
    writeFileSync(join(d, 'run.json'), JSON.stringify({ schema: 'seqk.run/1', runId, argv: ['run'], cwd: dir }))
  return d
}

describe('prepareResume', () => {
  it("keeps the run's own id when the directory was renamed or copied: run.json's, else its trajectories'", async () => {
    expect(prepareResume(await runDir('copied', 'nightly/n1', { runJson: true }), null).runId).toBe('nightly/n1')
    expect(prepareResume(await runDir('renamed', '20261201-000000-aaaaaa'), null).runId).toBe('20261201-000000-aaaaaa')
  })

  it('cuts the torn last lines of trajectories.jsonl and cells.jsonl before anything appends', async () => {
    const d = await runDir('torn', 'r-torn')
    const cells = readFileSync(join(d, 'cells.jsonl'), 'utf8')
    appendFileSync(join(d, 'cells.jsonl'), '{"schema":"seqk.cell/1","type":"en')
    appendFileSync(join(d, 'trajectories.jsonl'), '{"schema":"seqk.traj')
    const start = prepareResume(d, null)
    expect(start.cut).toBe(34 + 20)
    expect(readFileSync(join(d, 'cells.jsonl'), 'utf8')).toBe(cells)
  })

  it('refuses a resume whose SEQK_SHARD differs from the run, saying how to resume it', async () => {
    const sharded = await runDir('shard', 'r-shard', { shard: { index: 2, count: 3 } })
    expect(() => prepareResume(sharded, null)).toThrow(
      `cannot resume ${sharded} unsharded: it ran as shard 2/3. Resume it with SEQK_SHARD=2/3.`,
    )
    expect(() => prepareResume(sharded, { index: 1, count: 3 })).toThrow('as shard 1/3: it ran as shard 2/3')
    expect(prepareResume(sharded, { index: 2, count: 3 }).onFile).toBe(3)
    const whole = await runDir('whole', 'r-whole')
    expect(() => prepareResume(whole, { index: 1, count: 2 })).toThrow(
      'it ran unsharded. Resume it without SEQK_SHARD.',
    )
  })

  it('refuses a directory with nothing to resume', () => {
    mkdirSync(join(dir, 'empty'))
    expect(() => prepareResume(join(dir, 'empty'), null)).toThrow(
      /nothing to resume in .*empty: it has no trajectories.jsonl/,
    )
  })
})
