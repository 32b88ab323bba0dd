import { describe, expect, it } from 'vitest'
import { fakeRun } from '../../test/report-fixtures.js'
import { costPoints, curveWithBands, rankRows, revisionClassPoints, tokensAtK, unannotatedReason } from './data.js'

const { summary, trajectories } = fakeRun({ repeats: 3, tasks: ['a', 'b', 'c', 'd', 'e', 'f'] })
const cells = summary.benchmarks[0]!.cells

describe('curveWithBands', () => {
  it('gives every k a band around the rate, and at K exactly the summary interval', () => {
    for (const cell of cells) {
      const { label, points } = curveWithBands(cell)
      expect(label).toBe(cell.protocol.kind === 'independent' ? 'Pass' : 'Seq')
      expect(points.map((p) => p.k)).toEqual([1, 2, 3, 4])
      for (const p of points) {
        expect(p.lo!).toBeLessThanOrEqual(p.value! + 1e-12)
        expect(p.hi!).toBeGreaterThanOrEqual(p.value! - 1e-12)
      }
      const interval = cell.protocol.kind === 'independent' ? cell.passAtInterval! : cell.seqAtInterval
      expect(points[3]).toMatchObject({ value: interval.point, lo: interval.lo, hi: interval.hi })
    }
  })

  it('leaves undefined points (budget disclosed: only Seq@K) without a band', () => {
    const cell = fakeRun({ budgetDisclosed: true, modes: ['verifier'] }).summary.benchmarks[0]!.cells[0]!
    const { points } = curveWithBands(cell)
    expect(points.slice(0, 3).every((p) => p.value === null && p.lo === null && p.hi === null)).toBe(true)
    expect(points[3]!.value).not.toBeNull()
    expect(points[3]!.lo).not.toBeNull()
  })
})

