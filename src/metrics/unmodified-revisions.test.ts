import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countUnmodified, unmodifiedRevisions } from './unmodified-revisions.js'

describe('unmodifiedRevisions', () => {
  it('counts attempts t >= 2 that repeat attempt t - 1 exactly', () => {
    expect(unmodifiedRevisions([['a', 'a', 'b'], ['x']])).toEqual({ revisions: 2, unmodified: 1, rate: 0.5 })
    expect(unmodifiedRevisions([['a', 'a', 'a', 'a']])).toEqual({ revisions: 3, unmodified: 3, rate: 1 })
  })

  it('compares with the previous attempt only, not with any earlier one', () => {
    expect(unmodifiedRevisions([['a', 'b', 'a']])).toEqual({ revisions: 2, unmodified: 0, rate: 0 })
  })

  it('does not normalise: whitespace and case differences count as modified', () => {
    expect(unmodifiedRevisions([['return 1', 'return 1 ', 'Return 1']]).unmodified).toBe(0)
  })

  it('has a NaN rate (not 0) when there is no revision', () => {
    const none = unmodifiedRevisions([['only'], []])
    expect(none.revisions).toBe(0)
    expect(none.unmodified).toBe(0)
    expect(none.rate).toBeNaN()
    expect(unmodifiedRevisions([]).rate).toBeNaN()
  })

  it('counts one revision per attempt after the first, with 0 <= unmodified <= revisions', () => {
    const answers = fc.array(fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 6 }), { maxLength: 10 })
    fc.assert(
      fc.property(answers, (trajectories) => {
        const result = unmodifiedRevisions(trajectories)
        const expected = trajectories.reduce((sum, t) => sum + Math.max(t.length - 1, 0), 0)
        expect(result.revisions).toBe(expected)
        expect(result.unmodified).toBeGreaterThanOrEqual(0)
        expect(result.unmodified).toBeLessThanOrEqual(result.revisions)
        if (expected > 0) expect(result.rate).toBe(result.unmodified / result.revisions)
      }),
      { seed: 42, numRuns: 200 },
    )
  })
})

describe('countUnmodified', () => {
  it('agrees with unmodifiedRevisions on the flags the loop records from the same answers (seeded property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 6 }), { maxLength: 8 }),
        (answers) => {
          const flags = answers.map((list) => list.map((a, i) => (i === 0 ? null : list[i - 1] === a)))
          expect(countUnmodified(flags)).toEqual(unmodifiedRevisions(answers))
        },
      ),
      { seed: 15, numRuns: 300 },
    )
  })
})
