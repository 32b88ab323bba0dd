import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { averageRanks, competitionRanks, sameRate } from './ranks.js'

// 14/27 along two paths: successes over samples, and one minus the failures' share.
const direct = 14 / 27
const complement = 1 - 13 / 27

/** A rate of `count` out of `total` along one of three paths, each with its own last bits. */
const rate = (count: number, total: number, path: number): number =>
  path === 0
    ? count / total
    : path === 1
      ? 1 - (total - count) / total
      : Array.from({ length: count }, () => 1 / total).reduce((s, v) => s + v, 0)

/** Counts out of one total, each turned into a rate along a random path. */
const ratesArb = fc.integer({ min: 1, max: 200 }).chain((total) =>
  fc
    .array(fc.tuple(fc.integer({ min: 0, max: total }), fc.integer({ min: 0, max: 2 })), { maxLength: 12 })
    .map((xs) => ({
      counts: xs.map(([c]) => c),
      rates: xs.map(([c, path]) => rate(c, total, path)),
    })),
)

/** Values with near-ties: a few bases, each nudged by a few ulps to a few hundred tolerances. */
const nearTiesArb = fc.array(
  fc
    .tuple(fc.constantFrom(0, 0.25, 0.5185185185185185, 1), fc.integer({ min: -300, max: 300 }))
    .map(([base, d]) => base + d * 1e-14),
  { maxLength: 12 },
)

describe('sameRate', () => {
  it('ties one count computed along two paths, and nothing a count can tell apart', () => {
    expect(direct).toBe(0.5185185185185185)
    expect(complement).toBe(0.5185185185185186)
    expect(sameRate(direct, complement)).toBe(true)
    expect(sameRate(0.1 + 0.2, 0.3)).toBe(true)
    expect(sameRate(14 / 27, 15 / 27)).toBe(false)
    expect(sameRate(1 / 1e6, 2 / 1e6)).toBe(false)
  })

  it('is reflexive and symmetric', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), (a, b) => {
        expect(sameRate(a, a)).toBe(true)
        expect(sameRate(a, b)).toBe(sameRate(b, a))
      }),
      { seed: 42, numRuns: 300 },
    )
  })
})

describe('competitionRanks', () => {
  it('ranks best first, tied actors sharing the better rank ("1224")', () => {
    const ranks = competitionRanks(
      new Map([
        ['a', 0.9],
        ['b', 0.7],
        ['c', 0.9],
        ['d', 0.5],
      ]),
    )
    expect([...ranks]).toEqual([
      ['a', 1],
      ['b', 3],
      ['c', 1],
      ['d', 4],
    ]) // the input's order, not the ranks'
    expect(competitionRanks(new Map())).toEqual(new Map())
  })

  it('ties 0.5185185185185185 and 0.5185185185185186 (14/27 along two paths)', () => {
    expect(
      Object.fromEntries(
        competitionRanks(
          new Map([
            ['a', direct],
            ['b', complement],
            ['c', 0.9],
          ]),
        ),
      ),
    ).toEqual({ a: 2, b: 2, c: 1 })
  })

  it('rejects a non-finite rate', () => {
    expect(() =>
      competitionRanks(
        new Map([
          ['a', 0.5],
          ['b', Number.NaN],
        ]),
      ),
    ).toThrow(/scores\[1\] must be a finite number/)
  })

  it('ranks rates exactly as their counts: 1 + how many counts are higher', () => {
    fc.assert(
      fc.property(ratesArb, ({ counts, rates }) => {
        const ranks = competitionRanks(new Map(rates.map((r, i) => [i, r])))
        expect(counts.map((_, i) => ranks.get(i))).toEqual(counts.map((c) => 1 + counts.filter((d) => d > c).length))
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('does not depend on the order actors come in', () => {
    fc.assert(
      fc.property(nearTiesArb, fc.integer(), (values, shift) => {
        const entries = values.map((v, i) => [i, v] as const)
        const at = entries.length === 0 ? 0 : ((shift % entries.length) + entries.length) % entries.length
        const rotated = [...entries.slice(at), ...entries.slice(0, at)].reverse()
        expect(Object.fromEntries(competitionRanks(new Map(rotated)))).toEqual(
          Object.fromEntries(competitionRanks(new Map(entries))),
        )
      }),
      { seed: 42, numRuns: 300 },
    )
  })
})

describe('averageRanks', () => {
  it('gives tied values the mean of the ranks they span', () => {
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1])
    expect(averageRanks([7, 7, 7])).toEqual([2, 2, 2])
    expect(averageRanks([])).toEqual([])
  })

  it('ties 0.5185185185185185 and 0.5185185185185186 (14/27 along two paths)', () => {
    expect(averageRanks([direct, complement, 0.9])).toEqual([1.5, 1.5, 3])
  })

  it('rejects a non-finite value', () => {
    expect(() => averageRanks([1, Number.POSITIVE_INFINITY])).toThrow(/values\[1\] must be a finite number/)
  })

  it('ranks rates exactly as their counts: below + (tied + 1) / 2', () => {
    fc.assert(
      fc.property(ratesArb, ({ counts, rates }) => {
        const expected = counts.map(
          (c) => counts.filter((d) => d < c).length + (counts.filter((d) => d === c).length + 1) / 2,
        )
        expect(averageRanks(rates)).toEqual(expected)
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('sums to n(n+1)/2, ties or not', () => {
    fc.assert(
      fc.property(nearTiesArb, (values) => {
        const n = values.length
        expect(averageRanks(values).reduce((s, r) => s + r, 0)).toBe((n * (n + 1)) / 2)
      }),
      { seed: 42, numRuns: 300 },
    )
  })
})

describe('one tie rule for both rankings', () => {
  it('agrees on every pair: better competition rank exactly when higher average rank, ties the same', () => {
    fc.assert(
      fc.property(nearTiesArb, (values) => {
        const average = averageRanks(values)
        const competition = competitionRanks(new Map(values.map((v, i) => [i, v])))
        for (let i = 0; i < values.length; i++) {
          for (let j = 0; j < values.length; j++) {
            const a = average[i] as number
            const b = average[j] as number
            const ci = competition.get(i) as number
            const cj = competition.get(j) as number
            expect(Math.sign(ci - cj)).toBe(Math.sign(b - a))
          }
        }
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('never ties values further apart than the rule allows', () => {
    fc.assert(
      fc.property(nearTiesArb, (values) => {
        const ranks = averageRanks(values)
        for (let i = 0; i < values.length; i++) {
          for (let j = 0; j < values.length; j++) {
            if (ranks[i] === ranks[j])
              expect(Math.abs((values[i] as number) - (values[j] as number))).toBeLessThanOrEqual(
                1e-12 * Math.max(1, Math.abs(values[i] as number), Math.abs(values[j] as number)) + 1e-16,
              )
          }
        }
      }),
      { seed: 42, numRuns: 300 },
    )
  })
})