describe('tokensAtK and costPoints', () => {
  it('counts the tokens of attempts up to min(k, first success), per task then over tasks', () => {
    const cell = cells.find((c) => c.mode === 'verifier')!
    const tokens = tokensAtK(cell, trajectories)
    const own = trajectories.filter((t) => t.cellId === cell.cellId)
    const perTrajectory = (k: number) =>
      own.map((t) =>
        t.attempts
          .filter((a) => a.index <= Math.min(k, t.firstSuccess ?? k))
          .reduce((n, a) => n + a.usage!.inputTokens + a.usage!.outputTokens, 0),
      )
    // Equal repeats per task, so the mean of task means is the plain mean.
    for (let k = 1; k <= 4; k++)
      expect(tokens[k - 1]).toBeCloseTo(perTrajectory(k).reduce((a, b) => a + b, 0) / own.length, 9)
    for (let k = 1; k < 4; k++) expect(tokens[k]!).toBeGreaterThanOrEqual(tokens[k - 1]!)
  })

  it('counts what an errored attempt had spent, like costAtK, when errors count as failures', () => {
    const cell = cells.find((c) => c.mode === 'verifier')!
    const counted = { ...cell, errors: { ...cell.errors, countedAsFailures: true } }
    const [first, ...rest] = trajectories.filter((t) => t.cellId === cell.cellId)
    const usage = { inputTokens: 1000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
    const errored = {
      ...first!,
      status: 'error' as const,
      firstSuccess: null,
      attempts: first!.attempts.slice(0, 1),
      error: {
        stage: 'verifier' as const,
        attempt: 2,
        message: 'down',
        calls: [
          { role: 'actor' as const, usage, latencyMs: 0, costUsd: null, costUsdWithoutCache: null, replayed: false },
        ],
      },
    }
    const withError = tokensAtK(counted, [errored, ...rest])
    const without = tokensAtK(counted, [{ ...errored, error: { ...errored.error, calls: [] } }, ...rest])
    const tasksOf = new Set([errored, ...rest].map((t) => t.taskId)).size
    const repeatsOfFirst = [errored, ...rest].filter((t) => t.taskId === errored.taskId).length
    // Not before the failed attempt; from k = 2 on, its 1000 tokens, averaged over its task's repeats and the tasks.
    expect(withError[0]).toBeCloseTo(without[0]!, 9)
    for (let k = 2; k <= 4; k++)
      expect(withError[k - 1]! - without[k - 1]!).toBeCloseTo(1000 / repeatsOfFirst / tasksOf, 9)
  })

  it('uses USD when the run is priced, tokens when every cost is zero', () => {
    const priced = costPoints(cells, trajectories)
    expect(priced.unit).toBe('usd')
    expect(priced.points).toHaveLength(cells.length * 4)
    const p = priced.points.find((x) => x.cellId === cells[0]!.cellId && x.k === 2)!
    expect(p.cost).toBe(cells[0]!.costAtK[1])
    expect(p.value).toBe(cells[0]!.seqAt[1])
    const free = fakeRun({ costPerAttempt: 0 })
    expect(costPoints(free.summary.benchmarks[0]!.cells, free.trajectories).unit).toBe('tokens')
    const unpriced = fakeRun({ costPerAttempt: null })
    expect(costPoints(unpriced.summary.benchmarks[0]!.cells, unpriced.trajectories).unit).toBe('tokens')
  })
})

describe('ranks', () => {
  it('ties two rates of one count computed along two paths (14/27 as …185 and …186)', () => {
    const atK = { 'sim:careful': 0.5185185185185185, 'sim:quick': 0.5185185185185186 } as Record<string, number>
    const tied = cells.map((c) =>
      c.mode === 'independent' ? { ...c, passAt: [...c.passAt!.slice(0, 3), atK[c.actorId]!] } : c,
    )
    const pass = rankRows(tied).filter((r) => r.order === 0)
    expect(pass.map((r) => [r.actor, r.value, r.rank])).toEqual([
      ['sim:careful', 0.5185185185185185, 1],
      ['sim:quick', 0.5185185185185186, 1],
    ])
  })

  it('has a column for Pass@K and one per feedback mode, for actors present in all', () => {
    const rows = rankRows(cells)
    expect([...new Set(rows.map((r) => r.column))]).toEqual(['Pass@4', 'Seq@4 · binary', 'Seq@4 · verifier'])
    expect(rows).toHaveLength(6)
    const pass = rows.filter((r) => r.order === 0)
    const best = pass.reduce((a, b) => (b.value > a.value ? b : a))
    expect(best.rank).toBe(1)
    expect(rankRows(cells.filter((c) => c.actorId === 'sim:quick'))).toEqual([])
    expect(rankRows(cells.filter((c) => c.mode !== 'independent'))).toEqual([])
  })
})

describe('revisionClassPoints and unannotatedReason', () => {
  const verifier = cells.find((c) => c.mode === 'verifier')!
  const binary = cells.find((c) => c.mode === 'binary')!
  it('gives an annotated cell its three classes with shares and next-attempt success from summary.json', () => {
    const a = verifier.revisionAnnotation!
    const points = revisionClassPoints(verifier)!
    expect(points.map((p) => p.cls)).toEqual(['unhelpful', 'some', 'all'])
    for (const p of points) {
      const k = a.classes[p.cls]
      expect(p).toMatchObject({
        cellId: verifier.cellId,
        annotated: a.annotated,
        revisions: k.revisions,
        share: k.share.point,
        shareLo: k.share.lo,
        shareHi: k.share.hi,
        solved: k.solved,
      })
      expect(p.success).toBe(k.revisions === 0 ? null : k.success.point)
    }
    expect(points.reduce((n, p) => n + (p.share ?? 0), 0)).toBeCloseTo(1, 12)
    // The fixture's revisions fix the one named test exactly when they pass: every "all" passes.
    expect(points.find((p) => p.cls === 'all')!.success).toBe(1)
    expect(points.find((p) => p.cls === 'unhelpful')!.success).toBe(0)
  })
  it('gives a cell without annotation no points, and says why', () => {
    expect(revisionClassPoints(binary)).toBeNull()
    expect(unannotatedReason(binary)).toBe('binary feedback names no request to check a revision against')
    const plain = fakeRun({ modes: ['verifier'], requests: false }).summary.benchmarks[0]!.cells[0]!
    expect(revisionClassPoints(plain)).toBeNull()
    expect(unannotatedReason(plain)).toMatch(/named no request/)
  })
})
