import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { recordCall, spentCalls, type ChatResponse } from '../models/chat-model.js'
import { isComponentError } from '../core/component-error.js'
import { renderVerdictFeedback } from '../feedback/verifier-feedback.js'
import { requestSatisfied } from '../protocol/revision-annotation.js'
import type { Task } from '../protocol/task.js'
import { all, any, weighted } from './composed.js'
import { exactMatch } from './exact-match.js'
import { json } from './json.js'
import { numeric } from './numeric.js'
import { predicate } from './predicate.js'
import { regex } from './regex.js'
import { checkVerdict, type Verdict, type Verifier } from './verifier.js'

const task: Task = { id: 'inv/1', prompt: 'Extract the invoice as JSON.', expected: 1234.5 }
const verify = async (v: Verifier, answer: string, t: Task = task) =>
  checkVerdict(v, await v.verify(t, answer, { attempt: 1 }), { taskId: t.id, attempt: 1 })
/** A check that passes exactly when `pass` says, named `name`. */
const fixed = (name: string, pass: boolean): Verifier =>
  predicate(() => (pass ? true : { pass: false, reason: `${name} is off` }), { name })

const invoice = all([
  json(),
  numeric({ path: 'total', tolerance: 0.005 }),
  regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }),
])

describe('verifiers.all', () => {
  it('passes only when every check passes, recording each check and naming each failed one', async () => {
    const good = await verify(invoice, '{"total": 1234.5, "date": "2025-03-14"}')
    expect(good).toMatchObject({
      pass: true,
      score: 1,
      diagnostics: { outcome: 'passed', summary: 'all 3 checks pass' },
    })
    expect(good.checks?.map((c) => [c.name, c.verifier, c.pass])).toEqual([
      ['json', 'json@1', true],
      ['numeric(total)', 'numeric@2', true],
      ['regex(date)', 'regex@1', true],
    ])
    const bad = await verify(invoice, '{"total": 1243.5, "date": "14/03/2025"}')
    expect(bad.pass).toBe(false)
    expect(bad.score).toBeCloseTo(1 / 3, 12)
    expect(bad.diagnostics).toEqual({
      outcome: 'failed',
      summary:
        '2 of 3 checks failed: numeric(total): read 1243.5 from the field total: not within the tolerance of the expected value; regex(date): the field date does not match /^\\d{4}-\\d{2}-\\d{2}$/',
    })
    expect(bad.checks?.find((c) => c.name === 'numeric(total)')).toEqual({
      name: 'numeric(total)',
      verifier: 'numeric@2',
      pass: false,
      score: 0,
      extracted: '1243.5',
      diagnostics: {
        outcome: 'failed',
        summary: 'read 1243.5 from the field total: not within the tolerance of the expected value',
      },
    })
  })

  it("keeps a failed check's own outcome when every failed check shares it (an empty answer is no-answer)", async () => {
    expect((await verify(all([exactMatch(), numeric()]), '  ')).diagnostics.outcome).toBe('no-answer')
    expect((await verify(invoice, 'not json')).diagnostics.outcome).toBe('failed')
  })

  it('names checks: given names, the field read, and #2 for a repeat; a repeated given name is refused', () => {
    const v = all([exactMatch(), exactMatch(), { name: 'sku', verifier: exactMatch({ path: 'sku' }) }])
    expect((JSON.parse(v.settings.checks as string) as { name: string }[]).map((c) => c.name)).toEqual([
      'exact-match',
      'exact-match#2',
      'sku',
    ])
    expect(() =>
      all([
        { name: 'a', verifier: exactMatch() },
        { name: 'a', verifier: json() },
      ]),
    ).toThrow('verifiers.all(): check 2: the name "a" is taken by an earlier check; names must be unique')
  })

  it('refuses what is not a list of checks, naming the check and the fix', () => {
    expect(() => all([])).toThrow(/^verifiers\.all\(\): give a non-empty list of checks/)
    expect(() => all([json(), 'regex' as never])).toThrow(/^verifiers\.all\(\): check 2 is not a verifier/)
    expect(() => all([{ verifier: json(), weight: 2 }])).toThrow(
      'verifiers.all(): check 1: weight is for verifiers.weighted(); all() and any() take none',
    )
    expect(() => all([{ verifier: json(), nmae: 'x' } as never])).toThrow(
      /unknown option "nmae" \(did you mean "name"\?\)/,
    )
  })

  it("records each check's kind and settings in its own settings, so changing any check changes them", () => {
    const settings = JSON.parse(invoice.settings.checks as string) as unknown[]
    expect(settings[1]).toEqual({
      name: 'numeric(total)',
      verifier: 'numeric',
      version: '2',
      settings: {
        expected: null,
        tolerance: 0.005,
        relativeTolerance: 0,
        pick: 'last',
        revealExpected: false,
        path: 'total',
      },
    })
    const looser = all([
      json(),
      numeric({ path: 'total', tolerance: 0.01 }),
      regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }),
    ])
    expect(looser.settings.checks).not.toBe(invoice.settings.checks)
    expect(invoice).toMatchObject({ name: 'all', version: '1' })
  })

  it("gathers the checks' task problems at declaration, each under its check's name", () => {
    expect(all([exactMatch(), numeric({ expected: 3 })]).checkTask!({ id: 'q', prompt: 'p' })).toEqual([
      'verifiers.all() exact-match: task q: exactMatch needs `expected` (the expected answer, or a list of accepted answers), but the task has none',
    ])
  })

  it('awaits async checks together, keeps their grader calls, and keeps the spend of the others when one throws', async () => {
    const call = recordCall('grader', {
      text: '',
      usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      latencyMs: 1,
      finishReason: 'stop',
      costUsd: 0.01,
    } satisfies ChatResponse)
    const graded: Verifier = {
      name: 'graded',
      version: '1',
      settings: {},
      verify: async () => ({ pass: true, diagnostics: { outcome: 'passed', summary: 'ok' }, calls: [call] }),
    }
    const verdict = await verify(all([graded, fixed('sync', true)]), 'x')
    expect(verdict.calls).toEqual([call])
    expect(verdict.checks?.[0]).not.toHaveProperty('calls')
    const broken: Verifier = {
      name: 'broken',
      version: '1',
      settings: {},
      verify: async () => {
        throw new Error('the grader is down')
      },
    }
    const error = await Promise.resolve(all([graded, broken]).verify(task, 'x')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toBe('the grader is down')
    expect(spentCalls(error)).toEqual([call])
    const throwsAtOnce: Verifier = {
      ...broken,
      verify: () => {
        throw new Error('no interpreter')
      },
    }
    await expect(Promise.resolve(all([fixed('a', true), throwsAtOnce]).verify(task, 'x'))).rejects.toThrow(
      'no interpreter',
    )
  })

  it("fails the cell naming the check's verifier when a check returns a malformed verdict", async () => {
    const sloppy: Verifier = { name: 'sloppy', version: '3', settings: {}, verify: () => ({ pass: 'yes' }) as never }
    const error = await Promise.resolve()
      .then(() => all([json(), sloppy]).verify(task, '{}', { attempt: 2 }))
      .catch((e: unknown) => e)
    expect(isComponentError(error)).toBe(true)
    expect((error as Error).message).toMatch(
      /^verifier "sloppy"@3 returned a malformed verdict for task "inv\/1", attempt 2/,
    )
  })
})

