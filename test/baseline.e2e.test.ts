// Baselines like snapshots, end to end in a scratch project: written on the first local run, an
// unchanged rerun passes, a weaker actor fails with the regressed tasks listed, an instrument change
// fails naming the changed fields, -u accepts it, and CI never writes a missing baseline.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readBaselineFile } from '../src/artifacts/baseline-file.js'
import { cleanEnv, PACKAGE, runNode, SEQK_ALIAS, unwrapped, VITEST } from './fixture-project.js'

const root = new URL('..', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'seqk-baseline-'))
symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
writeFileSync(
  join(dir, 'vitest.config.ts'),
  `import { defineConfig } from 'vitest/config'
export default defineConfig({
  ${SEQK_ALIAS},
  test: { include: ['*.eval.ts'], reporters: [${JSON.stringify(PACKAGE.reporter)}, 'default'] },
})
`,
)
writeFileSync(
  join(dir, 'gate.eval.ts'),
  `import { actors, feedback, seqEval, type ChatModel, type Verifier } from 'vitest-seqk'
const verifier: Verifier = {
  name: 'says-correct', version: '1', settings: {},
  async verify(_task, answer) {
    const pass = answer.includes('CORRECT')
    return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: pass ? 'ok' : 'expected CORRECT, got something else' } }
  },
}
const tasks = Array.from({ length: 30 }, (_, i) => ({ id: 't' + String(i).padStart(2, '0'), prompt: 'Say CORRECT. #' + i, simulation: { difficulty: 0.5, correct: ['CORRECT'], wrong: ['WRONG A', 'WRONG B'] } }))
// A regression in the agent's own code (not in the model or its decoding parameters, so the
// protocol is the same): on even tasks it ignores feedback and resubmits its previous answer.
const base = actors.simulated({ profile: 'reviser' })
const weakened: ChatModel = {
  ...base,
  async chat(request) {
    const previous = [...request.messages].reverse().find((m) => m.role === 'assistant')
    if (previous && Number(request.context.taskId.slice(1)) % 2 === 0) return { text: previous.content, usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, latencyMs: 0, finishReason: 'stop', costUsd: 0 }
    return base.chat(request)
  },
}
seqEval('gate fixture', {
  tasks,
  actors: [process.env.WEAKEN === '1' ? weakened : base],
  verifier,
  budget: Number(process.env.BUDGET ?? 5),
  repeats: 3,
  modes: { verifier: { feedback: feedback.verifier() } },
  baseline: true,
})
`,
)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let runs = 0
async function run(env: Record<string, string>, args: string[] = []) {
  // A run directory per run: running into one that already holds a run is refused.
  const r = await runNode([VITEST, 'run', ...args], {
    cwd: dir,
    env: cleanEnv({ SEQK_RUN_DIR: join(dir, `run-${++runs}`), ...env }),
    timeoutMs: 60_000,
  })
  // What it says, the wrapping at 120 columns undone (continuation lines joined to the line they continue).
  return { status: r.status, out: unwrapped(`${r.stdout}\n${r.stderr}`).replace(/\n {2,}(?=\S)/g, ' ') }
}

const baselinePath = join(dir, 'seqk.baseline.json')

