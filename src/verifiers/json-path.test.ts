import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { answerField, fieldText, formatJsonPath, parseJsonPath, readJsonPath } from './json-path.js'

const WHERE = 'verifiers.exactMatch()'

describe('parseJsonPath', () => {
  it('reads keys joined by dots, indices in brackets, quoted keys and an optional leading $', () => {
    expect(parseJsonPath('total', WHERE)).toEqual(['total'])
    expect(parseJsonPath('items[0].sku', WHERE)).toEqual(['items', 0, 'sku'])
    expect(parseJsonPath('$.items[12].sku', WHERE)).toEqual(['items', 12, 'sku'])
    expect(parseJsonPath('$["unit.price"]', WHERE)).toEqual(['unit.price'])
    expect(parseJsonPath('[1][0]', WHERE)).toEqual([1, 0])
    expect(parseJsonPath('meta["created at"].day', WHERE)).toEqual(['meta', 'created at', 'day'])
    expect(parseJsonPath('line items', WHERE)).toEqual(['line items'])
    expect(parseJsonPath('.total', WHERE)).toEqual(['total']) // as jq writes it
  })

  it('refuses what is not a path, naming the option, the place and the fix', () => {
    for (const bad of ['', ' ', '$', 'a..b', 'items[-1]', 'items[', 'a.', 'a[x]', 'a["b]'])
      expect(() => parseJsonPath(bad, WHERE), bad).toThrow(/^verifiers\.exactMatch\(\): path .* e\.g\. 'total'/)
    expect(() => parseJsonPath(3, WHERE)).toThrow('path 3 must be a non-empty string')
    expect(() => parseJsonPath('items[99999999999999999999]', WHERE)).toThrow(/too large/)
  })

  const key = fc.oneof(
    fc.string({ unit: fc.constantFrom('a', 'B', '_', '$', '.', '[', ']', '"', ' ', '\\', 'é', '1'), maxLength: 6 }),
    fc.constantFrom('total', 'sku', 'items'),
  )
  const path = fc.array(fc.oneof(key, fc.nat(50)), { minLength: 1, maxLength: 5 })

  it('reads back every path it writes (seeded property)', () => {
    fc.assert(
      fc.property(path, (p) => {
        expect(parseJsonPath(formatJsonPath(p), WHERE)).toEqual(p)
      }),
      { seed: 20261207, numRuns: 2000 },
    )
  })

  it('finds a value put at any path, and says which step is missing when it is not there (seeded property)', () => {
    /** The smallest JSON value holding `leaf` at `p`. */
    const build = (p: readonly (string | number)[], leaf: unknown): unknown => {
      if (p.length === 0) return leaf
      const [head, ...rest] = p
      if (typeof head === 'number') return [...Array<null>(head).fill(null), build(rest, leaf)]
      return { [head!]: build(rest, leaf) }
    }
    fc.assert(
      fc.property(path, fc.jsonValue(), (p, leaf) => {
        const value = JSON.parse(JSON.stringify(build(p, leaf))) as unknown
        expect(readJsonPath(value, p)).toEqual({ found: true, value: JSON.parse(JSON.stringify(leaf)) })
        const found = readJsonPath(value, [...p, 'absent-key'])
        if (leaf !== null && typeof leaf === 'object' && !Array.isArray(leaf) && 'absent-key' in leaf) return
        expect(found.found).toBe(false)
      }),
      { seed: 20261207, numRuns: 500 },
    )
  })
})

describe('readJsonPath', () => {
  const invoice = { total: 1234.5, items: [{ sku: 'A-1' }], date: '2025-03-14' }
  it('names the step that is missing', () => {
    expect(readJsonPath(invoice, ['items', 0, 'sku'])).toEqual({ found: true, value: 'A-1' })
    expect(readJsonPath(invoice, ['items', 1, 'sku'])).toEqual({ found: false, why: 'items has 1 element' })
    expect(readJsonPath(invoice, ['total', 'amount'])).toEqual({
      found: false,
      why: 'total is a number, not an object',
    })
    expect(readJsonPath(invoice, ['date', 0])).toEqual({ found: false, why: 'date is a string, not an array' })
    expect(readJsonPath(invoice, ['sum'])).toEqual({ found: false, why: 'the JSON has no field "sum"' })
    expect(readJsonPath([1], ['total'])).toEqual({ found: false, why: 'the JSON is an array, not an object' })
  })

  it('hostile: keys from the prototype are not fields', () => {
    expect(readJsonPath({}, ['constructor'])).toEqual({ found: false, why: 'the JSON has no field "constructor"' })
    expect(readJsonPath(JSON.parse('{"__proto__": 5}'), ['__proto__'])).toEqual({ found: true, value: 5 })
  })
})

describe('answerField', () => {
  it('reads a field of a JSON answer, also from one ```json fence; a miss is a failed verdict saying why', () => {
    expect(answerField('{"total": 12}', ['total'])).toEqual({ value: 12 })
    expect(answerField('Here:\n```json\n{"total": 12}\n```', ['total'])).toEqual({ value: 12 })
    expect(answerField('{"total": 12}', ['date'])).toEqual({
      verdict: {
        pass: false,
        score: 0,
        extracted: '{"total": 12}',
        diagnostics: { outcome: 'failed', summary: 'the JSON has no field date: the JSON has no field "date"' },
      },
    })
    const prose = answerField('The total is 12.', ['total'])
    expect(prose).toMatchObject({
      verdict: {
        pass: false,
        diagnostics: {
          outcome: 'failed',
          summary: expect.stringMatching(
            /^the answer is not valid JSON: .*, so its field total cannot be read; reply with the JSON alone$/,
          ),
        },
      },
    })
    expect(answerField('  ', ['total'])).toMatchObject({ verdict: { diagnostics: { outcome: 'no-answer' } } })
  })

  it('gives a field that is not a string as its JSON text', () => {
    expect([1234.5, true, null, ['a', 'b'], 'x'].map(fieldText)).toEqual(['1234.5', 'true', 'null', '["a","b"]', 'x'])
  })
})
