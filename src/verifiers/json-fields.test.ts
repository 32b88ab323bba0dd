// The `path` option of the short-answer verifiers (exactMatch, numeric, regex, contains) on JSON
// answers, and numbers and booleans as a task's `expected`.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderDiagnostics } from '../feedback/verifier-feedback.js'
import type { Task } from '../protocol/task.js'
import { contains } from './contains.js'
import { exactMatch } from './exact-match.js'
import { numeric } from './numeric.js'
import { regex } from './regex.js'
import { checkVerdict, type Verdict, type Verifier } from './verifier.js'

const INVOICE = '{"total": 1234.5, "date": "2025-03-14", "items": [{"sku": "A-1", "qty": 2}], "paid": true}'
const task = (expected?: Task['expected']): Task => ({ id: 'inv/1', prompt: 'Extract the invoice.', expected })
const verify = (v: Verifier, answer: string, t: Task = task()) => checkVerdict(v, v.verify(t, answer) as Verdict)

describe('numeric on a JSON answer', () => {
  it('the issue: without path the answer is not read as 14 (its last number); with path: total it is 1234.5', () => {
    const bare = verify(numeric({ expected: 1234.5 }), '{"total": 1234.5, "date": "2025-03-14"}')
    expect(bare).toEqual({
      pass: false,
      score: 0,
      diagnostics: {
        outcome: 'failed',
        summary:
          'the answer is a JSON object, not a number: which of its numbers is meant is not said; reply with the number alone',
      },
    })
    expect(renderDiagnostics(bare.diagnostics, undefined)).not.toMatch(/\b14\b/)
    expect(verify(numeric({ path: 'total' }), '{"total": 1234.5, "date": "2025-03-14"}', task(1234.5))).toEqual({
      pass: true,
      score: 1,
      extracted: '1234.5',
      diagnostics: { outcome: 'passed', summary: 'read 1234.5 from the field total: within the tolerance' },
    })
  })

  it('reads a string field as text, refuses a field that is no number, and names a missing one', () => {
    const v = numeric({ path: 'items[0].price', tolerance: 0.005 })
    expect(verify(v, '{"items": [{"price": "1,234.50 EUR"}]}', task('1234.5')).pass).toBe(true)
    expect(verify(v, '{"items": [{"price": true}]}', task('1234.5')).diagnostics.summary).toBe(
      'the field items[0].price is a boolean, not a number',
    )
    expect(verify(v, '{"items": []}', task('1234.5')).diagnostics.summary).toBe(
      'the JSON has no field items[0].price: items has 0 elements',
    )
    expect(verify(v, '{"items": [{"price": "n/a"}]}', task('1234.5')).diagnostics).toEqual({
      outcome: 'no-answer',
      summary: 'the field items[0].price holds no number; give it as a number',
    })
    expect(
      verify(numeric({ path: 'total', pick: 'only' }), '{"total": "12 or 13"}', task(12)).diagnostics.summary,
    ).toBe('the field total holds 2 numbers (12, 13); give it as one number')
  })

  it('still reads a bare number, a JSON number and prose as before; a JSON array without path fails too', () => {
    const v = numeric({ expected: 42 })
    for (const answer of ['42', 'The answer is 42.', '"42"', '```\n42\n```'])
      expect(verify(v, answer).pass, answer).toBe(true)
    expect(verify(v, '[41, 42]').diagnostics.summary).toMatch(/^the answer is a JSON array, not a number/)
    expect(verify(v, '{"a": 42}').pass).toBe(false)
    // Braces that do not parse are fields all the same: never read for their last number.
    expect(verify(numeric({ expected: 14 }), '{total: 1234.5, date: 2025-03-14}').diagnostics.summary).toMatch(
      /^the answer is an object \(\{…\}\) that is not valid JSON, not a number/,
    )
    expect(verify(v, '[citation needed] The answer is 42.').pass).toBe(true)
  })

  it('passes exactly the field within the tolerance, whatever else the object holds (seeded property)', () => {
    const other = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 5 }).filter((k) => k !== 'total'),
      fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string(), fc.boolean()),
      { maxKeys: 4 },
    )
    const value = fc.integer({ min: -10_000, max: 10_000 }).map((n) => n / 4)
    fc.assert(
      fc.property(other, value, value, fc.boolean(), (rest, total, expected, first) => {
        const object = first ? { total, ...rest } : { ...rest, total }
        const v = numeric({ path: 'total', tolerance: 0.25 })
        const verdict = verify(v, JSON.stringify(object), task(expected))
        expect(verdict.pass).toBe(Math.abs(total - expected) <= 0.25)
        // Without a path no object answer passes, however its numbers fall.
        expect(verify(numeric({ expected: total }), JSON.stringify(object)).pass).toBe(false)
      }),
      { seed: 20261207, numRuns: 500 },
    )
  })
})

