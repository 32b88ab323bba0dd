import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Rng } from './random.js'
import { createRng } from './random.js'
import type { TaskOutcomes } from './seq-at-k.js'
import { seqAt, seqAtCurve, seqAtInterval } from './seq-at-k.js'
import { rateInterval } from './intervals.js'

const outcomesArb = (maxAttempt: number): fc.Arbitrary<TaskOutcomes[]> =>
  fc.array(
    fc.record({
      taskId: fc.string({ maxLength: 4 }),
      firstSuccess: fc.array(fc.option(fc.integer({ min: 1, max: maxAttempt }), { nil: null }), { maxLength: 5 }),
    }),
    { maxLength: 20 },
  )

function shuffle<T>(items: readonly T[], rng: Rng): T[] {
  const copy = [...items]
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1))
    ;[copy[i], copy[j]] = [copy[j] as T, copy[i] as T]
  }
  return copy
}

/** A memoryless actor: every attempt succeeds independently with probability p, feedback or not. */
function simulateMemoryless(p: number, budget: number, tasks: number, repeats: number, rng: Rng): TaskOutcomes[] {
  return Array.from({ length: tasks }, (_, i) => ({
    taskId: `t${i}`,
    firstSuccess: Array.from({ length: repeats }, () => {
      for (let attempt = 1; attempt <= budget; attempt++) if (rng() < p) return attempt
      return null
    }),
  }))
}

