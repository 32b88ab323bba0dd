import { describe, expect, it } from 'vitest'
import { fakeRun } from '../../test/report-fixtures.js'
import { compareAtEqualCost } from '../metrics/equal-cost.js'
import { equalCostComparisons, spendText } from './equal-cost.js'

describe('equalCostComparisons', () => {
  const cells = fakeRun({ repeats: 3, costPerAttempt: 0.001 }).summary.benchmarks[0]!.cells

  it("pairs each sequential cell with its actor's independent cell, Seq@k and Pass@k at each protocol's spend", () => {
    const pairs = equalCostComparisons(cells)
    expect(pairs.map((p) => [p.actorId, p.mode, p.independent])).toEqual([
      ['sim:careful', 'binary', 'sim:careful · independent'],
      ['sim:careful', 'verifier', 'sim:careful · independent'],
      ['sim:quick', 'binary', 'sim:quick · independent'],
      ['sim:quick', 'verifier', 'sim:quick · independent'],
    ])
    for (const pair of pairs) {
      const seq = cells.find((c) => c.cellId === pair.sequential)!
      const ind = cells.find((c) => c.cellId === pair.independent)!
      for (const unit of ['tokens', 'usd'] as const) {
        const curves = pair[unit]
        expect(curves.sequential.map((p) => p.rate)).toEqual(seq.seqAt)
        expect(curves.independent.map((p) => p.rate)).toEqual(ind.passAt)
        // Independent spends k samples: k times one sample's spend.
        const one = curves.independent[0]!.cost!
        curves.independent.forEach((p) => expect(p.cost).toBeCloseTo(p.k * one, 9))
        // The verdict is the metric's reading of these very points.
        const points = (ps: typeof curves.sequential) => ps.map((p) => ({ cost: p.cost!, rate: p.rate! }))
        const reading = compareAtEqualCost(points(curves.sequential), points(curves.independent))!
        expect(curves.verdict).toBe(reading.verdict)
        expect(curves.crossings).toEqual(reading.crossings)
        expect(curves.note).toMatch(/^(sequential dominates|independent dominates|equal|crossing): /)
      }
    }
  })

  it('an unpriced model makes the dollars unknown (never $0) while the tokens still compare', () => {
    const unpriced = fakeRun({ costPerAttempt: null }).summary.benchmarks[0]!.cells
    for (const pair of equalCostComparisons(unpriced)) {
      expect(pair.usd.verdict).toBe('unknown')
      expect(pair.usd.note).toContain('unknown is not 0')
      expect(pair.usd.crossings).toEqual([])
      expect(pair.usd.sequential.every((p) => p.cost === null)).toBe(true)
      expect(pair.tokens.verdict).not.toBe('unknown')
    }
  })

  it('free models ($0 every budget): the dollars compare only the best rates at $0, and say so', () => {
    const free = fakeRun({ costPerAttempt: 0 }).summary.benchmarks[0]!.cells
    for (const pair of equalCostComparisons(free)) {
      expect(pair.usd.crossings).toEqual([])
      expect([pair.usd.from, pair.usd.to]).toEqual([0, 0])
      expect(pair.usd.note).toContain('every budget spent $0 (simulated or free models)')
      const seqK = pair.usd.sequential.at(-1)!.rate!
      const passK = pair.usd.independent.at(-1)!.rate!
      expect(pair.usd.verdict).toBe(
        seqK > passK ? 'sequential-dominates' : seqK < passK ? 'independent-dominates' : 'equal',
      )
    }
  })

  it('an older summary without spendAtK, or cells on different tasks, are not compared', () => {
    const older = cells.map(({ spendAtK: _, ...c }) => c)
    expect(equalCostComparisons(older).every((p) => p.tokens.verdict === 'unknown')).toBe(true)
    const fewer = cells.map((c) => (c.protocol.kind === 'independent' ? { ...c, perTask: c.perTask.slice(1) } : c))
    expect(equalCostComparisons(fewer).every((p) => p.tokens.verdict === 'not-comparable')).toBe(true)
    // Without an independent cell there is nothing to pair.
    expect(equalCostComparisons(cells.filter((c) => c.protocol.kind !== 'independent'))).toEqual([])
  })
})

describe('spendText', () => {
  it('prints tokens compact and dollars as money, unknown as unknown', () => {
    expect(spendText(1234.4, 'tokens')).toBe('1.2k tokens')
    expect(spendText(812.6, 'tokens')).toBe('813 tokens')
    expect(spendText(0.0042, 'usd')).toBe('$0.0042')
    expect(spendText(null, 'usd')).toBe('unknown')
  })
})
