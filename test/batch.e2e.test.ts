// A batched actor in a real eval file (issue 19), run by Vitest in a child process against the
// test server's batch API: the cell runs in rounds, its progress says what the batches are
// doing, summary.json and the table say what batching saved, and a run killed while a batch ran
// and then resumed collects that batch instead of paying for it again.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { readSummary } from '../src/artifacts/index.js'
import { startTestServer, type TestServer, type TestServerRequest } from '../src/testing/index.js'
import { cleanEnv, fixtureProject, runNode, SAYS_CORRECT_SOURCE, SEQK, VITEST } from './fixture-project.js'

const dir = fixtureProject('seqk-batch-e2e-')
writeFileSync(
  join(dir, 'batch.eval.ts'),
  `import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
${SAYS_CORRECT_SOURCE}
const tasks = Array.from({ length: 10 }, (_, i) => ({ id: 't' + i, prompt: 'Task ' + i + ': say CORRECT.' }))
const actor = actors.openai({ model: 'gpt-4o-mini', baseURL: process.env.SEQK_TEST_URL, apiKey: process.env.SEQK_TEST_KEY, prices: { 'openai:gpt-4o-mini': { input: 0.15, output: 0.6 } }, retry: { maxRetries: 0 }, batch: { pollMs: 20, gatherMs: 150 } })
seqEval('batch fixture', { tasks, actors: [actor], verifier, budget: 3, repeats: 1, concurrency: 10, modes: { binary: { feedback: feedback.binary() } } })
`,
)

/** Task i is solved at attempt i % 3 + 1: three rounds of 10, 6 and 3 requests. */
function answer(request: TestServerRequest): string {
  const task = Number(/Task (\d+):/.exec(request.messages.find((m) => m.role === 'user')!.content)![1])
  const attempt = request.messages.filter((m) => m.role === 'assistant').length + 1
  return attempt <= task % 3 ? 'WRONG' : 'CORRECT'
}

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ batches: { delayMs: 150 }, responder: answer })
})
beforeEach(() => server.reset())
afterAll(async () => {
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

function env(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return cleanEnv({
    CI: 'true',
    SEQK_TEST_URL: server.openaiBaseURL,
    SEQK_TEST_KEY: ['batch', 'e2e', 'key'].join('-'),
    SEQK_HISTORY_FILE: join(dir, 'history.jsonl'),
    ...extra,
  })
}

/** The ledger at `path` holds a whole batch record (its line and the line's end). */
function ledgerHoldsABatch(path: string): boolean {
  if (!existsSync(path)) return false
  return readFileSync(path, 'utf8')
    .split('\n')
    .slice(0, -1)
    .some((line) => line.includes('"schema":"seqk.batch/1"'))
}

/** Runs `args` to its end (killed once `killWhen` holds). */
function run(
  args: string[],
  extra: Record<string, string> = {},
  killWhen?: () => boolean,
): Promise<{ status: number | null; out: string }> {
  return runNode(args, { cwd: dir, env: env(extra), ...(killWhen ? { killWhen } : {}) })
}

describe('a batched actor in an eval', () => {
  it('runs the cell in rounds, says what the batches do, and what batching saved', async () => {
    const r = await run([VITEST, 'run'], { SEQK_RUN_DIR: join(dir, 'whole') })
    expect(r.status, r.out).toBe(0)
    expect(server.batches().map((b) => b.customIds.length)).toEqual([10, 6, 3])
    const cell = readSummary(join(dir, 'whole', 'summary.json')).benchmarks[0]!.cells[0]!
    expect(cell.seqAt).toEqual([0.4, 0.7, 1])
    expect(cell.batch).toMatchObject({ calls: 19 })
    expect(cell.batch!.savedUsd! / cell.batch!.listCostUsd!).toBeCloseTo(0.5, 10)
    // The run directory keeps its batches (for a resume), and the progress and the table say so.
    const ledger = readFileSync(join(dir, 'whole', 'batches.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { schema: string; status?: string })
    expect(ledger.filter((r) => r.schema === 'seqk.batch/1')).toHaveLength(3)
    // And each batch's changes of status, for the live view.
    expect(ledger.filter((r) => r.schema === 'seqk.batch-status/1' && r.status === 'ended')).toHaveLength(3)
    // A progress line is cut to the terminal's width ("submitted, 6 r…"): the status word is enough.
    expect(r.out).toMatch(/OpenAI batch: (submitted|in progress|finalising|ended)/)
    expect(r.out).not.toMatch(/MaxListenersExceededWarning/)
    expect(r.out).toMatch(/19 calls through a batch API, saving \$[\d.]+ \(50\.0%\) against \$[\d.]+ at list price/)
  }, 60_000)

  it('a run killed while its first batch runs, then resumed, collects that batch instead of paying twice', async () => {
    const runDir = join(dir, 'killed')
    // Killed once the first batch is on the server and its record is whole in the ledger (a file that
    // exists may not hold its line yet: a kill between the append's open and write leaves it empty,
    // and that batch could not be collected), long before it ends.
    const slow = await startTestServer({ batches: { delayMs: 1500 }, responder: answer })
    try {
      const first = await run(
        [VITEST, 'run'],
        { SEQK_RUN_DIR: runDir, SEQK_TEST_URL: slow.openaiBaseURL },
        () => slow.batches().length > 0 && ledgerHoldsABatch(join(runDir, 'batches.jsonl')),
      )
      expect(first.status).not.toBe(0)
      expect(slow.batches()).toHaveLength(1)
      const resumed = await run([...SEQK, 'resume', runDir], { SEQK_TEST_URL: slow.openaiBaseURL })
      expect(resumed.status, resumed.out).toBe(0)
      // Round 1 came from the killed run's batch: 3 batches in all, 19 requests answered, none twice.
      expect(slow.batches().map((b) => b.customIds.length)).toEqual([10, 6, 3])
      expect(slow.requests).toHaveLength(19)
      expect(readSummary(join(runDir, 'summary.json')).benchmarks[0]!.cells[0]!.seqAt).toEqual([0.4, 0.7, 1])
    } finally {
      await slow.close()
    }
  }, 90_000)
})
