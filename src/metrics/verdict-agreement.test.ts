import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cohensKappa, verdictAgreement } from './verdict-agreement.js'

const settings = { seed: 31, numRuns: 300 }
const ratings = (n: number) => fc.array(fc.boolean(), { minLength: n, maxLength: n })
const pairArb = fc.integer({ min: 1, max: 30 }).chain((n) => fc.tuple(ratings(n), ratings(n)))

describe('cohensKappa', () => {
  it('matches hand values', () => {
    // p_o = 3/4, p_e = 1/2·1/4 + 1/2·3/4 = 1/2: κ = (3/4 − 1/2) / (1/2) = 1/2
    expect(cohensKappa([true, true, false, false], [true, false, false, false])).toBeCloseTo(0.5, 12)
    expect(cohensKappa([true, false], [true, false])).toBe(1)
    expect(cohensKappa([true, false], [false, true])).toBe(-1)
    expect(cohensKappa([], [])).toBeNull()
    // One value throughout on both sides: chance agreement is 1, κ is undefined (not 0, not 1).
    expect(cohensKappa([true, true], [true, true])).toBeNull()
    expect(() => cohensKappa([true], [true, false])).toThrow(/same items/)
  })

  it('is symmetric, at most 1, and 1 exactly when the raters agree on items with both values', () => {
    fc.assert(
      fc.property(pairArb, ([a, b]) => {
        const k = cohensKappa(a, b)
        expect(cohensKappa(b, a)).toBe(k)
        const constant = a.every((x) => x === a[0]) && b.every((x) => x === a[0])
        if (constant) {
          expect(k).toBeNull()
          return
        }
        expect(k).not.toBeNull()
        expect(k!).toBeLessThanOrEqual(1 + 1e-12)
        expect(k!).toBeGreaterThanOrEqual(-1 - 1e-12)
        const same = a.every((x, i) => x === b[i])
        expect(Math.abs(k! - 1) < 1e-12).toBe(same)
      }),
      settings,
    )
  })

  it('does not change when pass and fail are swapped on both sides', () => {
    fc.assert(
      fc.property(pairArb, ([a, b]) => {
        const k = cohensKappa(a, b)
        const swapped = cohensKappa(
          a.map((x) => !x),
          b.map((x) => !x),
        )
        if (k === null) {
          expect(swapped).toBeNull()
          return
        }
        expect(swapped!).toBeCloseTo(k, 12)
      }),
      settings,
    )
  })
})

describe('verdictAgreement', () => {
  it('counts flipped items, identical and pairwise shares, and leaves out items judged once', () => {
    const a = verdictAgreement([[true, true, true], [false, false, false], [true, false, true], [true]])
    expect(a.items).toBe(3)
    expect(a.flipped).toBe(1)
    expect(a.identical).toBeCloseTo(2 / 3, 12)
    // 3 pairs per item: 3 + 3 + 1 agreeing of 9
    expect(a.pairwise).toBeCloseTo(7 / 9, 12)
    expect(a.kappa).not.toBeNull()
    expect(verdictAgreement([[true]])).toEqual({ items: 0, flipped: 0, identical: null, pairwise: null, kappa: null })
  })

  it('κ is the mean of the pairwise Cohen κ, 1 and identical 1 when every item is judged the same every time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 5 }).chain((m) => fc.array(ratings(m), { minLength: 1, maxLength: 12 })),
        (items) => {
          const a = verdictAgreement(items)
          const m = items[0]!.length
          const pairs: (number | null)[] = []
          for (let i = 0; i < m; i++)
            for (let j = i + 1; j < m; j++)
              pairs.push(
                cohensKappa(
                  items.map((v) => v[i]!),
                  items.map((v) => v[j]!),
                ),
              )
          if (pairs.some((k) => k === null)) expect(a.kappa).toBeNull()
          else expect(a.kappa!).toBeCloseTo(pairs.reduce<number>((s, k) => s + k!, 0) / pairs.length, 12)
          const stable = items.every((v) => v.every((x) => x === v[0]))
          expect(a.identical === 1).toBe(stable)
          expect(a.flipped === 0).toBe(stable)
          if (stable && a.kappa !== null) expect(a.kappa).toBeCloseTo(1, 12)
        },
      ),
      settings,
    )
  })
})
