import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { coverAt, coverAtInterval, coverCurve, passAtFromCover, triesWithin } from './cover-at.js'
import type { SampleCounts } from './pass-at-k.js'

const triesArb = fc.array(
  fc
    .integer({ min: 0, max: 12 })
    .chain((n) => fc.record({ taskId: fc.constant('t'), n: fc.constant(n), c: fc.integer({ min: 0, max: n }) })),
  { minLength: 1, maxLength: 15 },
)
/** τ as an exact fraction num/den, so brute force compares integers: c·den ≥ num·n. */
const tauArb = fc
  .integer({ min: 1, max: 12 })
  .chain((den) => fc.tuple(fc.integer({ min: 1, max: den }), fc.constant(den)))

describe('Cover@τ', () => {
  it('matches hand values', () => {
    const tries = [
      { taskId: 'a', n: 4, c: 4 },
      { taskId: 'b', n: 4, c: 1 },
      { taskId: 'c', n: 0, c: 0 },
    ]
    expect(coverAt(tries, 0.5)).toBe(0.5)
    expect(coverAt(tries, 0.25)).toBe(1)
    expect(coverAt(tries, 1)).toBe(0.5)
    expect(coverAt([], 1)).toBeNaN()
    expect(coverAt([{ taskId: 'a', n: 10, c: 7 }], 0.7)).toBe(1)
    expect(() => coverAt(tries, 0)).toThrow(/τ must be a share in \(0, 1\]/)
    expect(() => coverAt(tries, 1.5)).toThrow(/τ must be a share/)
  })

  it('equals the brute-force share of tasks with c/n ≥ τ (exact fractions)', () => {
    fc.assert(
      fc.property(triesArb, tauArb, (tries, [num, den]) => {
        const used = tries.filter((t) => t.n > 0)
        const brute = used.length === 0 ? Number.NaN : used.filter((t) => t.c * den >= num * t.n).length / used.length
        expect(coverAt(tries, num / den)).toBe(brute)
        expect(coverAtInterval(tries, num / den).point).toBe(brute)
      }),
      { seed: 42, numRuns: 400 },
    )
  })

  it('falls as τ rises, and its curve gives Cover@τ at every step', () => {
    fc.assert(
      fc.property(triesArb, (tries) => {
        const steps = coverCurve(tries)
        for (const [i, s] of steps.entries()) {
          expect(coverAt(tries, s.tau)).toBe(s.cover)
          if (i > 0) expect(s.cover).toBeLessThanOrEqual(steps[i - 1]!.cover)
        }
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('Pass@k = ∫ Cover(τ)·k(1−τ)^{k−1} dτ: exact over the steps, and by brute-force integration', () => {
    fc.assert(
      fc.property(triesArb, fc.integer({ min: 1, max: 8 }), (tries, k) => {
        const used = tries.filter((t) => t.n > 0)
        fc.pre(used.length > 0)
        const plugIn = used.reduce((s, t) => s + 1 - (1 - t.c / t.n) ** k, 0) / used.length
        expect(passAtFromCover(tries, k)).toBeCloseTo(plugIn, 12)
        // Midpoint rule over a fine grid of τ, with Cover read pointwise (no use of the steps).
        const grid = 4000
        let integral = 0
        for (let j = 0; j < grid; j++) {
          const tau = (j + 0.5) / grid
          integral += (coverAt(tries, tau) * k * (1 - tau) ** (k - 1)) / grid
        }
        expect(Math.abs(integral - plugIn)).toBeLessThan(0.01)
      }),
      { seed: 42, numRuns: 60 },
    )
  })

  it('reads a sequential cell as its repeats solved within k', () => {
    expect(triesWithin([{ taskId: 'a', firstSuccess: [1, 3, null] }], 2)).toEqual<SampleCounts[]>([
      { taskId: 'a', n: 3, c: 1 },
    ])
    expect(triesWithin([{ taskId: 'a', firstSuccess: [1, 3, null] }], 3)).toEqual<SampleCounts[]>([
      { taskId: 'a', n: 3, c: 2 },
    ])
  })

  it('its interval is the Clopper–Pearson interval on the tasks (one trial each)', () => {
    const all = Array.from({ length: 10 }, (_, i) => ({ taskId: `t${i}`, n: 3, c: 3 }))
    const i = coverAtInterval(all, 1)
    expect(i.point).toBe(1)
    expect(i.lo).toBeCloseTo(0.6915, 4)
    expect(i.tasks).toBe(10)
  })
})
