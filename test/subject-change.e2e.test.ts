// The change a pull request makes, gated end to end in a scratch project: a baseline, then (a) an
// instructions edit and (b) a model change are compared on the common tasks, paired, with the change
// said before → after in every output (the terminal, Vitest's own result, summary.json,
// pr-comment.md, report.html, JUnit), and pass or fail on the paired statistics; (c) a verifier
// change refuses, naming the field. Then a gate too small to see a 37.5-point drop says so, per
// cell, where people read.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readBaselineFile } from '../src/artifacts/baseline-file.js'
import { readSummary } from '../src/artifacts/summary-file.js'
import type { CellSummary } from '../src/core/schemas.js'
import { signedPercent } from '../src/metrics/format.js'
import { cleanEnv, fixtureProject, runNode, SEQK, unwrapped, VITEST } from './fixture-project.js'

/** A scratch project whose eval reads its subject and instrument from the environment. */
function project(prefix: string, evalSource: string): string {
  // The verbose reporter prints each test's annotations: Vitest's own result of a passing cell.
  const dir = fixtureProject(prefix, { reporters: ['verbose'] })
  writeFileSync(join(dir, 'subject.eval.ts'), evalSource)
  return dir
}

const VERIFIER = `const verifier: Verifier = {
  name: 'says-correct', version: process.env.VERIFIER_VERSION ?? '1', settings: {},
  async verify(_task, answer) {
    const pass = answer.includes('CORRECT')
    return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: pass ? 'ok' : 'expected CORRECT' } }
  },
}`

const SUBJECT_EVAL = `import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
${VERIFIER}
const tasks = Array.from({ length: 30 }, (_, i) => ({ id: 't' + String(i).padStart(2, '0'), prompt: 'Invoice #' + i + ': the total?', simulation: { difficulty: 0.5, correct: ['CORRECT'], wrong: ['WRONG A', 'WRONG B'] } }))
seqEval('invoices', {
  tasks,
  actors: [actors.simulated({ profile: (process.env.PROFILE ?? 'reviser') as 'reviser' })],
  instructions: process.env.INSTRUCTIONS ?? 'Extract the invoice fields carefully.',
  verifier,
  budget: 4,
  repeats: 2,
  modes: { verifier: { feedback: feedback.verifier() } },
  baseline: true,
})
`

let runs = 0
async function run(dir: string, env: Record<string, string>, args: string[] = []) {
  const runDir = join(dir, `run-${++runs}`)
  const r = await runNode([VITEST, 'run', ...args], {
    cwd: dir,
    env: cleanEnv({ SEQK_RUN_DIR: runDir, ...env }),
    timeoutMs: 90_000,
  })
  const out = unwrapped(`${r.stdout}\n${r.stderr}`).replace(/\n {2,}(?=\S)/g, ' ')
  return { status: r.status, out, runDir }
}

/** Every output of a finished run: the summary's cell, pr-comment.md, report.html and the JUnit export. */
async function outputs(dir: string, runDir: string) {
  const junit = join(runDir, 'junit.xml')
  const exported = await runNode([...SEQK, 'export', runDir, '--format', 'junit', '--out', junit], {
    cwd: dir,
    env: cleanEnv(),
  })
  expect(exported.status, exported.out).toBe(0)
  const summary = readSummary(join(runDir, 'summary.json'))
  return {
    cell: summary.benchmarks[0]!.cells[0]! as CellSummary,
    comment: readFileSync(join(runDir, 'pr-comment.md'), 'utf8'),
    // Text as the page shows it: tags dropped, the entities the template escapes read back.
    report: readFileSync(join(runDir, 'report.html'), 'utf8')
      .replace(/<[^>]+>/g, '')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&gt;/g, '>')
      .replace(/&lt;/g, '<')
      .replace(/&amp;/g, '&'),
    junit: readFileSync(junit, 'utf8')
      .replace(/&quot;/g, '"')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&'),
  }
}

