import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CellSummary, RunSummary } from '../core/schemas.js'
import { ordinal } from '../metrics/format.js'
import { analyzeRuns } from './analyze.js'
import { rankAgainstSeq } from './reliability.js'
import { renderAnalysis } from './render.js'
import { AnalysisReportSchema } from './report-schema.js'
import { simulateRun } from './simulated-runs.js'

const run = simulateRun({
  actors: [
    { id: 'one-shot', firstTry: 0.7, repair: { binary: 0.05, verifier: 0.1 } },
    { id: 'reviser', firstTry: 0.35, repair: { binary: 0.3, verifier: 0.8 } },
    { id: 'stubborn', firstTry: 0.55, repair: { binary: 0, verifier: 0 } },
  ],
  modes: ['binary', 'verifier'],
  tasks: 16,
  repeats: 3,
  budget: 5,
  seed: 5,
  runId: 'sim-rel',
})
const cells = run.benchmarks[0]!.cells
const cellOf = (actorId: string, mode: string): CellSummary | undefined =>
  cells.find((c) => c.actorId === actorId && c.mode === mode)

/** Per task, straight from the counts: Pass@1 = passes / samples, Seq@K = repeats solved by K / repeats. */
function pass1ByTask(cell: CellSummary): Map<string, number> {
  return new Map(cell.perTask.filter((r) => (r.samples ?? 0) > 0).map((r) => [r.taskId, r.passes! / r.samples!]))
}
function seqKByTask(cell: CellSummary): Map<string, number> {
  return new Map(
    cell.perTask
      .filter((r) => r.firstSuccess.length > 0)
      .map((r) => [
        r.taskId,
        r.firstSuccess.filter((f) => f !== null && f <= cell.budget).length / r.firstSuccess.length,
      ]),
  )
}

