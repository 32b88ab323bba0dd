import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderDiagnostics } from '../feedback/verifier-feedback.js'
import type { Task } from '../protocol/task.js'
import { exactMatch, normaliseExact } from './exact-match.js'
import { checkVerdict, type Verdict } from './verifier.js'

const task = (expected: Task['expected'], id = 'q/1'): Task => ({
  id,
  prompt: 'The capital of France? One word.',
  expected,
})
const verify = (verifier: ReturnType<typeof exactMatch>, t: Task, answer: string) =>
  verifier.verify(t, answer) as Verdict

describe('verifiers.exactMatch', () => {
  it('passes the expected answer (trimmed by default), fails anything else, with well-formed verdicts', () => {
    const v = exactMatch()
    expect(verify(v, task('Paris'), '  Paris\n')).toEqual({
      pass: true,
      score: 1,
      extracted: 'Paris',
      diagnostics: { outcome: 'passed', summary: 'the answer matches the expected answer' },
    })
    const wrong = verify(v, task('Paris'), 'Lyon')
    expect(wrong).toMatchObject({
      pass: false,
      score: 0,
      diagnostics: { outcome: 'failed', summary: 'the answer does not match the expected answer' },
    })
    for (const verdict of [wrong, verify(v, task('Paris'), '')]) expect(checkVerdict(v, verdict)).toEqual(verdict)
  })

  it('accepts any of a list of expected answers', () => {
    const v = exactMatch({ ignoreCase: true })
    const t = task(['New York', 'NYC'])
    expect(verify(v, t, 'nyc').pass).toBe(true)
    expect(verify(v, t, 'new york').pass).toBe(true)
    expect(verify(v, t, 'Boston').pass).toBe(false)
  })

  it('applies each normalisation only when asked', () => {
    expect(verify(exactMatch(), task('Paris'), 'paris').pass).toBe(false)
    expect(verify(exactMatch({ ignoreCase: true }), task('Paris'), 'PARIS').pass).toBe(true)
    expect(verify(exactMatch(), task('New York'), 'New  York').pass).toBe(false)
    expect(verify(exactMatch({ collapseWhitespace: true }), task('New York'), 'New \t\n York').pass).toBe(true)
    expect(verify(exactMatch({ trim: false }), task('Paris'), 'Paris ').pass).toBe(false)
  })

  it('says how a near miss missed, without giving the expected answer away', () => {
    const summary = (answer: string, options = {}) =>
      verify(exactMatch(options), task('Paris'), answer).diagnostics.summary
    expect(summary('paris')).toBe(
      'the answer does not match the expected answer: it differs from the expected answer in letter case (the comparison is case-sensitive)',
    )
    expect(summary('Paris ', { trim: false })).toBe(
      'the answer does not match the expected answer: it differs from the expected answer only in whitespace',
    )
    expect(summary('The answer is Paris.')).toBe(
      'the answer does not match the expected answer: it holds the expected answer among other text: reply with the answer alone',
    )
    expect(summary('Lyon')).toBe('the answer does not match the expected answer')
    for (const answer of ['paris', 'The answer is Paris.', 'Lyon', 'PARIS!']) {
      const verdict = verify(exactMatch(), task('Paris'), answer)
      // What feedback.verifier() shows the actor: never the expected answer.
      expect(renderDiagnostics(verdict.diagnostics, verdict.criteria)).not.toContain('Paris')
    }
    expect(verify(exactMatch(), task('Paris'), '   ').diagnostics).toEqual({
      outcome: 'no-answer',
      summary: 'the answer is empty',
    })
  })

  it('shows the expected answer in the diagnostics only with revealExpected', () => {
    const verdict = verify(exactMatch({ revealExpected: true }), task(['Paris', 'Paname']), 'Lyon')
    expect(renderDiagnostics(verdict.diagnostics, verdict.criteria)).toContain(
      '- test_1 function call: answer\n  expected: "Paris" or "Paname"\n  got: "Lyon"',
    )
  })

  it('has a name, a version and its normalisations as settings (the protocol fingerprint)', () => {
    expect(exactMatch()).toMatchObject({
      name: 'exact-match',
      version: '1',
      settings: { trim: true, ignoreCase: false, collapseWhitespace: false, revealExpected: false },
    })
    expect(exactMatch({ ignoreCase: true, collapseWhitespace: true }).settings).toMatchObject({
      ignoreCase: true,
      collapseWhitespace: true,
    })
  })

  it('refuses tasks without an expected answer at declaration, and when verifying', () => {
    const v = exactMatch()
    expect(v.checkTask!(task('Paris'))).toEqual([])
    expect(v.checkTask!(task(undefined, 'q/2'))).toEqual([
      'task q/2: exactMatch needs `expected` (the expected answer, or a list of accepted answers), but the task has none',
    ])
    expect(v.checkTask!({ ...task(undefined), expected: { total: 42 } } as never)).toEqual([
      expect.stringContaining('neither a string, a finite number or a boolean, nor a non-empty list of them'),
    ])
    expect(() => v.verify(task(undefined, 'q/3'), 'x')).toThrow(
      /verifiers.exactMatch\(\): task "q\/3" needs `expected`/,
    )
  })

  it('rejects unknown options (naming the nearest) and non-boolean ones', () => {
    expect(() => exactMatch({ ignorecase: true } as never)).toThrow(
      'verifiers.exactMatch(): unknown option "ignorecase" (did you mean "ignoreCase"?); valid options: collapseWhitespace, ignoreCase, path, revealExpected, trim',
    )
    expect(() => exactMatch({ caseSensitive: false } as never)).toThrow(/unknown option "caseSensitive"/)
    expect(() => exactMatch({ trim: 'yes' as never })).toThrow(
      'verifiers.exactMatch(): trim must be true or false, got "yes"',
    )
  })

  // ---- laws ------------------------------------------------------------------------------------

  const text = fc.string({ unit: fc.constantFrom('a', 'B', 'c', ' ', '\t', '\n', 'É', 'é', '1'), maxLength: 12 })
  const options = fc.record({ trim: fc.boolean(), ignoreCase: fc.boolean(), collapseWhitespace: fc.boolean() })

  it('passes every expected answer as written, under any options (seeded property)', () => {
    fc.assert(
      fc.property(text, options, (expected, o) => {
        expect(verify(exactMatch(o), task(expected), expected).pass).toBe(true)
      }),
      { seed: 20261201, numRuns: 500 },
    )
  })

  it('is invariant under each of its normalisations that is on (seeded property)', () => {
    const padding = fc.string({ unit: fc.constantFrom(' ', '\t', '\n'), maxLength: 3 })
    fc.assert(
      fc.property(text, text, options, padding, padding, (expected, answer, o, before, after) => {
        const v = exactMatch(o)
        const base = verify(v, task(expected), answer).pass
        if (o.trim) expect(verify(v, task(expected), `${before}${answer}${after}`).pass).toBe(base)
        if (o.ignoreCase)
          expect(verify(v, task(expected), answer.toUpperCase()).pass).toBe(
            verify(v, task(expected), answer.toLowerCase()).pass,
          )
        if (o.collapseWhitespace)
          expect(verify(v, task(expected), answer.replace(/\s/g, ` ${before}`)).pass).toBe(
            verify(v, task(expected), answer.replace(/\s+/g, ' ')).pass,
          )
        // Symmetric: swapping answer and expected answer changes nothing.
        expect(verify(v, task(answer), expected).pass).toBe(base)
        // And the verdict is what the normalised strings say.
        expect(base).toBe(normaliseExact(answer, o) === normaliseExact(expected, o))
      }),
      { seed: 20261201, numRuns: 1000 },
    )
  })

  it('with every normalisation off, passes exactly the identical string (seeded property)', () => {
    const off = exactMatch({ trim: false, ignoreCase: false, collapseWhitespace: false })
    fc.assert(
      fc.property(text, text, (expected, answer) => {
        expect(verify(off, task(expected), answer).pass).toBe(expected === answer)
      }),
      { seed: 20261201, numRuns: 500 },
    )
  })

  it('always returns a verdict the protocol accepts (seeded property)', () => {
    fc.assert(
      fc.property(
        fc.array(text, { minLength: 1, maxLength: 3 }),
        text,
        options,
        fc.boolean(),
        (expected, answer, o, revealExpected) => {
          const v = exactMatch({ ...o, revealExpected })
          const verdict = verify(v, task(expected), answer)
          expect(checkVerdict(v, verdict)).toEqual(verdict)
        },
      ),
      { seed: 20261201, numRuns: 500 },
    )
  })
})
