import { describe, expect, it } from 'vitest'
import type { CellSummary, RunSummary } from '../core/schemas.js'
import { pooledShareInterval } from '../metrics/pooled-share.js'
import { analyzeRuns } from './analyze.js'
import { renderAnalysis } from './render.js'
import { AnalysisReportSchema } from './report-schema.js'
import {
  annotatorOf,
  annotatorText,
  pooledRevisionAnnotation,
  pooledStrata,
  revisionAnnotationSection,
  STRATIFIED_INTERVAL_METHOD,
} from './revision-annotation.js'
import { simulateRun, type SimulatedRunOptions } from './simulated-runs.js'

const actors: SimulatedRunOptions['actors'] = [
  // Ignores the feedback: its failing revisions fix nothing they were told.
  { id: 'ignorer', firstTry: 0.6, repair: { binary: 0.05, verifier: 0.05 }, address: { verifier: 0 } },
  // Follows it: every named test fixed, and when it still fails it broke another.
  { id: 'follower', firstTry: 0.4, repair: { binary: 0.2, verifier: 0.6 }, address: { verifier: 1 } },
]
const run = (benchmark: string, seed: number) =>
  simulateRun({
    actors,
    modes: ['binary', 'verifier'],
    tasks: 20,
    repeats: 2,
    budget: 4,
    seed,
    benchmark,
    runId: `run-${benchmark}`,
  })
const cellOf = (summary: RunSummary, actor: string, mode: string): CellSummary =>
  summary.benchmarks[0]!.cells.find((c) => c.actorId === actor && c.mode === mode)!

describe('simulated runs carry what the derived annotator reads', () => {
  const summary = run('alpha', 5)
  it('annotates verifier-feedback cells and leaves binary and independent ones without', () => {
    expect(cellOf(summary, 'ignorer', 'verifier').revisionAnnotation?.annotator).toBe('derived')
    expect(cellOf(summary, 'ignorer', 'binary').revisionAnnotation ?? null).toBeNull()
    expect(cellOf(summary, 'ignorer', 'independent').revisionAnnotation ?? null).toBeNull()
  })
  it('an actor that fixes nothing it is told is unhelpful unless it passes; one that fixes everything is never unhelpful', () => {
    const ignorer = cellOf(summary, 'ignorer', 'verifier').revisionAnnotation!
    expect(ignorer.classes.unhelpful.revisions).toBe(ignorer.annotated - ignorer.classes.all.solved)
    expect(ignorer.classes.unhelpful.solved).toBe(0)
    const follower = cellOf(summary, 'follower', 'verifier').revisionAnnotation!
    // (`some` only where every test was named: one has to stay failing.)
    expect(follower.classes.unhelpful.revisions).toBe(0)
    expect(follower.classes.all.revisions).toBeGreaterThan(follower.classes.some.revisions)
    // "Fixed one thing, broke another": some revisions addressed all and still failed.
    expect(follower.classes.all.solved).toBeLessThan(follower.classes.all.revisions)
  })
  it('keeps the pass/fail draws of the runs the other analyses are tested on', () => {
    const binary = cellOf(summary, 'follower', 'binary')
    expect(cellOf(run('alpha', 5), 'follower', 'binary').seqAt).toEqual(binary.seqAt)
  })
})

describe('revisionAnnotationSection', () => {
  const summary = run('alpha', 5)
  const section = revisionAnnotationSection(summary.benchmarks[0]!.cells)
  it('has one row per annotated actor and mode, copied from the cells, and notes the modes without', () => {
    expect(section.rows.map((r) => [r.actorId, r.mode, r.benchmarks])).toEqual([
      ['ignorer', 'verifier', ['alpha']],
      ['follower', 'verifier', ['alpha']],
    ])
    const cell = cellOf(summary, 'follower', 'verifier').revisionAnnotation!
    expect(section.rows[1]!.classes).toEqual(cell.classes)
    expect(section.rows[1]!.annotator).toEqual({ annotator: 'derived', version: 'derived/1', model: null })
    expect(section.notes).toEqual([
      'not annotated: binary (feedback that names no request, or no annotator configured)',
    ])
  })
  it('flags actors of one mode judged by different annotators', () => {
    const cells = summary.benchmarks[0]!.cells.map((c) =>
      c.actorId === 'follower' && c.revisionAnnotation
        ? { ...c, revisionAnnotation: { ...c.revisionAnnotation, version: 'derived/2' } }
        : c,
    )
    const flagged = revisionAnnotationSection(cells)
    expect(flagged.notes[0]).toBe(
      "verifier: the actors' revisions were judged by different annotators (ignorer: derived/1, follower: derived/2); their classes are not comparable",
    )
  })
  it('is empty for a benchmark with no annotated cell', () => {
    const binaryOnly = simulateRun({ actors, modes: ['binary'], tasks: 4, repeats: 1, budget: 3, seed: 1 })
    expect(revisionAnnotationSection(binaryOnly.benchmarks[0]!.cells)).toEqual({ rows: [], notes: [] })
  })
})