describe('the reliability view of seqk analyze', () => {
  const report = analyzeRuns([run], { resamples: 20, selection: false })
  const sections = report.benchmarks[0]!.reliability

  it('gives every actor of every mode its four numbers, read from its cells', () => {
    expect(AnalysisReportSchema.parse(report)).toEqual(report)
    expect(sections.map((s) => s.mode)).toEqual(['binary', 'verifier'])
    for (const s of sections) {
      expect(s.rows.map((r) => r.actorId)).toEqual(['one-shot', 'reviser', 'stubborn'])
      for (const row of s.rows) {
        const ind = cellOf(row.actorId, 'independent')!
        const cell = cellOf(row.actorId, s.mode)!
        expect(row.singleTry).toEqual({ label: 'Pass@1', value: ind.passAt![0], source: 'Pass@1', cellId: ind.cellId })
        expect(row.passAtK).toBe(ind.passAt![ind.budget - 1])
        expect(row.passHatK).toBe(ind.passHat![ind.budget - 1])
        expect(row.seqAtK).toBe(cell.seqAt[cell.budget - 1])
        expect(row.seqHatK).toBe(cell.reliability!.seqHat![cell.budget - 1])
        expect(row.coverAt1).toBe(cell.reliability!.coverAt.find((c) => c.tau === 1)!.interval.point)
      }
    }
  })

  it('says which rankings differ from the ranking by Seq@K, and each pair the single try orders the other way, with the tasks', () => {
    for (const s of sections) {
      const seq = new Map(s.rows.map((r) => [r.actorId, r.seqAtK!]))
      const pass1 = new Map(s.rows.map((r) => [r.actorId, r.singleTry.value!]))
      const flips = [...seq.keys()].flatMap((a) =>
        [...seq.keys()].filter((b) => seq.get(a)! > seq.get(b)! && pass1.get(a)! < pass1.get(b)!).map((b) => [a, b]),
      )
      const bySeq = s.singleShot.filter((x) => x.against === 'Seq@5')
      expect(bySeq.map((x) => [x.betterAtK, x.betterAtOne]).sort()).toEqual(flips.sort())
      for (const x of bySeq) {
        const [oneA, oneB] = [
          pass1ByTask(cellOf(x.betterAtK, 'independent')!),
          pass1ByTask(cellOf(x.betterAtOne, 'independent')!),
        ]
        const [kA, kB] = [seqKByTask(cellOf(x.betterAtK, s.mode)!), seqKByTask(cellOf(x.betterAtOne, s.mode)!)]
        const ids = [...oneA.keys()].sort()
        expect(x.tasks).toEqual(ids.filter((id) => oneA.get(id)! < oneB.get(id)! && kA.get(id)! > kB.get(id)!))
        expect(x.reverseTasks).toEqual(ids.filter((id) => oneA.get(id)! > oneB.get(id)! && kA.get(id)! < kB.get(id)!))
      }
      for (const r of s.rankings.filter((r) => r.differsFromSeq)) {
        const note = s.notes.find((n) => n.includes(`the ranking changes from ${r.metric} to Seq@5:`))
        expect(note).toBeDefined()
        // The same direction as the table's "ranking changes from Pass@K to Seq@K": this metric's place, then Seq@K's.
        for (const x of r.ranks.filter((x) => x.rank !== x.seqRank))
          expect(note).toContain(`${x.actorId} ${ordinal(x.rank)} → ${ordinal(x.seqRank)}`)
      }
      expect(s.notes.length).toBe(s.rankings.filter((r) => r.differsFromSeq).length + s.singleShot.length)
    }
    // The reviser's weak single try and strong repair plant the reversal in the verifier mode.
    const verifier = sections.find((s) => s.mode === 'verifier')!
    expect(verifier.rankings.find((r) => r.metric === 'Pass@1')?.differsFromSeq).toBe(true)
    expect(verifier.singleShot.some((x) => x.betterAtK === 'reviser')).toBe(true)
  })

  it('prints the table and the notes', () => {
    const text = renderAnalysis(report)
    expect(text).toContain('Reliability: does it, every time')
    expect(text).toMatch(
      /actor\s+Pass@1\s+Pass@5\s+pass\^5\s+G-Pass@5_0\.5\s+G-Pass@5_0\.75\s+Seq@5\s+Seq\^5\s+Cover@1/,
    )
    // G-Pass@5_τ is the independent cell's own, for every actor that has one.
    for (const section of report.benchmarks[0]!.reliability)
      for (const row of section.rows) {
        const cell = cells.find((c) => c.actorId === row.actorId && c.protocol.kind === 'independent')
        expect(row.gPassK).toEqual((cell?.gPass ?? []).map((g) => ({ tau: g.tau, value: g.atK.point })))
      }
    expect(text).toMatch(/reviser is above \S+ by Seq@5 but below it by Pass@1, the single try/)
  })

  it('gives an actor without an independent cell its sequential first attempt as the single try, labelled Seq@1, and leaves Pass@K and pass^K unknown (never 0)', () => {
    const partial: RunSummary = {
      ...run,
      benchmarks: [
        { ...run.benchmarks[0]!, cells: cells.filter((c) => !(c.actorId === 'stubborn' && c.mode === 'independent')) },
      ],
    }
    const s = analyzeRuns([partial], { resamples: 20, selection: false }).benchmarks[0]!.reliability[0]!
    const row = s.rows.find((r) => r.actorId === 'stubborn')!
    // Its first attempt (binary before verifier, in cell-id order) has had no feedback yet: one try.
    const first = cellOf('stubborn', 'binary')!
    expect(row.singleTry).toEqual({
      label: 'Seq@1 (first attempt of binary)',
      value: first.seqAt[0],
      source: 'Seq@1',
      cellId: first.cellId,
    })
    expect([row.passAtK, row.passHatK]).toEqual([null, null])
    expect(row.seqAtK).not.toBeNull()
    expect(s.rankings.find((r) => r.metric === 'Pass@1')!.order).toContain('stubborn')
    for (const metric of ['Pass@5', 'pass^5'])
      expect(s.rankings.find((r) => r.metric === metric)!.order).not.toContain('stubborn')
    expect(s.rankings.find((r) => r.metric === 'Cover@1')!.order).toContain('stubborn')
  })
})

describe('rankAgainstSeq', () => {
  it('reverses exactly the pairs one metric orders one way and Seq@K the other, and differs exactly when a rank moves', () => {
    const scores = fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 })), {
      minLength: 1,
      maxLength: 7,
    })
    fc.assert(
      fc.property(scores, (pairs) => {
        const ids = pairs.map((_, i) => `a${i}`)
        const metric = new Map(ids.map((id, i) => [id, pairs[i]![0] / 5]))
        const seq = new Map(ids.map((id, i) => [id, pairs[i]![1] / 5]))
        const r = rankAgainstSeq('m', metric, seq)
        const brute = ids.flatMap((a) =>
          ids.filter((b) => metric.get(a)! > metric.get(b)! && seq.get(b)! > seq.get(a)!).map((b) => `${a}>${b}`),
        )
        expect(r.reversals.map((x) => `${x.metricAbove}>${x.seqAbove}`).sort()).toEqual(brute.sort())
        const rankOf = (m: Map<string, number>, id: string) => 1 + ids.filter((o) => m.get(o)! > m.get(id)!).length
        for (const x of r.ranks) {
          expect(x.rank).toBe(rankOf(metric, x.actorId))
          expect(x.seqRank).toBe(rankOf(seq, x.actorId))
        }
        expect(r.differsFromSeq).toBe(ids.some((id) => rankOf(metric, id) !== rankOf(seq, id)))
        expect(rankAgainstSeq('m', seq, seq).differsFromSeq).toBe(false)
      }),
      { seed: 30, numRuns: 300 },
    )
  })
})