/** The Markdown's escapes undone (it escapes `*`, `_`, `<`, …), to look for plain text. */
const plainMarkdown = (text: string) => text.replace(/\\(.)/g, '$1')

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('a pull request that changes the subject, gated against its baseline', () => {
  const dir = project('seqk-subject-', SUBJECT_EVAL)
  dirs.push(dir)
  const baselinePath = join(dir, 'seqk.baseline.json')

  it('records the baseline, its instrument and subject fingerprinted apart', async () => {
    const r = await run(dir, {})
    expect(r.status, r.out).toBe(0)
    const cell = readBaselineFile(baselinePath)!.benchmarks.invoices!.cells['simulated:reviser · verifier']!
    expect(cell.protocol.instructions).toBe('Extract the invoice fields carefully.')
    expect(cell.instrumentFingerprint).toMatch(/^[0-9a-f]{16}$/)
    expect(cell.subjectFingerprint).toMatch(/^[0-9a-f]{16}$/)
    expect(cell.mode).toBe('verifier')
  }, 100_000)

  it('(a) an instructions edit is compared on every task, paired, and said before → after in every output', async () => {
    const r = await run(dir, { INSTRUCTIONS: 'Extract the invoice fields exactly.' })
    const change = 'instructions: "Extract the invoice fields carefully." → "Extract the invoice fields exactly."'
    const line = `compared across a change of subject: ${change}`
    // The simulated actor reads no instructions: the same answers, so the paired gate passes.
    expect(r.status, r.out).toBe(0)
    // The terminal (seqk's lines), and Vitest's own result (the passing test's annotation).
    expect(r.out).toContain(`simulated:reviser · verifier: baseline: ${line}`)
    expect(r.out).toMatch(new RegExp(`notice\\s+↳ simulated:reviser · verifier: baseline: ${escape(line)}`))
    const o = await outputs(dir, r.runDir)
    expect(o.cell.gate).toMatchObject({ status: 'pass', subjectChanges: [change], instrumentChanges: [] })
    expect(o.cell.gate!.comparisons[0]).toMatchObject({ metric: 'seqAt', k: 4, diff: { point: 0 } })
    expect(o.cell.gate!.messages).toContain(line)
    // Each line of the comment a sentence (its first letter upper-case, a full stop).
    expect(plainMarkdown(o.comment)).toContain(`  - C${line.slice(1)}.`)
    expect(o.report).toContain(`simulated:reviser · verifier: baseline: ${line}`)
    expect(o.junit).toContain(`simulated:reviser · verifier: baseline: ${line}`)
  }, 100_000)

  it('(b) a model change is matched by mode, compared on the common tasks, and fails on the paired statistics', async () => {
    const r = await run(dir, { PROFILE: 'stubborn' })
    const change = 'actor.model: "reviser" → "stubborn"'
    expect(r.status).toBe(1)
    // Vitest's own result: the thrown error, the drop on 30 common tasks with the change under it.
    expect(r.out).toMatch(
      /simulated:stubborn · verifier: a check failed - baseline: Seq@4 \d+\.\d% → \d+\.\d% on 30 common tasks \(difference −\d+\.\d points, 95% CI [^)]*\): a real drop beyond zero/,
    )
    expect(r.out).toContain(
      `compared across a change of subject (with the baseline's cell "simulated:reviser · verifier"): ${change}`,
    )
    const o = await outputs(dir, r.runDir)
    expect(o.cell.cellId).toBe('simulated:stubborn · verifier')
    expect(o.cell.gate).toMatchObject({ status: 'fail', baselineCell: 'simulated:reviser · verifier' })
    expect(o.cell.gate!.subjectChanges).toContain(change)
    expect(o.cell.gate!.subjectChanges).toContain('actor.params.resubmit: 0.05 → 0.75')
    expect(o.cell.gate!.comparisons[0]!.diff.hi!).toBeLessThan(0)
    for (const text of [plainMarkdown(o.comment), o.report, o.junit]) {
      expect(text).toContain(change)
      expect(text).toMatch(/Seq@4 \d+\.\d% → \d+\.\d% on 30 common tasks/)
    }
    // The baseline is untouched until the change is accepted with -u, which replaces the old cell.
    expect(Object.keys(readBaselineFile(baselinePath)!.benchmarks.invoices!.cells)).toEqual([
      'simulated:reviser · verifier',
    ])
  }, 100_000)

  it('(c) a verifier change refuses, naming the field; -u accepts it', async () => {
    const r = await run(dir, { VERIFIER_VERSION: '2' })
    expect(r.status).toBe(1)
    expect(r.out).toContain('the instrument changed since the baseline (verifier.version: "1" → "2")')
    expect(r.out).toContain('accept it with `vitest run -u`')
    const o = await outputs(dir, r.runDir)
    expect(o.cell.gate).toMatchObject({ status: 'fail', instrumentChanges: ['verifier.version: "1" → "2"'] })
    expect(o.cell.gate!.comparisons).toEqual([])
    for (const text of [plainMarkdown(o.comment), o.report, o.junit])
      expect(text).toContain('the instrument changed since the baseline (verifier.version: "1" → "2")')
    const accepted = await run(dir, { PROFILE: 'stubborn' }, ['-u'])
    expect(accepted.status, accepted.out).toBe(0)
    expect(Object.keys(readBaselineFile(baselinePath)!.benchmarks.invoices!.cells)).toEqual([
      'simulated:stubborn · verifier',
    ])
  }, 200_000)
})

