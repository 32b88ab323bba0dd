import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  agentActivity,
  costPerSolved,
  frequencySimilarity,
  levenshtein,
  sequenceSimilarity,
  trajectoryConsistency,
} from './agent-metrics.js'

const actions = fc.array(fc.constantFrom('read', 'write', 'list', 'run', 'python'), { maxLength: 12 })
const settings = { seed: 32, numRuns: 300 }

describe('agentActivity', () => {
  it('means per episode and pools the error rate over calls; NaN where undefined', () => {
    expect(
      agentActivity([
        { steps: 2, toolCalls: 3, toolErrors: 1 },
        { steps: 4, toolCalls: 1, toolErrors: 0 },
      ]),
    ).toEqual({ meanSteps: 3, meanToolCalls: 2, toolErrorRate: 0.25, episodes: 2 })
    expect(agentActivity([])).toEqual({ meanSteps: NaN, meanToolCalls: NaN, toolErrorRate: NaN, episodes: 0 })
    // An episode that called nothing has no error rate, not a rate of 0.
    expect(agentActivity([{ steps: 1, toolCalls: 0, toolErrors: 0 }]).toolErrorRate).toBeNaN()
    expect(() => agentActivity([{ steps: 1, toolCalls: 1, toolErrors: 2 }])).toThrow(/toolErrors <= toolCalls/)
  })
})

describe('costPerSolved', () => {
  it('is unknown when the cost is, and undefined with nothing solved', () => {
    expect(costPerSolved(0.3, 3)).toBeCloseTo(0.1, 12)
    expect(costPerSolved(null, 3)).toBeNull()
    expect(costPerSolved(0.3, 0)).toBeNaN()
  })
})

describe('levenshtein', () => {
  it('hand values', () => {
    expect(levenshtein([], [])).toBe(0)
    expect(levenshtein(['a'], [])).toBe(1)
    expect(levenshtein(['read', 'edit', 'test'], ['read', 'test'])).toBe(1)
    expect(levenshtein(['a', 'b'], ['b', 'a'])).toBe(2)
  })
  it('is a metric: zero on itself only, symmetric, the triangle inequality', () => {
    fc.assert(
      fc.property(actions, actions, actions, (a, b, c) => {
        expect(levenshtein(a, a)).toBe(0)
        expect(levenshtein(a, b) === 0).toBe(a.join(' ') === b.join(' '))
        expect(levenshtein(a, b)).toBe(levenshtein(b, a))
        expect(levenshtein(a, c)).toBeLessThanOrEqual(levenshtein(a, b) + levenshtein(b, c))
        expect(levenshtein(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length))
      }),
      settings,
    )
  })
})

describe('similarities', () => {
  it('hand values', () => {
    expect(sequenceSimilarity(['read', 'edit', 'test'], ['read', 'test'])).toBeCloseTo(2 / 3, 12)
    expect(frequencySimilarity(['read', 'test'], ['test', 'read'])).toBe(1)
    expect(frequencySimilarity(['read'], ['write'])).toBeCloseTo(0, 12)
    expect(frequencySimilarity([], [])).toBe(1)
    expect(frequencySimilarity([], ['read'])).toBe(0)
    // Half the mass shared: JS divergence 0.5 bits, distance sqrt(0.5).
    expect(frequencySimilarity(['a', 'b'], ['a', 'c'])).toBeCloseTo(1 - Math.sqrt(0.5), 12)
  })
  it('lie in [0, 1], are symmetric and 1 on the same sequence; frequency ignores order', () => {
    fc.assert(
      fc.property(actions, actions, (a, b) => {
        for (const f of [sequenceSimilarity, frequencySimilarity]) {
          const s = f(a, b)
          expect(s).toBeGreaterThanOrEqual(0)
          expect(s).toBeLessThanOrEqual(1)
          expect(s).toBeCloseTo(f(b, a), 12)
          expect(f(a, a)).toBeCloseTo(1, 12)
        }
        expect(frequencySimilarity(a, b)).toBeCloseTo(frequencySimilarity([...a].reverse(), b), 12)
      }),
      settings,
    )
  })
})

describe('trajectoryConsistency', () => {
  it('means over every pair; undefined with fewer than two repeats', () => {
    const c = trajectoryConsistency([
      ['read', 'edit', 'test'],
      ['read', 'edit', 'test'],
      ['edit', 'read', 'test'],
    ])
    expect(c.pairs).toBe(3)
    expect(c.sequence).toBeCloseTo((1 + 1 / 3 + 1 / 3) / 3, 12)
    expect(c.frequency).toBeCloseTo(1, 12)
    expect(trajectoryConsistency([['read']])).toEqual({ sequence: NaN, frequency: NaN, pairs: 0 })
  })
  it('is 1 for identical repeats', () => {
    fc.assert(
      fc.property(actions, fc.integer({ min: 2, max: 5 }), (a, n) => {
        const same = trajectoryConsistency(Array.from({ length: n }, () => a))
        expect(same.sequence).toBeCloseTo(1, 12)
        expect(same.frequency).toBeCloseTo(1, 12)
      }),
      settings,
    )
  })
})
