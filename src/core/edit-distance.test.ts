import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { editDistance } from './edit-distance.js'

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('', '')).toBe(0)
    expect(editDistance('abc', '')).toBe(3)
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(editDistance(['read', 'edit', 'test'], ['read', 'test'])).toBe(1)
    expect(editDistance('temprature', 'temperature')).toBe(1)
  })

  it('compares items as `same` says', () => {
    expect(editDistance('MaxRetries', 'maxretries')).toBe(2)
    expect(editDistance('MaxRetries', 'maxretries', (x, y) => x.toLowerCase() === y.toLowerCase())).toBe(0)
  })

  const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 8 })
  test.prop([word, word, word], { seed: 45 })('is a metric: zero only for equals, symmetric, triangle', (a, b, c) => {
    expect(editDistance(a, a)).toBe(0)
    expect(editDistance(a, b) === 0).toBe(a === b)
    expect(editDistance(a, b)).toBe(editDistance(b, a))
    expect(editDistance(a, c)).toBeLessThanOrEqual(editDistance(a, b) + editDistance(b, c))
    expect(editDistance(a, b)).toBeGreaterThanOrEqual(Math.abs(a.length - b.length))
    expect(editDistance(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length))
  })
})
