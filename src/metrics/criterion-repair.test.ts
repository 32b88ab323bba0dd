import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CriteriaAttempts } from './criterion-repair.js'
import { criterionRepair } from './criterion-repair.js'

describe('criterionRepair', () => {
  it('counts a repair and a breakage in one revision', () => {
    expect(
      criterionRepair([
        [
          { a: false, b: true },
          { a: true, b: false },
        ],
      ]),
    ).toEqual({
      failedFirst: 1,
      repaired: 1,
      repairRate: 1,
      passedEarlier: 1,
      broken: 1,
      brokenRate: 1,
    })
  })

  it('judges repair on the best later attempt, not the last one', () => {
    const trajectory: CriteriaAttempts = [
      { a: false, b: false, c: false },
      { a: true, b: true, c: false },
      { a: true, b: false, c: false },
    ]
    const result = criterionRepair([trajectory])
    expect(result.failedFirst).toBe(3)
    expect(result.repaired).toBe(2)
    expect(result.repairRate).toBeCloseTo(2 / 3, 12)
    // a and b were met in attempt 2; b is lost again in the final attempt.
    expect(result.passedEarlier).toBe(2)
    expect(result.broken).toBe(1)
    expect(result.brokenRate).toBe(0.5)
  })

  it('breaks ties between equally good later attempts in favour of the latest', () => {
    const trajectory: CriteriaAttempts = [
      { a: false, b: true },
      { a: true, b: false }, // one criterion met, repairs a
      { a: false, b: true }, // one criterion met too, repairs nothing: the latest wins the tie
    ]
    const result = criterionRepair([trajectory])
    expect(result.failedFirst).toBe(1)
    expect(result.repaired).toBe(0)
    expect(result.repairRate).toBe(0)
    expect(result.passedEarlier).toBe(2)
    expect(result.broken).toBe(1)
  })

  it('sums over trajectories and skips those without a revision', () => {
    const result = criterionRepair([
      [{ a: false }, { a: true }],
      [
        { a: false, b: false },
        { a: false, b: true },
      ],
      [{ a: false, b: false }],
    ])
    expect(result.failedFirst).toBe(3)
    expect(result.repaired).toBe(2)
    expect(result.passedEarlier).toBe(0)
    expect(result.broken).toBe(0)
    expect(result.brokenRate).toBeNaN()
  })

  it('has NaN rates (not 0) when nothing failed first or nothing passed earlier', () => {
    const nothing = criterionRepair([[{ a: true }], []])
    expect(nothing).toMatchObject({ failedFirst: 0, repaired: 0, passedEarlier: 0, broken: 0 })
    expect(nothing.repairRate).toBeNaN()
    expect(nothing.brokenRate).toBeNaN()
    const allMet = criterionRepair([[{ a: true }, { a: true }]])
    expect(allMet.repairRate).toBeNaN()
    expect(allMet).toMatchObject({ passedEarlier: 1, broken: 0, brokenRate: 0 })
  })

  it('treats a criterion missing from an attempt as not met', () => {
    const result = criterionRepair([[{ a: true }, { b: true }]])
    // b is missing from attempt 1 (failed first, then repaired); a is missing from attempt 2 (broken).
    expect(result).toMatchObject({ failedFirst: 1, repaired: 1, passedEarlier: 1, broken: 1 })
  })

  it('keeps repaired <= failedFirst and broken <= passedEarlier', () => {
    const attempt = fc.record({ a: fc.boolean(), b: fc.boolean(), c: fc.boolean() }, { requiredKeys: [] })
    fc.assert(
      fc.property(fc.array(fc.array(attempt, { maxLength: 5 }), { maxLength: 8 }), (trajectories) => {
        const result = criterionRepair(trajectories)
        expect(result.repaired).toBeLessThanOrEqual(result.failedFirst)
        expect(result.broken).toBeLessThanOrEqual(result.passedEarlier)
        if (result.failedFirst > 0) expect(result.repairRate).toBe(result.repaired / result.failedFirst)
        else expect(result.repairRate).toBeNaN()
      }),
      { seed: 42, numRuns: 300 },
    )
  })
})
