// Task-level sharding: one eval file run as 4 shards (SEQK_SHARD=i/4) and
// merged with `seqk merge` gives the summary, baseline verdicts and tables of the unsharded run;
// an incomplete set of shards or shards of different protocols are refused, naming what is wrong.
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanEnv, fixtureProject, runNode, SAYS_CORRECT_SOURCE, SEQK, unwrapped, VITEST } from './fixture-project.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSummary, readTrajectories, type RunSummary } from '../src/artifacts/index.js'

const dir = fixtureProject('seqk-shard-')
writeFileSync(
  join(dir, 'shard.eval.ts'),
  `import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
${SAYS_CORRECT_SOURCE}
const tasks = Array.from({ length: 40 }, (_, i) => ({ id: 'task-' + i, prompt: 'Say CORRECT #' + i, simulation: { difficulty: (i % 10) / 10, correct: ['CORRECT'], wrong: ['WRONG'] } }))
seqEval('shard fixture', {
  tasks,
  actors: [actors.simulated({ profile: 'reviser' }), actors.simulated({ profile: 'stubborn' })],
  verifier,
  budget: Number(process.env.SEQK_TEST_BUDGET ?? 4),
  repeats: 2,
  independent: true,
  modes: { binary: { feedback: feedback.binary(), expect: { seqAt: { 4: 0.3 } } }, verifier: { feedback: feedback.verifier() } },
  baseline: true,
})
`,
)

async function run(args: string[], env: Record<string, string>) {
  const r = await runNode(args, {
    cwd: dir,
    env: cleanEnv({ SEQK_HISTORY_FILE: join(dir, 'history.jsonl'), ...env }),
    timeoutMs: 90_000,
  })
  // What it says, its wrapping at 120 columns undone.
  return { status: r.status, out: unwrapped(`${r.stdout}\n${r.stderr}`) }
}
const vitest = (env: Record<string, string>) => run([VITEST, 'run'], env)
const seqk = (args: string[], env: Record<string, string> = {}) => run([...SEQK, ...args], env)

/** A run's summary without what differs between any two runs: ids, dates, wall times. */
function comparable(summary: RunSummary) {
  return JSON.parse(
    JSON.stringify(summary, (key, value) =>
      key === 'runId' || key === 'createdAt' || key === 'durationMs' ? undefined : value,
    ),
  )
}

