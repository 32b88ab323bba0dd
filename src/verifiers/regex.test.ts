import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderDiagnostics } from '../feedback/verifier-feedback.js'
import { regex } from './regex.js'
import { checkVerdict, type Verdict, type Verifier } from './verifier.js'

const task = { id: 'd/1', prompt: 'The date, as YYYY-MM-DD only.' }
const verify = (v: Verifier, answer: string) => v.verify(task, answer) as Verdict

describe('verifiers.regex', () => {
  it('passes a matching answer with the match as extracted, and fails others showing the pattern', () => {
    const v = regex(/^\d{4}-\d{2}-\d{2}$/)
    expect(verify(v, '2026-12-01')).toEqual({
      pass: true,
      score: 1,
      extracted: '2026-12-01',
      diagnostics: { outcome: 'passed', summary: 'the answer matches /^\\d{4}-\\d{2}-\\d{2}$/' },
    })
    const missed = verify(v, '1 Dec 2026')
    expect(missed).toEqual({
      pass: false,
      score: 0,
      diagnostics: { outcome: 'failed', summary: 'the answer does not match /^\\d{4}-\\d{2}-\\d{2}$/' },
    })
    expect(renderDiagnostics(missed.diagnostics, undefined)).toBe('the answer does not match /^\\d{4}-\\d{2}-\\d{2}$/')
    expect(verify(v, '').diagnostics).toEqual({ outcome: 'no-answer', summary: 'the answer is empty' })
    expect(verify(regex('^$'), '').pass).toBe(true)
  })

  it('says what differed: the whitespace around the answer, or its letter case', () => {
    expect(verify(regex(/^\d+$/), ' 42\n').diagnostics.summary).toBe(
      'the answer does not match /^\\d+$/: it would match without the whitespace around it',
    )
    expect(verify(regex('^(yes|no)$'), 'Yes').diagnostics.summary).toBe(
      'the answer does not match /^(yes|no)$/: it would match in other letter case (the pattern is case-sensitive)',
    )
    expect(verify(regex('^(yes|no)$', { flags: 'i' }), 'Yes').pass).toBe(true)
  })

  it('hides the pattern when asked', () => {
    const verdict = verify(regex(/^secret-\d+$/, { revealPattern: false }), 'nope')
    expect(verdict.diagnostics.summary).toBe('the answer does not match the required pattern')
    expect(renderDiagnostics(verdict.diagnostics, undefined)).not.toContain('secret')
  })

  it('hostile: an answer that makes the pattern backtrack exponentially fails at the time limit, it does not hang', () => {
    const verdict = verify(regex(/^(a+)+$/, { timeoutMs: 50 }), `${'a'.repeat(40)}!`)
    expect(verdict).toEqual({
      pass: false,
      score: 0,
      diagnostics: {
        outcome: 'failed',
        summary: expect.stringMatching(/^matching the answer against \/\^\(a\+\)\+\$\/ took over 50 ms/),
      },
    })
    // The next answer is judged as usual: the interrupted match left nothing behind.
    expect(verify(regex(/^(a+)+$/, { timeoutMs: 50 }), 'aaa').pass).toBe(true)
  })

  it('refuses flags that make the verdict depend on the previous answer, and bad patterns and options', () => {
    expect(() => regex(/x/g)).toThrow(
      'verifiers.regex(pattern): drop the g flag: a global or sticky pattern resumes from its last match',
    )
    expect(() => regex('x', { flags: 'y' })).toThrow(/drop the y flag/)
    expect(() => regex('(')).toThrow(
      /verifiers.regex\(pattern\): "\(" is not a valid regular expression \(Invalid regular expression/,
    )
    expect(() => regex('', {})).toThrow('pattern must be a RegExp or a non-empty string, got ""')
    expect(() => regex(/x/, { flags: 'i' })).toThrow(
      'flags are for a string pattern; a RegExp carries its own (write /…/i)',
    )
    expect(() => regex('x', { timeoutMs: 0 })).toThrow(/timeoutMs must be a number from 1 to 60000/)
    expect(() => regex('x', { timeout: 5 } as never)).toThrow('unknown option "timeout" (did you mean "timeoutMs"?)')
  })

  it('records the pattern, its flags and the limit as settings (the fingerprint)', () => {
    expect(regex('^a$', { flags: 'im' })).toMatchObject({
      name: 'regex',
      version: '1',
      settings: { pattern: '^a$', flags: 'im', timeoutMs: 1000, revealPattern: true },
    })
  })

  it('agrees with RegExp.test on every answer, and its verdicts meet the contract (seeded property)', () => {
    const patterns = ['^a+b?$', 'ab', '^\\s*\\d+\\s*$', 'é|E', '^(yes|no)$', '[0-9]{2}']
    fc.assert(
      fc.property(
        fc.constantFrom(...patterns),
        fc.constantFrom('', 'i', 'm', 's'),
        fc.string({ unit: fc.constantFrom('a', 'b', 'A', ' ', '\n', '1', 'é', 'y', 'e', 's'), maxLength: 8 }),
        (pattern, flags, answer) => {
          const v = regex(pattern, { flags })
          const verdict = verify(v, answer)
          expect(verdict.pass).toBe(new RegExp(pattern, flags).test(answer))
          expect(checkVerdict(v, verdict)).toEqual(verdict)
          // Judging is stateless: the same answer again, the same verdict.
          expect(verify(v, answer)).toEqual(verdict)
        },
      ),
      { seed: 20261201, numRuns: 600 },
    )
  })
})
