import { describe, expect, it } from 'vitest'
import type { CellSummary, RunSummary } from '../core/schemas.js'
import { sourcedCells } from './load-runs.js'
import { simulateRun } from './simulated-runs.js'
import { compareSuites, renderSuites, SuiteComparisonError } from './strengthened-suites.js'

const actors = (drop: number) => [
  { id: 'reviser', firstTry: 0.6 - drop, repair: { verifier: 0.5 - drop } },
  { id: 'one-shot', firstTry: 0.7 - drop, repair: { verifier: 0.05 } },
]
const options = { modes: ['verifier'], tasks: 30, repeats: 3, budget: 5 }
const original = simulateRun({ ...options, actors: actors(0), seed: 4, benchmark: 'code', runId: 'a' })
/** The strengthened side: lower rates, simulated by weaker actor settings, then the same actor written back. */
function strengthened(run: RunSummary): RunSummary {
  const actorOf = new Map(original.benchmarks[0]!.cells.map((c) => [c.actorId, c.protocol.actor]))
  const cells = run.benchmarks[0]!.cells.map((c) => ({
    ...c,
    protocol: { ...c.protocol, actor: actorOf.get(c.actorId)! },
  }))
  return { ...run, benchmarks: [{ ...run.benchmarks[0]!, cells }] }
}
const stronger = strengthened(simulateRun({ ...options, actors: actors(0.3), seed: 5, benchmark: 'code+', runId: 'b' }))
const cells = sourcedCells([
  { path: null, summary: original },
  { path: null, summary: stronger },
])
const pair = { original: 'code', strengthened: 'code+' }

/** The mean over tasks of a cell's per-task rate at k, computed here by hand. */
function handRate(cell: CellSummary, k: number): number {
  const rates = cell.perTask.map((t) => {
    if (cell.protocol.kind === 'independent') {
      const n = t.samples!
      const c = t.passes!
      let allFail = 1
      for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i
      return c === 0 ? 0 : n - c < k ? 1 : 1 - allFail
    }
    return t.firstSuccess.filter((f) => f !== null && f <= k).length / t.firstSuccess.length
  })
  return rates.reduce((a, b) => a + b, 0) / rates.length
}

describe('compareSuites', () => {
  const cmp = compareSuites(cells, pair, { resamples: 500 })

  it('pairs every actor × mode, Pass@K for independent cells and Seq@K for sequential ones', () => {
    expect(cmp.rows.map((r) => `${r.actorId}/${r.mode}/${r.metric}`).sort()).toEqual([
      'one-shot/independent/Pass@5',
      'one-shot/verifier/Seq@5',
      'reviser/independent/Pass@5',
      'reviser/verifier/Seq@5',
    ])
    expect(cmp.unpaired).toEqual([])
  })

  it("gives each cell's own headline values, their difference, and an interval around it", () => {
    for (const row of cmp.rows) {
      const find = (bench: string) =>
        cells.find((c) => c.cell.benchmark === bench && c.cell.actorId === row.actorId && c.cell.mode === row.mode)!
          .cell
      const a = find('code')
      const b = find('code+')
      const value = (c: CellSummary) => (c.protocol.kind === 'independent' ? c.passAt![4] : c.seqAt[4])
      expect(row.original).toBe(value(a))
      expect(row.strengthened).toBe(value(b))
      expect(row.change).toBeCloseTo(value(b)! - value(a)!, 12)
      // The per-task rates the interval resamples add up to the headline numbers.
      expect(handRate(a, 5)).toBeCloseTo(row.original!, 12)
      expect(handRate(b, 5)).toBeCloseTo(row.strengthened!, 12)
      expect(row.interval!.lo).toBeLessThanOrEqual(row.change!)
      expect(row.interval!.hi).toBeGreaterThanOrEqual(row.change!)
      expect(row.tasks).toBe(30)
    }
    // Much weaker actors on the strengthened side: the drop is clear of zero for the reviser's Seq@5.
    const reviser = cmp.rows.find((r) => r.actorId === 'reviser' && r.mode === 'verifier')!
    expect(reviser.interval!.hi).toBeLessThan(0)
  })

  it('compares a suite with itself as no change, its interval exactly zero', () => {
    const same = simulateRun({ ...options, actors: actors(0), seed: 4, benchmark: 'code+', runId: 'c' })
    const self = compareSuites(
      sourcedCells([
        { path: null, summary: original },
        { path: null, summary: same },
      ]),
      pair,
    )
    for (const row of self.rows) expect([row.change, row.interval!.lo, row.interval!.hi]).toEqual([0, 0, 0])
  })

  it('is reproducible by seed', () => {
    expect(compareSuites(cells, pair, { resamples: 500 })).toEqual(cmp)
  })

  it('refuses when the protocols differ in more than the tests, naming the field', () => {
    const other = strengthened(
      simulateRun({
        ...options,
        actors: actors(0.3),
        seed: 5,
        benchmark: 'code+',
        runId: 'b',
        verifierSettings: { timeoutMs: 9000 },
      }),
    )
    const mixed = sourcedCells([
      { path: null, summary: original },
      { path: null, summary: other },
    ])
    expect(() => compareSuites(mixed, pair)).toThrow(SuiteComparisonError)
    expect(() => compareSuites(mixed, pair)).toThrow(/verifier\.settings\.timeoutMs/)
  })

  it('refuses other tasks, a missing benchmark and one benchmark on both sides', () => {
    const fewer = strengthened(
      simulateRun({ ...options, tasks: 29, actors: actors(0.3), seed: 5, benchmark: 'code+', runId: 'b' }),
    )
    expect(() =>
      compareSuites(
        sourcedCells([
          { path: null, summary: original },
          { path: null, summary: fewer },
        ]),
        pair,
      ),
    ).toThrow(/benchmark\.tasks|same tasks/)
    expect(() => compareSuites(cells, { original: 'code', strengthened: 'nope' })).toThrow(
      /no cells of benchmark "nope"/,
    )
    expect(() => compareSuites(cells, { original: 'code', strengthened: 'code' })).toThrow(/one benchmark/)
  })

  it('renders every row with both values and the change in points, and names cells on one side only', () => {
    const partial = cells.filter((c) => !(c.cell.benchmark === 'code+' && c.cell.actorId === 'one-shot'))
    const text = renderSuites(compareSuites(partial, pair, { resamples: 200 })).join('\n')
    expect(text).toMatch(/^Original vs strengthened tests: "code" and "code\+" \(30 tasks\)/)
    expect(text).toMatch(/reviser\s+verifier\s+Seq@5\s+\d+\.\d%\s+\d+\.\d%\s+[−+]\d+\.\d \(/)
    expect(text).toMatch(/not compared \(on one suite only\): "one-shot · verifier|not compared \(on one suite only\)/)
    expect(text.split('\n').filter((l) => l.includes('not compared'))).toHaveLength(2)
  })
})
