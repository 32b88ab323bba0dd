import { describe, expect, it } from 'vitest'
import { analyzeRuns } from './analyze.js'
import { compareRankings, competitionRanks, performanceGaps } from './rankings.js'
import { simulateRun } from './simulated-runs.js'

describe('competitionRanks', () => {
  it('ranks best first, tied actors sharing the better rank', () => {
    const ranks = competitionRanks(
      new Map([
        ['a', 0.9],
        ['b', 0.7],
        ['c', 0.9],
        ['d', 0.5],
      ]),
    )
    expect(Object.fromEntries(ranks)).toEqual({ a: 1, b: 3, c: 1, d: 4 })
  })

  it('treats ulp-level differences as ties', () => {
    const ranks = competitionRanks(
      new Map([
        ['a', 0.1 + 0.2],
        ['b', 0.3],
      ]),
    )
    expect(Object.fromEntries(ranks)).toEqual({ a: 1, b: 1 })
  })
})

describe('compareRankings with rates of one count computed along two paths', () => {
  it('ties 0.5185185185185185 and 0.5185185185185186 (14/27) in ranks, order and reversals', () => {
    const r = compareRankings({
      benchmark: 'b',
      mode: 'verifier',
      k: 5,
      pass: new Map([
        ['x', 0.5185185185185185],
        ['y', 0.5185185185185186],
        ['z', 0.9],
      ]),
      seq: new Map([
        ['x', 0.7],
        ['y', 0.6],
        ['z', 0.9],
      ]),
    })
    const ranks = Object.fromEntries(r.actors.map((a) => [a.actorId, a.passRank]))
    expect(ranks).toEqual({ x: 2, y: 2, z: 1 })
    // Tied under Pass@5, so x above y under Seq@5 is no reversal, and the Pass@5 tie breaks by Seq@5.
    expect(r.reversals).toEqual([])
    expect(r.passOrder).toEqual(['z', 'x', 'y'])
  })
})

describe('performanceGaps', () => {
  it('gives the best–worst gap and the mean over all pairs', () => {
    const gaps = performanceGaps([0.9, 0.5, 0.7])
    expect(gaps.bestWorst).toBeCloseTo(0.4, 12)
    expect(gaps.meanPairwise).toBeCloseTo((0.4 + 0.2 + 0.2) / 3, 12)
  })

  it('has no gap with fewer than two actors', () => {
    expect(performanceGaps([0.4])).toEqual({ bestWorst: null, meanPairwise: null })
  })
})

describe('compareRankings', () => {
  it('finds reversed pairs, rank changes and the change in gaps', () => {
    const r = compareRankings({
      benchmark: 'b',
      mode: 'verifier',
      k: 5,
      pass: new Map([
        ['one-shot', 0.99],
        ['stubborn', 0.97],
        ['reviser', 0.93],
      ]),
      seq: new Map([
        ['one-shot', 0.9],
        ['stubborn', 0.64],
        ['reviser', 1],
      ]),
    })
    expect(r.passOrder).toEqual(['one-shot', 'stubborn', 'reviser'])
    expect(r.seqOrder).toEqual(['reviser', 'one-shot', 'stubborn'])
    expect(r.actors.map((a) => [a.actorId, a.passRank, a.seqRank, a.rankChange])).toEqual([
      ['reviser', 3, 1, 2],
      ['one-shot', 1, 2, -1],
      ['stubborn', 2, 3, -1],
    ])
    expect(r.reversals).toEqual([
      { passAbove: 'one-shot', seqAbove: 'reviser' },
      { passAbove: 'stubborn', seqAbove: 'reviser' },
    ])
    expect(r.gaps.pass.bestWorst).toBeCloseTo(0.06, 12)
    expect(r.gaps.seq.bestWorst).toBeCloseTo(0.36, 12)
    expect(r.gaps.change.bestWorst).toBeCloseTo(0.3, 12)
  })

  it('counts no reversal for a pair tied on one side', () => {
    const r = compareRankings({
      benchmark: 'b',
      mode: 'm',
      k: 3,
      pass: new Map([
        ['a', 0.5],
        ['b', 0.5],
      ]),
      seq: new Map([
        ['a', 0.2],
        ['b', 0.9],
      ]),
    })
    expect(r.reversals).toEqual([])
  })

  it('leaves out, with the reason, actors lacking a number on either side', () => {
    const r = compareRankings({
      benchmark: 'b',
      mode: 'verifier',
      k: 5,
      pass: new Map<string, number | null>([
        ['a', 0.9],
        ['b', null],
        ['c', 0.8],
      ]),
      seq: new Map<string, number | null>([
        ['a', 0.7],
        ['b', 0.9],
        ['d', 0.5],
        ['c', 0.6],
      ]),
    })
    expect(r.actors.map((a) => a.actorId)).toEqual(['a', 'c'])
    expect(r.excluded).toEqual([
      { actorId: 'b', reason: 'Pass@5 is undefined (fewer than 5 samples per task)' },
      { actorId: 'd', reason: 'no independent cell, so no Pass@5' },
    ])
  })
})

describe('rankings from runs', () => {
  it('finds a planted rank reversal: a strong first try that revises poorly vs a weaker first try that revises well', () => {
    const run = simulateRun({
      actors: [
        { id: 'one-shot', firstTry: 0.7, repair: { verifier: 0.05 } },
        { id: 'reviser', firstTry: 0.45, repair: { verifier: 0.7 } },
        { id: 'weak', firstTry: 0.2, repair: { verifier: 0.1 } },
      ],
      modes: ['verifier'],
      tasks: 40,
      repeats: 3,
      budget: 5,
      seed: 11,
    })
    const ranking = analyzeRuns([run], { selection: false }).benchmarks[0]?.rankings[0]
    expect(ranking?.passOrder).toEqual(['one-shot', 'reviser', 'weak'])
    expect(ranking?.seqOrder).toEqual(['reviser', 'one-shot', 'weak'])
    expect(ranking?.reversals).toEqual([{ passAbove: 'one-shot', seqAbove: 'reviser' }])
    // Pass@5 makes the two look close (both near 1); with feedback they are far apart.
    expect(ranking?.gaps.change.bestWorst).toBeGreaterThan(0)
  })

  it('refuses Seq@k below K when the actors were told their budget', () => {
    const run = simulateRun({
      actors: [
        { id: 'a', firstTry: 0.5, repair: { verifier: 0.5 } },
        { id: 'b', firstTry: 0.6, repair: { verifier: 0.2 } },
      ],
      modes: ['verifier'],
      tasks: 6,
      repeats: 1,
      budget: 5,
      seed: 1,
      budgetDisclosed: true,
    })
    expect(() => analyzeRuns([run], { k: 3, selection: false })).toThrow(
      /told the actor its budget \(K=5\), so Seq@3 cannot be read from it by truncation/,
    )
    // Seq@K itself is valid.
    expect(analyzeRuns([run], { selection: false }).benchmarks[0]?.rankings[0]?.k).toBe(5)
  })
})
