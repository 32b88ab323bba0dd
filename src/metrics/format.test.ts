import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { percent, signedPercent } from './format.js'

describe('percent', () => {
  it('prints points with one decimal and never "-0.0"', () => {
    expect(percent(0.8766)).toBe('87.7')
    expect(percent(-1e-17)).toBe('0.0')
    expect(percent(-0)).toBe('0.0')
    expect(percent(null)).toBe('—')
    expect(percent(Number.NaN)).toBe('—')
    fc.assert(fc.property(fc.double({ min: -1, max: 1, noNaN: true }), (v) => percent(v) !== '-0.0'), { seed: 42, numRuns: 500 })
  })

  it('signs a change: +, - or +0.0 for no change', () => {
    expect(signedPercent(0.032)).toBe('+3.2')
    expect(signedPercent(-0.01)).toBe('-1.0')
    expect(signedPercent(-1e-17)).toBe('+0.0')
    expect(signedPercent(null)).toBe('—')
  })
})
