import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { dominates, paretoFrontier, paretoMask, type CostSuccessPoint } from './pareto.js'

describe('paretoFrontier', () => {
  it('finds the frontier of hand-made points', () => {
    const points = [
      { id: 'cheap-weak', cost: 1, success: 0.3 },
      { id: 'cheap-weaker', cost: 1, success: 0.2 }, // same cost, worse: dominated
      { id: 'mid', cost: 2, success: 0.6 },
      { id: 'mid-worse', cost: 2.5, success: 0.55 }, // dearer and worse than mid: dominated
      { id: 'dear-best', cost: 5, success: 0.9 },
      { id: 'dear-same', cost: 6, success: 0.9 }, // as good, dearer: dominated
      { id: 'free-useless', cost: 0, success: 0 },
    ]
    expect(paretoFrontier(points).map((p) => p.id)).toEqual(['free-useless', 'cheap-weak', 'mid', 'dear-best'])
    expect(paretoMask(points)).toEqual([true, false, true, false, true, false, true])
  })

  it('keeps identical points (neither dominates the other) and drops a point beaten on cost only', () => {
    expect(
      paretoMask([
        { cost: 1, success: 0.5 },
        { cost: 1, success: 0.5 },
      ]),
    ).toEqual([true, true])
    expect(
      paretoMask([
        { cost: 1, success: 0.5 },
        { cost: 2, success: 0.5 },
      ]),
    ).toEqual([true, false])
    expect(dominates({ cost: 1, success: 0.5 }, { cost: 1, success: 0.5 })).toBe(false)
  })

  it('is empty for no points and refuses unpriced (non-finite) ones', () => {
    expect(paretoFrontier([])).toEqual([])
    expect(() => paretoMask([{ cost: Number.NaN, success: 1 }])).toThrow(/point 0 must have a finite cost/)
  })

  const pointsArb = fc.array(
    // Few distinct values so that ties in cost and in success are common.
    fc.record({
      cost: fc.integer({ min: 0, max: 6 }).map((c) => c / 2),
      success: fc.integer({ min: 0, max: 5 }).map((s) => s / 5),
    }),
    { maxLength: 30 },
  )

  it('never keeps a dominated point, and every point it drops is dominated', () => {
    fc.assert(
      fc.property(pointsArb, (points: CostSuccessPoint[]) => {
        const mask = paretoMask(points)
        points.forEach((p, i) => {
          const dominated = points.some((q) => dominates(q, p))
          expect(mask[i]).toBe(!dominated)
        })
      }),
      { seed: 42, numRuns: 500 },
    )
  })

  it('returns the frontier cheapest first with success rising along it', () => {
    fc.assert(
      fc.property(pointsArb, (points) => {
        const frontier = paretoFrontier(points)
        for (let i = 1; i < frontier.length; i++) {
          const [a, b] = [frontier[i - 1] as CostSuccessPoint, frontier[i] as CostSuccessPoint]
          expect(b.cost).toBeGreaterThanOrEqual(a.cost)
          if (b.cost > a.cost) expect(b.success).toBeGreaterThan(a.success)
        }
      }),
      { seed: 42, numRuns: 300 },
    )
  })
})
