import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { passAtK } from './pass-at-k.js'
import { seqAtCurve } from './seq-at-k.js'
import { firstRepeats, repeatsOf, taskRate, taskRates, type TaskRow } from './task-rates.js'

const K = 5
const row = fc.record({
  taskId: fc.uuid(),
  firstSuccess: fc.array(fc.option(fc.integer({ min: 1, max: K }), { nil: null }), { minLength: 1, maxLength: 6 }),
})

describe('per-task rates', () => {
  it("the mean of the tasks' Seq@k is the cell's Seq@k, at every k", () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 20 }), (rows) => {
        const curve = seqAtCurve(rows, K)
        for (let k = 1; k <= K; k++) {
          const rates = taskRates(rows, k, 'seqAt')
          expect(rates.reduce((s, r) => s + r, 0) / rates.length).toBeCloseTo(curve[k - 1]!, 12)
        }
      }),
      { seed: 42, numRuns: 200 },
    )
  })

  it("a task's Pass@k is the unbiased estimator of its samples, NaN with fewer than k", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: K }),
        (n, c0, k) => {
          const c = Math.min(n, c0)
          const r: TaskRow = { taskId: 't', firstSuccess: [], samples: n, passes: c }
          if (n < k) expect(taskRate(r, k, 'passAt')).toBeNaN()
          else expect(taskRate(r, k, 'passAt')).toBe(passAtK(n, c, k))
        },
      ),
      { seed: 42, numRuns: 300 },
    )
  })

  it('firstRepeats keeps the first n repeats, first successes before censored ones, and a short row as it is', () => {
    fc.assert(
      fc.property(
        row,
        fc.array(fc.integer({ min: 1, max: K }), { maxLength: 3 }),
        fc.integer({ min: 1, max: 10 }),
        (r, censoredAt, n) => {
          const full = censoredAt.length > 0 ? { ...r, censoredAt } : r
          const cut = firstRepeats(full, n)
          expect(repeatsOf(cut)).toBe(Math.min(n, repeatsOf(full)))
          expect(cut.firstSuccess).toEqual(full.firstSuccess.slice(0, n))
          if (repeatsOf(full) <= n) expect(cut).toBe(full)
        },
      ),
      { seed: 42, numRuns: 300 },
    )
  })
})
