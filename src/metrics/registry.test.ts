import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RATE_METRICS } from '../core/kinds.js'
import { coverAt, triesWithin } from './cover-at.js'
import { passAtCurve } from './pass-at-k.js'
import { passHatCurve } from './pass-hat-k.js'
import { headlineMetric, measures, METRIC_IDS, METRICS, metricWithRole, reliabilityMetric } from './registry.js'
import { seqAtCurve } from './seq-at-k.js'
import { seqHatCurve } from './seq-hat-k.js'
import type { TaskRow } from './task-rates.js'

const K = 4
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
// A task's best score by k never falls (the score curve's per-task value).
const bestScores = fc
  .array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: K, maxLength: K })
  .map((xs) => xs.map((_, i) => Math.max(...xs.slice(0, i + 1))))
const seqRows = fc.array(
  fc.record({
    taskId: fc.constant('t'),
    firstSuccess: fc.array(fc.option(fc.integer({ min: 1, max: K }), { nil: null }), { minLength: 1, maxLength: 6 }),
    bestScore: bestScores,
  }),
  { minLength: 1, maxLength: 10 },
)
const sampleRows = fc.array(
  fc.integer({ min: K, max: 12 }).chain((n) =>
    fc.record({
      taskId: fc.constant('t'),
      firstSuccess: fc.constant([]),
      samples: fc.constant(n),
      passes: fc.integer({ min: 0, max: n }),
      bestScore: bestScores,
    }),
  ),
  { minLength: 1, maxLength: 10 },
)

describe('the metric registry', () => {
  it('names the same metrics as the contract, each with a label, and says which protocol measures it', () => {
    expect([...METRIC_IDS]).toEqual([...RATE_METRICS])
    for (const id of METRIC_IDS) expect(METRICS[id].id).toBe(id)
    expect(METRICS.coverAt.label(0.5)).toBe('Cover@0.5')
    expect(METRICS.seqHat.label(3)).toBe('Seq^3')
    expect(METRICS.scoreAt.label(5)).toBe('Score@5')
    expect(METRICS.scoreAt.taskValue({ taskId: 't', firstSuccess: [], bestScore: [0.5, null] }, 2, 2)).toBeNaN()
    expect(headlineMetric(true).label(5)).toBe('Pass@5')
    expect(headlineMetric(false).family).toBe('Seq')
    expect(reliabilityMetric(true).id).toBe('passHat')
    expect(measures(METRICS.passAt, 'sequential')).toBe(false)
    expect(measures(METRICS.coverAt, 'sequential') && measures(METRICS.coverAt, 'independent')).toBe(true)
  })

  it('gives each protocol exactly one headline and one reliability metric, read from the metrics themselves', () => {
    for (const protocol of ['sequential', 'independent'] as const) {
      for (const role of ['headline', 'reliability'] as const) {
        const found = METRIC_IDS.filter((id) => METRICS[id].role === role && measures(METRICS[id], protocol))
        expect(found).toHaveLength(1)
        expect(metricWithRole(role, protocol).id).toBe(found[0])
      }
    }
    expect(headlineMetric('sequential').id).toBe('seqAt')
    expect(headlineMetric('independent')).toBe(headlineMetric(true))
    expect(reliabilityMetric('sequential').id).toBe('seqHat')
  })

  it("a metric's curve is the mean of its per-task values, for every metric read at k", () => {
    fc.assert(
      fc.property(fc.oneof(seqRows, sampleRows), (rows: TaskRow[]) => {
        for (const id of METRIC_IDS) {
          const metric = METRICS[id]
          if (!metric.curve || !measures(metric, rows[0]!.samples === undefined ? 'sequential' : 'independent'))
            continue
          const curve = metric.curve(rows, K)
          for (let k = 1; k <= K; k++)
            expect(curve[k - 1]).toBeCloseTo(mean(rows.map((r) => metric.taskValue(r, k, K))), 12)
        }
      }),
      { seed: 7, numRuns: 200 },
    )
  })

  it('the mean of its per-task values is the cell curve, for every metric of a sequential cell', () => {
    fc.assert(
      fc.property(seqRows, fc.constantFrom(0.25, 0.5, 1), (rows: TaskRow[], tau) => {
        const seq = seqAtCurve(
          rows.map((r) => ({ taskId: r.taskId, firstSuccess: [...r.firstSuccess] })),
          K,
        )
        const hat = seqHatCurve(
          rows.map((r) => ({ taskId: r.taskId, firstSuccess: [...r.firstSuccess] })),
          K,
        )
        for (let k = 1; k <= K; k++) {
          expect(mean(rows.map((r) => METRICS.seqAt.taskValue(r, k, K)))).toBeCloseTo(seq[k - 1]!, 12)
          expect(mean(rows.map((r) => METRICS.seqHat.taskValue(r, k, K)))).toBeCloseTo(hat[k - 1]!, 12)
        }
        const tries = triesWithin(
          rows.map((r) => ({ taskId: r.taskId, firstSuccess: [...r.firstSuccess] })),
          K,
        )
        expect(mean(rows.map((r) => METRICS.coverAt.taskValue(r, tau, K)))).toBeCloseTo(coverAt(tries, tau), 12)
      }),
      { seed: 42, numRuns: 200 },
    )
  })

  it('the mean of its per-task values is the cell curve, for every metric of an independent cell', () => {
    fc.assert(
      fc.property(sampleRows, fc.constantFrom(0.25, 0.5, 1), (rows: TaskRow[], tau) => {
        const samples = rows.map((r) => ({ taskId: r.taskId, n: r.samples!, c: r.passes! }))
        const pass = passAtCurve(samples, K)
        const hat = passHatCurve(samples, K)
        for (let k = 1; k <= K; k++) {
          expect(mean(rows.map((r) => METRICS.passAt.taskValue(r, k, K)))).toBeCloseTo(pass[k - 1]!, 12)
          expect(mean(rows.map((r) => METRICS.passHat.taskValue(r, k, K)))).toBeCloseTo(hat[k - 1]!, 12)
        }
        expect(mean(rows.map((r) => METRICS.coverAt.taskValue(r, tau, K)))).toBeCloseTo(coverAt(samples, tau), 12)
      }),
      { seed: 42, numRuns: 200 },
    )
  })
})
