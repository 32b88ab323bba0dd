// Batch engines shard a run by their own variables: a Kubernetes Indexed Job's JOB_COMPLETION_INDEX
// (with SEQK_SHARD_COUNT from the manifest), a Cloud Run job's CLOUD_RUN_TASK_INDEX/COUNT and an AWS
// Batch array job's AWS_BATCH_JOB_ARRAY_INDEX/SIZE. Three shards, one named by each engine's
// variables, merged with `seqk merge`, give the unsharded run; sources that disagree are refused
// naming both; and a cap over every shard, kept in a shared spend directory, holds across them.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSummary, readTrajectories, type RunSummary } from '../src/artifacts/index.js'
import { cleanEnv, fixtureProject, runNode, SAYS_CORRECT_SOURCE, SEQK, unwrapped, VITEST } from './fixture-project.js'

const CONCURRENCY = 2
const dir = fixtureProject('seqk-engines-')
writeFileSync(
  join(dir, 'engines.eval.ts'),
  `import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
${SAYS_CORRECT_SOURCE}
const tasks = Array.from({ length: 30 }, (_, i) => ({ id: 'task-' + i, prompt: 'Say CORRECT #' + i, simulation: { difficulty: (i % 10) / 10, correct: ['CORRECT'], wrong: ['WRONG'] } }))
seqEval('engines fixture', {
  tasks,
  actors: [actors.simulated({ profile: 'reviser' }), actors.simulated({ profile: 'stubborn' })],
  verifier,
  budget: 4,
  repeats: 2,
  concurrency: ${CONCURRENCY},
  independent: true,
  modes: { binary: { feedback: feedback.binary(), expect: { seqAt: { 4: 0.3 } } } },
})
`,
)

async function run(args: string[], env: Record<string, string>) {
  const r = await runNode(args, { cwd: dir, env: cleanEnv({ SEQK_HISTORY_FILE: 'false', ...env }), timeoutMs: 90_000 })
  return { status: r.status, out: unwrapped(`${r.stdout}\n${r.stderr}`) }
}
const vitest = (env: Record<string, string>) => run([VITEST, 'run'], env)

/** A run's summary without what differs between any two runs: ids, dates, wall times. */
function comparable(summary: RunSummary) {
  return JSON.parse(
    JSON.stringify(summary, (key, value) =>
      key === 'runId' || key === 'createdAt' || key === 'durationMs' ? undefined : value,
    ),
  )
}

/** Each engine's variables for task `index` (0-based) of `count`, as the engine (or its manifest) sets them. */
const ENGINE_ENV = [
  (index: number, count: number) => ({ JOB_COMPLETION_INDEX: String(index), SEQK_SHARD_COUNT: String(count) }),
  (index: number, count: number) => ({ CLOUD_RUN_TASK_INDEX: String(index), CLOUD_RUN_TASK_COUNT: String(count) }),
  (index: number, count: number) => ({
    AWS_BATCH_JOB_ARRAY_INDEX: String(index),
    AWS_BATCH_JOB_ARRAY_SIZE: String(count),
  }),
]