const BLIND_EVAL = `import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
${VERIFIER}
// 8 tasks × 2 repeats: with DROP=1 the first three are never solved (a 37.5-point drop of Seq@3).
const broken = new Set(process.env.DROP === '1' ? ['t0', 't1', 't2'] : [])
const tasks = Array.from({ length: 8 }, (_, i) => ({ id: 't' + i, prompt: 'Say CORRECT. #' + i, simulation: { difficulty: 0, correct: [broken.has('t' + i) ? 'WRONG' : 'CORRECT'], wrong: ['WRONG'] } }))
seqEval('small', {
  tasks,
  actors: [actors.simulated({ profile: 'reviser' })],
  verifier,
  budget: 3,
  repeats: 2,
  modes: { verifier: { feedback: feedback.verifier() } },
  baseline: true,
})
`

describe('a gate too small to see the drop that matters', () => {
  const dir = project('seqk-blind-', BLIND_EVAL)
  dirs.push(dir)

  it('passes a 37.5-point drop at 8 tasks × 2 repeats, and every output says, per cell, what it could not see', async () => {
    expect((await run(dir, {})).status).toBe(0)
    const r = await run(dir, { DROP: '1' })
    expect(r.status, r.out).toBe(0)
    const o = await outputs(dir, r.runDir)
    expect(o.cell.gate!.comparisons[0]).toMatchObject({ k: 3, baseline: 1, current: 0.625 })
    const blind = /no drop it could see; it catches drops of ≥ (\d+) points 80% of the time \(8 tasks × 2 repeats\)/
    const points = Number(o.cell.gate!.messages[0]!.match(blind)?.[1])
    expect(points).toBeGreaterThan(37.5)
    const line = `simulated:reviser · verifier: baseline: no drop it could see; it catches drops of ≥ ${points} points 80% of the time (8 tasks × 2 repeats)`
    expect(r.out).toContain(line)
    expect(o.report).toContain(line)
    expect(o.junit).toContain(line)
    expect(o.junit).toContain('name="seqk.gateUnderpowered" value="simulated:reviser · verifier"')
    // The PR comment never shows a bare ✅ for it: a warning mark, on the cell's row and its check.
    const comment = plainMarkdown(o.comment)
    expect(comment).toContain(
      `- ⚠️ simulated:reviser · verifier: Baseline: no drop it could see; it catches drops of ≥ ${points} points`,
    )
    expect(comment).toMatch(/\| ⚠️ pass \(gate underpowered\) \|/)
    expect(comment).not.toContain('✅')
  }, 200_000)
})

