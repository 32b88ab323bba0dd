import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isoTimestamp } from './timestamp.js'

describe('isoTimestamp', () => {
  it('equals Date.prototype.toISOString for any valid time, in any call order', () => {
    // Times close together exercise the cached second; the wide range, extended years and 1969.
    const near = fc.integer({ min: 1_700_000_000_000, max: 1_700_000_003_000 })
    const wide = fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 })
    fc.assert(
      fc.property(fc.array(fc.oneof(near, wide), { minLength: 1, maxLength: 20 }), (times) => {
        for (const ms of times) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString())
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('pads milliseconds and handles the second before the epoch', () => {
    expect(isoTimestamp(1_700_000_000_007)).toBe('2023-11-14T22:13:20.007Z')
    expect(isoTimestamp(1_700_000_000_070)).toBe('2023-11-14T22:13:20.070Z')
    expect(isoTimestamp(-1)).toBe('1969-12-31T23:59:59.999Z')
    expect(isoTimestamp(0.5)).toBe(new Date(0.5).toISOString())
  })
})
