import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { cellStartOf, fakeRun } from '../../test/report-fixtures.js'
import type { CellStartRecord } from '../artifacts/cells-file.js'
import { DisclosureCardSchema } from '../core/disclosure.js'
import { ESTIMATE_SCHEMA, type CellEstimate } from '../core/estimate.js'
import type { RunSummary } from '../core/schemas.js'
import { disclosureCard, errorClass, renderDisclosure, type DisclosureInput } from './disclosure.js'
import { gitState } from './environment.js'

const HARNESS: DisclosureInput['harness'] = {
  vitestSeqk: '0.1.0',
  vitest: '4.1.12',
  node: 'v20.20.2',
  python: { version: '3.11.2', path: '/usr/bin/python3' },
  pythonUsed: true,
  sdks: { openai: '6.49.0', '@anthropic-ai/sdk': '1.14.0' },
  os: { platform: 'linux', release: '6.1.0', version: '#1 SMP', arch: 'x64' },
  git: { commit: 'a'.repeat(40), clean: true, branch: 'main' },
  collected: { at: '2026-01-01T00:00:06.000Z', by: 'reporter' },
}

const estimate = (expected: number | null): CellEstimate => ({
  schema: ESTIMATE_SCHEMA,
  trajectories: 10,
  budget: 4,
  calls: { expected: 20, low: 10, high: 40 },
  inputTokens: { expected: 2000, low: 1000, high: 4000 },
  outputTokens: { expected: 1000, low: 500, high: 2000 },
  costUsd: { expected, low: 0.001, high: 0.1 },
  basis: {
    kind: expected === null ? 'prompts' : 'previous-run',
    ...(expected === null ? {} : { runId: 'prev', match: 'same-protocol' as const }),
    tokenizer: 'chars/4',
    helpers: 'estimated',
    notes: [],
  },
})

/** The start records the run's cells would have written: with provenance, and an estimate per cell. */
function startsOf(
  summary: RunSummary,
  expected: (i: number) => number | null,
  source: string | null = 'toy-set',
): CellStartRecord[] {
  return summary.benchmarks.flatMap((b) =>
    b.cells.map((c, i) => ({
      ...cellStartOf(c, b.file),
      estimate: estimate(expected(i)),
      provenance: { sources: source ? [source] : [], revisions: ['v1.2'], subsets: [] },
    })),
  )
}

const ERRORS = [
  'HTTP 500: the server had an error',
  'Request timed out after 120000 ms',
  'connect ECONNREFUSED 127.0.0.1:9',
  'HTTP 429: rate limit reached',
  'SandboxUnavailableError: bubblewrap cannot run here',
  'weird',
]

