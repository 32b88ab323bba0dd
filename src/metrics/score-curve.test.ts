import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRng } from './random.js'
import { rateInterval } from './intervals.js'
import { seqAtCurve } from './seq-at-k.js'
import {
  bestScoreCurve,
  binaryScores,
  scoreCurve,
  scoreInterval,
  taskBestScores,
  type TaskScores,
} from './score-curve.js'

const K = 5
const score = fc.double({ min: 0, max: 1, noNaN: true })
const repeat = fc.record({ scores: fc.array(score, { minLength: 1, maxLength: K }) })
const tasks = fc.array(
  fc.record({ taskId: fc.constant('t'), repeats: fc.array(repeat, { minLength: 1, maxLength: 3 }) }),
  { minLength: 1, maxLength: 12 },
)

describe('the score curve', () => {
  it('is the running best, carried past the last attempt', () => {
    expect(bestScoreCurve([0.25, 0.75, 0.5], 4)).toEqual([0.25, 0.75, 0.75, 0.75])
    expect(bestScoreCurve([], 2)).toEqual([0, 0])
    expect(() => bestScoreCurve([1.5], 1)).toThrow(/score 1.5 is not in \[0, 1\]/)
  })

  it('means over repeats within a task, then over tasks (the reference: mean over tasks of the best by k)', () => {
    const two: TaskScores[] = [
      { taskId: 'a', repeats: [{ scores: [0.5, 1] }, { scores: [0, 0] }] },
      { taskId: 'b', repeats: [{ scores: [0.2, 0.4] }] },
    ]
    expect(taskBestScores(two[0]!, 2)).toEqual([0.25, 0.5])
    const curve = scoreCurve(two, 2)
    expect(curve[0]).toBeCloseTo((0.25 + 0.2) / 2, 12)
    expect(curve[1]).toBeCloseTo((0.5 + 0.4) / 2, 12)
  })

  it('counts a censored repeat only below the attempt its error stopped', () => {
    const task: TaskScores = { taskId: 'a', repeats: [{ scores: [0.5], censoredAt: 2 }, { scores: [0, 1] }] }
    expect(taskBestScores(task, 3)).toEqual([0.25, 1, 1])
    expect(taskBestScores({ taskId: 'b', repeats: [{ scores: [], censoredAt: 1 }] }, 2)).toEqual([NaN, NaN])
    expect(scoreCurve([{ taskId: 'b', repeats: [{ scores: [], censoredAt: 1 }] }], 1)).toEqual([NaN])
  })

  it('never falls with k and stays in [0, 1] (fast-check)', () => {
    fc.assert(
      fc.property(tasks, (ts) => {
        const curve = scoreCurve(ts, K)
        for (let k = 1; k < K; k++) expect(curve[k]!).toBeGreaterThanOrEqual(curve[k - 1]! - 1e-12)
        for (const v of curve) expect(v >= 0 && v <= 1).toBe(true)
      }),
      { seed: 46, numRuns: 300 },
    )
  })

  it('is Seq@k when every score is 1 or 0 and a trajectory stops at its first success (fast-check)', () => {
    const outcome = fc.option(fc.integer({ min: 1, max: K }), { nil: null })
    fc.assert(
      fc.property(
        fc.array(fc.array(outcome, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 10 }),
        (perTask) => {
          const scored: TaskScores[] = perTask.map((firsts, i) => ({
            taskId: `t${i}`,
            repeats: firsts.map((f) => ({
              scores: f === null ? new Array<number>(K).fill(0) : [...new Array<number>(f - 1).fill(0), 1],
            })),
          }))
          expect(binaryScores(scored)).toBe(true)
          const seq = seqAtCurve(
            perTask.map((f, i) => ({ taskId: `t${i}`, firstSuccess: f })),
            K,
          )
          const curve = scoreCurve(scored, K)
          for (let k = 0; k < K; k++) expect(curve[k]).toBeCloseTo(seq[k]!, 12)
        },
      ),
      { seed: 46, numRuns: 300 },
    )
  })

  it('its interval is the rate interval over the per-task best scores, repeats as trials', () => {
    const ts: TaskScores[] = [
      { taskId: 'a', repeats: [{ scores: [1] }, { scores: [0.5] }] },
      { taskId: 'b', repeats: [{ scores: [0.25] }] },
      { taskId: 'c', repeats: [{ scores: [0] }, { scores: [0] }] },
    ]
    const interval = scoreInterval(ts, 1)
    expect(interval).toEqual(rateInterval([0.75, 0.25, 0], [2, 1, 2]))
    expect(interval.point).toBeCloseTo(1 / 3, 12)
  })

  it('keeps its 95% promise on soft scores (seeded simulation over populations of tasks)', () => {
    // Each population: task difficulty ~ Beta-like mix; a task's best score by K is a noisy share.
    // The population mean is estimated from 2000 draws; the interval over 20 tasks must cover it.
    const rng = createRng(46)
    const draw = () => {
      const d = rng()
      const scores = Array.from({ length: 3 }, () => Math.min(1, Math.max(0, d + (rng() - 0.5) * 0.6)))
      return { taskId: 't', repeats: [{ scores }] }
    }
    const truth = (() => {
      let sum = 0
      for (let i = 0; i < 20_000; i++) sum += taskBestScores(draw(), 3)[2]!
      return sum / 20_000
    })()
    let covered = 0
    const runs = 400
    for (let r = 0; r < runs; r++) {
      const sample = Array.from({ length: 20 }, draw)
      const i = scoreInterval(sample, 3)
      if (i.lo <= truth && truth <= i.hi) covered++
    }
    expect(covered / runs).toBeGreaterThanOrEqual(0.93)
  })
})
