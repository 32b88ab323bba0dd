import { describe, expect, it } from 'vitest'
import { analyzeRuns, selectModels } from './analyze.js'
import { renderAnalysis, renderSelection } from './render.js'
import { AnalysisReportSchema, SelectionReportSchema } from './report-schema.js'
import { simulateRun } from './simulated-runs.js'

const run = simulateRun({
  actors: [
    { id: 'one-shot', firstTry: 0.7, repair: { binary: 0.05, verifier: 0.1 }, costPerAttempt: 0.003 },
    { id: 'reviser', firstTry: 0.45, repair: { binary: 0.2, verifier: 0.7 }, costPerAttempt: 0.002 },
    { id: 'stubborn', firstTry: 0.55, repair: { binary: 0, verifier: 0 }, costPerAttempt: 0.001 },
  ],
  modes: ['binary', 'verifier'],
  tasks: 16,
  repeats: 2,
  budget: 5,
  seed: 3,
  runId: 'sim-1',
})

describe('analyzeRuns', () => {
  const report = analyzeRuns([run], { resamples: 100, selection: { draws: 30, resamples: 20 } })

  it('builds plain JSON that validates against the report schema and survives a JSON round trip', () => {
    expect(AnalysisReportSchema.parse(report)).toEqual(report)
    expect(JSON.parse(JSON.stringify(report))).toEqual(report)
    expect(report.sources).toEqual([{ path: null, runId: 'sim-1', createdAt: '2026-01-01T00:00:00.000Z' }])
  })

  it('has every section for each benchmark and mode', () => {
    const b = report.benchmarks[0]!
    expect(b.modes).toEqual(['binary', 'verifier'])
    expect(b.rankings.map((r) => r.mode)).toEqual(['binary', 'verifier'])
    expect(b.timing).toHaveLength(6)
    expect(b.costSuccess.series.map((s) => s.protocol)).toEqual(['independent', 'binary', 'verifier'])
    expect(b.selection.map((s) => s.mode)).toEqual(['binary', 'verifier'])
    expect(report.correlations.map((c) => c.feedback)).toEqual(['binary', 'verifier'])
    // The never-repairing actor has no revision gain: its timing is undefined, and says why.
    expect(b.timing.find((t) => t.actorId === 'stubborn')?.reason).toBe('ΔSeq@5 ≤ 0: no revision gain to share')
  })

  it("compares each sequential cell with its actor's independent cell at equal cost, and prints it", () => {
    const pairs = report.benchmarks[0]!.equalCost!
    expect(pairs.map((p) => `${p.actorId} ${p.mode}`)).toEqual([
      'one-shot binary',
      'one-shot verifier',
      'reviser binary',
      'reviser verifier',
      'stubborn binary',
      'stubborn verifier',
    ])
    // Priced runs compare in dollars too. Revising with verifier feedback at 0.7 beats sampling at
    // every equal spend; an actor that never repairs pays more for its Seq@1 and sampling overtakes
    // it before two samples' spend (its first tries are ahead by chance alone).
    for (const p of pairs) expect(p.usd.verdict).not.toBe('unknown')
    expect(pairs.find((p) => p.actorId === 'reviser' && p.mode === 'verifier')?.usd.verdict).toBe(
      'sequential-dominates',
    )
    for (const p of pairs.filter((x) => x.actorId === 'stubborn')) {
      expect(p.usd.crossings.at(-1)?.leader ?? p.usd.verdict).toMatch(/^independent/)
      expect(p.usd.crossings.every((c) => c.cost < p.usd.independent[1]!.cost!)).toBe(true)
    }
    const text = renderAnalysis(report)
    expect(text).toContain('At equal cost')
    expect(text).toMatch(/reviser\s+verifier\s+sequential dominates\s+sequential dominates/)
    expect(text).toMatch(/stubborn\s+verifier\s+independent dominates\s+sequential ahead, independent from \$0\.0011/)
  })

  it('is reproducible from its seed', () => {
    expect(analyzeRuns([run], { resamples: 100, selection: { draws: 30, resamples: 20 } })).toEqual(report)
  })

  it('compares at a smaller k when asked, and refuses a k beyond the budget', () => {
    const at3 = analyzeRuns([run], { k: 3, selection: false, resamples: 10 })
    expect(at3.benchmarks[0]?.rankings[0]?.k).toBe(3)
    expect(at3.benchmarks[0]?.timing[0]?.k).toBe(3)
    expect(() => analyzeRuns([run], { k: 6 })).toThrow(
      /k=6 exceeds the budget of simulated \(independent K=5, binary K=5\)/,
    )
  })

  it('skips, with the reason, a selection that cannot run in the overview', () => {
    const solo = simulateRun({
      actors: [{ id: 'a', firstTry: 0.5, repair: { verifier: 0.5 } }],
      modes: ['verifier'],
      tasks: 4,
      repeats: 1,
      budget: 3,
      seed: 1,
    })
    const r = analyzeRuns([solo], { resamples: 10 })
    expect(r.benchmarks[0]?.selection).toEqual([])
    expect(r.benchmarks[0]?.selectionSkipped[0]?.reason).toMatch(/needs at least 2 actors/)
  })

  it('notes benchmarks without independent cells instead of failing', () => {
    const seqOnly = simulateRun({
      actors: [{ id: 'a', firstTry: 0.5, repair: { verifier: 0.5 } }],
      modes: ['verifier'],
      tasks: 4,
      repeats: 1,
      budget: 3,
      seed: 1,
      independent: false,
    })
    const r = analyzeRuns([seqOnly], { resamples: 10 })
    expect(r.benchmarks[0]?.rankings).toEqual([])
    expect(r.benchmarks[0]?.notes).toEqual([
      'no independent cells: there is no Pass@K to rank, correlate or calibrate against',
    ])
    expect(r.benchmarks[0]?.timing).toHaveLength(1)
  })
})

describe('renderAnalysis', () => {
  it('prints every table, readable without colour', () => {
    const text = renderAnalysis(analyzeRuns([run], { resamples: 50, selection: { draws: 20, resamples: 10 } }))
    for (const heading of [
      'Rankings and gaps (paper Table 3)',
      'Revision timing (paper Table 4)',
      'Cost–success (paper Figure 3)',
      'Model selection (paper Figure 2, Table 2)',
      'Correlations over actor × benchmark pairs (paper Figure 4)',
    ]) {
      expect(text).toContain(heading)
    }
    expect(text).toMatch(/reversals \(above under Pass@5, below under Seq@5\): one-shot over reviser/)
    expect(text).toMatch(/best–worst gap/)
    expect(text).toContain('ΔSeq@5 ≤ 0: no revision gain to share')
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/\u001b\[/)
  })

  it('colours only when asked', () => {
    const report = analyzeRuns([run], { resamples: 10, selection: false })
    // eslint-disable-next-line no-control-regex
    expect(renderAnalysis(report, { color: true })).toMatch(/\u001b\[1m/)
  })
})

describe('selectModels', () => {
  it('validates against the selection report schema and renders', () => {
    const report = selectModels([run], { mode: 'verifier', draws: 20, resamples: 10, maxN: 5 })
    expect(SelectionReportSchema.parse(report)).toEqual(report)
    expect(report.selections.map((s) => [s.mode, s.sizes.length])).toEqual([['verifier', 5]])
    const text = renderSelection(report)
    expect(text).toMatch(/at n = 5: held-out Seq@5 of the Pass@5 pick/)
    expect(text).toMatch(/random choice: loss/)
  })
})
