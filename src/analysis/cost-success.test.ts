import { describe, expect, it } from 'vitest'
import type { CellSummary } from '../core/schemas.js'
import { costSuccess } from './cost-success.js'
import { simulateRun } from './simulated-runs.js'

const cells = simulateRun({
  actors: [
    { id: 'cheap', firstTry: 0.3, repair: { verifier: 0.3 }, costPerAttempt: 0.001 },
    { id: 'dear', firstTry: 0.6, repair: { verifier: 0.6 }, costPerAttempt: 0.01 },
  ],
  modes: ['verifier'],
  tasks: 10,
  repeats: 2,
  budget: 3,
  seed: 2,
}).benchmarks[0]!.cells

const hand = (cell: CellSummary, success: number[], cost: (number | null)[]): CellSummary =>
  cell.protocol.kind === 'independent'
    ? { ...cell, passAt: success, costAtK: cost }
    : { ...cell, seqAt: success, costAtK: cost }

describe('costSuccess', () => {
  it("marks each protocol's Pareto frontier on hand-made points", () => {
    const [cheapInd, cheapSeq, dearInd, dearSeq] = [
      'cheap · independent',
      'cheap · verifier',
      'dear · independent',
      'dear · verifier',
    ].map((id) => cells.find((c) => c.cellId === id)!)
    const figure = costSuccess('b', [
      hand(cheapInd!, [0.3, 0.5, 0.6], [1, 2, 3]),
      hand(dearInd!, [0.6, 0.7, 0.72], [10, 15, 20]),
      hand(cheapSeq!, [0.3, 0.55, 0.7], [1, 2.5, 4]),
      hand(dearSeq!, [0.6, 0.65, 0.66], [3, 20, 30]),
    ])
    const frontier = (protocol: string) =>
      figure.series.find((s) => s.protocol === protocol)!.frontier.map((p) => `${p.actorId}@${p.k}`)
    expect(figure.series.map((s) => [s.protocol, s.metric])).toEqual([
      ['independent', 'Pass'],
      ['verifier', 'Seq'],
    ])
    // Independent: dear@1 (0.6 at 10) is beaten by cheap@3 (0.6 at 3); dear@2 and dear@3 buy more success.
    expect(frontier('independent')).toEqual(['cheap@1', 'cheap@2', 'cheap@3', 'dear@2', 'dear@3'])
    // Verifier: dear@1 (0.6 at 3) sits between cheap@2 (0.55 at 2.5) and cheap@3 (0.7 at 4); dear@2, dear@3 are dominated.
    expect(frontier('verifier')).toEqual(['cheap@1', 'cheap@2', 'dear@1', 'cheap@3'])
    // Together: identical points (cost 1, and cost 3) both stay; independent dear@2 (0.7 at 15) loses to verifier cheap@3 (0.7 at 4).
    expect(figure.combinedFrontier.map((p) => `${p.protocol}:${p.actorId}@${p.k}`)).toEqual([
      'independent:cheap@1',
      'verifier:cheap@1',
      'independent:cheap@2',
      'verifier:cheap@2',
      'independent:cheap@3',
      'verifier:dear@1',
      'verifier:cheap@3',
      'independent:dear@3',
    ])
    expect(figure.note).toBeNull()
  })

  it('leaves unpriced and undefined points out of the frontier, with the reason', () => {
    const [cheapInd, cheapSeq] = ['cheap · independent', 'cheap · verifier'].map((id) =>
      cells.find((c) => c.cellId === id)!,
    )
    const figure = costSuccess('b', [
      hand(cheapInd!, [0.3, 0.5, Number.NaN].map((v) => (Number.isNaN(v) ? null : v)) as number[], [1, 2, 3]),
      hand(cheapSeq!, [0.3, 0.5, 0.6], [1, null, 3]),
    ])
    const points = figure.series.flatMap((s) => s.points)
    expect(points.filter((p) => p.reason !== null).map((p) => [p.actorId, p.k, p.reason])).toEqual([
      ['cheap', 3, 'Pass@3 undefined (fewer than 3 samples per task)'],
      ['cheap', 2, 'unpriced: some calls have no known price'],
    ])
    expect(points.filter((p) => p.reason !== null).every((p) => !p.onFrontier)).toBe(true)
    expect(figure.note).toBe('1 points are unpriced and left out of the frontiers')
  })

  it('says when every configuration cost nothing (simulated actors)', () => {
    const free = simulateRun({
      actors: [{ id: 'a', firstTry: 0.5, repair: { verifier: 0.5 }, costPerAttempt: 0 }],
      modes: ['verifier'],
      tasks: 3,
      repeats: 1,
      budget: 2,
      seed: 1,
    }).benchmarks[0]!.cells
    expect(costSuccess('b', free).note).toMatch(/every configuration cost \$0/)
  })

  it('takes the cost per task from costAtK, which grows with k and stops at the first success', () => {
    const figure = costSuccess('b', cells)
    for (const s of figure.series) {
      for (const actor of ['cheap', 'dear']) {
        const costs = s.points.filter((p) => p.actorId === actor).map((p) => p.cost as number)
        expect(costs).toEqual([...costs].sort((x, y) => x - y))
      }
    }
  })
})
