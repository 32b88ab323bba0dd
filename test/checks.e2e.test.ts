// Several checks on one JSON answer, end to end in a real eval run: a child Vitest runs an eval
// file whose tasks come from a JSON Lines file with numbers as `expected`, judged by
// verifiers.all, any and weighted over `path` fields. The run's summary.json carries each composed
// verifier's checks in its protocol, every attempt in trajectories.jsonl records each check's
// verdict, the verifier feedback names the failed checks, and the thresholds hold or fail as the
// checks say.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { RunSummarySchema, TrajectorySchema } from '../src/core/schemas.js'
import { cleanEnv, fixtureProject, runNode, VITEST } from './fixture-project.js'

const dir = fixtureProject('seqk-checks-')
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const invoices = [
  { id: 'acme', total: 1234.5, currency: 'EUR', date: '2025-03-14' },
  { id: 'nordic', total: 846, currency: 'SEK', date: '2025-01-02' },
  { id: 'globex', total: 2160, currency: 'USD', date: '2025-06-30' },
  { id: 'umbrella', total: 520, currency: 'GBP', date: '2025-04-01' },
]
writeFileSync(
  join(dir, 'invoices.jsonl'),
  invoices
    .map((i) =>
      JSON.stringify({
        id: i.id,
        prompt: `Extract {"total", "currency", "date"} from invoice ${i.id}.`,
        expected: i.total,
        simulation: {
          correct: [JSON.stringify({ total: i.total, currency: i.currency, date: i.date })],
          wrong: [
            JSON.stringify({ total: i.total * 10, currency: i.currency, date: i.date }),
            JSON.stringify({ total: i.total, currency: i.currency, date: i.date.split('-').reverse().join('.') }),
            `The total is ${i.total}.`,
          ],
        },
      }),
    )
    .join('\n'),
)
writeFileSync(
  join(dir, 'checks.eval.ts'),
  `import { actors, feedback, loadTasks, seqEval, verifiers } from 'vitest-seqk'
const tasks = loadTasks(new URL('./invoices.jsonl', import.meta.url))
const shared = { tasks, actors: [actors.simulated({ profile: 'reviser' })], budget: 3, repeats: 3 }
const total = verifiers.numeric({ path: 'total', tolerance: 0.005 })
const date = verifiers.regex(/^\\d{4}-\\d{2}-\\d{2}$/, { path: 'date' })
seqEval('invoices, every check', {
  ...shared,
  verifier: verifiers.all([verifiers.json(), total, date]),
  modes: { verifier: { feedback: feedback.verifier(), expect: { seqAt: { 3: 0.5 } } } },
})
seqEval('invoices, any check', {
  ...shared,
  verifier: verifiers.any([total, date]),
  modes: { verifier: { feedback: feedback.verifier(), expect: { seqAt: { 1: 0.5 } } } },
})
seqEval('invoices, weighted', {
  ...shared,
  verifier: verifiers.weighted([{ verifier: total, weight: 3 }, { name: 'iso date', verifier: date }], { threshold: 0.75 }),
  // The total alone holds 0.75 of the weight: a wrong date never fails a right total; this threshold cannot hold.
  modes: { verifier: { feedback: feedback.verifier(), expect: { seqAt: { 1: 0.99 } } } },
})
`,
)

describe('verifiers.all, any and weighted over path fields, in a real eval run', () => {
  it('records every check, feeds back the failed ones by name, and gates on the composed verdicts', async () => {
    const r = await runNode([VITEST, 'run'], { cwd: dir, env: cleanEnv({ SEQK_RUN_ID: 'checks' }), timeoutMs: 120_000 })
    const out = `${r.stdout}\n${r.stderr}`
    // The weighted block's threshold is out of reach on purpose: the run fails on that cell alone.
    expect(r.status, out).toBe(1)
    const run = join(dir, '.seqk', 'runs', 'checks')
    const summary = RunSummarySchema.parse(JSON.parse(readFileSync(join(run, 'summary.json'), 'utf8')))
    const cells = new Map(summary.benchmarks.map((b) => [b.name, b.cells[0]!]))
    expect([...cells.keys()].sort()).toEqual(['invoices, any check', 'invoices, every check', 'invoices, weighted'])
    expect(cells.get('invoices, every check')!.verdict).toBe('pass')
    expect(cells.get('invoices, any check')!.verdict).toBe('pass')
    expect(cells.get('invoices, weighted')!.verdict).toBe('fail')
    // Each composed verifier's checks, with their settings, are in its protocol.
    const every = cells.get('invoices, every check')!.protocol.verifier
    expect(every.name).toBe('all')
    expect((JSON.parse(String(every.settings.checks)) as { name: string }[]).map((c) => c.name)).toEqual([
      'json',
      'numeric(total)',
      'regex(date)',
    ])
    expect(cells.get('invoices, weighted')!.protocol.verifier.settings.threshold).toBe(0.75)

    const trajectories = readFileSync(join(run, 'trajectories.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => TrajectorySchema.parse(JSON.parse(l)))
    const of = (benchmark: string) => trajectories.filter((t) => t.benchmark === benchmark).flatMap((t) => t.attempts)
    for (const a of of('invoices, every check')) {
      expect(a.verdict.checks!.map((c) => c.name)).toEqual(['json', 'numeric(total)', 'regex(date)'])
      expect(a.verdict.pass).toBe(a.verdict.checks!.every((c) => c.pass))
      const failed = a.verdict.checks!.filter((c) => !c.pass)
      if (a.feedback) expect(a.feedback.requests).toEqual(failed.map((c) => `check:${c.name}`))
    }
    // Every JSON answer's total is read from its field, never from the date's digits.
    const json = of('invoices, every check').filter((a) => a.answer.startsWith('{'))
    expect(json.length).toBeGreaterThan(0)
    for (const a of json)
      expect(a.verdict.checks![1]!.extracted).toBe(String((JSON.parse(a.answer) as { total: number }).total))
    expect(json.some((a) => !a.verdict.checks![1]!.pass)).toBe(true)
    for (const a of of('invoices, any check')) expect(a.verdict.pass).toBe(a.verdict.checks!.some((c) => c.pass))
    for (const a of of('invoices, weighted')) {
      expect(a.verdict.checks!.map((c) => [c.name, c.weight])).toEqual([
        ['numeric(total)', 3],
        ['iso date', 1],
      ])
      expect(a.verdict.pass).toBe(a.verdict.checks![0]!.pass)
    }
  }, 150_000)
})
