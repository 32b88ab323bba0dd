// Task-level sharding: one eval file run as 4 shards (SEQK_SHARD=i/4) and
// merged with `seqk merge` gives the summary, baseline verdicts and tables of the unsharded run;
// an incomplete set of shards or shards of different protocols are refused, naming what is wrong.
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  cleanEnv,
  fixtureProject,
  limiter,
  runNode,
  SAYS_CORRECT_SOURCE,
  SEQK,
  unwrapped,
  VITEST,
} from './fixture-project.js'
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
/** The runs after the shards write their own history, so the shards' absence from history.jsonl is what it shows. */
const LATER = { SEQK_HISTORY_FILE: join(dir, 'history-later.jsonl') }

/** A run's summary without what differs between any two runs: ids, dates, wall times. */
function comparable(summary: RunSummary) {
  return JSON.parse(
    JSON.stringify(summary, (key, value) =>
      key === 'runId' || key === 'createdAt' || key === 'durationMs' ? undefined : value,
    ),
  )
}

type Ran = Awaited<ReturnType<typeof run>>
let whole: RunSummary
let shards: Ran[]
let merged: { merge: Ran; again: Ran }
let taskBlobs: { shards: Ran[]; merged: Ran; again: Ran }
let resumed: Ran
let incomplete: Ran
let mixed: { other: Ran; merge: Ran }
let fileShards: { blobs: Ran[]; seen: Ran; merged: Ran }