describe('exactMatch, regex and contains with path', () => {
  it('compare one field; a number or boolean field as its text, against a number or boolean expected', () => {
    expect(verify(exactMatch({ path: 'items[0].sku' }), INVOICE, task('A-1')).diagnostics.summary).toBe(
      'the field items[0].sku matches the expected answer',
    )
    expect(verify(exactMatch({ path: 'total' }), INVOICE, task(1234.5)).pass).toBe(true)
    expect(verify(exactMatch({ path: 'total' }), INVOICE, task('1234.5')).pass).toBe(true)
    expect(verify(exactMatch({ path: 'paid' }), INVOICE, task(true)).pass).toBe(true)
    expect(verify(exactMatch({ path: 'paid' }), INVOICE, task(false)).diagnostics.summary).toBe(
      'the field paid does not match the expected answer',
    )
    expect(verify(regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }), INVOICE).diagnostics.summary).toBe(
      'the field date matches /^\\d{4}-\\d{2}-\\d{2}$/',
    )
    expect(verify(regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }), '{"date": "14/03/2025"}').diagnostics.summary).toBe(
      'the field date does not match /^\\d{4}-\\d{2}-\\d{2}$/',
    )
    expect(verify(contains(['A-'], { path: 'items' }), INVOICE).pass).toBe(true)
    expect(verify(contains(['B-'], { path: 'items' }), INVOICE).diagnostics.summary).toBe(
      'the field items lacks the required phrase: "B-"',
    )
  })

  it('an answer that is not JSON, or lacks the field, fails saying so (never a crash, never a pass)', () => {
    for (const v of [exactMatch({ path: 'sku' }), regex(/A/, { path: 'sku' }), contains(['A'], { path: 'sku' })]) {
      expect(verify(v, 'The SKU is A-1.', task('A-1')).diagnostics.summary).toMatch(
        /^the answer is not valid JSON: .*, so its field sku cannot be read; reply with the JSON alone$/,
      )
      expect(verify(v, '{"id": "A-1"}', task('A-1')).diagnostics.summary).toBe(
        'the JSON has no field sku: the JSON has no field "sku"',
      )
    }
  })

  it('records the path in the settings only when set, so a verifier without one keeps its fingerprint', () => {
    expect(exactMatch().settings).not.toHaveProperty('path')
    expect(exactMatch({ path: '$.items[0]["sku"]' }).settings.path).toBe('items[0].sku')
    expect(regex(/x/, { path: 'date' }).settings.path).toBe('date')
    expect(contains(['x'], { path: 'notes' }).settings.path).toBe('notes')
    expect(numeric({ path: 'total' }).settings.path).toBe('total')
    expect(() => exactMatch({ path: 'items[-1]' })).toThrow(/^verifiers\.exactMatch\(\): path "items\[-1\]"/)
    expect(() => numeric({ path: '' })).toThrow(/^verifiers\.numeric\(\): path "" must be a non-empty string/)
  })

  it('exactMatch passes a field that holds the expected value as written, whatever the rest holds (seeded property)', () => {
    const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean())
    fc.assert(
      fc.property(scalar, fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue(), { maxKeys: 3 }), (value, rest) => {
        const answer = JSON.stringify({ ...rest, field: value })
        expect(verify(exactMatch({ path: 'field', trim: false }), answer, task(value)).pass).toBe(true)
      }),
      { seed: 20261207, numRuns: 500 },
    )
  })
})
