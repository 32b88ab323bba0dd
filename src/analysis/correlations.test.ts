import { describe, expect, it } from 'vitest'
import { analyzeRuns } from './analyze.js'
import { bestNonBinaryPairs, protocolCorrelations } from './correlations.js'
import type { CorrelationPair } from './report-schema.js'
import { simulateRun } from './simulated-runs.js'

const pair = (
  actorId: string,
  passAt: number,
  seqAt: number,
  passGain: number,
  seqGain: number,
  mode = 'verifier',
  benchmark = 'b',
): CorrelationPair => ({ benchmark, actorId, mode, k: 5, passAt, seqAt, passGain, seqGain })

describe('protocolCorrelations', () => {
  it('computes Spearman of levels and of gains, with ties, and a reproducible interval', () => {
    const pairs = [
      pair('a', 0.5, 0.6, 0.1, 0.1),
      pair('b', 0.6, 0.9, 0.2, 0.3),
      pair('c', 0.7, 0.7, 0.2, 0.2),
      pair('d', 0.8, 0.8, 0.3, 0.4),
    ]
    const c = protocolCorrelations('verifier', pairs, { seed: 3, resamples: 300 })
    // Levels: ranks [1,2,3,4] vs [1,4,2,3] → rho = 1 − 6·(0+4+1+1)/(4·15) = 0.4 (no ties).
    expect(c.levels.rho).toBeCloseTo(0.4, 12)
    // Gains: [0.1,0.2,0.2,0.3] vs [0.1,0.3,0.2,0.4], hand-computed with average ranks: 4.5/√22.5.
    expect(c.gains.rho).toBeCloseTo(4.5 / Math.sqrt(22.5), 12)
    expect(c.levels.lo).not.toBeNull()
    expect(c.levels.lo!).toBeLessThanOrEqual(c.levels.hi!)
    expect(protocolCorrelations('verifier', pairs, { seed: 3, resamples: 300 })).toEqual(c)
    expect(c.note).toMatch(/only 4 actor × benchmark pairs/)
  })

  it('says why rho is undefined instead of reporting 0', () => {
    expect(protocolCorrelations('verifier', [pair('a', 0.5, 0.6, 0.1, 0.1)]).levels.rho).toBeNull()
    expect(protocolCorrelations('verifier', [pair('a', 0.5, 0.6, 0.1, 0.1)]).note).toBe(
      '1 actor × benchmark pair: a correlation needs at least 2',
    )
    const constant = protocolCorrelations('verifier', [pair('a', 0.5, 1, 0.1, 0), pair('b', 0.6, 1, 0.2, 0)])
    expect(constant.levels.rho).toBeNull()
    expect(constant.note).toMatch(/undefined/)
  })
})

describe('bestNonBinaryPairs', () => {
  it('takes, per actor and benchmark, the non-binary mode with the highest Seq@k', () => {
    const byMode = new Map([
      ['binary', [pair('a', 0.5, 0.99, 0.1, 0.5, 'binary')]],
      ['verifier', [pair('a', 0.5, 0.7, 0.1, 0.2, 'verifier'), pair('b', 0.5, 0.9, 0.1, 0.2, 'verifier')]],
      ['critic', [pair('a', 0.5, 0.8, 0.1, 0.3, 'critic'), pair('b', 0.5, 0.6, 0.1, 0.2, 'critic')]],
    ])
    expect(bestNonBinaryPairs(byMode, new Set(['binary'])).map((p) => [p.actorId, p.mode])).toEqual([
      ['a', 'critic'],
      ['b', 'verifier'],
    ])
  })
})

describe('correlations from runs', () => {
  it('pools actor × benchmark pairs across runs and adds the best non-binary view with two non-binary modes', () => {
    const actors = [
      { id: 'x', firstTry: 0.7, repair: { binary: 0.05, verifier: 0.1, critic: 0.2 } },
      { id: 'y', firstTry: 0.4, repair: { binary: 0.2, verifier: 0.6, critic: 0.5 } },
      { id: 'z', firstTry: 0.5, repair: { binary: 0.1, verifier: 0.3, critic: 0.4 } },
    ]
    const runs = ['alpha', 'beta'].map((benchmark, i) =>
      simulateRun({
        actors,
        modes: ['binary', 'verifier', 'critic'],
        tasks: 10,
        repeats: 2,
        budget: 4,
        seed: i + 1,
        benchmark,
        runId: benchmark,
      }),
    )
    const report = analyzeRuns(runs, { selection: false, resamples: 100 })
    expect(report.correlations.map((c) => [c.feedback, c.pairs.length])).toEqual([
      ['binary', 6],
      ['verifier', 6],
      ['critic', 6],
      ['best non-binary', 6],
    ])
    for (const c of report.correlations) expect(c.pairs.every((p) => p.k === 4)).toBe(true)
  })
})
