// Input contracts: the law (every call a contract is inferred from is inside it) and the shapes
// that once made strengthened suites reject correct answers, each outside the contract.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  boundsIn,
  callsIn,
  contractViolation,
  describeContract,
  hintsIn,
  inferContract,
  paramsIn,
} from './input-contract.js'
import { parseCallArguments, type PyValue } from './python-literal.js'

const args = (call: string) => parseCallArguments(call)!.args
const contractOf = (calls: string[], statement = '') => inferContract('f', calls.map(args), statement)

const leaf: fc.Arbitrary<PyValue> = fc.oneof(
  fc.bigInt({ min: -50n, max: 50n }).map((value) => ({ type: 'int' as const, value })),
  fc.double({ min: -100, max: 100, noNaN: true }).map((value) => ({ type: 'float' as const, value: value + 0 })),
  fc.string({ maxLength: 5 }).map((value) => ({ type: 'str' as const, value })),
  fc.boolean().map((value) => ({ type: 'bool' as const, value })),
)
const value: fc.Arbitrary<PyValue> = fc.letrec<{ v: PyValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }).map((items) => ({ type: 'list' as const, items })),
    fc.array(tie('v'), { minLength: 1, maxLength: 3 }).map((items) => ({ type: 'tuple' as const, items })),
  ),
})).v

describe('inferContract', () => {
  it('admits every call it was inferred from (any calls, any statement words)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(value, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom('', 'a sorted list of distinct numbers less than 10', 'between 1 and 5'),
        (calls, statement) => {
          const contract = inferContract('f', calls, statement)
          for (const call of calls) expect(contractViolation(contract, call)).toBeUndefined()
        },
      ),
      { seed: 48, numRuns: 300 },
    )
  })

  it('keeps binary strings over their alphabet and of one length in a list (a bitwise task)', () => {
    const c = contractOf(["f(['010', '110', '101'])", "f(['111', '111', '111'])", "f(['000', '000', '000'])"])
    expect(contractViolation(c, args("f(['011', '000'])"))).toBeUndefined()
    expect(contractViolation(c, args("f(['010', '110', '101101'])"))).toMatch(/items of different lengths/)
    expect(contractViolation(c, args("f(['000', '00Z'])"))).toMatch(/the character "Z"/)
    expect(contractViolation(c, args("f([''])"))).toMatch(/is empty; the tests never give an empty one/)
  })

  it("keeps the tests' format of a string ('X apples and Y oranges') and equal lengths between arguments", () => {
    const c = contractOf([
      "f(['5 apples and 6 oranges', '0 apples and 1 oranges', '100 apples and 1 oranges'], [19, 3, 120])",
    ])
    expect(contractViolation(c, args("f(['7 apples and 61 oranges', '0 apples and 1 oranges'], [19, 3])"))).toBe(
      undefined,
    )
    expect(contractViolation(c, args("f(['5 apples and 6 oanges'], [19])"))).toMatch(/format "# apples and # oranges"/)
    expect(contractViolation(c, args("f(['2 APPLES AND 3 ORANGES'], [19])"))).toMatch(/the character "A"/)
    expect(contractViolation(c, args("f(['5 apples and 6 oranges'], [19, 3])"))).toMatch(/different lengths/)
  })

  it('leaves out 0 and 1 where the tests never give them, even inside their range (change_base(0), is 1 prime)', () => {
    const c = contractOf(['f([8, 7], 2)', 'f([10, 15, 3], 3)', 'f([5, -3, 2], 2)', 'f([2, 3], 10)'])
    expect(contractViolation(c, args('f([0, 8], 2)'))).toMatch(/is 0, which the tests never give there/)
    expect(contractViolation(c, args('f([8, 1], 2)'))).toMatch(/is 1, which the tests never give there/)
    expect(contractViolation(c, args('f([-4, 9], 3)'))).toBeUndefined()
    // Below the tests' smallest positive value: 2 and up only.
    expect(contractViolation(contractOf(['f(5)', 'f(8)']), args('f(1)'))).toMatch(/outside 2\.\.16/)
  })

  it("caps integers at a bound the statement names when the tests stay within it ('less than 10')", () => {
    expect(boundsIn('base numbers are less than 10; at most 5 of them, between 1 and 100')).toEqual([5n, 10n, 100n])
    const c = contractOf(['f([8, 7], 2)', 'f([10, 15, 30], 10)'], 'base numbers are less than 10.')
    expect(contractViolation(c, args('f([8], 11)'))).toMatch(/outside 2\.\.10/)
    // The list's numbers go past 10 in the tests: the bound is not theirs.
    expect(contractViolation(c, args('f([44], 3)'))).toBeUndefined()
  })

  it('holds lists sorted or free of repeats only when the statement says so too', () => {
    const calls = ['f([1, 2, 3])', 'f([4, 5, 9, 12])']
    expect(contractViolation(contractOf(calls), args('f([3, 1, 3])'))).toBeUndefined()
    const said = contractOf(calls, 'Given a sorted list of distinct integers')
    expect(contractViolation(said, args('f([3, 1, 2])'))).toMatch(/not sorted/)
    expect(contractViolation(said, args('f([1, 3, 3])'))).toMatch(/repeats an item/)
    expect(hintsIn('no duplicates, in ascending order')).toMatchObject({ sorted: true, distinct: true })
  })

  it('keeps relations between arguments: a constant length offset, an index, an order, membership', () => {
    const ops = contractOf(["f(['+', '*'], [2, 3, 4])", "f(['-'], [7, 1])"])
    expect(contractViolation(ops, args("f(['+', '+'], [1, 2])"))).toMatch(/is not -1 longer/)
    const index = contractOf(['f([5, 6, 7], 1)', 'f([1, 2], 0)'])
    expect(contractViolation(index, args('f([5, 6], 2)'))).toMatch(/is not an index into/)
    const range = contractOf(['f(2, 9)', 'f(3, 30)'])
    expect(contractViolation(range, args('f(5, 4)'))).toMatch(/is above/)
    const member = contractOf(['f([4, 5, 6], 5)', 'f([7, 8], 7)'])
    expect(contractViolation(member, args('f([4, 5, 6], 8)'))).toMatch(/is not in/)
  })

  it('describes itself in words, with the parameter names of the def line', () => {
    const c = inferContract(
      'total',
      [args("total(['010', '110'], 3)"), args("total(['111', '000'], 4)")],
      'def total(binary_strings: List[str], n: int) -> int:',
    )
    expect(describeContract(c)).toEqual([
      'argument 1 (binary_strings): list (1..6 items, items of one length) of str (1..8 characters, shaped "#") of "01"',
      'argument 2 (n): int 2..8',
    ])
    expect(contractViolation(c, args("total(['01'])"))).toMatch(/1 arguments; the tests give 2/)
  })
})

describe('callsIn and paramsIn', () => {
  it("reads the statement's examples of a function, not its def line", () => {
    const text = "def f(xs: list, k=2):\n    '''\n    >>> f([1, 2], 3)\n    6\n    f('a, b') -> 1\n    '''"
    expect(callsIn(text, 'f').map((c) => c.length)).toEqual([2, 1])
    expect(paramsIn(text, 'f')).toEqual(['xs', 'k'])
    expect(callsIn('g(1) and f(x)', 'f')).toEqual([])
  })
})
