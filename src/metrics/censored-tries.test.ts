import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  censoredFigure,
  censoredTriesWithin,
  censoredValue,
  hiddenSuccesses,
  type CensoredTries,
} from './censored-tries.js'
import { rateInterval } from './intervals.js'
import { allSolved } from './seq-hat-k.js'
import { consistencyValues } from './consistency.js'
import { coverCurve, coverCurveCensored, reachesShare, triesWithin } from './cover-at.js'
import { seqHatInterval } from './seq-hat-k.js'
import type { RepeatOutcome } from './censored.js'

const chance = fc.double({ min: 0, max: 1, noNaN: true })
const triesArb: fc.Arbitrary<CensoredTries> = fc.record({
  taskId: fc.constant('t'),
  c: fc.integer({ min: 0, max: 4 }),
  f: fc.integer({ min: 0, max: 4 }),
  hidden: fc.array(chance, { maxLength: 3 }),
})
const values = {
  allSolved,
  cover50: reachesShare(0.5),
  consistency: consistencyValues.mean,
  inconsistent: consistencyValues.inconsistent,
}

describe('hidden tries', () => {
  it('hiddenSuccesses is the Poisson–binomial law: sums to 1 with mean Σ p', () => {
    fc.assert(
      fc.property(fc.array(chance, { maxLength: 6 }), (ps) => {
        const pmf = hiddenSuccesses(ps)
        expect(pmf).toHaveLength(ps.length + 1)
        expect(pmf.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
        expect(pmf.reduce((a, m, x) => a + m * x, 0)).toBeCloseTo(
          ps.reduce((a, b) => a + b, 0),
          12,
        )
      }),
      { seed: 48, numRuns: 200 },
    )
  })

  it("a task's value lies between the least and greatest any outcome of its hidden tries gives (brute force)", () => {
    fc.assert(
      fc.property(triesArb, fc.constantFrom(...Object.values(values)), (t, value) => {
        const v = censoredValue(t, value)
        const n = t.c + t.f + t.hidden.length
        const all = Array.from({ length: 2 ** t.hidden.length }, (_, mask) => {
          let x = 0
          for (let b = 0; b < t.hidden.length; b++) if (mask & (1 << b)) x++
          return value(n, t.c + x)
        }).filter((x) => !Number.isNaN(x))
        if (all.length === 0) {
          expect(v.point).toBeNaN()
          return
        }
        expect(v.lo).toBe(Math.min(...all))
        expect(v.hi).toBe(Math.max(...all))
        expect(v.point).toBeGreaterThanOrEqual(v.lo - 1e-12)
        expect(v.point).toBeLessThanOrEqual(v.hi + 1e-12)
        if (t.hidden.length === 0) expect(v.point).toBe(value(n, t.c))
      }),
      { seed: 48, numRuns: 200 },
    )
  })

  it('without hidden tries a figure is exactly rateInterval over its values, with no bounds', () => {
    fc.assert(
      fc.property(
        fc.array(
          triesArb.map((t) => ({ ...t, hidden: [] })),
          { minLength: 1, maxLength: 12 },
        ),
        (tasks) => {
          for (const value of Object.values(values)) {
            const figure = censoredFigure(tasks, value)
            expect(figure.interval).toEqual(
              rateInterval(
                tasks.map((t) => value(t.c + t.f, t.c)),
                tasks.map(() => 1),
              ),
            )
            expect(figure.bounds).toBeNull()
            expect(figure.hidden).toBe(0)
          }
        },
      ),
      { seed: 48, numRuns: 100 },
    )
  })

  it('with hidden tries, the bounds hold the figure any outcome of them gives, and the interval holds the bounds', () => {
    fc.assert(
      fc.property(
        fc.array(triesArb, { minLength: 2, maxLength: 10 }),
        fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
        (tasks, coins) => {
          let i = 0
          // One outcome of every hidden try: the figure the full tries would have given.
          const full = tasks.map((t) => ({
            n: t.c + t.f + t.hidden.length,
            c: t.c + t.hidden.filter(() => coins[i++ % 30]).length,
          }))
          for (const value of Object.values(values)) {
            const figure = censoredFigure(tasks, value)
            const counted = full.map((t) => value(t.n, t.c)).filter((x) => !Number.isNaN(x))
            if (counted.length === 0 || figure.bounds === null) continue
            const truth = counted.reduce((a, b) => a + b, 0) / counted.length
            expect(truth).toBeGreaterThanOrEqual(figure.bounds.lo - 1e-12)
            expect(truth).toBeLessThanOrEqual(figure.bounds.hi + 1e-12)
            expect(figure.interval.lo).toBeLessThanOrEqual(figure.bounds.lo + 1e-12)
            expect(figure.interval.hi).toBeGreaterThanOrEqual(figure.bounds.hi - 1e-12)
            expect(figure.interval.method).toMatch(/^error-bounds-union\//)
          }
        },
      ),
      { seed: 48, numRuns: 200 },
    )
  })
})

const repeatArb: fc.Arbitrary<RepeatOutcome> = fc.oneof(
  fc.record({ firstSuccess: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }) }),
  fc.record({ censoredAt: fc.integer({ min: 1, max: 5 }) }),
)
const cellArb = fc.array(
  fc.array(repeatArb, { minLength: 1, maxLength: 4 }).map((repeats) => ({ taskId: 't', repeats })),
  { minLength: 1, maxLength: 12 },
)