describe('verifiers.any and verifiers.weighted', () => {
  it('any passes when one check passes, and still records every check', async () => {
    const v = any([exactMatch({ path: 'total' }), numeric({ tolerance: 0.5 })])
    const verdict = await verify(v, '1234.7')
    expect(verdict).toMatchObject({
      pass: true,
      score: 0.5,
      diagnostics: { summary: '1 of 2 checks passes (numeric)' },
    })
    expect(verdict.checks?.map((c) => c.pass)).toEqual([false, true])
    expect((await verify(v, 'about 1300')).diagnostics.summary).toMatch(
      /^none of the 2 checks passes: exact-match\(total\): /,
    )
  })

  it('weighted passes when the passing checks hold the threshold share of the weight', async () => {
    const v = weighted(
      [
        { verifier: numeric({ path: 'total', expected: 1234.5 }), weight: 2 },
        { verifier: exactMatch({ path: 'currency' }), weight: 1 },
        { name: 'iso date', verifier: regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }), weight: 1 },
      ],
      { threshold: 0.75 },
    )
    const t: Task = { ...task, expected: 'EUR' }
    const partly = await verify(v, '{"total": 1234.5, "currency": "USD", "date": "2025-03-14"}', t)
    expect(partly).toMatchObject({ pass: true, score: 0.75 })
    expect(partly.diagnostics.summary).toBe(
      'the passing checks hold 0.75 of the weight, the threshold is 0.75; failed: exact-match(currency): the field currency does not match the expected answer',
    )
    expect(partly.checks?.map((c) => c.weight)).toEqual([2, 1, 1])
    const low = await verify(v, '{"total": 1, "currency": "USD", "date": "2025-03-14"}', t)
    expect(low).toMatchObject({ pass: false, score: 0.25 })
    expect(v.settings.threshold).toBe(0.75)
    expect(() => weighted([json()], { threshold: 0 })).toThrow(/threshold must be a number above 0 and at most 1/)
    expect(() => weighted([json()], undefined as never)).toThrow(/give \{ threshold \}/)
    expect(() => weighted([{ verifier: json(), weight: -1 }], { threshold: 1 })).toThrow(
      'verifiers.weighted(): check 1: weight must be a finite number above 0, got -1',
    )
  })
})

