// Nothing vanishes: a cell that reaches its Vitest timeout is in summary.json, the tables and
// pr-comment.md as failed, saying why and how far it got; the summary never says "all passed"
// then. And a config without the seqk reporter or setup file is told what to add.
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { RunSummarySchema } from '../src/core/schemas.js'
import { DisclosureCardSchema } from '../src/core/disclosure.js'
import {
  cleanEnv,
  PACKAGE,
  runNode,
  SAYS_CORRECT_SOURCE,
  SEQK,
  SEQK_ALIAS,
  unwrapped,
  VITEST,
} from './fixture-project.js'

const root = new URL('..', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'seqk-unfinished-'))
symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
const config = (reporters: string, setup: boolean) => `import { defineConfig } from 'vitest/config'
export default defineConfig({
  ${SEQK_ALIAS},
  test: { include: ['*.eval.ts'], reporters: [${reporters}]${setup ? `, setupFiles: [${JSON.stringify(PACKAGE.setup)}]` : ''} },
})
`
writeFileSync(
  join(dir, 'slow.eval.ts'),
  `import { actors, feedback, seqEval, type ChatModel, type Verifier } from 'vitest-seqk'
${SAYS_CORRECT_SOURCE}
const tasks = Array.from({ length: 6 }, (_, i) => ({ id: 't' + i, prompt: 'Say CORRECT. #' + i, simulation: { difficulty: 0, correct: ['CORRECT'], wrong: ['WRONG'] } }))
const base = actors.simulated({ profile: 'reviser' })
// Tasks t4 and t5 hang until the test is aborted: a stalled endpoint with no timeout of its own.
const hanging: ChatModel = { ...base, async chat(request) {
  if (Number(request.context.taskId.slice(1)) >= 4) await new Promise((_, reject) => request.signal?.addEventListener('abort', () => reject(request.signal?.reason)))
  return base.chat(request)
} }
seqEval('slow fixture', { tasks, actors: [hanging], verifier, budget: 2, repeats: 1, concurrency: 6, timeout: 1500, modes: { binary: { feedback: feedback.binary() } } })
`,
)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function run(runDir: string) {
  const r = await runNode([VITEST, 'run'], {
    cwd: dir,
    env: cleanEnv({ SEQK_RUN_DIR: join(dir, runDir) }),
    timeoutMs: 60_000,
  })
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` }
}

describe('a cell that does not finish', () => {
  it('is in summary.json, the table and pr-comment.md as failed, with the reason and what had ended', async () => {
    writeFileSync(join(dir, 'vitest.config.ts'), config(`${JSON.stringify(PACKAGE.reporter)}, 'default'`, true))
    const r = await run('run-a')
    expect(r.status, r.out).toBe(1)
    const summary = RunSummarySchema.parse(JSON.parse(readFileSync(join(dir, 'run-a', 'summary.json'), 'utf8')))
    const cell = summary.benchmarks[0]!.cells[0]!
    expect(cell.cellId).toBe('simulated:reviser · binary')
    expect(cell.verdict).toBe('fail')
    expect(cell.thresholds[0]).toMatchObject({ metric: 'finished', pass: false, limit: 6, actual: 4 })
    expect(cell.thresholds[0]!.message).toMatch(
      /^the cell did not finish: Test timed out in 1500ms.*; 4 of 6 trajectories had ended/,
    )
    expect(r.out).toMatch(/simulated:reviser · binary .* FAIL \(1\)/)
    // The reason, once, under the cell's row (its thresholds' misses follow from it).
    expect(r.out).toMatch(
      /simulated:reviser · binary .* FAIL \(1\)\n {3}✗ the cell did not finish: Test timed out in 1500ms/,
    )
    const markdown = readFileSync(join(dir, 'run-a', 'pr-comment.md'), 'utf8')
    expect(markdown).not.toContain('all passed')
    expect(markdown).toMatch(/^## ❌/)
    // The disclosure card tells the same story: the cell unfinished, with the reason, and failed.
    const card = DisclosureCardSchema.parse(JSON.parse(readFileSync(join(dir, 'run-a', 'disclosure.json'), 'utf8')))
    expect(card.failures.unfinishedCells).toEqual([
      { benchmark: 'slow fixture', cellId: 'simulated:reviser · binary', reason: cell.thresholds[0]!.message },
    ])
    expect(card.failures.failedCells.map((c) => c.cellId)).toEqual(['simulated:reviser · binary'])
    expect(r.out).not.toContain('the setup file is not loaded')
    expect(r.out).not.toContain('no seqk reporter')
    // The unfinished cell recomputes from the files as the reporter gave it (its reason is in cells.jsonl).
    const again = await runNode([...SEQK, 'summarize', join(dir, 'run-a'), '--out', '-'], { cwd: dir, env: cleanEnv() })
    expect(again.status, again.stderr).toBe(0)
    expect({ ...RunSummarySchema.parse(JSON.parse(again.stdout)), createdAt: 'x' }).toEqual({
      ...summary,
      createdAt: 'x',
    })
  }, 70_000)

  it('without the seqk reporter or the setup file, says once what to add', async () => {
    writeFileSync(join(dir, 'vitest.config.ts'), config(`'default'`, false))
    const r = await run('run-b')
    // Wrapped at 120 columns, as everything seqk prints.
    expect(unwrapped(r.out)).toContain(
      "vitest-seqk: the setup file is not loaded, so expect(summary).toReachSeqAt() and toReachPassAt() do not exist. Add 'vitest-seqk/setup' to test.setupFiles.",
    )
    expect(r.out).toContain('vitest-seqk: no seqk reporter in this Vitest run')
    expect(r.out.split('the setup file is not loaded').length - 1).toBe(1)
  }, 70_000)

  it('a cell that records malformed data is reported, not a reporter crash: the other cells and files are written', async () => {
    writeFileSync(join(dir, 'vitest.config.ts'), config(`${JSON.stringify(PACKAGE.reporter)}`, true))
    const hostile = join(dir, 'hostile.eval.ts')
    // A component (or a future writer) that puts garbage where the reporter reads: a trajectory
    // with no diagnostics, and a cell summary of the wrong shape.
    writeFileSync(
      hostile,
      `import { recordArtifact, test } from 'vitest'
test('forged cell', async (context) => {
  await recordArtifact(context.task, { type: 'seqk:cell-start', benchmark: 'forged', cellId: 'x · binary', total: 1 } as never)
  await recordArtifact(context.task, { type: 'seqk:trajectory', trajectory: { taskId: 't0', attempts: [{ verdict: { pass: 'yes' } }] } } as never)
  context.task.meta.seqk = { cellId: 'x · binary', seqAt: 'high' } as never
})
`,
    )
    try {
      const r = await run('run-c')
      expect(r.out).toMatch(
        /vitest-seqk: "forged cell" is missing from the tables and summary.json: its summary does not match this version's schema/,
      )
      expect(r.out).toMatch(
        /seqk: left out 1 malformed trajectory record:\n {2}"forged cell": a recorded trajectory \(task t0\) is not a seqk trajectory: /,
      )
      expect(r.status, r.out).toBe(1)
      // The real cell is still reported and its files written.
      const summary = RunSummarySchema.parse(JSON.parse(readFileSync(join(dir, 'run-c', 'summary.json'), 'utf8')))
      expect(summary.benchmarks.map((b) => b.name)).toEqual(['slow fixture'])
      expect(r.out).toContain(
        'seqk: wrote summary.json, trajectories.jsonl, cells.jsonl, disclosure.json, pr-comment.md, report.html',
      )
    } finally {
      rmSync(hostile, { force: true })
    }
  }, 70_000)
})