describe('censoredTriesWithin', () => {
  it('without errors, the tries within k and Seq^k are exactly those of the repeats', () => {
    fc.assert(
      fc.property(
        cellArb.map((cell) =>
          cell.map((t) => ({
            ...t,
            repeats: t.repeats.filter((r): r is { firstSuccess: number | null } => 'firstSuccess' in r),
          })),
        ),
        fc.integer({ min: 1, max: 5 }),
        (cell, k) => {
          const outcomes = cell.map((t) => ({ taskId: t.taskId, firstSuccess: t.repeats.map((r) => r.firstSuccess) }))
          const tries = censoredTriesWithin(cell, k)
          expect(tries.map((t) => ({ taskId: t.taskId, n: t.c + t.f, c: t.c }))).toEqual(triesWithin(outcomes, k))
          expect(tries.every((t) => t.hidden.length === 0)).toBe(true)
          expect(censoredFigure(tries, allSolved).interval).toEqual(seqHatInterval(outcomes, k))
        },
      ),
      { seed: 48, numRuns: 200 },
    )
  })

  it('counts every repeat: a repeat errored after attempt k failed within k, one errored at or before k is hidden', () => {
    fc.assert(
      fc.property(cellArb, fc.integer({ min: 1, max: 5 }), (cell, k) => {
        const tries = censoredTriesWithin(cell, k)
        for (const [i, t] of tries.entries()) {
          const repeats = cell[i]!.repeats
          expect(t.c + t.f + t.hidden.length).toBe(repeats.length)
          const hidden = repeats.filter((r) => 'censoredAt' in r && r.censoredAt <= k).length
          expect(t.hidden).toHaveLength(hidden)
          const blind = repeats.every((r) => 'censoredAt' in r && r.censoredAt === 1)
          for (const p of t.hidden) {
            if (blind) expect(p).toBeNaN()
            else {
              expect(p).toBeGreaterThanOrEqual(0)
              expect(p).toBeLessThanOrEqual(1)
            }
          }
        }
      }),
      { seed: 48, numRuns: 150 },
    )
  })

  it("a hidden repeat's chance blends its task's repeats at risk with two repeats at similar tasks' hazard", () => {
    const a = { taskId: 'a', repeats: [{ firstSuccess: 1 }, { censoredAt: 2 }] }
    const b = { taskId: 'b', repeats: [{ firstSuccess: 2 }, { firstSuccess: null }] }
    // At attempt 2 none of a's repeats is at risk; the cell's two there, one success: 1/2.
    expect(censoredTriesWithin([a, b], 2)[0]).toEqual({ taskId: 'a', c: 1, f: 0, hidden: [0.5] })
    // A sibling still at risk that fails counts once, the cell's hazard (3 at risk, 1 success) twice: (0 + 2/3) / 3.
    const c = { taskId: 'c', repeats: [{ firstSuccess: null }, { censoredAt: 2 }] }
    expect(censoredTriesWithin([c, b], 2)[0]!.hidden[0]).toBeCloseTo(2 / 9, 12)
  })
})

describe('the Cover@τ curve with hidden tries', () => {
  it('without hidden tries is coverCurve to the bit; with them, each step is the figure at that τ', () => {
    fc.assert(
      fc.property(fc.array(triesArb, { minLength: 1, maxLength: 10 }), (tasks) => {
        const plain = tasks.map((t) => ({ ...t, hidden: [] }))
        expect(coverCurveCensored(plain)).toEqual(
          coverCurve(plain.map((t) => ({ taskId: t.taskId, n: t.c + t.f, c: t.c }))),
        )
        for (const step of coverCurveCensored(tasks))
          expect(step.cover).toBeCloseTo(censoredFigure(tasks, reachesShare(step.tau)).interval.point, 12)
      }),
      { seed: 48, numRuns: 80 },
    )
  })
})
