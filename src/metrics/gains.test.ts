import { describe, expect, it } from 'vitest'
import { gain } from './gains.js'

describe('gain', () => {
  it('is the last entry minus the first', () => {
    expect(gain([0.4, 0.55, 0.6])).toBeCloseTo(0.2, 15)
    expect(gain([0.1, 0.9, 0.3])).toBeCloseTo(0.2, 15)
    expect(gain([0.7])).toBe(0)
    expect(gain([0.6, 0.5])).toBeCloseTo(-0.1, 15)
  })

  it('is NaN for an empty curve and propagates NaN at either end', () => {
    expect(gain([])).toBeNaN()
    expect(gain([0.2, Number.NaN])).toBeNaN()
    expect(gain([Number.NaN, 0.2])).toBeNaN()
  })
})