const VARIANTS_EVAL = `import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
${VERIFIER}
const tasks = Array.from({ length: 30 }, (_, i) => ({ id: 't' + String(i).padStart(2, '0'), prompt: 'Invoice #' + i + ': the total?', simulation: { difficulty: 0.5, correct: ['CORRECT'], wrong: ['WRONG A', 'WRONG B'] } }))
const one = process.env.SUBJECT as 'reviser' | 'stubborn' | undefined
seqEval('invoices', {
  tasks,
  // One run with both models as variants, or one run per model (a main run and a branch run).
  ...(one
    ? { actors: [actors.simulated({ profile: one })] }
    : { variants: { reviser: { actor: actors.simulated({ profile: 'reviser' }) }, stubborn: { actor: actors.simulated({ profile: 'stubborn' }) } } }),
  instructions: 'Extract the invoice fields carefully.',
  verifier,
  budget: 4,
  repeats: 2,
  modes: { verifier: { feedback: feedback.verifier() } },
})
`

describe('two subjects side by side: variants in one run, seqk compare between two runs', () => {
  const dir = project('seqk-variants-', VARIANTS_EVAL)
  dirs.push(dir)

  it('give the same differences and intervals for the same two subjects', async () => {
    const both = await run(dir, {})
    expect(both.status, both.out).toBe(0)
    const summary = readSummary(join(both.runDir, 'summary.json'))
    expect(summary.benchmarks[0]!.cells.map((c) => [c.cellId, c.variant])).toEqual([
      ['reviser · verifier', 'reviser'],
      ['stubborn · verifier', 'stubborn'],
    ])
    const [variant] = summary.variantComparisons!
    expect(summary.variantComparisons).toHaveLength(1)
    expect(variant).toMatchObject({
      a: { subject: 'reviser' },
      b: { subject: 'stubborn' },
      tasks: 30,
      verdict: 'worse',
    })
    expect(variant!.subjectChanges).toContain('actor.model: "reviser" → "stubborn"')
    const [main, branch] = [await run(dir, { SUBJECT: 'reviser' }), await run(dir, { SUBJECT: 'stubborn' })]
    expect(main.status, main.out).toBe(0)
    expect(branch.status, branch.out).toBe(0)
    const compared = await runNode([...SEQK, 'compare', main.runDir, branch.runDir, '--json'], {
      cwd: dir,
      env: cleanEnv(),
    })
    expect(compared.status, compared.out).toBe(0)
    const { rows, unmatched } = JSON.parse(compared.stdout) as { rows: (typeof variant)[]; unmatched: string[] }
    expect(unmatched).toEqual([])
    // The cells are named by variant in one run and by actor in the two: matched by mode.
    expect(rows.map((r) => [r!.a.cellId, r!.b.cellId])).toEqual([
      ['simulated:reviser · verifier', 'simulated:stubborn · verifier'],
    ])
    const same = (r: NonNullable<typeof variant>) => ({
      diff: r.diff,
      p: r.p,
      tasks: r.tasks,
      rates: [r.a.rate, r.b.rate],
      verdict: r.verdict,
      metric: r.metric,
      k: r.k,
      subjectChanges: r.subjectChanges,
    })
    expect(same(rows[0]!)).toEqual(same(variant!))
    // And the tables say it in the same numbers: the run's terminal and pr-comment.md, seqk compare's text.
    const numbers = signedPercent(variant!.diff!.point)
    const text = await runNode([...SEQK, 'compare', main.runDir, branch.runDir], { cwd: dir, env: cleanEnv() })
    for (const out of [both.out, text.stdout, readFileSync(join(both.runDir, 'pr-comment.md'), 'utf8')]) {
      expect(out).toContain(numbers)
      expect(out).toMatch(/B worse/)
    }
    expect(readFileSync(join(both.runDir, 'report.html'), 'utf8')).toContain('Variants compared')
  }, 300_000)
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
