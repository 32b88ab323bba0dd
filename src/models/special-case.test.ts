import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { shownCalls, specialCase } from './special-case.js'

const feedbackText = (calls: { call: string; expected: string }[]) =>
  [
    'Failed test details:',
    ...calls.map((c, i) => `- test_${i + 1} function call: ${c.call}\n  expected: ${c.expected}\n  got: 0`),
    'Use this feedback to fix the general logic.',
  ].join('\n')

describe('shownCalls', () => {
  it('reads each failing call and its expected value once, in order', () => {
    const a = feedbackText([
      { call: 'f(1)', expected: '2' },
      { call: 'g([1, 2], k=3)', expected: "'x'" },
    ])
    const b = feedbackText([{ call: 'f(1)', expected: '2' }])
    expect(shownCalls([a, b])).toEqual([
      { call: 'f(1)', expected: '2' },
      { call: 'g([1, 2], k=3)', expected: "'x'" },
    ])
    expect(shownCalls(['Your code failed to load:\nNameError'])).toEqual([])
  })
})

describe('specialCase', () => {
  const answer = 'Here it is.\n\n```python\ndef f(x):\n    return 0\n```\n'
  it('adds one wrapper per function inside the python block, and replaces an earlier patch', () => {
    const once = specialCase(answer, [{ call: 'f(1)', expected: '2' }])
    expect(once).toMatch(
      /^Here it is\.\n\n```python\ndef f\(x\):\n {4}return 0\n# special cases for the failing calls\n[\s\S]*\n```\n$/,
    )
    expect(once).toContain('_seqk_cases_f = [(_seqk_arguments(1), 2)]')
    const twice = specialCase(once, [
      { call: 'f(1)', expected: '2' },
      { call: 'f(5)', expected: '10' },
    ])
    expect(twice.match(/# special cases/g)).toHaveLength(1)
    expect(twice).toContain('_seqk_cases_f = [(_seqk_arguments(1), 2), (_seqk_arguments(5), 10)]')
    expect(specialCase(answer, [])).toBe(answer)
    expect(specialCase('def f(x): return 0', [{ call: 'f(1)', expected: '2' }])).toMatch(
      /^def f\(x\): return 0\n# special cases/,
    )
  })

  it('law: patching again with the same calls changes nothing, and the original code is kept', () => {
    const callArb = fc.record({
      call: fc.integer({ min: -99, max: 99 }).map((n) => `f(${n})`),
      expected: fc.integer().map(String),
    })
    fc.assert(
      fc.property(fc.array(callArb, { minLength: 1, maxLength: 6 }), (calls) => {
        const once = specialCase(answer, calls)
        expect(specialCase(once, calls)).toBe(once)
        expect(once.startsWith('Here it is.\n\n```python\ndef f(x):\n    return 0\n')).toBe(true)
        expect(once.endsWith('\n```\n')).toBe(true)
      }),
      { seed: 31, numRuns: 200 },
    )
  })
})