describe('the laws of composition (seeded properties)', () => {
  const outcomes = fc.array(fc.boolean(), { minLength: 1, maxLength: 6 })

  it('all passes iff every check passes; any iff one does; both score the share passed', async () => {
    await fc.assert(
      fc.asyncProperty(outcomes, async (passes) => {
        const checks = passes.map((p, i) => fixed(`c${i}`, p))
        const a = await verify(all(checks), 'x')
        const o = await verify(any(checks), 'x')
        expect(a.pass).toBe(passes.every(Boolean))
        expect(o.pass).toBe(passes.some(Boolean))
        const share = passes.filter(Boolean).length / passes.length
        expect(a.score).toBeCloseTo(share, 12)
        expect(o.score).toBeCloseTo(share, 12)
        expect(a.checks?.map((c) => c.pass)).toEqual(passes)
        // Every failed check is named in the summary, and no passing one.
        for (const [i, p] of passes.entries()) expect(a.diagnostics.summary.includes(`c${i}:`)).toBe(!p)
      }),
      { seed: 20261207, numRuns: 200 },
    )
  })

  it('weighted passes iff the passing weight reaches the threshold share, whatever the order', async () => {
    const weights = fc.array(fc.record({ pass: fc.boolean(), weight: fc.integer({ min: 1, max: 9 }) }), {
      minLength: 1,
      maxLength: 6,
    })
    await fc.assert(
      fc.asyncProperty(weights, fc.integer({ min: 1, max: 20 }), async (parts, t) => {
        const threshold = t / 20
        const checks = parts.map((p, i) => ({ verifier: fixed(`c${i}`, p.pass), weight: p.weight }))
        const forward = await verify(weighted(checks, { threshold }), 'x')
        const backward = await verify(weighted([...checks].reverse(), { threshold }), 'x')
        const total = parts.reduce((n, p) => n + p.weight, 0)
        const passed = parts.reduce((n, p) => n + (p.pass ? p.weight : 0), 0)
        expect(forward.pass).toBe(passed * 20 >= t * total)
        expect(backward.pass).toBe(forward.pass)
        expect(forward.score).toBeCloseTo(passed / total, 12)
      }),
      { seed: 20261207, numRuns: 300 },
    )
  })

  it("all of one check passes what the check passes; all of all equals all of the checks' verdict", async () => {
    await fc.assert(
      fc.asyncProperty(outcomes, async (passes) => {
        const checks = passes.map((p, i) => fixed(`c${i}`, p))
        for (const c of checks) expect((await verify(all([c]), 'x')).pass).toBe((await verify(c, 'x')).pass)
        const nested = await verify(
          all([all(checks.slice(0, 1)), all(checks.slice(1).length ? checks.slice(1) : checks)]),
          'x',
        )
        expect(nested.pass).toBe(passes.every(Boolean))
      }),
      { seed: 20261207, numRuns: 100 },
    )
  })
})

describe('feedback and revision annotation of a composed verdict', () => {
  it("shows each failed check's diagnostics under its name, and names them as requests", async () => {
    const verdict = await verify(invoice, '{"total": 14, "date": "March 14"}')
    const rendered = renderVerdictFeedback(verdict)
    expect(rendered.text).toBe(
      [
        'Failed checks (2 of 3):',
        '- numeric(total): read 14 from the field total: not within the tolerance of the expected value',
        '- regex(date): the field date does not match /^\\d{4}-\\d{2}-\\d{2}$/',
      ].join('\n'),
    )
    expect(rendered.requests).toEqual(['check:numeric(total)', 'check:regex(date)'])
    const revision = await verify(invoice, '{"total": 1234.5, "date": "March 14"}')
    expect(requestSatisfied('check:numeric(total)', revision)).toBe(true)
    expect(requestSatisfied('check:regex(date)', revision)).toBe(false)
    expect(requestSatisfied('check:nope', revision)).toBeNull()
  })

  it("indents a check's own details (failing tests, a load error) under it, and cuts the whole to maxChars", () => {
    const verdict: Verdict = {
      pass: false,
      diagnostics: { outcome: 'failed', summary: '1 of 2 checks failed' },
      checks: [
        { name: 'json', verifier: 'json@1', pass: true, diagnostics: { outcome: 'passed', summary: 'ok' } },
        {
          name: 'tests',
          verifier: 'python-tests@3',
          pass: false,
          diagnostics: {
            outcome: 'failed',
            summary: '1 of 2 tests failed',
            tests: [{ index: 1, source: 'assert f(2) == 4', pass: false, call: 'f(2)', expected: '4', actual: '5' }],
          },
        },
      ],
    }
    const text = renderVerdictFeedback(verdict).text
    expect(text).toContain('- tests: 1 of 2 tests failed\n    Failed test details:\n    - test_2 function call: f(2)')
    const short = renderVerdictFeedback(verdict, { maxChars: 60 })
    expect(short.text.length).toBeLessThanOrEqual(60)
    expect(short.requests).toEqual(['check:tests']) // its name survived the cut
    expect(renderVerdictFeedback(verdict, { maxChars: 40 }).requests).toEqual([])
  })

  it('a plain verdict renders as before', () => {
    const verdict: Verdict = { pass: false, diagnostics: { outcome: 'failed', summary: 'expected 42, got 41' } }
    expect(renderVerdictFeedback(verdict).text).toBe('expected 42, got 41')
  })
})
