import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderDiagnostics } from '../feedback/verifier-feedback.js'
import type { Task } from '../protocol/task.js'
import { contains } from './contains.js'
import { checkVerdict, type Verdict, type Verifier } from './verifier.js'

const task = (expected?: Task['expected'], id = 'q/1'): Task => ({
  id,
  prompt: 'Explain, then end with "Final answer:".',
  expected,
})
const verify = (v: Verifier, answer: string, t: Task = task()) => v.verify(t, answer) as Verdict
const feedbackOf = (verdict: Verdict) => renderDiagnostics(verdict.diagnostics, verdict.criteria)

describe('verifiers.contains', () => {
  it('passes an answer holding every phrase, and says which are missing (the feedback a revision needs)', () => {
    const v = contains(['Step 1', 'Final answer:'])
    expect(verify(v, 'Step 1: add. Final answer: 9')).toEqual({
      pass: true,
      score: 1,
      diagnostics: { outcome: 'passed', summary: 'the answer contains all 2 required phrases' },
    })
    const missed = verify(v, 'Step 1: add. So 9.')
    expect(missed).toEqual({
      pass: false,
      score: 0.5,
      diagnostics: { outcome: 'failed', summary: 'the answer lacks 1 of 2 required phrases: "Final answer:"' },
    })
    expect(feedbackOf(missed)).toBe('the answer lacks 1 of 2 required phrases: "Final answer:"')
    expect(verify(contains('Final answer:'), 'final answer: 9').diagnostics.summary).toBe(
      'the answer lacks the required phrase: "Final answer:"; "Final answer:" appears in other letter case (the comparison is case-sensitive)',
    )
    expect(verify(contains('Final answer:', { ignoreCase: true }), 'FINAL ANSWER: 9').pass).toBe(true)
    expect(verify(v, '  \n').diagnostics).toEqual({ outcome: 'no-answer', summary: 'the answer is empty' })
  })

  it("with match: 'any', passes one phrase of several", () => {
    const v = contains(['yes', 'indeed'], { match: 'any' })
    expect(verify(v, 'indeed it is').diagnostics.summary).toBe('the answer contains 1 of 2 required phrases')
    expect(verify(v, 'no').diagnostics.summary).toBe(
      'the answer contains none of the 2 required phrases: "yes", "indeed"',
    )
  })

  it("takes the phrases from each task's expected, never showing them unless asked", () => {
    const v = contains({ match: 'all' })
    const t = task(['Canberra', 'Australian Capital Territory'])
    expect(verify(v, 'It is Canberra, in the Australian Capital Territory.', t).pass).toBe(true)
    const missed = verify(v, 'It is canberra.', t)
    expect(missed.diagnostics.summary).toBe(
      'the answer lacks 2 of 2 expected phrases; 1 of them appears in other letter case (the comparison is case-sensitive)',
    )
    expect(feedbackOf(missed)).not.toMatch(/Canberra|Territory/)
    expect(verify(contains({ revealExpected: true }), 'Sydney', task('Canberra')).diagnostics.summary).toBe(
      'the answer lacks the expected phrase: "Canberra"',
    )
    expect(v.checkTask!(task(undefined, 'q/2'))).toEqual([
      expect.stringMatching(/^task q\/2: contains needs `expected`/),
    ])
    expect(contains('x').checkTask!(task())).toEqual([])
    expect(() => v.verify(task(undefined, 'q/3'), 'x')).toThrow(/verifiers.contains\(\): task "q\/3" needs `expected`/)
  })

  it('records its phrases and options as settings (the fingerprint)', () => {
    expect(contains(['a', 'b'], { match: 'any' })).toMatchObject({
      name: 'contains',
      version: '1',
      settings: { match: 'any', ignoreCase: false, revealExpected: true, text: '["a","b"]' },
    })
    expect(contains().settings).toMatchObject({ text: null, revealExpected: false })
  })

  it('checks its arguments, naming the option and the fix', () => {
    expect(() => contains('')).toThrow(
      'verifiers.contains(text): text must be a non-empty string or a non-empty list of non-empty strings, got ""',
    )
    expect(() => contains([])).toThrow(/text must be a non-empty string/)
    expect(() => contains('x', { match: 'some' as never })).toThrow(
      "verifiers.contains(): match must be 'all' or 'any', got \"some\"",
    )
    expect(() => contains('x', { ignorecase: true } as never)).toThrow(
      'unknown option "ignorecase" (did you mean "ignoreCase"?)',
    )
    expect(() => contains('x', { ignoreCase: 'yes' as never })).toThrow(
      'verifiers.contains(): ignoreCase must be true or false, got "yes"',
    )
  })

  // ---- laws ------------------------------------------------------------------------------------

  const text = fc.string({ unit: fc.constantFrom('a', 'B', 'b', ' ', 'é', 'É', '1'), maxLength: 10 })
  const needle = text.filter((s) => s !== '')

  it('passes exactly when every phrase (all) or one phrase (any) is a substring (seeded property)', () => {
    fc.assert(
      fc.property(
        fc.array(needle, { minLength: 1, maxLength: 3 }),
        text,
        fc.boolean(),
        fc.constantFrom('all' as const, 'any' as const),
        (needles, answer, ignoreCase, match) => {
          const v = contains(needles, { match, ignoreCase })
          const verdict = verify(v, answer)
          const fold = (s: string) => (ignoreCase ? s.toLowerCase() : s)
          const holds = needles.map((n) => fold(answer).includes(fold(n)))
          const expected = answer.trim() !== '' && (match === 'all' ? holds.every(Boolean) : holds.some(Boolean))
          expect(verdict.pass).toBe(expected)
          expect(checkVerdict(v, verdict)).toEqual(verdict)
        },
      ),
      { seed: 20261201, numRuns: 800 },
    )
  })

  it('passes any answer built around its phrases, and never shows hidden phrases (seeded property)', () => {
    fc.assert(
      fc.property(needle, text, text, (phrase, before, after) => {
        const answer = `${before}${phrase}${after}`
        if (answer.trim() === '') return
        expect(verify(contains(phrase), answer).pass).toBe(true)
        const hidden = verify(contains(), `${before}${after}`, task(`${phrase}#`))
        if (!hidden.pass) expect(feedbackOf(hidden)).not.toContain(`${phrase}#`)
      }),
      { seed: 20261201, numRuns: 500 },
    )
  })
})
