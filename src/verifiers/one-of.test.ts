import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderDiagnostics } from '../feedback/verifier-feedback.js'
import type { Task } from '../protocol/task.js'
import { normaliseExact } from './exact-match.js'
import { oneOf } from './one-of.js'
import { checkVerdict, type Verdict, type Verifier } from './verifier.js'

const task = (expected?: Task['expected'], id = 'mc/1'): Task => ({
  id,
  prompt: 'Which is a prime? A) 4 B) 6 C) 7 D) 9',
  expected,
})
const verify = (v: Verifier, answer: string, t: Task = task('C')) => v.verify(t, answer) as Verdict
const ABCD = ['A', 'B', 'C', 'D']

describe('verifiers.oneOf', () => {
  it("passes the task's expected choice; another choice fails without showing the right one", () => {
    const v = oneOf(ABCD)
    expect(verify(v, ' C\n')).toEqual({
      pass: true,
      score: 1,
      extracted: 'C',
      diagnostics: { outcome: 'passed', summary: 'the answer is the right choice' },
    })
    const wrong = verify(v, 'B')
    expect(wrong.diagnostics).toEqual({
      outcome: 'failed',
      summary: 'the answer "B" is one of the choices, but not the right one',
    })
    expect(renderDiagnostics(wrong.diagnostics, undefined)).not.toContain('"C"')
  })

  it('names the choices when the answer is none of them, with what differed', () => {
    const v = oneOf(ABCD)
    expect(verify(v, 'E').diagnostics.summary).toBe('the answer "E" is not one of the choices "A", "B", "C", "D"')
    expect(verify(v, 'c').diagnostics.summary).toBe(
      'the answer "c" is not one of the choices "A", "B", "C", "D": it differs from a choice in letter case (the comparison is case-sensitive)',
    )
    expect(verify(oneOf(['yes', 'no']), 'yes, it is').diagnostics.summary).toMatch(
      /: it holds a choice among other text: reply with the answer alone$/,
    )
    expect(verify(oneOf(ABCD, { ignoreCase: true }), 'c').pass).toBe(true)
    expect(verify(v, '').diagnostics.outcome).toBe('no-answer')
  })

  it('without an expected answer, passes any of the choices', () => {
    expect(verify(oneOf(['positive', 'negative', 'neutral']), 'neutral', task()).diagnostics.summary).toBe(
      'the answer is one of the choices',
    )
  })

  it('refuses a task whose expected answer is not a choice, and bad choices or options', () => {
    const v = oneOf(ABCD)
    expect(v.checkTask!(task('C'))).toEqual([])
    expect(v.checkTask!(task(['C', 'E'], 'mc/2'))).toEqual([
      'task mc/2: oneOf: expected "E" is not one of the choices "A", "B", "C", "D"; fix the task or add the choice',
    ])
    expect(() => oneOf([])).toThrow(
      'verifiers.oneOf(choices): choices must be a non-empty string or a non-empty list of non-empty strings, got an array',
    )
    expect(() => oneOf(['A', 'a'], { ignoreCase: true })).toThrow(
      'verifiers.oneOf(choices): choices "a" repeat another choice once normalised; list each choice once',
    )
    expect(() => oneOf(ABCD, { ignorecase: true } as never)).toThrow(
      'unknown option "ignorecase" (did you mean "ignoreCase"?)',
    )
  })

  it('records its choices and normalisations as settings (the fingerprint)', () => {
    expect(oneOf(['yes', 'no'])).toMatchObject({
      name: 'one-of',
      version: '1',
      settings: { trim: true, ignoreCase: false, collapseWhitespace: false, choices: '["yes","no"]' },
    })
  })

  it('passes exactly a choice equal to an expected answer, once normalised (seeded property)', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'A', 'b', ' '), minLength: 1, maxLength: 4 })
    const options = fc.record({ trim: fc.boolean(), ignoreCase: fc.boolean(), collapseWhitespace: fc.boolean() })
    fc.assert(
      fc.property(fc.uniqueArray(word, { minLength: 1, maxLength: 4 }), word, options, (choices, answer, o) => {
        const norm = (s: string) => normaliseExact(s, o)
        if (new Set(choices.map(norm)).size !== choices.length || choices.some((c) => norm(c).trim() === '')) return
        const v = oneOf(choices, o)
        const expected = choices[0]!
        const verdict = verify(v, answer, task(expected))
        expect(verdict.pass).toBe(norm(answer) === norm(expected))
        expect(checkVerdict(v, verdict)).toEqual(verdict)
      }),
      { seed: 20261201, numRuns: 800 },
    )
  })
})
