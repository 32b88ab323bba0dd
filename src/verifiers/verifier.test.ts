import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isComponentError, type ComponentError } from '../core/component-error.js'
import { checkVerdict, isPlainVerdict, VerdictSchema, type Verdict } from './verifier.js'

const verifier = { name: 'mine', version: '2' }
const at = { taskId: 't/1', attempt: 3 }

function rejection(value: unknown): ComponentError {
  try {
    checkVerdict(verifier, value, at)
  } catch (error) {
    if (isComponentError(error)) return error
    throw error
  }
  throw new Error(`accepted ${JSON.stringify(value)}`)
}

describe('checkVerdict', () => {
  it('returns a valid verdict, as VerdictSchema reads it', () => {
    const plain: Verdict = { pass: true, score: 1, diagnostics: { outcome: 'passed', summary: 'ok' } }
    expect(checkVerdict(verifier, plain)).toBe(plain)
    const rich = {
      pass: false,
      diagnostics: { outcome: 'failed', summary: '1 of 1', tests: [{ index: 0, source: 'assert f()', pass: false }] },
      criteria: [{ id: 'c', text: 'C', met: false }],
      extra: () => 1,
    }
    // Unknown fields are dropped, so nothing unserialisable reaches an artifact.
    expect(checkVerdict(verifier, rich)).toEqual({
      pass: false,
      diagnostics: rich.diagnostics,
      criteria: rich.criteria,
    })
  })

  // The three symptoms of the issue, and their class.
  it('rejects a verdict without diagnostics.outcome (it used to make readTrajectories reject the run)', () => {
    const error = rejection({ pass: false, diagnostics: { summary: 'wrong' } })
    expect(error.fields).toEqual(['diagnostics.outcome'])
    expect(error.message).toMatch(
      /^verifier "mine"@2 returned a malformed verdict for task "t\/1", attempt 3: diagnostics\.outcome: /,
    )
    expect(error.message).toContain("Fix: set `diagnostics.outcome` to 'passed' (when pass is true), else 'failed'")
  })

  it('rejects a verdict without diagnostics (it used to crash the reporter)', () => {
    const error = rejection({ pass: true })
    expect(error.fields).toEqual(['diagnostics'])
    expect(error.message).toContain('Fix: add `diagnostics: { outcome, summary }`')
  })

  it("rejects pass: 'yes' (it used to count silently as a failure)", () => {
    const error = rejection({ pass: 'yes', diagnostics: { outcome: 'passed', summary: 'ok' } })
    expect(error.fields).toEqual(['pass'])
    expect(error.message).toMatch(/pass: .*expected boolean.*\(got "yes"\)/)
    expect(error.message).toContain('Fix: set `pass` to the boolean true or false')
  })

  it.each([
    [
      'nothing (a verify that forgot to return)',
      undefined,
      ['(root)'],
      /got undefined \(nothing was returned\).*did it forget to return it/,
    ],
    ['a bare boolean', true, ['(root)'], /verify\(\) must return \(or resolve to\) a verdict object/],
    ['pass as a number', { pass: 1, diagnostics: { outcome: 'passed', summary: '' } }, ['pass'], /\(got 1\)/],
    [
      'an unknown outcome',
      { pass: false, diagnostics: { outcome: 'wrong', summary: 'x' } },
      ['diagnostics.outcome'],
      /\(got "wrong"\)/,
    ],
    [
      'a summary that is not a string',
      { pass: false, diagnostics: { outcome: 'failed', summary: 42 } },
      ['diagnostics.summary'],
      /Fix: set `diagnostics.summary` to a one-line string/,
    ],
    [
      'a malformed test outcome',
      {
        pass: false,
        diagnostics: { outcome: 'failed', summary: 'x', tests: [{ index: -1, source: 's', pass: 'no' }] },
      },
      ['diagnostics.tests[0].index', 'diagnostics.tests[0].pass'],
      /each of `diagnostics.tests` is/,
    ],
    [
      'a criterion without met',
      { pass: false, diagnostics: { outcome: 'failed', summary: 'x' }, criteria: [{ id: 'c', text: 'C' }] },
      ['criteria[0].met'],
      /each of `criteria` is/,
    ],
    [
      'a NaN score',
      { pass: false, score: Number.NaN, diagnostics: { outcome: 'failed', summary: 'x' } },
      ['score'],
      /make `score` a number in \[0, 1\]/,
    ],
    [
      'a score outside [0, 1]',
      { pass: true, score: 1.5, diagnostics: { outcome: 'passed', summary: 'x' } },
      ['score'],
      /is 1\.5, outside \[0, 1\].*make `score` a number in \[0, 1\]/s,
    ],
    [
      'a malformed grader call',
      { pass: false, diagnostics: { outcome: 'failed', summary: 'x' }, calls: [{ role: 'grader' }] },
      ['calls[0].usage'],
      /recordCall\('grader', response\)/,
    ],
  ])('rejects %s', (_, value, fields, message) => {
    const error = rejection(value)
    for (const field of fields) expect(error.fields).toContain(field)
    expect(error.message).toMatch(message)
  })

  it('rejects a verdict whose pass and outcome contradict each other', () => {
    expect(rejection({ pass: true, diagnostics: { outcome: 'failed', summary: 'x' } }).message).toMatch(
      /diagnostics\.outcome: is "failed" but pass is true/,
    )
    expect(rejection({ pass: false, diagnostics: { outcome: 'passed', summary: 'x' } }).message).toMatch(
      /is 'passed' but pass is false/,
    )
    // Also on the slow path (a verdict with tests goes to zod).
    expect(rejection({ pass: true, diagnostics: { outcome: 'timeout', summary: 'x', tests: [] } }).fields).toEqual([
      'diagnostics.outcome',
    ])
  })

  it('never returns a verdict that VerdictSchema rejects or whose pass is not a boolean (seeded property)', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        let verdict: Verdict
        try {
          verdict = checkVerdict(verifier, value)
        } catch (error) {
          expect(isComponentError(error)).toBe(true)
          return
        }
        expect(typeof verdict.pass).toBe('boolean')
        expect(VerdictSchema.safeParse(verdict).success).toBe(true)
      }),
      { seed: 20261201, numRuns: 2000 },
    )
  })
})

