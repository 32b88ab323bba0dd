import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { heldOutGap, type HeldOutAttempt, type HeldOutTask } from './held-out-gap.js'
import { differenceInterval } from './intervals.js'
import { pooledShareInterval } from './pooled-share.js'
import { seqAtCurve } from './seq-at-k.js'

const wrong: HeldOutAttempt = { pass: false, visiblePass: false, heldOutFailed: [2] }
const wrongHeldOk: HeldOutAttempt = { pass: false, visiblePass: false, heldOutFailed: [] }
/** Passes the visible tests only: the special case of the failing call. */
const special: HeldOutAttempt = { pass: false, visiblePass: true, heldOutFailed: [2] }
const right: HeldOutAttempt = { pass: true, visiblePass: true, heldOutFailed: [] }

describe('heldOutGap', () => {
  it('is exact on a constructed run', () => {
    // Task a: repaired for real at 2. Task b: special-cased at 2, never fixed. Task c: right at 1.
    // Task d: special-cased at 2, broke held-out 5 it had passed, fixed at 3 (one repeat of two).
    const breaks: HeldOutAttempt = { pass: false, visiblePass: true, heldOutFailed: [5] }
    const tasks: HeldOutTask[] = [
      { taskId: 'a', repeats: [[wrong, right]] },
      { taskId: 'b', repeats: [[wrong, special, special]] },
      { taskId: 'c', repeats: [[right]] },
      {
        taskId: 'd',
        repeats: [
          [wrongHeldOk, breaks, right],
          [wrong, wrong, wrong],
        ],
      },
    ]
    const gap = heldOutGap(tasks, 3)
    expect(gap.visibleAt).toEqual([1 / 4, (1 + 1 + 1 + 0.5) / 4, (1 + 1 + 1 + 0.5) / 4])
    expect(gap.allAt).toEqual([1 / 4, 2 / 4, (1 + 0 + 1 + 0.5) / 4])
    expect(gap.gapAt).toEqual([0, 1.5 / 4, 1 / 4])
    // Visible repairs: a@2 (real), b@2 (overfit, held-out 2 failed before too), d@2 (overfit, broke 5).
    expect({ repairs: gap.visibleRepairs, overfit: gap.overfit, broke: gap.broke }).toEqual({
      repairs: 3,
      overfit: 2,
      broke: 1,
    })
    const { pDrop: _, ...expected } = differenceInterval([1, 0, 1, 0.5], [1, 1, 1, 0.5], 2)
    expect(gap.gapInterval).toEqual({ ...expected, lo: Math.max(0, expected.lo) })
    expect(gap.gapInterval.point).toBe(0.25)
    expect(gap.overfitShare).toEqual(
      pooledShareInterval([
        { hits: 0, trials: 1 },
        { hits: 1, trials: 1 },
        { hits: 0, trials: 0 },
        { hits: 1, trials: 1 },
      ]),
    )
    expect(gap.overfitShare.point).toBe(2 / 3)
  })

  it('has no gap and no overfitting when every visible pass is a pass', () => {
    const gap = heldOutGap(
      [
        { taskId: 'a', repeats: [[wrong, right]] },
        { taskId: 'b', repeats: [[wrong, wrong]] },
      ],
      2,
    )
    expect(gap.gapAt).toEqual([0, 0])
    expect(gap.overfit).toBe(0)
    expect(gap.overfitShare.point).toBe(0)
  })

  it('gives NaN without tasks, and refuses a pass that is not a visible pass', () => {
    const empty = heldOutGap([], 2)
    expect(empty.visibleAt.every(Number.isNaN)).toBe(true)
    expect(Number.isNaN(empty.overfitShare.point)).toBe(true)
    expect(() =>
      heldOutGap([{ taskId: 'x', repeats: [[{ pass: true, visiblePass: false, heldOutFailed: [] }]] }], 1),
    ).toThrow(/a pass is a visible pass/)
    expect(() => heldOutGap([{ taskId: 'x', repeats: [[wrong, wrong]] }], 1)).toThrow(/more than the budget 1/)
  })

  const attemptArb: fc.Arbitrary<HeldOutAttempt> = fc.oneof(
    fc.constant(wrong),
    fc.constant(wrongHeldOk),
    fc.constant(special),
    fc.constant(right),
  )
  /** A trajectory as the loop writes it: it stops at its first pass. */
  const trajectoryArb = (budget: number) =>
    fc.array(attemptArb, { minLength: 1, maxLength: budget }).map((as) => {
      const stop = as.findIndex((a) => a.pass)
      return stop === -1 ? as : as.slice(0, stop + 1)
    })
  const tasksArb = (budget: number) =>
    fc.array(
      fc.record({
        taskId: fc.string({ maxLength: 3 }),
        repeats: fc.array(trajectoryArb(budget), { minLength: 1, maxLength: 3 }),
      }),
      { minLength: 1, maxLength: 12 },
    )

  it('laws: Seq@k on every test is the ordinary Seq@k; the gap is in [0, 1] and the curves never fall', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }).chain((k) => fc.tuple(fc.constant(k), tasksArb(k))),
        ([budget, tasks]) => {
          const gap = heldOutGap(tasks, budget)
          const firsts = tasks.map((t) => ({
            taskId: t.taskId,
            firstSuccess: t.repeats.map((as) => {
              const i = as.findIndex((a) => a.pass)
              return i === -1 ? null : i + 1
            }),
          }))
          const ordinary = seqAtCurve(firsts, budget)
          for (let k = 0; k < budget; k++) {
            expect(gap.allAt[k]).toBeCloseTo(ordinary[k]!, 12)
            expect(gap.gapAt[k]).toBeGreaterThanOrEqual(0)
            expect(gap.gapAt[k]).toBeLessThanOrEqual(1)
            if (k > 0) expect(gap.visibleAt[k]).toBeGreaterThanOrEqual(gap.visibleAt[k - 1]!)
          }
          expect(gap.broke).toBeLessThanOrEqual(gap.overfit)
          expect(gap.overfit).toBeLessThanOrEqual(gap.visibleRepairs)
          expect(gap.gapInterval.lo).toBeLessThanOrEqual(gap.gapInterval.point)
          expect(gap.gapInterval.lo).toBeGreaterThanOrEqual(0)
          expect(gap.gapInterval.hi).toBeGreaterThanOrEqual(gap.gapInterval.point)
        },
      ),
      { seed: 31, numRuns: 300 },
    )
  })

  it('law: the order of tasks does not matter', () => {
    fc.assert(
      fc.property(tasksArb(3), (tasks) => {
        const a = heldOutGap(tasks, 3)
        const b = heldOutGap([...tasks].reverse(), 3)
        expect(b.overfit).toBe(a.overfit)
        for (let k = 0; k < 3; k++) expect(b.gapAt[k]).toBeCloseTo(a.gapAt[k]!, 12)
        expect(b.gapInterval.point).toBeCloseTo(a.gapInterval.point, 12)
      }),
      { seed: 31, numRuns: 200 },
    )
  })
})