describe('annotatorOf and annotatorText', () => {
  it('names the model when the summary records one', () => {
    const base = run('alpha', 5).benchmarks[0]!.cells.find((c) => c.revisionAnnotation)!.revisionAnnotation!
    expect(annotatorOf(base)).toEqual({ annotator: 'derived', version: 'derived/1', model: null })
    expect(annotatorOf({ ...base, model: 'openai:gpt-5-mini' } as typeof base).model).toBe('openai:gpt-5-mini')
    expect(annotatorText({ annotator: 'llm', version: 'annotator.v1@ab12', model: 'openai:gpt-5-mini' })).toBe(
      'llm annotator.v1@ab12 (openai:gpt-5-mini)',
    )
    expect(annotatorText({ annotator: 'derived', version: 'derived/1', model: null })).toBe('derived/1')
  })
})

describe('pooledStrata', () => {
  it('is the per-benchmark interval itself for one stratum', () => {
    const clusters = [
      { hits: 2, trials: 4 },
      { hits: 0, trials: 3 },
      { hits: 3, trials: 3 },
      { hits: 1, trials: 2 },
      { hits: 2, trials: 5 },
    ]
    const one = pooledShareInterval(clusters)
    const interval = { point: one.point, lo: one.lo, hi: one.hi, level: 0.95, method: one.method, tasks: 5 }
    const pooled = pooledStrata([{ hits: 8, units: 17, interval }])
    expect(pooled.point).toBeCloseTo(8 / 17, 12)
    expect(pooled.lo).toBeCloseTo(one.lo, 4)
    expect(pooled.hi).toBeCloseTo(one.hi, 4)
    expect(pooled.method).toBe(STRATIFIED_INTERVAL_METHOD)
  })
  it('pools the point exactly and narrows with a second stratum like the first', () => {
    const interval = (c: { hits: number; trials: number }[]) => {
      const i = pooledShareInterval(c)
      return { point: i.point, lo: i.lo, hi: i.hi, level: 0.95, method: i.method, tasks: c.length }
    }
    const a = Array.from({ length: 12 }, (_, i) => ({ hits: i % 3 === 0 ? 2 : 1, trials: 3 }))
    const one = { hits: 16, units: 36, interval: interval(a) }
    const both = pooledStrata([one, one])
    expect(both.point).toBeCloseTo(16 / 36, 12)
    const width = (x: { lo: number | null; hi: number | null }) => x.hi! - x.lo!
    expect(width(both)).toBeLessThan(width(one.interval))
    // Twice the tasks: about √2 narrower, as the clustered interval over 24 tasks would be.
    expect(width(both)).toBeCloseTo(width(interval([...a, ...a])), 1)
  })
  it('keeps 0% and 100% informative, and gives no value for no units', () => {
    const zero = pooledShareInterval(Array.from({ length: 10 }, () => ({ hits: 0, trials: 2 })))
    const z = { point: 0, lo: 0, hi: zero.hi, level: 0.95, method: zero.method, tasks: 10 }
    const pooled = pooledStrata([
      { hits: 0, units: 20, interval: z },
      { hits: 0, units: 20, interval: z },
    ])
    expect(pooled.point).toBe(0)
    expect(pooled.hi!).toBeLessThan(zero.hi)
    expect(
      pooledStrata([{ hits: 0, units: 0, interval: { point: null, lo: null, hi: null, level: 0.95, method: 'x' } }])
        .point,
    ).toBeNull()
  })
})

