import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { revisionTiming } from './revision-timing.js'

const noGain = 'ΔSeq@K <= 0: no revision gain to share'

describe('revisionTiming', () => {
  it('splits the gain into the first and the last revision', () => {
    const early = revisionTiming([0.5, 0.7, 0.75, 0.8, 0.8])
    expect(early.egs).toBeCloseTo(2 / 3, 12)
    expect(early.lgs).toBe(0)
    expect(early.reason).toBeUndefined()

    const late = revisionTiming([0.2, 0.2, 0.2, 0.2, 0.6])
    expect(late.egs).toBe(0)
    expect(late.lgs).toBe(1)

    const spread = revisionTiming([0, 0.25, 0.5, 0.75, 1])
    expect(spread.egs).toBe(0.25)
    expect(spread.lgs).toBe(0.25)
  })

  it('gives EGS = LGS = 1 at K = 2, where the first revision is the last', () => {
    expect(revisionTiming([0.3, 0.5])).toEqual({ egs: 1, lgs: 1 })
  })

  it('is null with a reason when there is no gain to share', () => {
    expect(revisionTiming([0.5, 0.5, 0.5])).toEqual({ egs: null, lgs: null, reason: noGain })
    expect(revisionTiming([0.5, 0.6, 0.4])).toEqual({ egs: null, lgs: null, reason: noGain })
    // An undefined gain says it is undefined, not that it is <= 0.
    const undefinedGain = 'ΔSeq@K is undefined (Seq@1 or Seq@K was not measured): no revision gain to share'
    expect(revisionTiming([0.5, 0.6, Number.NaN])).toEqual({ egs: null, lgs: null, reason: undefinedGain })
    expect(revisionTiming([Number.NaN, Number.NaN])).toEqual({ egs: null, lgs: null, reason: undefinedGain })
  })

  it('is null with a reason when the budget leaves no revision', () => {
    expect(revisionTiming([0.4])).toEqual({ egs: null, lgs: null, reason: 'budget 1 has no revisions' })
    expect(revisionTiming([])).toEqual({ egs: null, lgs: null, reason: 'empty curve has no revisions' })
  })

  it('gives shares in [0, 1] on non-decreasing curves, summing to 1 at K = 3', () => {
    const curveArb = fc
      .array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 8 })
      .map((values) => [...values].sort((x, y) => x - y))
    fc.assert(
      fc.property(curveArb, (curve) => {
        const timing = revisionTiming(curve)
        const total = (curve[curve.length - 1] ?? 0) - (curve[0] ?? 0)
        if (!(total > 0)) {
          expect(timing).toEqual({ egs: null, lgs: null, reason: noGain })
          return
        }
        expect(timing.egs).toBeGreaterThanOrEqual(0)
        expect(timing.egs).toBeLessThanOrEqual(1 + 1e-12)
        expect(timing.lgs).toBeGreaterThanOrEqual(0)
        expect(timing.lgs).toBeLessThanOrEqual(1 + 1e-12)
        if (curve.length === 3) expect((timing.egs ?? Number.NaN) + (timing.lgs ?? Number.NaN)).toBeCloseTo(1, 12)
      }),
      { seed: 42, numRuns: 300 },
    )
  })
})