describe('disclosureCard', () => {
  const fake = fakeRun({
    errorFor: (taskId, repeat, _a, mode) =>
      mode === 'binary' && repeat === 0 ? ERRORS[Number(taskId.slice(2)) - 1] : undefined,
  })
  // Code verdicts say which sandbox judged them (the fake run's python-tests verdicts do not).
  const run = {
    ...fake,
    summary: {
      ...fake.summary,
      benchmarks: fake.summary.benchmarks.map((b) => ({
        ...b,
        cells: b.cells.map((c) => ({ ...c, sandboxes: { bwrap: 10 } })),
      })),
    },
  }
  const card = disclosureCard({
    summary: run.summary,
    starts: startsOf(run.summary, (i) => 0.01 * (i + 1)),
    trajectories: run.trajectories,
    harness: HARNESS,
  })

  it('validates against its zod schema and against the generated schemas/disclosure.schema.json', () => {
    expect(DisclosureCardSchema.parse(card)).toEqual(card)
    const schema = JSON.parse(
      readFileSync(new URL('../../schemas/disclosure.schema.json', import.meta.url), 'utf8'),
    ) as object
    const validate = new Ajv2020({ strict: false }).compile(schema)
    expect(validate(card), JSON.stringify(validate.errors)).toBe(true)
    expect(validate({ ...card, harness: { ...card.harness, git: { commit: 1 } } })).toBe(false)
  })

  it('is complete when every required field is known', () => {
    expect(card.completeness).toEqual({
      score: 1,
      known: card.completeness.required,
      required: card.completeness.required,
      missing: [],
    })
    expect(card.benchmarks).toEqual([
      {
        name: 'toy benchmark',
        file: 'evals/toy.eval.ts',
        tasks: 5,
        contentHash: 'c0ffee',
        source: 'toy-set',
        revision: 'v1.2',
        subset: null,
      },
    ])
    expect(card.inference.map((a) => a.servedModel)).toEqual([
      'simulated:sim:careful (seeded local simulation)',
      'simulated:sim:quick (seeded local simulation)',
    ])
    expect(card.inference[0]!.cells.map((c) => c.mode)).toEqual(['binary', 'verifier', 'independent'])
  })

  it('names each unknown field with its fix, and scores it: no source, an unpriced call, no git, no Python, a remote actor', () => {
    const unpriced = fakeRun({ costPerAttempt: null })
    const remote: RunSummary = {
      ...unpriced.summary,
      benchmarks: unpriced.summary.benchmarks.map((b) => ({
        ...b,
        cells: b.cells.map((c) => ({
          ...c,
          protocol: { ...c.protocol, actor: { provider: 'anthropic', model: 'claude-haiku-4-5', params: {} } },
        })),
      })),
    }
    const harness = {
      ...HARNESS,
      python: null,
      git: { commit: null, clean: null, branch: null },
      sdks: { openai: '6.49.0', '@anthropic-ai/sdk': null },
    }
    const bad = disclosureCard({
      summary: remote,
      starts: startsOf(remote, () => null, null),
      trajectories: unpriced.trajectories,
      harness,
    })
    expect(bad.completeness.missing.map((m) => m.field)).toEqual([
      'benchmarks["toy benchmark"].source',
      'harness.python',
      'harness.sandbox',
      'harness.sdks["@anthropic-ai/sdk"]',
      'harness.git.commit',
      'harness.git.clean',
      'inference["sim:careful"].servedModel',
      'inference["sim:quick"].servedModel',
      'cost.costUsd',
    ])
    expect(bad.completeness.score).toBeCloseTo(1 - 9 / bad.completeness.required, 12)
    expect(bad.cost.costUsd).toBeNull()
    for (const m of bad.completeness.missing) expect(m.fix.length).toBeGreaterThan(10)
    expect(DisclosureCardSchema.safeParse(bad).success).toBe(true)
  })

  it('names the served model as the provider reported it, over what the descriptor says', () => {
    const reported = run.trajectories.map((t) =>
      t.actorId === 'sim:quick'
        ? {
            ...t,
            attempts: t.attempts.map((a, i) => ({
              ...a,
              servedModel: i === 0 ? 'quick-2026-01-01' : 'quick-2026-02-01',
            })),
          }
        : t,
    )
    const served = disclosureCard({
      summary: run.summary,
      starts: [],
      trajectories: reported,
      harness: HARNESS,
    }).inference.map((a) => a.servedModel)
    expect(served).toEqual(['simulated:sim:careful (seeded local simulation)', 'quick-2026-01-01, quick-2026-02-01'])
  })

  it('breaks failures down by stage and class, counts them, and lists failed cells with their reasons', () => {
    const errored = run.trajectories.filter((t) => t.status === 'error')
    expect(card.failures.errored).toBe(errored.length)
    expect(card.failures.byStage).toEqual({ actor: errored.length })
    expect(card.failures.byClass).toEqual({ server: 2, timeout: 2, connection: 2, 'rate-limit': 2, sandbox: 2 })
    expect(card.failures.timeouts.errors).toBe(2)
    const failing = run.summary.benchmarks[0]!.cells.filter((c) => c.verdict === 'fail')
    expect(card.failures.failedCells.map((c) => c.cellId)).toEqual(failing.map((c) => c.cellId))
  })

  it('sets each cell estimate beside its actual cost, and the error of their sums', () => {
    const cells = run.summary.benchmarks[0]!.cells
    expect(card.cost.estimates.map((e) => e.error)).toEqual(
      cells.map((c, i) => (0.01 * (i + 1) - c.costUsd!) / c.costUsd!),
    )
    const expected = cells.reduce((n, _c, i) => n + 0.01 * (i + 1), 0)
    const actual = cells.reduce((n, c) => n + c.costUsd!, 0)
    expect(card.cost.estimate).toEqual({
      cells: cells.length,
      expectedUsd: expected,
      actualUsd: actual,
      error: (expected - actual) / actual,
    })
    // A shard's cost covers its share of the tasks: no error against the whole cell's estimate.
    const sharded = {
      ...run.summary,
      benchmarks: run.summary.benchmarks.map((b) => ({
        ...b,
        cells: b.cells.map((c) => ({ ...c, shard: { index: 1, count: 2 } })),
      })),
    }
    expect(
      disclosureCard({
        summary: sharded,
        starts: startsOf(sharded, () => 0.5),
        trajectories: run.trajectories,
        harness: HARNESS,
      }).cost.estimate,
    ).toBeNull()
  })

  it('keeps usage no reply reported unknown, never 0 tokens: null when no call reported any, else counted', () => {
    const cells = run.summary.benchmarks[0]!.cells
    const withUnknown = (unknownAll: boolean) => {
      const summary = {
        ...run.summary,
        benchmarks: run.summary.benchmarks.map((b) => ({
          ...b,
          cells: b.cells.map((c, i) => ({
            ...c,
            ...(unknownAll || i === 0 ? { usage: null, usageUnknownCalls: c.calls, costUsd: null } : {}),
            byRole: Object.fromEntries(
              Object.entries(c.byRole).map(([role, r]) => [
                role,
                unknownAll || i === 0 ? { ...r, usage: null, usageUnknownCalls: r.calls, costUsd: null } : r,
              ]),
            ),
          })),
        })),
      }
      return disclosureCard({ summary, starts: startsOf(summary, () => 0.5), trajectories: [], harness: HARNESS })
    }
    const partly = withUnknown(false)
    expect(DisclosureCardSchema.parse(partly)).toEqual(partly)
    expect(partly.cost.usageUnknownCalls).toBe(cells[0]!.calls)
    expect(partly.cost.usage!.inputTokens).toBe(cells.slice(1).reduce((n, c) => n + c.usage!.inputTokens, 0))
    expect(partly.cost.byRole.actor!.usageUnknownCalls).toBe(cells[0]!.byRole.actor!.calls)
    expect(partly.cost.costUsd).toBeNull()
    const none = withUnknown(true)
    expect(none.cost.usage).toBeNull()
    expect(none.cost.byRole.actor!.usage).toBeNull()
    const text = stripVTControlCharacters(renderDisclosure(none))
    expect(text).toMatch(/tokens unknown; \d+ calls reported no usage/)
    expect(text).not.toMatch(/\b0 tokens in/)
  })

  it('prints every part within 120 columns, unknowns said as unknown', () => {
    const text = renderDisclosure({ ...card, harness: { ...card.harness, os: null } })
    for (const line of text.split('\n'))
      expect([...stripVTControlCharacters(line)].length, line).toBeLessThanOrEqual(120)
    for (const part of ['Benchmark', 'Harness', 'Inference', 'Cost', 'Failures', 'Completeness 100%'])
      expect(text).toContain(`\n${part}`)
    expect(text).toContain(' OS: unknown')
  })

  it('classifies error messages, the first matching class winning; anything else is other', () => {
    expect(ERRORS.map(errorClass)).toEqual(['server', 'timeout', 'connection', 'rate-limit', 'sandbox', 'other'])
    expect(errorClass('PythonNotFoundError: no usable Python interpreter')).toBe('python')
  })
})

describe('gitState', () => {
  it('records the commit and whether tracked files are unchanged (untracked files do not count); nulls outside a work tree', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-git-'))
    expect(await gitState(dir)).toEqual({ commit: null, clean: null, branch: null })
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
        cwd: dir,
        stdio: 'ignore',
        timeout: 10_000,
      })
    git('init', '-q', '-b', 'main')
    writeFileSync(join(dir, 'a.txt'), 'a\n')
    git('add', 'a.txt')
    git('commit', '-q', '-m', 'a')
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8', timeout: 10_000 }).trim()
    writeFileSync(join(dir, 'untracked.txt'), 'x\n')
    expect(await gitState(dir)).toEqual({ commit: head, clean: true, branch: 'main' })
    writeFileSync(join(dir, 'a.txt'), 'changed\n')
    expect(await gitState(dir)).toEqual({ commit: head, clean: false, branch: 'main' })
  })
})
