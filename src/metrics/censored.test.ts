import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { AttemptHazard, CensoredTaskOutcomes, RepeatOutcome } from './censored.js'
import {
  censoredShares,
  ERROR_BOUNDS_INTERVAL_METHOD,
  errorsAsFailures,
  errorsAsSuccesses,
  errorsLeftOut,
  pooledHazards,
  ratioToNumber,
  seqAtCurveCensored,
  seqAtIntervalCensored,
  seqAtIntervalReported,
  tailHazards,
} from './censored.js'
import { seqAtInterval } from './seq-at-k.js'
import type { Rng } from './random.js'
import { createRng, seedFrom } from './random.js'
import type { TaskOutcomes } from './seq-at-k.js'
import { seqAtCurve } from './seq-at-k.js'

const solved = (firstSuccess: number | null): RepeatOutcome => ({ firstSuccess })
const errored = (censoredAt: number): RepeatOutcome => ({ censoredAt })
const task = (taskId: string, ...repeats: RepeatOutcome[]): CensoredTaskOutcomes => ({ taskId, repeats })

const repeatArb = (maxAttempt: number): fc.Arbitrary<RepeatOutcome> =>
  fc.oneof(
    fc.record({ firstSuccess: fc.option(fc.integer({ min: 1, max: maxAttempt }), { nil: null }) }),
    fc.record({ censoredAt: fc.integer({ min: 1, max: maxAttempt }) }),
  )
const taskArb = (maxAttempt: number): fc.Arbitrary<CensoredTaskOutcomes> =>
  fc.record({ taskId: fc.string({ maxLength: 4 }), repeats: fc.array(repeatArb(maxAttempt), { maxLength: 6 }) })
const outcomesArb = (maxAttempt: number): fc.Arbitrary<CensoredTaskOutcomes[]> =>
  fc.array(taskArb(maxAttempt), { maxLength: 12 })

const sameBits = (actual: readonly number[], expected: readonly number[]): boolean =>
  actual.length === expected.length && actual.every((value, i) => Object.is(value, expected[i]))

type Fraction = [bigint, bigint]
const add = ([a, b]: Fraction, [c, d]: Fraction): Fraction => [a * d + c * b, b * d]
const times = ([a, b]: Fraction, [c, d]: Fraction): Fraction => [a * c, b * d]

/**
 * An independent oracle: Efron's "redistribute to the right" in exact fractions. Every repeat starts
 * with weight 1/r; a repeat censored at c (time c - 1/2: its last verdict was at c - 1) hands its
 * weight in equal parts to the repeats strictly later. When nobody is later, the weight follows the
 * hazards instead: a part H_j * prod_{c <= l < j} (1 - H_l) of it lands on "success at j". The share
 * at k is the weight on successes at attempts <= k. No at-risk count of the task is used.
 */
function redistributeToTheRight(t: CensoredTaskOutcomes, budget: number, hazards: readonly AttemptHazard[]): number[] {
  const time = (repeat: RepeatOutcome): number => {
    if ('censoredAt' in repeat) return repeat.censoredAt > budget ? Infinity : repeat.censoredAt - 0.5
    return repeat.firstSuccess === null || repeat.firstSuccess > budget ? Infinity : repeat.firstSuccess
  }
  const items = t.repeats.map((repeat) => ({
    time: time(repeat),
    censored: 'censoredAt' in repeat && repeat.censoredAt <= budget,
    weight: [1n, BigInt(t.repeats.length)] as Fraction,
  }))
  if (!items.some((item) => item.time > 0.5)) return new Array<number>(budget).fill(Number.NaN)
  items.sort((x, y) => (x.time === y.time ? 0 : x.time - y.time))
  const mass: Fraction[] = Array.from({ length: budget }, () => [0n, 1n])
  for (const item of items) {
    if (!item.censored) {
      if (item.time <= budget) mass[item.time - 1] = add(mass[item.time - 1] ?? [0n, 1n], item.weight)
      continue
    }
    const later = items.filter((other) => other.time > item.time)
    if (later.length > 0) {
      const part: Fraction = [item.weight[0], item.weight[1] * BigInt(later.length)]
      for (const other of later) other.weight = add(other.weight, part)
      continue
    }
    let left = item.weight
    for (let j = item.time + 0.5; j <= budget; j++) {
      const { atRisk, successes } = hazards[j - 1] ?? { atRisk: 0, successes: 0 }
      if (atRisk === 0) continue
      mass[j - 1] = add(mass[j - 1] ?? [0n, 1n], times(left, [BigInt(successes), BigInt(atRisk)]))
      left = times(left, [BigInt(atRisk - successes), BigInt(atRisk)])
    }
  }
  let cumulative: Fraction = [0n, 1n]
  return mass.map((m) => {
    cumulative = add(cumulative, m)
    return ratioToNumber(cumulative[0], cumulative[1])
  })
}