describe('baseline gate', () => {
  it('writes a missing baseline on a local run and says so', async () => {
    const r = await run({})
    expect(r.status, r.out).toBe(0)
    expect(existsSync(baselinePath)).toBe(true)
    const cell = readBaselineFile(baselinePath)!.benchmarks['gate fixture']!.cells['simulated:reviser · verifier']!
    expect(cell.perTask).toHaveLength(30)
    expect(cell.protocol.budget).toBe(5)
  }, 70_000)

  it('an unchanged rerun passes', async () => {
    const before = readFileSync(baselinePath, 'utf8')
    const r = await run({})
    expect(r.status, r.out).toBe(0)
    expect(readFileSync(baselinePath, 'utf8')).toBe(before)
  }, 70_000)

  it('a weakened actor fails the gate, with the interval and the regressed tasks', async () => {
    const r = await run({ WEAKEN: '1' })
    expect(r.status).toBe(1)
    expect(r.out).toMatch(
      /baseline: Seq@5 \d+\.\d% → \d+\.\d% on 30 common tasks \(difference −\d+\.\d points, 95% CI −\d+\.\d–[−+]\d+\.\d\)/,
    )
    expect(r.out).toMatch(/tasks that got worse: t\d\d 3\/3 → [012]\/3/)
  }, 70_000)

  it('an instrument change fails naming the changed field, and -u accepts it', async () => {
    const changed = await run({ BUDGET: '4' })
    expect(changed.status).toBe(1)
    expect(changed.out).toContain('the instrument changed since the baseline (budget: 5 → 4)')
    expect(changed.out).toContain('accept it with `vitest run -u`')
    const accepted = await run({ BUDGET: '4' }, ['-u'])
    expect(accepted.status, accepted.out).toBe(0)
    expect(
      readBaselineFile(baselinePath)!.benchmarks['gate fixture']!.cells['simulated:reviser · verifier']!.protocol
        .budget,
    ).toBe(4)
    expect((await run({ BUDGET: '4' })).status).toBe(0)
  }, 120_000)

  it('CI never writes a missing baseline: it fails and says how to fix it', async () => {
    rmSync(baselinePath)
    const r = await run({ CI: 'true', BUDGET: '4' })
    expect(r.status).toBe(1)
    expect(r.out).toContain('and CI never writes one: run the evals locally (or with -u) and commit seqk.baseline.json')
    expect(existsSync(baselinePath)).toBe(false)
  }, 70_000)

  it('a hand-edited baseline whose numbers do not add up fails naming the cell, the field and the fix; -u re-records it', async () => {
    const accepted = await run({ BUDGET: '4' }, ['-u'])
    expect(accepted.status, accepted.out).toBe(0)
    const json = JSON.parse(readFileSync(baselinePath, 'utf8'))
    const cell = json.benchmarks['gate fixture'].cells['simulated:reviser · verifier']
    // Every task "solved" at attempt 99 would otherwise not count; one row duplicated; the fingerprint edited.
    cell.perTask[3].firstSuccess[0] = 99
    cell.perTask.push(cell.perTask[0])
    cell.fingerprint = '0000000000000000'
    writeFileSync(baselinePath, JSON.stringify(json))
    const r = await run({ BUDGET: '4' })
    expect(r.status).toBe(1)
    const at = 'seqk.baseline.json: benchmark "gate fixture", cell "simulated:reviser · verifier"'
    expect(r.out).toContain(`${at}: fingerprint: is "0000000000000000", but the stored protocol's fingerprint is`)
    expect(r.out).toContain(`${at}: perTask: has 31 rows, but the protocol's benchmark has 30 tasks`)
    expect(r.out).toContain(`${at}: perTask[3] (task "t03").firstSuccess[0]: is 99, beyond the budget K = 4`)
    expect(r.out).toContain(`${at}: perTask[30].taskId: repeats task "t00" of perTask[0]`)
    expect(r.out).toContain(
      'Re-record it with `vitest run -u` (or SEQK_UPDATE_BASELINE=1), or restore the file from git.',
    )
    const refreshed = await run({ BUDGET: '4' }, ['-u'])
    expect(refreshed.status, refreshed.out).toBe(0)
    expect(
      readBaselineFile(baselinePath)!.benchmarks['gate fixture']!.cells['simulated:reviser · verifier']!.perTask,
    ).toHaveLength(30)
    expect((await run({ BUDGET: '4' })).status).toBe(0)
  }, 120_000)

  it('a hand-edited, broken baseline fails with the file and field', async () => {
    writeFileSync(
      baselinePath,
      JSON.stringify({
        schema: 'seqk.baseline/1',
        benchmarks: { 'gate fixture': { cells: { x: { fingerprint: 1 } } } },
      }),
    )
    const r = await run({ BUDGET: '4' })
    expect(r.status).toBe(1)
    expect(r.out).toMatch(
      /seqk\.baseline\.json: not a seqk baseline \(benchmarks\.gate fixture\.cells\.x\.fingerprint: /,
    )
  }, 70_000)
})
