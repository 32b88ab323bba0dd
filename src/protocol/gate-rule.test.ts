import { describe, expect, it } from 'vitest'
import type { CellSummary } from '../core/schemas.js'
import { decideGate, type GateRule } from './gate-rule.js'

// 30 tasks × 4 repeats: the baseline solves every repeat; the current run solves half of each
// task's repeats (Seq@K halves) and no task every time (Cover@1 and Seq^K fall to 0).
const rows = (solvedRepeats: number): CellSummary['perTask'] =>
  Array.from({ length: 30 }, (_, i) => ({
    taskId: `t${i}`,
    firstSuccess: [1, 1, 1, 1].map((f, r) => (r < solvedRepeats ? f : null)),
    errors: 0,
    costAtK: [],
  }))

describe('decideGate on any gateable metric', () => {
  const rule = (metric?: GateRule['metric']): GateRule => ({
    K: 3,
    ks: [3],
    independent: false,
    margin: 0,
    maxDrop: 0.1,
    level: 0.95,
    ...(metric ? { metric } : {}),
  })

  it('Seq^K and Cover@1 are compared task by task like Seq@K, under their own labels', () => {
    const [before, after] = [rows(4), rows(2)]
    expect(decideGate(before, after, rule()).comparisons[0]).toMatchObject({
      metric: 'seqAt',
      baseline: 1,
      current: 0.5,
    })
    const seqHat = decideGate(before, after, rule('seqHat'))
    expect(seqHat.comparisons[0]).toMatchObject({ metric: 'seqHat', baseline: 1, current: 0 })
    expect(seqHat.failures[0]!.why).toMatch(/^Seq\^3 100\.0% → 0\.0% on 30 common tasks/)
    // Cover@τ is indexed by τ: at τ = 1 it is Seq^K here; at τ = 0.5 half the repeats are enough.
    expect(decideGate(before, after, { ...rule('coverAt'), ks: [1] }).failures).toHaveLength(1)
    expect(decideGate(before, after, { ...rule('coverAt'), ks: [0.5] }).failures).toEqual([])
  })

  it('with no change, no metric alarms', () => {
    for (const metric of ['seqAt', 'seqHat', 'coverAt'] as const)
      expect(decideGate(rows(3), rows(3), { ...rule(metric), ks: [metric === 'coverAt' ? 1 : 3] }).failures).toEqual([])
  })
})
