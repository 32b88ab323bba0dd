// `seqk disclose`, `seqk export` and `seqk estimate <run>` in-process (fake IO) over a synthetic run
// directory written as a run writes it: summary.json, trajectories.jsonl, cells.jsonl, tasks.jsonl.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { writeSummary } from '../src/artifacts/summary-file.js'
import { appendCellRecord } from '../src/artifacts/cells-file.js'
import { appendTaskRecords } from '../src/artifacts/tasks-file.js'
import { runCli } from '../src/cli/run.js'
import { DisclosureCardSchema } from '../src/core/disclosure.js'
import { ESTIMATE_SCHEMA, type CellEstimate } from '../src/core/estimate.js'
import { evalLogValidator, HAS_XMLLINT, schemaErrors, xmllintJunit } from './export-schemas.js'
import { cellStartOf, fakeRun } from './report-fixtures.js'
import { unwrapped } from './fixture-project.js'

const tmp = mkdtempSync(join(tmpdir(), 'seqk-export-cli-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** A run directory as the reporter leaves it (without disclosure.json unless asked), each cell with an estimate. */
function runDir(name: string, options: { estimates?: boolean } = {}): string {
  const dir = join(tmp, name)
  mkdirSync(dir, { recursive: true })
  const { summary, trajectories } = fakeRun({ runId: name })
  writeSummary(join(dir, 'summary.json'), summary)
  writeFileSync(join(dir, 'trajectories.jsonl'), trajectories.map((t) => `${JSON.stringify(t)}\n`).join(''))
  for (const c of summary.benchmarks[0]!.cells) {
    const estimate: CellEstimate = {
      schema: ESTIMATE_SCHEMA,
      trajectories: 10,
      budget: 4,
      calls: { expected: 20, low: 10, high: 40 },
      inputTokens: { expected: 1, low: 1, high: 1 },
      outputTokens: { expected: 1, low: 1, high: 1 },
      costUsd: { expected: c.costUsd! * 1.1, low: 0, high: 1 },
      basis: {
        kind: 'previous-run',
        runId: 'prev',
        match: 'same-protocol',
        tokenizer: 'chars/4',
        helpers: 'estimated',
        notes: [],
      },
    }
    appendCellRecord(join(dir, 'cells.jsonl'), {
      ...cellStartOf(c, 'evals/toy.eval.ts', name),
      ...(options.estimates === false ? {} : { estimate }),
    })
  }
  appendTaskRecords(
    join(dir, 'tasks.jsonl'),
    ['t/1', 't/2', 't/3', 't/4', 't/5'].map((taskId) => ({
      schema: 'seqk.task/1' as const,
      benchmark: 'toy benchmark',
      taskId,
      contentHash: 'c0ffee',
      messages: [{ role: 'user' as const, content: `Solve ${taskId}` }],
      promptBuilder: 'seqk-prompt/1',
    })),
  )
  return dir
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const code = await runCli(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    isTTY: false,
    env: {},
    cwd: tmp,
  })
  return { code, stdout, stderr }
}

describe('seqk disclose', () => {
  it("a run without disclosure.json gets a card built from its files, its harness facts unknown (never this machine's)", async () => {
    const dir = runDir('old-run')
    const r = await cli(['disclose', dir, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const card = DisclosureCardSchema.parse(JSON.parse(r.stdout))
    expect(card.harness).toMatchObject({
      vitestSeqk: null,
      node: null,
      os: null,
      git: { commit: null, clean: null },
      collected: { by: 'seqk disclose' },
    })
    expect(card.completeness.score).toBeLessThan(1)
    expect(card.completeness.missing.map((m) => m.field)).toContain('harness.node')
    expect(unwrapped(r.stderr)).toMatch(/has no disclosure\.json .*: built from its files, harness facts unknown/)
    const text = await cli(['disclose', dir])
    expect(text.stdout).toMatch(/^Disclosure card of run old-run/)
    expect(text.stdout).toMatch(/estimated before the run \$[\d.]+, actual \$[\d.]+: error 10\.0% over 6 cells/)
  })

  it('prints the card the run wrote, and says which file is broken when it is', async () => {
    const dir = runDir('new-run')
    const built = JSON.parse((await cli(['disclose', dir, '--json'])).stdout) as Record<string, unknown>
    writeFileSync(join(dir, 'disclosure.json'), JSON.stringify({ ...built, runId: 'as-written' }))
    expect((await cli(['disclose', dir])).stdout).toMatch(/^Disclosure card of run as-written/)
    writeFileSync(join(dir, 'disclosure.json'), JSON.stringify({ ...built, completeness: { score: 2 } }))
    const bad = await cli(['disclose', dir])
    expect(bad.code).toBe(1)
    expect(unwrapped(bad.stderr)).toMatch(
      /^seqk disclose: cannot read the card of .*disclosure\.json: not a seqk disclosure card: completeness/,
    )
  })
})

describe('seqk export', () => {
  it("--format inspect writes one EvalLog per cell, each valid under inspect_ai's schema", async () => {
    const dir = runDir('inspect-run')
    const r = await cli(['export', dir, '--format', 'inspect'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^seqk export: 6 inspect_ai logs \(60 samples\) into .*inspect\n$/)
    const files = readdirSync(join(dir, 'inspect'))
    expect(files).toHaveLength(6)
    const validate = evalLogValidator()
    for (const f of files) {
      const log = JSON.parse(readFileSync(join(dir, 'inspect', f), 'utf8')) as { samples: { input: unknown }[] }
      expect(validate(log), `${f}: ${schemaErrors(validate.errors)}`).toBe(true)
      expect(log.samples[0]!.input).toEqual([
        { role: 'user', content: expect.stringMatching(/^Solve t\//), source: 'input' },
      ])
    }
  })

  it.skipIf(!HAS_XMLLINT)('--format junit writes one file that validates against the JUnit XSD', async () => {
    const dir = runDir('junit-run')
    const out = join(tmp, 'reports', 'seqk.xml')
    const r = await cli(['export', dir, '--format', 'junit', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(`seqk export: 6 cells · all passed, as JUnit XML; wrote ${out}\n`)
    const { valid, output } = await xmllintJunit(readFileSync(out, 'utf8'))
    expect(valid, output).toBe(true)
  })

  it('refuses an unknown format or a missing run, naming what would be valid', async () => {
    const dir = runDir('bad-format')
    expect(await cli(['export', dir, '--format', 'csv'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^seqk export: --format must be inspect, junit or seq_k \(got "csv"\)/),
    })
    expect(await cli(['export', join(tmp, 'nowhere'), '--format', 'junit'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^seqk export: /),
    })
  })
})

describe('seqk estimate <run>', () => {
  it("prints each cell's estimate beside its actual cost and the error", async () => {
    const r = await cli(['estimate', runDir('estimated-run')])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.match(/error \+10\.0%/g)).toHaveLength(7)
    expect(r.stdout).toMatch(/total over 6 cells: ≈ \$[\d.]+ \(\$0–\$6\.00\); actual \$[\d.]+, error \+10\.0%\n$/)
  })

  it('a run whose cells recorded no estimate says so', async () => {
    const r = await cli(['estimate', runDir('no-estimates', { estimates: false })])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/no cell recorded an estimate/)
  })
})
