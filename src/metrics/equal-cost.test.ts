import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compareAtEqualCost, rateAtCost, type CostRatePoint } from './equal-cost.js'

describe('rateAtCost', () => {
  it('is straight between budgets, held beyond the last, undefined below the first', () => {
    const points = [
      { cost: 100, rate: 0.4 },
      { cost: 300, rate: 0.6 },
    ]
    expect(rateAtCost(points, 200)).toBeCloseTo(0.5, 14)
    expect(rateAtCost(points, 100)).toBe(0.4)
    expect(rateAtCost(points, 1000)).toBe(0.6)
    expect(rateAtCost(points, 99)).toBeNaN()
    expect(rateAtCost([], 5)).toBeNaN()
    // A dearer budget that does no better is no better than the cheaper one: the frontier keeps the best.
    expect(
      rateAtCost(
        [
          { cost: 10, rate: 0.5 },
          { cost: 20, rate: 0.4 },
        ],
        15,
      ),
    ).toBe(0.5)
    // Free budgets (simulated actors at $0): every budget at one spend, the best of them.
    expect(
      rateAtCost(
        [
          { cost: 0, rate: 0.2 },
          { cost: 0, rate: 0.7 },
        ],
        0,
      ),
    ).toBe(0.7)
  })
})

describe('compareAtEqualCost', () => {
  it('hand values: a crossing at the root of the piece where the lead changes', () => {
    const r = compareAtEqualCost(
      [
        { cost: 100, rate: 0.3 },
        { cost: 180, rate: 0.6 },
      ],
      [
        { cost: 100, rate: 0.4 },
        { cost: 200, rate: 0.55 },
      ],
    )!
    expect(r.verdict).toBe('crossing')
    expect(r.firstLeader).toBe('independent')
    expect(r.crossings).toHaveLength(1)
    expect(r.crossings[0]!.leader).toBe('sequential')
    expect(r.crossings[0]!.cost).toBeCloseTo(100 + 80 * (0.1 / 0.18), 10)
    expect([r.from, r.to]).toEqual([100, 200])
  })

  it('dominance, equality, and no point', () => {
    const cheap = [
      { cost: 10, rate: 0.5 },
      { cost: 15, rate: 0.8 },
    ]
    const dear = [
      { cost: 10, rate: 0.5 },
      { cost: 40, rate: 0.7 },
    ]
    expect(compareAtEqualCost(cheap, dear)!.verdict).toBe('sequential-dominates')
    expect(compareAtEqualCost(dear, cheap)!.verdict).toBe('independent-dominates')
    expect(compareAtEqualCost(cheap, cheap)).toMatchObject({ verdict: 'equal', crossings: [], firstLeader: null })
    expect(compareAtEqualCost([], cheap)).toBeNull()
    // The comparison starts where both can run: below 10 only one of them has a point.
    expect(compareAtEqualCost([{ cost: 5, rate: 0.9 }], [{ cost: 10, rate: 0.95 }])).toMatchObject({
      verdict: 'independent-dominates',
      from: 10,
    })
  })

  it('refuses an unknown cost rather than reading it as 0', () => {
    expect(() => compareAtEqualCost([{ cost: Number.NaN, rate: 0.5 }], [{ cost: 1, rate: 0.5 }])).toThrow(
      'sequential: every point needs a finite cost >= 0',
    )
  })

  // Curves as the protocols draw them: costs and rates rising with k.
  const curve = fc
    .array(fc.record({ dc: fc.integer({ min: 0, max: 50 }), dr: fc.integer({ min: 0, max: 20 }) }), {
      minLength: 1,
      maxLength: 6,
    })
    .chain((steps) =>
      fc.integer({ min: 0, max: 60 }).map((start) => {
        let cost = start
        let rate = 0
        return steps.map(({ dc, dr }) => {
          cost += dc
          rate = Math.min(1, rate + dr / 100)
          return { cost, rate }
        })
      }),
    )

  it('agrees with the sign of the difference on a dense grid, and swapping the sides swaps the leaders (seeded property)', () => {
    fc.assert(
      fc.property(curve, curve, (s: CostRatePoint[], p: CostRatePoint[]) => {
        const r = compareAtEqualCost(s, p)!
        const leaderAt = (x: number) => {
          const d = rateAtCost(s, x) - rateAtCost(p, x)
          return Math.abs(d) < 1e-9 ? null : d > 0 ? 'sequential' : 'independent'
        }
        // Between consecutive lead changes, every grid point has the announced leader or a tie.
        const bounds = [r.from, ...r.crossings.map((c) => c.cost), r.to + 1]
        const leaders = [r.firstLeader, ...r.crossings.map((c) => c.leader)]
        const seen = new Set<string>()
        const wrong: number[] = []
        for (let i = 0; i <= 400; i++) {
          const x = r.from + ((r.to - r.from) * i) / 400
          const at = leaderAt(x)
          if (at === null) continue
          seen.add(at)
          const piece = bounds.findIndex((b, j) => x >= b - 1e-9 && x <= bounds[j + 1]! + 1e-9)
          if (at !== leaders[piece] && at !== leaders[piece + 1]) wrong.push(x)
        }
        expect(wrong).toEqual([])
        if (r.verdict === 'sequential-dominates') expect([...seen]).not.toContain('independent')
        if (r.verdict === 'independent-dominates') expect([...seen]).not.toContain('sequential')
        for (const c of r.crossings) expect(Math.abs(rateAtCost(s, c.cost) - rateAtCost(p, c.cost))).toBeLessThan(1e-6)
        const swapped = compareAtEqualCost(p, s)!
        const flip = (l: string | null) => (l === 'sequential' ? 'independent' : l === 'independent' ? 'sequential' : l)
        expect(swapped.firstLeader).toBe(flip(r.firstLeader))
        expect(swapped.crossings.map((c) => flip(c.leader))).toEqual(r.crossings.map((c) => c.leader))
        swapped.crossings.forEach((c, i) => expect(c.cost).toBeCloseTo(r.crossings[i]!.cost, 9))
      }),
      { seed: 4931, numRuns: 300 },
    )
  })
})
