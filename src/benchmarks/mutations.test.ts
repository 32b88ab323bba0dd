import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRng } from '../metrics/random.js'
import { harvest, mutateEntries, mutateFloat, mutateInt, mutateItems, mutateStr, mutateValue } from './mutations.js'
import { parseCallArguments, parsePython, printPython, type PyValue } from './python-literal.js'

const leaf: fc.Arbitrary<PyValue> = fc.oneof(
  fc.bigInt({ min: -1000n, max: 1000n }).map((value) => ({ type: 'int' as const, value })),
  fc
    .double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })
    .map((value) => ({ type: 'float' as const, value: Object.is(value, -0) ? 0 : value })),
  fc.string({ maxLength: 6 }).map((value) => ({ type: 'str' as const, value })),
  fc.boolean().map((value) => ({ type: 'bool' as const, value })),
  fc.constant({ type: 'none' as const }),
)
const valueArb: fc.Arbitrary<PyValue> = fc.letrec<{ v: PyValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }).map((items) => ({ type: 'list' as const, items })),
    fc.array(tie('v'), { maxLength: 3 }).map((items) => ({ type: 'tuple' as const, items })),
    fc
      .uniqueArray(fc.tuple(fc.string({ maxLength: 3 }), tie('v')), { maxLength: 3, selector: ([k]) => k })
      .map((pairs) => ({
        type: 'dict' as const,
        entries: pairs.map(([k, x]) => [{ type: 'str' as const, value: k }, x] as [PyValue, PyValue]),
      })),
  ),
})).v
const seedArb = fc.integer({ min: 0, max: 2 ** 31 - 1 })
const H = harvest([])
const RUNS = { seed: 31, numRuns: 300 }

describe('Python literals', () => {
  it('law: printing then parsing gives the value back', () => {
    fc.assert(
      fc.property(valueArb, (v) => {
        expect(parsePython(printPython(v))).toEqual(v)
      }),
      RUNS,
    )
  })
  it('reads calls with literal arguments only', () => {
    expect(parseCallArguments("f([1, 2], 'a', {1: (2,)})")?.args.map(printPython)).toEqual([
      '[1, 2]',
      "'a'",
      '{1: (2,)}',
    ])
    expect(parseCallArguments('f()')).toEqual({ name: 'f', args: [] })
    expect(parseCallArguments('f(x)')).toBeUndefined()
    expect(parseCallArguments('f(g(1))')).toBeUndefined()
    expect(parsePython('1.0')).toEqual({ type: 'float', value: 1 })
    expect(parsePython('-3')).toEqual({ type: 'int', value: -3n })
  })
})

describe('mutation operators (each keeps its type)', () => {
  it('mutateInt returns an integer, reproducibly by seed', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), seedArb, (n, seed) => {
        const out = mutateInt(n, createRng(seed), harvest([{ type: 'int', value: 7n }]))
        expect(typeof out).toBe('bigint')
        expect(mutateInt(n, createRng(seed), harvest([{ type: 'int', value: 7n }]))).toBe(out)
      }),
      RUNS,
    )
  })
  it('mutateFloat returns a finite float', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), seedArb, (x, seed) => {
        expect(Number.isFinite(mutateFloat(x, createRng(seed), H))).toBe(true)
      }),
      RUNS,
    )
  })
  it('mutateStr returns a string at most one edit, a doubling or a harvested constant away', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 10 }), seedArb, (s, seed) => {
        const out = mutateStr(s, createRng(seed), harvest([{ type: 'str', value: 'kept' }]))
        expect(typeof out).toBe('string')
        const n = [...s].length
        const m = [...out].length
        expect(out === '' || out === 'kept' || out === s + s || Math.abs(m - n) <= 1).toBe(true)
      }),
      RUNS,
    )
  })
  it('mutateItems removes, inserts, repeats or mutates one item', () => {
    fc.assert(
      fc.property(fc.array(valueArb, { minLength: 1, maxLength: 5 }), seedArb, (items, seed) => {
        const out = mutateItems(items, createRng(seed), H)
        expect(Math.abs(out.length - items.length)).toBeLessThanOrEqual(1)
      }),
      RUNS,
    )
  })
  it('mutateEntries keeps keys distinct and changes at most one pair', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: -50, max: 50 }), { minLength: 1, maxLength: 5 }),
        seedArb,
        (keys, seed) => {
          const entries = keys.map(
            (k) =>
              [
                { type: 'int', value: BigInt(k) },
                { type: 'str', value: String(k) },
              ] as [PyValue, PyValue],
          )
          const out = mutateEntries(entries, createRng(seed), H)
          const printed = out.map(([k]) => printPython(k))
          expect(new Set(printed).size).toBe(printed.length)
          expect(Math.abs(out.length - entries.length)).toBeLessThanOrEqual(1)
        },
      ),
      RUNS,
    )
  })
  it('mutateValue keeps the type, a tuple its arity, and prints as a literal', () => {
    fc.assert(
      fc.property(valueArb, seedArb, (v, seed) => {
        const out = mutateValue(v, createRng(seed), harvest([v]))
        expect(out.type).toBe(v.type)
        if (v.type === 'tuple' && out.type === 'tuple') expect(out.items.length).toBe(v.items.length)
        expect(parsePython(printPython(out))).toBeDefined()
      }),
      RUNS,
    )
  })
})
