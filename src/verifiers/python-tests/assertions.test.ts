import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { hasAssertion, pythonCodeOnly } from './assertions.js'

describe('hasAssertion', () => {
  it('finds assert statements and raises, in any shape the benchmarks use', () => {
    expect(hasAssertion('assert f(1) == 2')).toBe(true)
    expect(hasAssertion('assert math.isclose(f(0.1), 0.1)')).toBe(true)
    expect(
      hasAssertion("try:\n    f(['a'], [[1]])\n    assert False, 'Expected ValueError'\nexcept ValueError:\n    pass"),
    ).toBe(true)
    expect(hasAssertion('if f(1) != 2:\n    raise AssertionError("f(1)")')).toBe(true)
  })

  it('is not fooled by the word in a string, a comment or a longer name', () => {
    expect(hasAssertion('f(1)\n# assert f(1) == 2')).toBe(false)
    expect(hasAssertion('print("assert f(1) == 2")')).toBe(false)
    expect(hasAssertion("x = '''\nassert f(1) == 2\n'''\nf(x)")).toBe(false)
    expect(hasAssertion('assertion_count = 0\nmy_raise(1)\nobj.assert_called()')).toBe(false)
    expect(hasAssertion('')).toBe(false)
  })
})

describe('pythonCodeOnly', () => {
  test.prop(
    [
      fc
        .array(fc.constantFrom('a', ' ', '\n', '(', ')', '=', '1', 'x'), { maxLength: 40 })
        .map((parts) => parts.join('')),
    ],
    { seed: 20261201 },
  )('leaves code without quotes or comments unchanged', (code) => {
    expect(pythonCodeOnly(code)).toBe(code)
  })

  test.prop([fc.string({ maxLength: 30 }).filter((s) => !/["'\\\n]/.test(s))], { seed: 20261201 })(
    'blanks any single-line string and keeps the lines',
    (text) => {
      const source = `x = "${text}"\nassert x`
      expect(pythonCodeOnly(source)).toBe('x =  \nassert x')
    },
  )
})