beforeAll(async () => {
  // The first unsharded run writes the baseline; the second is gated by it, as the merge will be.
  expect((await vitest({ SEQK_RUN_DIR: join(dir, 'first') })).status).toBe(0)
  const second = await vitest({ SEQK_RUN_DIR: join(dir, 'whole') })
  expect(second.status, second.out).toBe(0)
  whole = readSummary(join(dir, 'whole', 'summary.json'))
  cpSync(join(dir, 'whole'), join(dir, 'whole-copy'), { recursive: true })
  rmSync(join(dir, 'whole-copy', 'summary.json'))

  // Every other child run of this file starts here, side by side (each chain waits only for what
  // it reads), at most 4 at once; the tests below check what each chain left. The hook's time is
  // what the runs had when each test ran its own (300 s before, 420 s in the tests).
  const slot = limiter(4)
  const later = (args: string[], env: Record<string, string> = {}) => slot(() => run(args, { ...LATER, ...env }))
  const shardsDone = Promise.all(
    [1, 2, 3, 4].map((i) => slot(() => vitest({ SEQK_RUN_DIR: join(dir, `shard-${i}`), SEQK_SHARD: `${i}/4` }))),
  )
  const otherDone = later([VITEST, 'run'], {
    SEQK_RUN_DIR: join(dir, 'shard-3-other'),
    SEQK_SHARD: '3/4',
    SEQK_TEST_BUDGET: '5',
  })
  const chains = await Promise.all([
    (async () => {
      await shardsDone
      const merge = await later([...SEQK, 'merge', 'shard-1', 'shard-2', 'shard-3', 'shard-4', '--out', 'merged'])
      return { merge, again: await later([...SEQK, 'summarize', 'merged', '--out', 'again.json']) }
    })(),
    (async () => {
      const blobShards = await Promise.all(
        [1, 2, 3, 4].map((i) =>
          later([VITEST, 'run', '--reporter=blob', `--outputFile=${join(dir, 'task-blobs', `blob-${i}.json`)}`], {
            SEQK_RUN_DIR: join(dir, `task-blob-${i}`),
            SEQK_SHARD: `${i}/4`,
          }),
        ),
      )
      const blobMerged = await later([VITEST, 'run', `--merge-reports=${join(dir, 'task-blobs')}`], {
        SEQK_RUN_DIR: join(dir, 'blob-merged'),
      })
      const again = await later([...SEQK, 'summarize', 'blob-merged', '--out', 'blob-again.json'])
      return { shards: blobShards, merged: blobMerged, again }
    })(),
    shardsDone.then(() => later([...SEQK, 'merge', 'shard-1', 'shard-2', 'shard-4', '--out', 'incomplete'])),
    (async () => {
      const [, other] = await Promise.all([shardsDone, otherDone])
      return {
        other,
        merge: await later([...SEQK, 'merge', 'shard-1', 'shard-2', 'shard-3-other', 'shard-4', '--out', 'mixed']),
      }
    })(),
    (async () => {
      const blobs = await Promise.all(
        [1, 2].map((i) =>
          later(
            [
              VITEST,
              'run',
              `--shard=${i}/2`,
              '--reporter=blob',
              `--outputFile=${join(dir, 'blobs', `blob-${i}.json`)}`,
            ],
            {
              SEQK_RUN_DIR: join(dir, `file-shard-${i}`),
            },
          ),
        ),
      )
      const seen = await later([VITEST, 'run', '--shard=2/2'], { SEQK_RUN_DIR: join(dir, 'file-shard-seen') })
      const fileMerged = await later([VITEST, 'run', `--merge-reports=${join(dir, 'blobs')}`], {
        SEQK_RUN_DIR: join(dir, 'file-shard-merged'),
      })
      return { blobs, seen, merged: fileMerged }
    })(),
  ])
  shards = await shardsDone
  ;[merged, taskBlobs, incomplete, mixed, fileShards] = chains
  // The resume alone, after the rest, as it ran when its test ran it: next to four other runs on a
  // loaded 2-core machine its child outlived its 90 s (Vitest's worker did not stop in time).
  resumed = await later([...SEQK, 'resume', 'whole-copy', '--', 'run', '-t', 'reviser · binary'])
  for (const [index, shard] of shards.entries()) {
    const i = index + 1
    expect(shard.status, shard.out).toBe(0)
    // The table says whose share it shows instead of a verdict it cannot give.
    expect(shard.out).toMatch(new RegExp(`simulated:reviser · binary .* shard ${i}/4`))
  }
}, 720_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('SEQK_SHARD and seqk merge', () => {
  it('each shard runs its share of every cell: every task in exactly one shard', () => {
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

  it('merged, the 4 shards give the unsharded run: summary.json, baseline verdicts and tables', () => {
    const r = merged.merge
    expect(r.status, r.out).toBe(0)
    expect(r.out).toMatch(
      /seqk merge: 4 shard directories, 480 trajectories · 6 cells · all passed; wrote summary.json, trajectories.jsonl, cells.jsonl, disclosure.json, pr-comment.md, report.html to /,
    )
    const summary = readSummary(join(dir, 'merged', 'summary.json'))
    expect(comparable(summary)).toEqual(comparable(whole))
    expect(summary.benchmarks[0]!.cells.every((c) => c.gate?.status === 'pass')).toBe(true)
    expect(r.out).toContain('shard fixture — K=4, 40 tasks × 2 repeats')
    expect(existsSync(join(dir, 'merged', 'report.html'))).toBe(true)
    expect(readFileSync(join(dir, 'merged', 'pr-comment.md'), 'utf8')).toMatch(/^## ✅/)
    // The merged directory is a run like any other: it recomputes to the same summary.
    expect(merged.again.status, merged.again.out).toBe(0)
    expect(comparable(readSummary(join(dir, 'again.json')))).toEqual(comparable(summary))
  })

  it("vitest --merge-reports over the 4 task shards' blobs gives the unsharded run too", () => {
    for (const r of taskBlobs.shards) expect(r.status, r.out).toBe(0)
    expect(taskBlobs.merged.status, taskBlobs.merged.out).toBe(0)
    expect(taskBlobs.merged.out).toContain(
      "seqk: joined 4 task shards into 6 cells, each recomputed from the union of its shards' trajectories",
    )
    expect(taskBlobs.merged.out).toContain('shard fixture — K=4, 40 tasks × 2 repeats')
    expect(comparable(readSummary(join(dir, 'blob-merged', 'summary.json')))).toEqual(comparable(whole))
    // Like any run directory, it recomputes to its own summary.
    expect(taskBlobs.again.status, taskBlobs.again.out).toBe(0)
    expect(comparable(readSummary(join(dir, 'blob-again.json')))).toEqual(comparable(whole))
  })

  it('a resume of a copied run directory with a -t filter keeps the run id and still writes every cell', () => {
    expect(resumed.status, resumed.out).toBe(0)
    expect(resumed.out).toContain('seqk: 5 cells of the run did not run in this resume; recomputed from')
    expect(resumed.out).toMatch(/seqk: resumed: kept 80 trajectories that had ended, ran 0/)
    const summary = readSummary(join(dir, 'whole-copy', 'summary.json'))
    expect(summary.runId).toBe('whole')
    expect(comparable(summary)).toEqual(comparable(whole))
  })

  it('refuses an incomplete set of shards, naming the missing one', () => {
    expect(incomplete.status).toBe(1)
    expect(incomplete.out).toMatch(
      /seqk merge: cell "simulated:reviser · binary" of "shard fixture": shard 3\/4 missing \(have 1\/4 in .*shard-1, 2\/4 in .*shard-2, 4\/4 in .*shard-4\); merge every shard of the run/,
    )
    expect(existsSync(join(dir, 'incomplete'))).toBe(false)
  })

  it('refuses shards of different protocols, naming the field', () => {
    expect(mixed.other.status).toBe(0)
    expect(mixed.merge.status).toBe(1)
    expect(mixed.merge.out).toMatch(/ran under different protocols in .*shard-1 and .*shard-3-other \(budget: 4 → 5\)/)
  })

  it("Vitest's file --shard with more shards than eval files points to SEQK_SHARD, on the shard and after --merge-reports", () => {
    for (const r of fileShards.blobs) expect(r.status).toBe(1)
    expect(fileShards.seen.status).toBe(1)
    expect(unwrapped(fileShards.seen.out)).toContain(
      "seqk: Vitest's --shard=2/2 splits the run by file, and it has 1 eval file for 2 shards, so Vitest stopped before any test ran. To spread an eval file's tasks over 2 machines, use task-level shards instead: run every file on each machine with SEQK_SHARD=i/2 (i = 1..2)",
    )
    expect(fileShards.merged.status).toBe(1)
    expect(unwrapped(fileShards.merged.out)).toMatch(
      /seqk: 2 of the merged blobs carry errors without a message .*more shards than eval files.*SEQK_SHARD=i\/N/,
    )
  })
})