describe('pooledRevisionAnnotation', () => {
  const a = run('alpha', 5)
  const b = run('beta', 6)
  it('pools each actor over benchmarks: counts add up, intervals name their method', () => {
    const pooled = pooledRevisionAnnotation(
      [a, b].map((s) => ({ name: s.benchmarks[0]!.name, cells: s.benchmarks[0]!.cells })),
    )
    expect(pooled.rows.map((r) => [r.actorId, r.mode, r.benchmarks])).toEqual([
      ['ignorer', 'verifier', ['alpha', 'beta']],
      ['follower', 'verifier', ['alpha', 'beta']],
    ])
    const both = [cellOf(a, 'ignorer', 'verifier'), cellOf(b, 'ignorer', 'verifier')].map((c) => c.revisionAnnotation!)
    const row = pooled.rows[0]!
    expect(row.annotated).toBe(both[0]!.annotated + both[1]!.annotated)
    expect(row.classes.unhelpful.revisions).toBe(
      both[0]!.classes.unhelpful.revisions + both[1]!.classes.unhelpful.revisions,
    )
    expect(row.classes.unhelpful.share.point).toBeCloseTo(row.classes.unhelpful.revisions / row.annotated, 12)
    expect(row.classes.all.success.method).toBe(STRATIFIED_INTERVAL_METHOD)
  })
  it('never pools different annotators, leaves out a second benchmark over the same tasks, and skips one-benchmark pools', () => {
    const relabel = (s: RunSummary): CellSummary[] =>
      s.benchmarks[0]!.cells.map((c) =>
        c.actorId === 'follower' && c.revisionAnnotation
          ? { ...c, revisionAnnotation: { ...c.revisionAnnotation, version: 'derived/2' } }
          : c,
      )
    const twin = run('alpha', 5)
    const pooled = pooledRevisionAnnotation([
      { name: 'alpha', cells: a.benchmarks[0]!.cells },
      { name: 'beta', cells: relabel(b) },
      { name: 'alpha again', cells: twin.benchmarks[0]!.cells.map((c) => ({ ...c, benchmark: 'alpha again' })) },
    ])
    // follower: derived/1 on alpha only (its twin is left out), derived/2 on beta only: nothing to pool.
    expect(pooled.rows.map((r) => [r.actorId, r.benchmarks, r.annotator.version])).toEqual([
      ['ignorer', ['alpha', 'beta'], 'derived/1'],
    ])
    expect(pooled.notes[0]).toMatch(/^left out of the pools: alpha again \(same tasks as alpha\)/)
  })
})

describe('seqk analyze: Figure 5b', () => {
  const report = analyzeRuns([run('alpha', 5), run('beta', 6)], { resamples: 20, selection: false })
  it('is in the analysis JSON, per benchmark and pooled', () => {
    expect(AnalysisReportSchema.parse(report)).toEqual(report)
    expect(report.benchmarks.map((b) => b.revisionAnnotation.rows.length)).toEqual([2, 2])
    expect(report.revisionAnnotationPooled.rows.map((r) => r.actorId)).toEqual(['ignorer', 'follower'])
  })
  it('renders the shares and the next-attempt success by class with intervals', () => {
    const text = renderAnalysis(report)
    const block = text.slice(text.indexOf('Did revisions address the feedback? (paper §5.2.2, Figure 5b)'))
    const lines = block.split('\n')
    expect(lines[0]).toBe(
      'Did revisions address the feedback? (paper §5.2.2, Figure 5b) — annotator derived/1; in %, 95% intervals clustered by task',
    )
    expect(lines[1]).toBe('  share of revisions:')
    expect(lines[2]).toMatch(/^ {4}actor +mode +annotated +unhelpful +some +all$/)
    const row = report.benchmarks[0]!.revisionAnnotation.rows[1]!
    const all = row.classes.all
    expect(lines[4]).toContain(`follower  verifier`)
    expect(block).toMatch(/ {2}next-attempt success by class:\n {4}actor +mode +unhelpful +some +all\n/)
    expect(block).toContain(`${all.solved}/${all.revisions}`)
    expect(text).toMatch(/Did revisions address the feedback\? Pooled over benchmarks \(paper §5\.2\.2, Figure 5b\)/)
    expect(text).toContain('  benchmark set 1: alpha + beta')
    expect(text).toMatch(/ignorer +verifier +set 1 \(2\)/)
  })
})