describe('seqAtCurve', () => {
  it('averages per task first, then over tasks', () => {
    const outcomes = [
      { taskId: 'a', firstSuccess: [1, null] },
      { taskId: 'b', firstSuccess: [3, 2] },
    ]
    expect(seqAtCurve(outcomes, 3)).toEqual([0.25, 0.5, 0.75])
    // Pooling all trajectories would give 1/4 here; per-task averaging gives 1/2.
    const unequalRepeats = [
      { taskId: 'easy', firstSuccess: [1] },
      { taskId: 'hard', firstSuccess: [null, null, null] },
    ]
    expect(seqAtCurve(unequalRepeats, 1)).toEqual([0.5])
  })

  it('counts a first success beyond the budget as a miss', () => {
    expect(seqAtCurve([{ taskId: 'a', firstSuccess: [4, 2] }], 3)).toEqual([0, 0.5, 0.5])
  })

  it('skips tasks with zero repeats, and is NaN (not 0) when no task has one', () => {
    const withEmpty = [
      { taskId: 'a', firstSuccess: [1] },
      { taskId: 'errored', firstSuccess: [] },
    ]
    expect(seqAtCurve(withEmpty, 2)).toEqual([1, 1])
    const none = seqAtCurve([{ taskId: 'errored', firstSuccess: [] }], 3)
    expect(none).toHaveLength(3)
    expect(none.every(Number.isNaN)).toBe(true)
    expect(seqAtCurve([], 2).every(Number.isNaN)).toBe(true)
  })

  it('rejects a budget below 1 and first successes that are not 1-based attempts', () => {
    expect(() => seqAtCurve([], 0)).toThrow(/budget must be an integer >= 1 \(got 0\)/)
    expect(() => seqAtCurve([], 2.5)).toThrow(RangeError)
    expect(() => seqAtCurve([{ taskId: 'x', firstSuccess: [0] }], 3)).toThrow(/task 'x' has 0/)
    expect(() => seqAtCurve([{ taskId: 'x', firstSuccess: [1.5] }], 3)).toThrow(RangeError)
    expect(() => seqAtCurve([{ taskId: 'x', firstSuccess: [Number.NaN] }], 3)).toThrow(RangeError)
  })

  it('stays in [0, 1] and never decreases in k', () => {
    fc.assert(
      fc.property(outcomesArb(10), fc.integer({ min: 1, max: 8 }), (outcomes, budget) => {
        const curve = seqAtCurve(outcomes, budget)
        expect(curve).toHaveLength(budget)
        if (!outcomes.some((task) => task.firstSuccess.length > 0)) {
          expect(curve.every(Number.isNaN)).toBe(true)
          return
        }
        curve.forEach((value, i) => {
          expect(value).toBeGreaterThanOrEqual(0)
          expect(value).toBeLessThanOrEqual(1)
          if (i > 0) expect(value).toBeGreaterThanOrEqual(curve[i - 1] ?? Number.NaN)
        })
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('gives exactly Seq@k when a K-run is truncated to k', () => {
    fc.assert(
      fc.property(outcomesArb(8), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 8 }), (outcomes, a, b) => {
        const budget = Math.max(a, b)
        const k = Math.min(a, b)
        const truncated = outcomes.map((task) => ({
          ...task,
          firstSuccess: task.firstSuccess.map((attempt) => (attempt !== null && attempt > k ? null : attempt)),
        }))
        expect(Object.is(seqAtCurve(outcomes, budget)[k - 1], seqAtCurve(truncated, k)[k - 1])).toBe(true)
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('does not depend on the order of tasks', () => {
    fc.assert(
      fc.property(outcomesArb(6), fc.integer({ min: 1, max: 6 }), fc.integer(), (outcomes, budget, seed) => {
        const shuffled = shuffle(outcomes, createRng(seed))
        const original = seqAtCurve(outcomes, budget)
        seqAtCurve(shuffled, budget).forEach((value, i) => {
          if (Number.isNaN(value)) expect(original[i]).toBeNaN()
          else expect(value).toBeCloseTo(original[i] ?? Number.NaN, 12)
        })
      }),
      { seed: 42, numRuns: 200 },
    )
  })

  it('approaches 1 - (1 - p)^k for a memoryless actor', () => {
    const budget = 5
    fc.assert(
      fc.property(fc.double({ min: 0.02, max: 0.98, noNaN: true }), fc.integer(), (p, seed) => {
        // 1000 tasks x 2 repeats: the standard error is at most 0.5 / sqrt(1000) ≈ 0.016.
        const curve = seqAtCurve(simulateMemoryless(p, budget, 1000, 2, createRng(seed)), budget)
        curve.forEach((value, i) => expect(Math.abs(value - (1 - (1 - p) ** (i + 1)))).toBeLessThan(0.06))
      }),
      { seed: 42, numRuns: 30 },
    )
    const curve = seqAtCurve(simulateMemoryless(0.3, budget, 20_000, 1, createRng(2026)), budget)
    const expected = [0.3, 0.51, 0.657, 0.7599, 0.83193]
    curve.forEach((value, i) => expect(Math.abs(value - (expected[i] ?? Number.NaN))).toBeLessThan(0.015))
  })
})

describe('seqAt', () => {
  it('is the k-th entry of the curve', () => {
    const outcomes = [
      { taskId: 'a', firstSuccess: [2] },
      { taskId: 'b', firstSuccess: [null, 1] },
    ]
    expect(seqAt(outcomes, 1)).toBe(0.25)
    expect(seqAt(outcomes, 2)).toBe(0.75)
    expect(seqAt(outcomes, 7)).toBe(seqAtCurve(outcomes, 7)[6])
  })

  it('rejects k below 1 with a message naming k', () => {
    expect(() => seqAt([], 0)).toThrow(/k must be an integer >= 1 \(got 0\)/)
  })
})

describe('seqAtInterval', () => {
  it("is the rate interval of each task's share, its repeats the trials, around seqAt itself", () => {
    fc.assert(
      fc.property(outcomesArb(6), fc.integer({ min: 1, max: 6 }), (outcomes, k) => {
        const interval = seqAtInterval(outcomes, k)
        const measured = outcomes.filter((o) => o.firstSuccess.length > 0)
        const shares = measured.map(
          (o) => o.firstSuccess.filter((f) => f !== null && f <= k).length / o.firstSuccess.length,
        )
        expect(interval).toEqual(
          rateInterval(
            shares,
            measured.map((o) => o.firstSuccess.length),
          ),
        )
        if (measured.length > 0) expect(interval.point).toBe(seqAt(outcomes, k))
      }),
      { seed: 42, numRuns: 300 },
    )
  })

  it('rejects a bad first success like seqAtCurve, naming the task', () => {
    expect(() => seqAtInterval([{ taskId: 'x', firstSuccess: [0] }], 3)).toThrow(/task 'x' has 0/)
  })
})