let whole: RunSummary
beforeAll(async () => {
  const r = await vitest({ SEQK_RUN_DIR: join(dir, 'whole') })
  expect(r.status, r.out).toBe(0)
  whole = readSummary(join(dir, 'whole', 'summary.json'))
  // Three machines at once: shard i named by engine i's own variables.
  const shards = await Promise.all(
    ENGINE_ENV.map((engine, i) => vitest({ SEQK_RUN_DIR: join(dir, `engine-${i + 1}`), ...engine(i, 3) })),
  )
  for (const [i, shard] of shards.entries()) {
    expect(shard.status, shard.out).toBe(0)
    expect(shard.out).toMatch(new RegExp(`simulated:reviser · binary .* shard ${i + 1}/3`))
  }
}, 300_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("shards from the batch engines' own variables", () => {
  it('Kubernetes, Cloud Run and AWS Batch indices 0, 1, 2 are shards 1, 2, 3: every task in exactly one', () => {
    const ids = [1, 2, 3].map(
      (i) =>
        new Set(readTrajectories(join(dir, `engine-${i}`, 'trajectories.jsonl')).trajectories.map((t) => t.taskId)),
    )
    for (const [i, set] of ids.entries()) {
      expect(set.size).toBeGreaterThan(0)
      expect(readSummary(join(dir, `engine-${i + 1}`, 'summary.json')).benchmarks[0]!.cells[0]!.shard).toEqual({
        index: i + 1,
        count: 3,
      })
    }
    expect(ids.reduce((n, s) => n + s.size, 0)).toBe(30)
    expect(new Set(ids.flatMap((s) => [...s])).size).toBe(30)
  })

  it('merged with seqk merge, the three shards give the unsharded numbers', async () => {
    const r = await run([...SEQK, 'merge', 'engine-1', 'engine-2', 'engine-3', '--out', 'merged'], {})
    expect(r.status, r.out).toBe(0)
    expect(r.out).toMatch(
      /seqk merge: 3 shard directories, 240 trajectories · 4 cells · 2 passed · 2 with no thresholds/,
    )
    expect(comparable(readSummary(join(dir, 'merged', 'summary.json')))).toEqual(comparable(whole))
  }, 60_000)

  it('an engine index and SEQK_SHARD that name different shards are refused before any call, naming both', async () => {
    const r = await vitest({ SEQK_RUN_DIR: join(dir, 'conflict'), SEQK_SHARD: '2/3', ...ENGINE_ENV[0]!(0, 3) })
    expect(r.status).toBe(1)
    expect(r.out.replace(/\s+/g, ' ')).toContain(
      'two sources name different shards: SEQK_SHARD=2/3 (shard 2/3) and JOB_COMPLETION_INDEX=0, SEQK_SHARD_COUNT=3 (shard 1/3); unset one of them, or set SEQK_SHARD=off to run every task here',
    )
    expect(existsSync(join(dir, 'conflict', 'trajectories.jsonl'))).toBe(false)
  }, 60_000)

  it('a cap over every shard, kept in a shared spend directory, holds across the three machines', async () => {
    const tokens = (s: RunSummary) =>
      s.benchmarks[0]!.cells.reduce((n, c) => n + (c.usage ? c.usage.inputTokens + c.usage.outputTokens : 0), 0)
    const cap = Math.round(tokens(whole) / 3)
    const spendDir = join(dir, 'spend')
    const shards = await Promise.all(
      ENGINE_ENV.map((engine, i) =>
        vitest({
          SEQK_RUN_DIR: join(dir, `capped-${i + 1}`),
          SEQK_SHARDS_MAX_TOKENS: String(cap),
          SEQK_SHARDS_SPEND_DIR: spendDir,
          ...engine(i, 3),
        }),
      ),
    )
    const summaries = [1, 2, 3].map((i) => readSummary(join(dir, `capped-${i}`, 'summary.json')))
    const spent = summaries.reduce((n, s) => n + tokens(s), 0)
    // The largest single call any shard made: the overshoot is at most one call per trajectory in flight.
    const largest = Math.max(
      ...[1, 2, 3].flatMap((i) =>
        readTrajectories(join(dir, `capped-${i}`, 'trajectories.jsonl')).trajectories.flatMap((t) =>
          t.attempts.map((a) => (a.usage ? a.usage.inputTokens + a.usage.outputTokens : 0)),
        ),
      ),
    )
    console.log(`shards' token cap ${cap}: spent ${spent} over 3 shards (bound ${cap + 3 * CONCURRENCY * largest})`)
    expect(spent).toBeGreaterThanOrEqual(cap)
    expect(spent).toBeLessThanOrEqual(cap + 3 * CONCURRENCY * largest)
    // Each machine that spent wrote a ledger file of its own; together they hold what the shards spent.
    const lines = readdirSync(spendDir)
      .filter((n) => n.startsWith('spend-'))
      .flatMap((n) => readFileSync(join(spendDir, n), 'utf8').trim().split('\n'))
    expect(lines.reduce((n, l) => n + (JSON.parse(l) as { t: number }).t, 0)).toBe(spent)
    const stopped = /stopped at the cost cap \(shards maxTokens [\d,]+ tokens, [\d,]+ tokens spent\)/
    if (!shards.some((s) => stopped.test(s.out))) console.log(shards.map((s) => s.out).join('\n----\n'))
    expect(shards.some((s) => stopped.test(s.out))).toBe(true)
  }, 120_000)
})