/** Per-task Kaplan–Meier alone: nobody at risk in the cell, so an emptied task carries S forward. */
const carryForward = (t: CensoredTaskOutcomes, budget: number): number[] =>
  censoredShares(t, budget, pooledHazards([], budget))

function meanCurve(
  outcomes: readonly CensoredTaskOutcomes[],
  budget: number,
  shares: (t: CensoredTaskOutcomes) => number[],
): number[] {
  const kept = outcomes.map(shares).filter((s) => !Number.isNaN(s[0]))
  return Array.from({ length: budget }, (_, k) => kept.reduce((sum, s) => sum + (s[k] ?? Number.NaN), 0) / kept.length)
}

const hazardsArb = (budget: number): fc.Arbitrary<AttemptHazard[]> =>
  fc.array(
    fc
      .integer({ min: 0, max: 9 })
      .chain((atRisk) => fc.record({ atRisk: fc.constant(atRisk), successes: fc.integer({ min: 0, max: atRisk }) })),
    { minLength: budget, maxLength: budget },
  )

describe('censoredShares', () => {
  it('is the Kaplan–Meier estimate, checked by hand', () => {
    // j = 1: 4 at risk, 1 succeeds (S = 3/4); j = 2: 2 at risk (one succeeded, one errored at 2);
    // j = 3: 2 at risk, 1 succeeds (S = 3/8); j = 4: 1 at risk, none succeeds.
    expect(carryForward(task('a', solved(1), errored(2), solved(3), solved(null)), 4)).toEqual([
      1 / 4,
      1 / 4,
      5 / 8,
      5 / 8,
    ])
    // S(3) = 4/5 * 3/3 * 2/3 = 8/15: a fraction no power of two divides, rounded once.
    expect(carryForward(task('b', solved(1), errored(2), solved(3), solved(null), solved(null)), 3)).toEqual([
      1 / 5,
      1 / 5,
      7 / 15,
    ])
    const c = task('c', solved(3), errored(2), solved(null))
    expect(censoredShares(c, 3, pooledHazards([c], 3))).toEqual([0, 0, 0.5])
  })

  it('counts a repeat as failed before its error, and an error after the budget as a miss', () => {
    const shares = carryForward(task('a', solved(2), errored(3)), 3)
    expect(shares.slice(0, 2)).toEqual(carryForward(task('a', solved(2), solved(null)), 3).slice(0, 2))
    expect(shares).toEqual([0, 0.5, 0.5])
    expect(carryForward(task('a', solved(1), errored(4)), 3)).toEqual(
      carryForward(task('a', solved(1), solved(null)), 3),
    )
    expect(carryForward(task('a', solved(5), errored(2)), 3)).toEqual([0, 0, 0])
  })

  it("continues a task whose remaining repeats all errored with the cell's hazards", () => {
    const a = task('a', solved(1), errored(2))
    const b = task('b', solved(null), solved(2), solved(3))
    // Pooled: attempt 1: 5 at risk, 1 success; 2: 3 at risk (a has none left), 1; 3: 2 at risk, 1.
    expect(pooledHazards([a, b], 3)).toEqual([
      { atRisk: 5, successes: 1 },
      { atRisk: 3, successes: 1 },
      { atRisk: 2, successes: 1 },
    ])
    // a: S = 1/2 after attempt 1, then 1/2 * 2/3 = 1/3, then 1/3 * 1/2 = 1/6.
    expect(censoredShares(a, 3, pooledHazards([a, b], 3))).toEqual([1 / 2, 2 / 3, 5 / 6])
    expect(censoredShares(b, 3, pooledHazards([a, b], 3))).toEqual([0, 1 / 3, 2 / 3])
    seqAtCurveCensored([a, b], 3).forEach((value, i) =>
      expect(value).toBeCloseTo([1 / 4, 1 / 2, 3 / 4][i] ?? Number.NaN, 15),
    )
    // With nobody at risk in the cell either, S is carried forward.
    expect(carryForward(a, 3)).toEqual([0.5, 0.5, 0.5])
    expect(carryForward(task('a', errored(2), errored(3)), 4)).toEqual([0, 0, 0, 0])
  })

  it('is NaN when no repeat reached a verdict at attempt 1', () => {
    for (const t of [task('a'), task('a', errored(1)), task('a', errored(1), errored(1))]) {
      const shares = carryForward(t, 3)
      expect(shares).toHaveLength(3)
      expect(shares.every(Number.isNaN)).toBe(true)
    }
    expect(carryForward(task('a', errored(1), solved(2)), 2)).toEqual([0, 1])
  })

  it('rejects malformed repeats, naming the task, and malformed hazards', () => {
    const none = pooledHazards([], 3)
    expect(() => censoredShares(task('x', solved(1)), 0, none)).toThrow(/budget must be an integer >= 1 \(got 0\)/)
    expect(() => censoredShares(task('x', errored(0)), 3, none)).toThrow(
      /censoredAt must be a 1-based attempt number \(task 'x' has 0\)/,
    )
    expect(() => censoredShares(task('x', errored(1.5)), 3, none)).toThrow(RangeError)
    expect(() => censoredShares(task('x', errored(Number.NaN)), 3, none)).toThrow(RangeError)
    expect(() => censoredShares(task('x', solved(0)), 3, none)).toThrow(
      /firstSuccess must be a 1-based attempt number or null \(task 'x' has 0\)/,
    )
    expect(() => censoredShares(task('x', solved(2.5)), 3, none)).toThrow(RangeError)
    const both = { firstSuccess: 1, censoredAt: 2 } as unknown as RepeatOutcome
    expect(() => censoredShares(task('x', solved(1), both), 3, none)).toThrow(/not both \(task 'x', repeat 2\)/)
    expect(() => censoredShares(task('x', {} as RepeatOutcome), 3, none)).toThrow(/task 'x' has undefined/)
    expect(() => seqAtCurveCensored([task('x', errored(-1))], 3)).toThrow(/task 'x' has -1/)
    expect(() => pooledHazards([task('x', solved(0))], 3)).toThrow(/task 'x' has 0/)
    expect(() => censoredShares(task('x', solved(1)), 3, pooledHazards([], 2))).toThrow(
      /an entry per attempt 1..budget \(got 2 for budget 3\)/,
    )
    const bad = [{ atRisk: 2, successes: 3 }, ...pooledHazards([], 2)]
    expect(() => censoredShares(task('x', solved(1)), 3, bad)).toThrow(
      /hazards\[0\] must be integer counts with 0 <= successes <= atRisk \(got 3 of 2\)/,
    )
  })

  it('equals the redistribute-to-the-right oracle bit for bit, for any hazards', () => {
    const caseArb = fc
      .integer({ min: 1, max: 7 })
      .chain((budget) => fc.tuple(taskArb(8), fc.constant(budget), hazardsArb(budget)))
    fc.assert(
      fc.property(caseArb, ([t, budget, hazards]) => {
        expect(sameBits(censoredShares(t, budget, hazards), redistributeToTheRight(t, budget, hazards))).toBe(true)
        expect(sameBits(carryForward(t, budget), redistributeToTheRight(t, budget, pooledHazards([], budget)))).toBe(
          true,
        )
      }),
      { seed: 42, numRuns: 1000 },
    )
  })

  it('gives exactly the k-run share when a K-run is truncated to k, whatever the order of repeats', () => {
    fc.assert(
      fc.property(outcomesArb(8), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 }), (outcomes, a, b) => {
        const [k, budget] = [Math.min(a, b), Math.max(a, b)]
        const [long, short] = [pooledHazards(outcomes, budget), pooledHazards(outcomes, k)]
        expect(long.slice(0, k)).toEqual(short)
        for (const t of outcomes) {
          const shares = censoredShares(t, budget, long)
          expect(Object.is(shares[k - 1], censoredShares(t, k, short)[k - 1])).toBe(true)
          expect(sameBits(censoredShares({ ...t, repeats: [...t.repeats].reverse() }, budget, long), shares)).toBe(true)
        }
        expect(Object.is(seqAtCurveCensored(outcomes, budget)[k - 1], seqAtCurveCensored(outcomes, k)[k - 1])).toBe(
          true,
        )
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('treats an error at attempt j as a failure for k < j, and one at attempt 1 as no repeat at all', () => {
    fc.assert(
      fc.property(outcomesArb(6), fc.nat(), fc.integer({ min: 1, max: 6 }), (outcomes, pick, budget) => {
        const curve = seqAtCurveCensored(outcomes, budget)
        const at = outcomes.flatMap((t, i) => t.repeats.map((repeat, j) => ({ i, j, repeat })))
        const chosen = at[pick % Math.max(1, at.length)]
        if (chosen === undefined || !('censoredAt' in chosen.repeat)) return
        const replace = (by: RepeatOutcome[]) =>
          outcomes.map((t, i) =>
            i === chosen.i ? { ...t, repeats: [...t.repeats.filter((_, j) => j !== chosen.j), ...by] } : t,
          )
        if (chosen.repeat.censoredAt === 1) expect(sameBits(curve, seqAtCurveCensored(replace([]), budget))).toBe(true)
        const before = Math.min(chosen.repeat.censoredAt - 1, budget)
        expect(
          sameBits(curve.slice(0, before), seqAtCurveCensored(replace([solved(null)]), budget).slice(0, before)),
        ).toBe(true)
      }),
      { seed: 42, numRuns: 500 },
    )
  })
})

describe('seqAtCurveCensored', () => {
  it('averages the Kaplan–Meier shares over the tasks that carry information', () => {
    const outcomes = [task('a', solved(1), solved(null)), task('b', errored(2), solved(3)), task('gone', errored(1))]
    expect(seqAtCurveCensored(outcomes, 3)).toEqual([0.25, 0.25, 0.75])
    const none = seqAtCurveCensored([task('gone', errored(1)), task('empty')], 2)
    expect(none).toHaveLength(2)
    expect(none.every(Number.isNaN)).toBe(true)
    expect(seqAtCurveCensored([], 2).every(Number.isNaN)).toBe(true)
    expect(() => seqAtCurveCensored([task('x', solved(1))], 1.5)).toThrow(/budget must be an integer >= 1/)
  })

  it('equals seqAtCurve bit for bit when nothing is censored', () => {
    const uncensoredArb = fc.array(
      fc.record({
        taskId: fc.string({ maxLength: 4 }),
        firstSuccess: fc.array(fc.option(fc.integer({ min: 1, max: 10 }), { nil: null }), { maxLength: 7 }),
      }),
      { maxLength: 20 },
    )
    fc.assert(
      fc.property(uncensoredArb, fc.integer({ min: 1, max: 8 }), (plain: TaskOutcomes[], budget) => {
        const outcomes = plain.map((t) => ({ taskId: t.taskId, repeats: t.firstSuccess.map(solved) }))
        const expected = seqAtCurve(plain, budget)
        expect(sameBits(seqAtCurveCensored(outcomes, budget), expected)).toBe(true)
        expect(sameBits(seqAtCurve(errorsAsFailures(outcomes), budget), expected)).toBe(true)
        expect(sameBits(seqAtCurve(errorsLeftOut(outcomes), budget), expected)).toBe(true)
      }),
      { seed: 42, numRuns: 500 },
    )
  })

  it('is the pooled Kaplan–Meier estimate when every task has one repeat (self-consistency)', () => {
    const singleArb = fc.array(
      repeatArb(7).map((repeat) => [repeat]),
      { maxLength: 30 },
    )
    fc.assert(
      fc.property(singleArb, fc.integer({ min: 1, max: 7 }), (singles, budget) => {
        const outcomes = singles.map((repeats, i) => ({ taskId: `t${i}`, repeats }))
        const curve = seqAtCurveCensored(outcomes, budget)
        // Pooled over all repeats: at risk at j are those still running (no success before j, no
        // error at or before j), whatever task they belong to.
        const all = singles.flat()
        if (!all.some((repeat) => !('censoredAt' in repeat) || repeat.censoredAt > 1)) {
          expect(curve.every(Number.isNaN)).toBe(true)
          return
        }
        let survival: Fraction = [1n, 1n]
        for (let j = 1; j <= budget; j++) {
          const atRisk = all.filter((r) =>
            'censoredAt' in r ? r.censoredAt > j : r.firstSuccess === null || r.firstSuccess >= j,
          ).length
          const successes = all.filter((r) => 'firstSuccess' in r && r.firstSuccess === j).length
          if (atRisk > 0) survival = times(survival, [BigInt(atRisk - successes), BigInt(atRisk)])
          expect(curve[j - 1]).toBeCloseTo(ratioToNumber(survival[1] - survival[0], survival[1]), 12)
        }
      }),
      { seed: 42, numRuns: 500 },
    )
  })

  it('stays in [0, 1] and never decreases in k', () => {
    fc.assert(
      fc.property(outcomesArb(10), fc.integer({ min: 1, max: 8 }), (outcomes, budget) => {
        const curve = seqAtCurveCensored(outcomes, budget)
        expect(curve).toHaveLength(budget)
        if (curve.some(Number.isNaN)) {
          expect(curve.every(Number.isNaN)).toBe(true)
          return
        }
        curve.forEach((value, i) => {
          expect(value).toBeGreaterThanOrEqual(0)
          expect(value).toBeLessThanOrEqual(1)
          if (i > 0) expect(value).toBeGreaterThanOrEqual(curve[i - 1] ?? Number.NaN)
        })
      }),
      { seed: 42, numRuns: 500 },
    )
  })

  it('lies between errors as failures and errors left out, exactly, wherever a task kept a verdict', () => {
    // A theorem, not a tendency. Per task, Kaplan–Meier puts weight S(t-)/n_t on each success at t,
    // which never decreases in t, and the weights on uncensored repeats sum to at most 1. The
    // successes by k are the earliest D_k of the r_u uncensored repeats, so their weight is at
    // least D_k/r (every weight starts at 1/r and only grows) and at most D_k/r_u (the smallest D_k
    // of r_u weights summing to <= 1). The cell's tail only enters once every remaining repeat
    // errored, and then every uncensored repeat has succeeded: left out gives 1 there. Across tasks,
    // a task only the as-failures bound keeps (every repeat errored at attempt 1) has share 0 and
    // only lowers it. Every share is correctly rounded and the sums run in one order, so the
    // inequalities survive floating point.
    //
    // The upper bound is not a law for a task whose every repeat errored after attempt 1: left out
    // drops it, the estimate gives it the cell's tail, which can exceed the mean of the rest.
    fc.assert(
      fc.property(outcomesArb(8), fc.integer({ min: 1, max: 8 }), (outcomes, budget) => {
        const hazards = pooledHazards(outcomes, budget)
        const estimate = seqAtCurveCensored(outcomes, budget)
        const lower = seqAtCurve(errorsAsFailures(outcomes), budget)
        const upper = seqAtCurve(errorsLeftOut(outcomes), budget)
        const perTask = outcomes.map((t) => censoredShares(t, budget, hazards))
        const lostAll = outcomes.some(
          (t, i) => !Number.isNaN(perTask[i]?.[0]) && t.repeats.every((r) => 'censoredAt' in r),
        )
        const alone = meanCurve(outcomes, budget, (t) => carryForward(t, budget))
        for (let i = 0; i < budget; i++) {
          const [lo, km, hi] = [lower[i] ?? Number.NaN, estimate[i] ?? Number.NaN, upper[i] ?? Number.NaN]
          if (Number.isNaN(km)) {
            // No task carries information: nothing reached a verdict, so no bound has a success.
            expect(Number.isNaN(hi)).toBe(true)
            expect(Number.isNaN(lo) || lo === 0).toBe(true)
            continue
          }
          expect(lo).toBeLessThanOrEqual(km)
          if (!lostAll) expect(km).toBeLessThanOrEqual(hi)
          // Per-task Kaplan–Meier alone never exceeds left out: a task that lost every repeat is 0.
          if (Number.isNaN(hi)) expect(alone[i]).toBe(0)
          else expect(alone[i]).toBeLessThanOrEqual(hi)
        }
        outcomes.forEach((t, n) => {
          const shares = perTask[n] ?? []
          if (Number.isNaN(shares[0])) return
          const low = seqAtCurve(errorsAsFailures([t]), budget)
          const high = seqAtCurve(errorsLeftOut([t]), budget)
          shares.forEach((share, k) => {
            expect(low[k]).toBeLessThanOrEqual(share)
            if (!Number.isNaN(high[k])) expect(share).toBeLessThanOrEqual(high[k] ?? Number.NaN)
          })
        })
      }),
      { seed: 42, numRuns: 1000 },
    )
    // The counterexample: task b lost its only repeat at attempt 2, where 3 of the cell's 4 repeats
    // still running succeed; left out averages a and c only.
    const outcomes = [task('a', solved(null)), task('b', errored(2)), task('c', solved(2), solved(2), solved(2))]
    expect(seqAtCurve(errorsLeftOut(outcomes), 2)[1]).toBe(0.5)
    expect(seqAtCurveCensored(outcomes, 2)[1]).toBeCloseTo((0 + 0.75 + 1) / 3, 15)
  })

  it('does not depend on the order of tasks', () => {
    fc.assert(
      fc.property(outcomesArb(6), fc.integer({ min: 1, max: 6 }), (outcomes, budget) => {
        const original = seqAtCurveCensored(outcomes, budget)
        seqAtCurveCensored([...outcomes].reverse(), budget).forEach((value, i) => {
          if (Number.isNaN(value)) expect(original[i]).toBeNaN()
          else expect(value).toBeCloseTo(original[i] ?? Number.NaN, 12)
        })
      }),
      { seed: 42, numRuns: 200 },
    )
  })
})

describe('errorsAsFailures and errorsLeftOut', () => {
  it('turn errors into misses or drop them, keeping every task', () => {
    const outcomes = [task('a', solved(2), errored(3), solved(null)), task('b', errored(1))]
    expect(errorsAsFailures(outcomes)).toEqual([
      { taskId: 'a', firstSuccess: [2, null, null] },
      { taskId: 'b', firstSuccess: [null] },
    ])
    expect(errorsLeftOut(outcomes)).toEqual([
      { taskId: 'a', firstSuccess: [2, null] },
      { taskId: 'b', firstSuccess: [] },
    ])
    expect(() => errorsAsFailures([task('x', errored(0))])).toThrow(/task 'x' has 0/)
    expect(() => errorsLeftOut([task('x', errored(-1))])).toThrow(/task 'x' has -1/)
  })
})

describe('ratioToNumber', () => {
  it('rounds a fraction of huge integers exactly as one IEEE division of the reduced one', () => {
    const safe = fc.bigInt({ min: 1n, max: BigInt(Number.MAX_SAFE_INTEGER) })
    fc.assert(
      fc.property(safe, safe, fc.bigInt({ min: 2n, max: 2n ** 300n }), (x, y, factor) => {
        const [a, b] = x <= y ? [x, y] : [y, x]
        const expected = Number(a) / Number(b)
        expect(ratioToNumber(a * factor, b * factor)).toBe(expected)
        expect(ratioToNumber(a, b)).toBe(expected)
      }),
      { seed: 42, numRuns: 2000 },
    )
    expect(ratioToNumber(0n, 2n ** 80n)).toBe(0)
    expect(ratioToNumber(2n ** 80n, 2n ** 80n)).toBe(1)
    // 1/3 with a denominator beyond 2^53: the remainder decides the rounding (sticky bit).
    expect(ratioToNumber(2n ** 70n, 3n * 2n ** 70n)).toBe(1 / 3)
  })
})

describe('error bias, simulated (issue 14, item 5)', () => {
  // A memoryless actor on tasks with per-attempt success p ~ Beta(15, 21): first success geometric,
  // population Seq@5 = 1 - E[(1 - p)^5] = 91.93%. Each model call errors independently with rate e,
  // which censors the trajectory at that attempt. 30 000 tasks per setting (as 15 benchmarks of 2000
  // tasks: every estimator is a mean over tasks), so each bias has a standard error of 0.1-0.2 point.
  const [alpha, beta, budget, tasks] = [15, 21, 5, 30_000]

  /** A Beta(a, b) draw for integer shapes: G_a / (G_a + G_b), each Gamma a sum of exponentials. */
  function betaDraw(rng: Rng): number {
    const gamma = (shape: number): number => {
      let sum = 0
      for (let i = 0; i < shape; i++) sum -= Math.log(1 - rng())
      return sum
    }
    const x = gamma(alpha)
    return x / (x + gamma(beta))
  }

  function simulate(repeats: number, errorRate: number, rng: Rng): CensoredTaskOutcomes[] {
    return Array.from({ length: tasks }, (_, i) => {
      const p = betaDraw(rng)
      return {
        taskId: `t${i}`,
        repeats: Array.from({ length: repeats }, (): RepeatOutcome => {
          for (let attempt = 1; attempt <= budget; attempt++) {
            if (rng() < errorRate) return { censoredAt: attempt }
            if (rng() < p) return { firstSuccess: attempt }
          }
          return { firstSuccess: null }
        }),
      }
    })
  }

  /** E[p^m (1 - p)^n] for p ~ Beta(a, b): B(a + m, b + n) / B(a, b). */
  const moment = (m: number, n: number): number => {
    let value = 1
    for (let i = 0; i < m; i++) value *= (alpha + i) / (alpha + beta + i)
    for (let i = 0; i < n; i++) value *= (beta + i) / (alpha + beta + m + i)
    return value
  }
  const population = 1 - moment(0, budget)
  // Errors as failures estimates its own population value without bias: the chance of a success
  // at attempt t with no error up to it, summed over t. Checks the simulation itself.
  const asFailuresPopulation = (errorRate: number): number => {
    let value = 0
    for (let t = 1; t <= budget; t++) value += (1 - errorRate) ** t * moment(1, t - 1)
    return value
  }

  // Measured with these seeds (points of Seq@5; left out, as failures, per-task KM carrying S
  // forward, this estimate): 3 repeats, 5%: +1.1, -8.9, -1.8, +0.1; 3 repeats, 10%: +1.9, -16.9,
  // -4.3, -0.1; 1 repeat, 5%: +1.2, -9.0, -4.4, +0.1. Four other seeds: this estimate within 0.23.
  it.each([
    { repeats: 3, errorRate: 0.05, leftOut: [0.7, 1.6], carried: -1.2 },
    { repeats: 3, errorRate: 0.1, leftOut: [1.5, 2.6], carried: -3 },
    { repeats: 1, errorRate: 0.05, leftOut: [0.6, 1.8], carried: -3 },
  ])(
    'keeps the bias within 1 point with $repeats repeats and $errorRate errors per call, where the bounds are biased',
    ({ repeats, errorRate, leftOut, carried }) => {
      expect(population).toBeCloseTo(0.9193, 4)
      const outcomes = simulate(repeats, errorRate, createRng(seedFrom('censored bias', repeats, errorRate)))
      const bias = (curve: number[]): number => 100 * ((curve[budget - 1] ?? Number.NaN) - population)
      const estimate = bias(seqAtCurveCensored(outcomes, budget))
      const lower = bias(seqAtCurve(errorsAsFailures(outcomes), budget))
      const upper = bias(seqAtCurve(errorsLeftOut(outcomes), budget))
      const alone = bias(meanCurve(outcomes, budget, (t) => carryForward(t, budget)))
      expect(Math.abs(estimate)).toBeLessThanOrEqual(errorRate === 0.05 ? 0.5 : 1)
      expect(Math.abs(lower - 100 * (asFailuresPopulation(errorRate) - population))).toBeLessThan(0.6)
      expect(lower).toBeLessThan(errorRate === 0.05 ? -8 : -16)
      expect(upper).toBeGreaterThanOrEqual(leftOut[0] ?? Number.NaN)
      expect(upper).toBeLessThanOrEqual(leftOut[1] ?? Number.NaN)
      // Why the cell's tail: per-task Kaplan–Meier alone is biased down by more than a point.
      expect(alone).toBeLessThan(carried)
    },
  )
})

describe('tailHazards', () => {
  it("is the cell's pooled hazards for every task when each task has one repeat", () => {
    fc.assert(
      fc.property(
        fc.array(
          repeatArb(6).map((r) => task('t', r)),
          { maxLength: 30 },
        ),
        fc.integer({ min: 1, max: 6 }),
        (outcomes, budget) => {
          const pooled = pooledHazards(outcomes, budget)
          for (const tail of tailHazards(outcomes, budget)) expect(tail).toEqual(pooled)
        },
      ),
      { seed: 27, numRuns: 300 },
    )
  })

  it('reads only outcomes before each attempt: a K-run truncated to k has the k-run tails, and the curve stays monotone', () => {
    fc.assert(
      fc.property(outcomesArb(8), fc.integer({ min: 2, max: 8 }), (outcomes, budget) => {
        const long = tailHazards(outcomes, budget)
        for (let k = 1; k < budget; k++) {
          const short = tailHazards(outcomes, k)
          long.forEach((tail, i) => expect(tail.slice(0, k)).toEqual(short[i]))
        }
        const curve = seqAtCurveCensored(outcomes, budget)
        for (let k = 1; k < budget; k++)
          if (!Number.isNaN(curve[k]!)) expect(curve[k]).toBeGreaterThanOrEqual(curve[k - 1]!)
      }),
      { seed: 28, numRuns: 300 },
    )
  })

  it("continues a task that solves from tasks that solve, not from the cell's hard tasks still running", () => {
    // Ten tasks solve twice at attempt 1 and run a third repeat that succeeds at attempt 3; ten hard
    // tasks fail every repeat. Task s solved twice at 1 and errored at attempt 2.
    const solvers = Array.from({ length: 10 }, (_, i) => task(`e${i}`, solved(1), solved(1), solved(3)))
    const hard = Array.from({ length: 10 }, (_, i) => task(`h${i}`, solved(null), solved(null), solved(null)))
    const s = task('s', solved(1), solved(1), errored(2))
    const outcomes = [...solvers, ...hard, s]
    const tail = tailHazards(outcomes, 3).at(-1)!
    // At attempt 3: the ten last repeats of solving tasks, all succeeding there.
    expect(tail[2]).toEqual({ atRisk: 10, successes: 10 })
    expect(censoredShares(s, 3, tail)[2]).toBe(1)
    // The cell's pooled hazard at 3 mixes in the thirty failing repeats: 10 of 40.
    expect(censoredShares(s, 3, pooledHazards(outcomes, 3))[2]).toBeCloseTo(2 / 3 + (1 / 3) * (10 / 40), 12)
  })
})

describe('seqAtIntervalReported', () => {
  const clean = Array.from({ length: 49 }, (_, i) => task(`t${i}`, solved(i % 3 === 0 ? null : 1)))

  it('is the censored interval without errors', () => {
    expect(seqAtIntervalReported(clean, 3)).toEqual(seqAtIntervalCensored(clean, 3))
  })

  it('from the first errored trajectory is the union of the censored interval and both bounds', () => {
    for (const outcomes of [
      [...clean, task('x', errored(2))],
      [...clean, task('x', errored(2)), task('y', errored(1))],
    ]) {
      const union = seqAtIntervalReported(outcomes, 3)
      const parts = [
        seqAtInterval(errorsAsFailures(outcomes), 3),
        seqAtInterval(errorsAsSuccesses(outcomes), 3),
        seqAtIntervalCensored(outcomes, 3),
      ]
      expect(union).toMatchObject({
        method: ERROR_BOUNDS_INTERVAL_METHOD,
        point: seqAtCurveCensored(outcomes, 3)[2],
        lo: Math.min(...parts.map((p) => p.lo)),
        hi: Math.max(...parts.map((p) => p.hi)),
      })
    }
  })

  it('the bounds hold Seq@k whatever the errors hid: any completion of the errored repeats lies between them', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(repeatArb(5), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }), { minLength: 30, maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        (tasks, fills, k) => {
          const outcomes = tasks.map((repeats, i) => ({ taskId: `t${i}`, repeats }))
          let next = 0
          // One completion: an errored repeat at c succeeds at c + d (d from the list) or never.
          const full = outcomes.map((t) => ({
            taskId: t.taskId,
            firstSuccess: t.repeats.map((r) => {
              if (!('censoredAt' in r)) return r.firstSuccess
              const d = fills[next++ % fills.length]
              return d === null || d === undefined ? null : r.censoredAt + d
            }),
          }))
          const truth = seqAtCurve(full, k)[k - 1]!
          expect(truth).toBeGreaterThanOrEqual(seqAtCurve(errorsAsFailures(outcomes), k)[k - 1]! - 1e-12)
          expect(truth).toBeLessThanOrEqual(seqAtCurve(errorsAsSuccesses(outcomes), k)[k - 1]! + 1e-12)
        },
      ),
      { seed: 48, numRuns: 150 },
    )
  })
})
