import { describe, expect, it } from 'vitest'
import type { CellSummary } from '../core/schemas.js'
import { revisionTimingRow, revisionTimingTable } from './revision-timing.js'
import { simulateRun } from './simulated-runs.js'

const cells = simulateRun({
  actors: [
    { id: 'early', firstTry: 0.3, repair: { verifier: 0.9 } },
    { id: 'never', firstTry: 0.5, repair: { verifier: 0 } },
  ],
  modes: ['verifier'],
  tasks: 30,
  repeats: 2,
  budget: 5,
  seed: 4,
}).benchmarks[0]!.cells

const withCurve = (cell: CellSummary, seqAt: (number | null)[], disclosed = false): CellSummary => ({
  ...cell,
  seqAt,
  protocol: { ...cell.protocol, budgetDisclosed: disclosed },
})

describe('revisionTimingRow', () => {
  const verifierCell = cells.find((c) => c.actorId === 'early' && c.mode === 'verifier')!

  it('computes EGS and LGS from the Seq@k curve', () => {
    const row = revisionTimingRow(withCurve(verifierCell, [0.5, 0.7, 0.75, 0.8, 0.8]))
    expect(row.egs).toBeCloseTo(2 / 3, 12)
    expect(row.lgs).toBe(0)
    expect(row.gain).toBeCloseTo(0.3, 12)
    expect(row.reason).toBeNull()
  })

  it('is undefined, and says so, when ΔSeq@K ≤ 0', () => {
    const row = revisionTimingRow(withCurve(verifierCell, [0.5, 0.5, 0.5, 0.5, 0.5]))
    expect(row).toMatchObject({ egs: null, lgs: null, gain: 0, reason: 'ΔSeq@5 ≤ 0: no revision gain to share' })
    // A simulated actor that never repairs has no gain at all.
    const never = revisionTimingRow(cells.find((c) => c.actorId === 'never' && c.mode === 'verifier')!)
    expect(never.reason).toBe('ΔSeq@5 ≤ 0: no revision gain to share')
  })

  it('is undefined when the budget was disclosed (Seq@2 … Seq@K−1 do not exist)', () => {
    const row = revisionTimingRow(withCurve(verifierCell, [null, null, null, null, 0.8], true))
    expect(row).toMatchObject({
      egs: null,
      lgs: null,
      seqAtK: 0.8,
      reason: 'budget disclosed to the actor: only Seq@5 is valid, so EGS and LGS are undefined',
    })
  })

  it('uses a shorter horizon when asked (K = 3 here)', () => {
    const row = revisionTimingRow(withCurve(verifierCell, [0.5, 0.7, 0.8, 0.9, 0.9]), 3)
    expect(row.k).toBe(3)
    expect(row.egs).toBeCloseTo(2 / 3, 12)
    expect(row.lgs).toBeCloseTo(1 / 3, 12)
  })

  it('gives the planted early reviser most of its gain in the first revision', () => {
    const row = revisionTimingRow(verifierCell)
    expect(row.egs).toBeGreaterThan(0.7)
  })
})

describe('revisionTimingTable', () => {
  it('has one row per sequential cell and none for independent cells', () => {
    expect(revisionTimingTable(cells).map((r) => `${r.actorId}/${r.mode}`)).toEqual([
      'early/verifier',
      'never/verifier',
    ])
  })
})
