import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { robustnessRatio, taskFlips, type PairedRates } from './robustness-ratio.js'

const pairs = (xs: [number, number][]): PairedRates[] =>
  xs.map(([original, perturbed], i) => ({ taskId: `t${i}`, original, perturbed }))

describe('robustnessRatio', () => {
  it('is Σ perturbed over Σ original, paired over tasks', () => {
    const r = robustnessRatio(
      pairs([
        [1, 1],
        [1, 0],
        [0, 0],
        [1, 1],
      ]),
    )
    expect(r.point).toBeCloseTo(2 / 3, 12)
    expect(r.bounded).toBe(true)
    expect(r.lo).toBeLessThanOrEqual(r.point)
    expect(r.hi).toBeGreaterThanOrEqual(r.point)
  })

  it('is undefined (NaN, never 0 or 1) with no task passed on the original, or fewer than two tasks', () => {
    expect(
      robustnessRatio(
        pairs([
          [0, 1],
          [0, 0],
        ]),
      ).point,
    ).toBeNaN()
    expect(robustnessRatio(pairs([[1, 1]])).point).toBeNaN()
  })

  it('does not collapse to [1, 1] when no task flipped in the sample', () => {
    const r = robustnessRatio(pairs(Array.from({ length: 20 }, () => [1, 1] as [number, number])))
    expect(r.point).toBe(1)
    expect(r.lo).toBeLessThan(0.95)
    expect(r.hi).toBeGreaterThan(1)
  })

  it('says unbounded when the original is barely above zero', () => {
    const r = robustnessRatio(
      pairs([
        [1, 1],
        [0, 0],
      ]),
    )
    expect(r.bounded).toBe(false)
    expect(r.hi).toBe(Infinity)
  })

  it('refuses a rate outside [0, 1]', () => {
    expect(() =>
      robustnessRatio(
        pairs([
          [1.5, 1],
          [1, 1],
        ]),
      ),
    ).toThrow(/rates must be in \[0, 1\], got 1.5/)
  })

  test.prop(
    [
      fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 })), {
        minLength: 2,
        maxLength: 60,
      }),
    ],
    {
      seed: 49,
    },
  )('the interval holds its point, is never negative, and narrows as the level falls', (raw) => {
    const ps = pairs(raw.map(([a, b]) => [a / 4, b / 4]))
    const r95 = robustnessRatio(ps)
    const r80 = robustnessRatio(ps, 0.8)
    if (Number.isNaN(r95.point)) return
    expect(r95.lo).toBeGreaterThanOrEqual(0)
    expect(r95.lo).toBeLessThanOrEqual(r95.point + 1e-12)
    expect(r95.hi).toBeGreaterThanOrEqual(r95.point - 1e-12)
    if (r80.bounded && r95.bounded) {
      expect(r80.lo).toBeGreaterThanOrEqual(r95.lo - 1e-12)
      expect(r80.hi).toBeLessThanOrEqual(r95.hi + 1e-12)
    }
  })
})

describe('taskFlips', () => {
  it('lists tasks that passed on the original and fail reworded, and the reverse', () => {
    expect(
      taskFlips(
        pairs([
          [1, 0],
          [0, 1],
          [1, 1],
          [0, 0],
          [0.5, 0],
          [0.5, 0.5],
        ]),
      ),
    ).toEqual({
      lost: ['t0', 't4'],
      gained: ['t1'],
    })
  })
})
