import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderDiagnostics } from '../feedback/verifier-feedback.js'
import type { Task } from '../protocol/task.js'
import { numbersIn, numeric } from './numeric.js'
import { checkVerdict, type Verdict, type Verifier } from './verifier.js'

const task = (expected?: Task['expected'], id = 'n/1'): Task => ({ id, prompt: 'What is 6 × 7?', expected })
const verify = (v: Verifier, answer: string, t: Task = task('42')) => v.verify(t, answer) as Verdict

describe('numbersIn', () => {
  it('reads thousands separators, decimals, exponents, signs and the Unicode minus, not ranges or versions', () => {
    expect(numbersIn('From 1,200 to 1,250: a rise of 4.2%.')).toEqual([1200, 1250, 4.2])
    expect(numbersIn('−3 and -0.5 and +2 and 1e3 and .5')).toEqual([-3, -0.5, 2, 1000, 0.5])
    expect(numbersIn('pages 3-4')).toEqual([3, 4])
    expect(numbersIn('1,2,3')).toEqual([1, 2, 3])
    expect(numbersIn('no digits here')).toEqual([])
  })

  it('reads back every finite number as JavaScript writes it (seeded property)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(numbersIn(`the value is ${String(x)}.`)).toEqual([x === 0 ? 0 : x])
      }),
      { seed: 20261201, numRuns: 1000 },
    )
  })
})

describe('verifiers.numeric', () => {
  it("compares the answer's last number with the task's expected value, within the tolerance", () => {
    const v = numeric({ tolerance: 0.5 })
    expect(verify(v, '6 × 7 = 42')).toEqual({
      pass: true,
      score: 1,
      extracted: '42',
      diagnostics: { outcome: 'passed', summary: 'read 42 from the answer (its last number): within the tolerance' },
    })
    expect(verify(v, '42.4').pass).toBe(true)
    const off = verify(v, 'I think 43')
    expect(off).toEqual({
      pass: false,
      score: 0,
      extracted: '43',
      diagnostics: {
        outcome: 'failed',
        summary: 'read 43 from the answer: not within the tolerance of the expected value',
      },
    })
    expect(renderDiagnostics(off.diagnostics, undefined)).not.toContain('42')
    expect(verify(numeric(), '42.01').diagnostics.summary).toBe(
      'read 42.01 from the answer: not within the tolerance of the expected value (it must be equal)',
    )
    expect(verify(v, 'forty-two').diagnostics).toEqual({
      outcome: 'no-answer',
      summary: 'the answer holds no number; reply with the number',
    })
    expect(verify(v, ' ').diagnostics.outcome).toBe('no-answer')
  })

  it('shows the expected value and the distance only with revealExpected', () => {
    expect(verify(numeric({ tolerance: 0.5, revealExpected: true }), '43.25').diagnostics.summary).toBe(
      'read 43.25 from the answer: the expected value is 42 ± 0.5, off by 1.25',
    )
    expect(verify(numeric({ expected: 0.3, revealExpected: true }), '0.1').diagnostics.summary).toBe(
      'read 0.1 from the answer: the expected value is 0.3, off by 0.2',
    )
  })

  it("with pick: 'only', fails an answer holding several numbers, naming them", () => {
    expect(verify(numeric({ pick: 'only' }), 'between 41 and 43').diagnostics.summary).toBe(
      'the answer holds 2 numbers (41, 43); reply with one number',
    )
    expect(verify(numeric({ pick: 'only' }), '42').pass).toBe(true)
  })

  it('takes a relative tolerance, one expected value for every task, and lists of accepted values', () => {
    expect(verify(numeric({ relativeTolerance: 0.01 }), '1,010', task('1000')).pass).toBe(true)
    expect(verify(numeric({ relativeTolerance: 0.01 }), '1,011', task('1000')).pass).toBe(false)
    expect(verify(numeric({ expected: 3.14, tolerance: 0.01 }), 'about 3.141', task()).pass).toBe(true)
    expect(verify(numeric(), '-1', task(['1', '-1'])).pass).toBe(true)
  })

  it('refuses tasks without a numeric expected value at declaration, and bad options', () => {
    const v = numeric()
    expect(v.checkTask!(task('42'))).toEqual([])
    expect(v.checkTask!(task(undefined, 'n/2'))).toEqual([
      expect.stringMatching(/^task n\/2: numeric needs `expected`/),
    ])
    expect(v.checkTask!(task('about 40 or 50', 'n/3'))).toEqual([
      'task n/3: numeric has an `expected` that is not one number: "about 40 or 50"',
    ])
    expect(numeric({ expected: 1 }).checkTask!(task())).toEqual([])
    expect(() => numeric({ tolerance: -1 })).toThrow(
      'verifiers.numeric(): tolerance must be a finite number >= 0, got -1',
    )
    expect(() => numeric({ expected: '42' as never })).toThrow(
      'verifiers.numeric(): expected must be a finite number, got "42" (leave it out to use each task\'s `expected`)',
    )
    expect(() => numeric({ pick: 'first' as never })).toThrow("pick must be 'last' or 'only'")
    expect(() => numeric({ tolerence: 1 } as never)).toThrow('unknown option "tolerence" (did you mean "tolerance"?)')
  })

  it('records its expected value and tolerances as settings (the fingerprint)', () => {
    expect(numeric({ tolerance: 0.5 })).toMatchObject({
      name: 'numeric',
      version: '2',
      settings: { expected: null, tolerance: 0.5, relativeTolerance: 0, pick: 'last', revealExpected: false },
    })
  })

  it('passes exactly the numbers within the tolerance, and its verdicts meet the contract (seeded property)', () => {
    const value = fc.integer({ min: -10_000, max: 10_000 }).map((n) => n / 4)
    fc.assert(
      fc.property(
        value,
        value,
        fc.integer({ min: 0, max: 8 }).map((n) => n / 4),
        (expected, answer, tolerance) => {
          const v = numeric({ tolerance })
          const verdict = verify(v, `So the result is ${answer}.`, task(String(expected)))
          expect(verdict.pass).toBe(Math.abs(answer - expected) <= tolerance)
          expect(checkVerdict(v, verdict)).toEqual(verdict)
        },
      ),
      { seed: 20261201, numRuns: 1000 },
    )
  })
})