let whole: RunSummary
beforeAll(async () => {
  // The first unsharded run writes the baseline; the second is gated by it, as the merge will be.
  expect((await vitest({ SEQK_RUN_DIR: join(dir, 'first') })).status).toBe(0)
  const second = await vitest({ SEQK_RUN_DIR: join(dir, 'whole') })
  expect(second.status, second.out).toBe(0)
  whole = readSummary(join(dir, 'whole', 'summary.json'))
  // The shards are separate machines' worth of work: run them together.
  const shards = await Promise.all(
    [1, 2, 3, 4].map((i) => vitest({ SEQK_RUN_DIR: join(dir, `shard-${i}`), SEQK_SHARD: `${i}/4` })),
  )
  for (const [index, shard] of shards.entries()) {
    const i = index + 1
    expect(shard.status, shard.out).toBe(0)
    // The table says whose share it shows instead of a verdict it cannot give.
    expect(shard.out).toMatch(new RegExp(`simulated:reviser · binary .* shard ${i}/4`))
  }
}, 300_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('SEQK_SHARD and seqk merge', () => {
  it('each shard runs its share of every cell: every task in exactly one shard', async () => {
    const shares = [1, 2, 3, 4].map((i) => readTrajectories(join(dir, `shard-${i}`, 'trajectories.jsonl')).trajectories)
    const ids = shares.map((ts) => new Set(ts.map((t) => t.taskId)))
    for (const set of ids) expect(set.size).toBeGreaterThan(0)
    expect(ids.reduce((n, s) => n + s.size, 0)).toBe(40)
    expect(new Set(ids.flatMap((s) => [...s])).size).toBe(40)
    const cell = readSummary(join(dir, 'shard-1', 'summary.json')).benchmarks[0]!.cells[0]!
    expect(cell.shard).toEqual({ index: 1, count: 4 })
    expect(cell.thresholds).toEqual([])
    // Only the unsharded runs are in the history: a shard's partial numbers would bend the trend.
    const history = readFileSync(join(dir, 'history.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { runId: string })
    expect(new Set(history.map((e) => e.runId))).toEqual(new Set(['first', 'whole']))
  })

  it('merged, the 4 shards give the unsharded run: summary.json, baseline verdicts and tables', async () => {
    const r = await seqk(['merge', 'shard-1', 'shard-2', 'shard-3', 'shard-4', '--out', 'merged'])
    expect(r.status, r.out).toBe(0)
    expect(r.out).toMatch(
      /seqk merge: 4 shard directories, 480 trajectories · 6 cells · all passed; wrote summary.json, trajectories.jsonl, cells.jsonl, disclosure.json, pr-comment.md, report.html to /,
    )
    const merged = readSummary(join(dir, 'merged', 'summary.json'))
    expect(comparable(merged)).toEqual(comparable(whole))
    expect(merged.benchmarks[0]!.cells.every((c) => c.gate?.status === 'pass')).toBe(true)
    expect(r.out).toContain('shard fixture — K=4, 40 tasks × 2 repeats')
    expect(existsSync(join(dir, 'merged', 'report.html'))).toBe(true)
    // Every gate passed, but 40 tasks × 2 repeats cannot see a 10-point drop: headed ⚠️, never a bare ✅.
    expect(readFileSync(join(dir, 'merged', 'pr-comment.md'), 'utf8')).toMatch(/^## ⚠️ Seq@K run `merged`/)
    // The merged directory is a run like any other: it recomputes to the same summary.
    const again = await seqk(['summarize', 'merged', '--out', 'again.json'])
    expect(again.status, again.out).toBe(0)
    expect(comparable(readSummary(join(dir, 'again.json')))).toEqual(comparable(merged))
  }, 60_000)

  it("vitest --merge-reports over the 4 task shards' blobs gives the unsharded run too", async () => {
    const blobs = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        run([VITEST, 'run', '--reporter=blob', `--outputFile=${join(dir, 'task-blobs', `blob-${i}.json`)}`], {
          SEQK_RUN_DIR: join(dir, `task-blob-${i}`),
          SEQK_SHARD: `${i}/4`,
        }),
      ),
    )
    for (const r of blobs) expect(r.status, r.out).toBe(0)
    const merged = await run([VITEST, 'run', `--merge-reports=${join(dir, 'task-blobs')}`], {
      SEQK_RUN_DIR: join(dir, 'blob-merged'),
    })
    expect(merged.status, merged.out).toBe(0)
    expect(merged.out).toContain(
      "seqk: joined 4 task shards into 6 cells, each recomputed from the union of its shards' trajectories",
    )
    expect(merged.out).toContain('shard fixture — K=4, 40 tasks × 2 repeats')
    expect(comparable(readSummary(join(dir, 'blob-merged', 'summary.json')))).toEqual(comparable(whole))
    // Like any run directory, it recomputes to its own summary.
    const again = await seqk(['summarize', 'blob-merged', '--out', 'blob-again.json'])
    expect(again.status, again.out).toBe(0)
    expect(comparable(readSummary(join(dir, 'blob-again.json')))).toEqual(comparable(whole))
  }, 120_000)

  it('a resume of a copied run directory with a -t filter keeps the run id and still writes every cell', async () => {
    cpSync(join(dir, 'whole'), join(dir, 'whole-copy'), { recursive: true })
    rmSync(join(dir, 'whole-copy', 'summary.json'))
    const r = await seqk(['resume', 'whole-copy', '--', 'run', '-t', 'reviser · binary'])
    expect(r.status, r.out).toBe(0)
    expect(r.out).toContain('seqk: 5 cells of the run did not run in this resume; recomputed from')
    expect(r.out).toMatch(/seqk: resumed: kept 80 trajectories that had ended, ran 0/)
    const resumed = readSummary(join(dir, 'whole-copy', 'summary.json'))
    expect(resumed.runId).toBe('whole')
    expect(comparable(resumed)).toEqual(comparable(whole))
  }, 60_000)

  it('refuses an incomplete set of shards, naming the missing one', async () => {
    const r = await seqk(['merge', 'shard-1', 'shard-2', 'shard-4', '--out', 'incomplete'])
    expect(r.status).toBe(1)
    expect(r.out).toMatch(
      /seqk merge: cell "simulated:reviser · binary" of "shard fixture": shard 3\/4 missing \(have 1\/4 in .*shard-1, 2\/4 in .*shard-2, 4\/4 in .*shard-4\); merge every shard of the run/,
    )
    expect(existsSync(join(dir, 'incomplete'))).toBe(false)
  }, 60_000)

  it('refuses shards of different protocols, naming the field', async () => {
    expect(
      (await vitest({ SEQK_RUN_DIR: join(dir, 'shard-3-other'), SEQK_SHARD: '3/4', SEQK_TEST_BUDGET: '5' })).status,
    ).toBe(0)
    const r = await seqk(['merge', 'shard-1', 'shard-2', 'shard-3-other', 'shard-4', '--out', 'mixed'])
    expect(r.status).toBe(1)
    expect(r.out).toMatch(/ran under different protocols in .*shard-1 and .*shard-3-other \(budget: 4 → 5\)/)
  }, 60_000)

  it("Vitest's file --shard with more shards than eval files points to SEQK_SHARD, on the shard and after --merge-reports", async () => {
    for (const i of [1, 2]) {
      const r = await run(
        [VITEST, 'run', `--shard=${i}/2`, '--reporter=blob', `--outputFile=${join(dir, 'blobs', `blob-${i}.json`)}`],
        { SEQK_RUN_DIR: join(dir, `file-shard-${i}`) },
      )
      expect(r.status).toBe(1)
    }
    const shard = await run([VITEST, 'run', '--shard=2/2'], { SEQK_RUN_DIR: join(dir, 'file-shard-seen') })
    expect(shard.status).toBe(1)
    expect(unwrapped(shard.out)).toContain(
      "seqk: Vitest's --shard=2/2 splits the run by file, and it has 1 eval file for 2 shards, so Vitest stopped before any test ran. To spread an eval file's tasks over 2 machines, use task-level shards instead: run every file on each machine with SEQK_SHARD=i/2 (i = 1..2)",
    )
    const merged = await run([VITEST, 'run', `--merge-reports=${join(dir, 'blobs')}`], {
      SEQK_RUN_DIR: join(dir, 'file-shard-merged'),
    })
    expect(merged.status).toBe(1)
    expect(unwrapped(merged.out)).toMatch(
      /seqk: 2 of the merged blobs carry errors without a message .*more shards than eval files.*SEQK_SHARD=i\/N/,
    )
  }, 60_000)
})
