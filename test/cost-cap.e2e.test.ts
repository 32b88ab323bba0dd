// A run cap against the test server (real OpenAI SDK, real sockets), run by the real Vitest CLI:
// two eval files in two workers, each cell two trajectories at once, every call priced at a known
// amount. Once the run's spend (shared by the workers through spend.jsonl) reaches the cap, no new
// trajectory starts and running ones stop at their next call: the run overshoots by at most one
// call per trajectory in flight, and every output says the cells stopped at the cost cap.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSummary } from '../src/artifacts/summary-file.js'
import { readTrajectories } from '../src/artifacts/trajectories-file.js'
import { SPEND_FILE } from '../src/artifacts/spend-ledger.js'
import type { RunSummary } from '../src/core/schemas.js'
import { cellVerdict } from '../src/protocol/verdict.js'
import { LiveRun } from '../src/report/live/live-run.js'
import { liveView } from '../src/report/live/view.js'
import { cleanEnv, fixtureProject, PACKAGE, runNode, SEQK, SEQK_ALIAS, unwrapped, VITEST } from './fixture-project.js'

// Every call: 1000 input and 250 output tokens at $2 / $8 per million = $0.004.
const CALL_USD = 0.004
const CAP_USD = 0.05
const WORKERS = 2
const CONCURRENCY = 2

const EVAL = (name: string) => `import { afterAll } from 'vitest'
import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
import { startTestServer } from ${JSON.stringify(PACKAGE.testing)}
const server = await startTestServer({ responder: () => ({ text: 'WRONG', delayMs: 15, usage: { inputTokens: 1000, outputTokens: 250, cacheReadTokens: 0, cacheWriteTokens: 0 } }) })
afterAll(() => server.close())
const verifier: Verifier = { name: 'says-correct', version: '1', settings: {}, verify(_t, answer) { const pass = answer.includes('CORRECT'); return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: pass ? 'ok' : 'say CORRECT' } } } }
const actor = actors.openaiCompatible({ model: 'priced', id: 'priced', baseURL: server.openaiBaseURL, prices: { 'openai-compatible:priced': { input: 2, output: 8 } }, retry: { maxRetries: 0 } })
seqEval(${JSON.stringify(name)}, {
  tasks: Array.from({ length: 10 }, (_, i) => ({ id: 't' + i, prompt: 'Say CORRECT. #' + i })),
  actors: [actor],
  verifier,
  budget: 3,
  concurrency: ${CONCURRENCY},
  modes: { binary: { feedback: feedback.binary(), expect: { seqAt: { 3: 0.5 } } } },
})
`

const dir = fixtureProject('seqk-cost-cap-')
const runDir = join(dir, 'run')
let out = ''
let status: number | null = null
let summary: RunSummary
let vitestJson: { testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[] }