describe('isPlainVerdict (the fast path)', () => {
  // Mostly well-formed verdicts, now and then a hostile field, so both sides of the fast path are taken.
  const valid = (good: fc.Arbitrary<unknown>, ...bad: unknown[]): fc.Arbitrary<unknown> =>
    fc.oneof({ arbitrary: good, weight: 15 }, { arbitrary: fc.constantFrom(...bad), weight: 1 })
  const rarely = <T>(a: fc.Arbitrary<T>) =>
    fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, { arbitrary: a, weight: 1 })
  const sometimes = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 })
  const verdict = fc.boolean().chain((agreeing) =>
    fc.record({
      pass: valid(fc.constant(agreeing), 'yes', 1, null),
      diagnostics: valid(
        fc.record({
          outcome: agreeing
            ? valid(fc.constant('passed'), 'failed', undefined)
            : valid(fc.constantFrom('failed', 'load-error', 'timeout', 'no-answer'), 'passed', 'wrong'),
          summary: valid(fc.string({ maxLength: 4 }), 3, null, undefined),
          error: sometimes(valid(fc.string({ maxLength: 4 }), 1)),
          stdout: sometimes(fc.string({ maxLength: 4 })),
          stderr: sometimes(valid(fc.string({ maxLength: 4 }), false)),
          tests: rarely(valid(fc.constant([]), [{ index: 0 }])),
          other: rarely(fc.constant('x')),
        }),
        null,
        [],
        'failed',
      ),
      score: sometimes(
        valid(fc.double({ noNaN: true, noDefaultInfinity: true }), Number.NaN, Number.POSITIVE_INFINITY, '1'),
      ),
      extracted: sometimes(valid(fc.string({ maxLength: 4 }), 1)),
      variant: sometimes(valid(fc.constantFrom('raw', 'sanitised'), 'other')),
      durationMs: sometimes(valid(fc.nat(100), -1, Number.NaN)),
      sandbox: sometimes(valid(fc.constantFrom('bwrap', 'none'), 'docker')),
      criteria: rarely(fc.constant([])),
      unknown: rarely(fc.constant(1)),
    }),
  )
  // Keys with undefined values left out (as a verifier would write them), now and then kept.
  const dropUndefined = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, dropUndefined(v)]),
    )
  }
  const arbitrary = fc.oneof(
    { arbitrary: verdict.map(dropUndefined), weight: 8 },
    { arbitrary: verdict, weight: 1 },
    { arbitrary: fc.anything(), weight: 1 },
  )

  it('accepts only verdicts VerdictSchema accepts unchanged, with pass and outcome agreeing (seeded property)', () => {
    let fast = 0
    fc.assert(
      fc.property(arbitrary, (value) => {
        if (!isPlainVerdict(value)) return
        fast++
        const parsed = VerdictSchema.safeParse(value)
        expect(parsed.success).toBe(true)
        // Unchanged: nothing for zod to drop, so keeping the object as it is stores the same thing.
        expect(JSON.parse(JSON.stringify(parsed.data))).toEqual(JSON.parse(JSON.stringify(value)))
        expect(value.pass).toBe(value.diagnostics.outcome === 'passed')
      }),
      { seed: 20261201, numRuns: 4000 },
    )
    expect(fast).toBeGreaterThan(300)
  })

  it('takes every well-formed scalar verdict checkVerdict accepts (no needless slow path; seeded property)', () => {
    fc.assert(
      fc.property(verdict.map(dropUndefined), (value) => {
        const v = value as Record<string, unknown>
        if (
          v.criteria !== undefined ||
          v.unknown !== undefined ||
          (v.diagnostics as Record<string, unknown> | undefined)?.tests !== undefined ||
          (v.diagnostics as Record<string, unknown> | undefined)?.other !== undefined
        )
          return
        let accepted = true
        try {
          checkVerdict(verifier, value)
        } catch {
          accepted = false
        }
        expect(isPlainVerdict(value)).toBe(accepted)
      }),
      { seed: 20261201, numRuns: 3000 },
    )
  })
})