beforeAll(async () => {
  writeFileSync(
    join(dir, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config'
export default defineConfig({
  ${SEQK_ALIAS},
  test: { include: ['*.eval.ts'], maxWorkers: ${WORKERS}, reporters: [${JSON.stringify(PACKAGE.reporter)}, ['json', { outputFile: 'vitest.json' }]], setupFiles: [${JSON.stringify(PACKAGE.setup)}] },
})
`,
  )
  writeFileSync(join(dir, 'a.eval.ts'), EVAL('capped a'))
  writeFileSync(join(dir, 'b.eval.ts'), EVAL('capped b'))
  const env = cleanEnv({
    SEQK_RUN_DIR: runDir,
    SEQK_RUN_MAX_COST_USD: String(CAP_USD),
    SEQK_HISTORY_FILE: join(dir, 'history.jsonl'),
    GITHUB_ACTIONS: 'true',
  })
  const r = await runNode([VITEST, 'run'], { cwd: dir, env, timeoutMs: 240_000 })
  out = unwrapped(r.out)
  status = r.status
  summary = readSummary(join(runDir, 'summary.json'))
  vitestJson = JSON.parse(readFileSync(join(dir, 'vitest.json'), 'utf8'))
}, 300_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

const STOPPED =
  /[sS]topped at the cost cap \(run maxCostUsd \$0\.05, \$0\.0\d+ spent\): \d+ of 10 trajectories unfinished/
const cells = () => summary.benchmarks.flatMap((b) => b.cells)

describe('a run cap against the test server, in two workers', () => {
  it('stops within one call per trajectory in flight of the cap, and the spend ledger agrees with summary.json', () => {
    expect(status, out).toBe(1)
    const spent = cells().reduce((n, c) => n + c.costUsd!, 0)
    const overshoot = spent - CAP_USD
    console.log(
      `run cap $${CAP_USD}: spent $${spent.toFixed(4)}, overshoot $${overshoot.toFixed(4)} (${(overshoot / CALL_USD).toFixed(2)} calls; bound ${WORKERS * CONCURRENCY} calls)`,
    )
    expect(spent).toBeGreaterThanOrEqual(CAP_USD - 1e-9)
    expect(overshoot).toBeLessThanOrEqual(WORKERS * CONCURRENCY * CALL_USD + 1e-9)
    const ledger = readFileSync(join(runDir, SPEND_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { c: number })
    expect(ledger.reduce((n, l) => n + l.c, 0)).toBeCloseTo(spent, 9)
    const { trajectories } = readTrajectories(join(runDir, 'trajectories.jsonl'))
    expect(trajectories.filter((t) => t.status === 'capped').length).toBe(
      cells().reduce((n, c) => n + (c.costCap?.capped ?? 0), 0),
    )
  })

  it("summary.json and Vitest's own result fail every capped cell with the one cap check", () => {
    const capped = cells().filter((c) => c.costCap)
    expect(capped.length).toBeGreaterThan(0)
    const tests = vitestJson.testResults.flatMap((f) => f.assertionResults)
    for (const c of capped) {
      const v = cellVerdict(c)
      expect(v.status).toBe('fail')
      expect(v.failed).toHaveLength(1)
      expect(v.failed[0]!.message).toMatch(STOPPED)
      expect(c.seqAtInterval.method).toBe('cap-bounds-union/1')
      const t = tests.find((x) => x.title === c.cellId)!
      expect(t.status).toBe('failed')
      expect(t.failureMessages[0]).toContain('a check failed')
      expect(unwrapped(t.failureMessages[0]!)).toMatch(STOPPED)
    }
    expect(summary.verdict?.reasons.some((r) => STOPPED.test(r))).toBe(true)
  })

  it('the terminal, pr-comment.md, the annotations and report.html say so', () => {
    expect(out).toMatch(STOPPED)
    expect(out.split('\n').some((l) => l.startsWith('::error ') && l.includes('stopped at the cost cap'))).toBe(true)
    const comment = unwrapped(readFileSync(join(runDir, 'pr-comment.md'), 'utf8'))
    expect(comment).toMatch(STOPPED)
    // The disclosure card's two lines close the comment, the second saying the cap stopped cells.
    expect(comment).toMatch(
      /\n\*\*Disclosure\*\* \d+% complete [^\n]*\n\n\*\*Cost\*\* \$0\.0\d for \d+ calls [^\n]* · 2 cells stopped at the cost cap\n$/,
    )
    const html = readFileSync(join(runDir, 'report.html'), 'utf8')
    expect(html).toMatch(STOPPED)
    expect(html).toContain('<section class="bench disclosure" id="disclosure"><h2>Disclosure card</h2>')
  })

  it('the live view, disclosure.json and both exports say so', async () => {
    const live = new LiveRun(runDir, { pollMs: 60_000 })
    try {
      const view = liveView(live.snapshot().snapshot)
      expect(view.ended?.reasons.some((r) => STOPPED.test(r))).toBe(true)
      expect(view.cells.some((c) => c.state.includes('stopped at the cost cap'))).toBe(true)
    } finally {
      live.close()
    }
    const card = JSON.parse(readFileSync(join(runDir, 'disclosure.json'), 'utf8')) as {
      failures: { unfinishedCells: { reason: string }[] }
    }
    expect(card.failures.unfinishedCells.some((c) => STOPPED.test(c.reason))).toBe(true)
    for (const format of ['junit', 'inspect']) {
      const r = await runNode([...SEQK, 'export', runDir, '--format', format], {
        cwd: dir,
        env: cleanEnv(),
        timeoutMs: 60_000,
      })
      expect(r.status, r.out).toBe(0)
    }
    expect(readFileSync(join(runDir, 'junit.xml'), 'utf8')).toMatch(STOPPED)
    const logs = readdirSync(join(runDir, 'inspect')).map((f) => readFileSync(join(runDir, 'inspect', f), 'utf8'))
    expect(logs.some((l) => STOPPED.test(l))).toBe(true)
  }, 120_000)
})
