import { describe, expect, it } from 'vitest'
import type { CellSummary, Protocol } from '../core/schemas.js'
import { historyComparisons } from './history-comparison.js'
import { protocolFixture } from '../../test/protocol-fixture.js'

const protocol = (history: string, benchmark: string): Protocol =>
  protocolFixture({
    benchmark: { name: benchmark, tasks: 10, contentHash: 'same-tasks' },
    feedback: { kind: 'critic', name: 'critic', version: '1', settings: { rubric: 'aware' } },
    history: { name: history, settings: history === 'summary' ? { summariser: 'simulated:x' } : {} },
    actor: { provider: 'simulated', model: 'reviser', params: {} },
    budget: 2,
  })

function cell(history: string, benchmark: string, solvedAt: (number | null)[]): CellSummary {
  return {
    benchmark,
    actorId: 'simulated:reviser',
    mode: 'critic',
    budget: 2,
    protocol: protocol(history, benchmark),
    seqAt: [0, solvedAt.filter((s) => s !== null).length / solvedAt.length],
    perTask: solvedAt.map((s, i) => ({ taskId: `t${i}`, firstSuccess: [s], errors: 0, costAtK: [0, 0] })),
  } as unknown as CellSummary
}

describe('historyComparisons', () => {
  it('pairs cells that differ only in the history policy and gives the paired difference', () => {
    const full = cell('full', 'rubric (full history)', [1, 1, 2, 2, 2, 2, 2, 2, 2, 2])
    const summary = cell('summary', 'rubric (summary history)', [1, 1, 2, 2, 2, null, null, null, null, null])
    const [c, ...rest] = historyComparisons([summary, full])
    expect(rest).toEqual([])
    expect(c).toMatchObject({
      actorId: 'simulated:reviser',
      mode: 'critic',
      baseline: { history: 'full', seqAtK: 1 },
      other: { history: 'summary', seqAtK: 0.5 },
      commonTasks: 10,
    })
    expect(c!.diff.point).toBeCloseTo(-0.5, 10)
    expect(c!.diff.hi!).toBeLessThan(0)
  })

  it('does not pair cells that differ in anything else', () => {
    const full = cell('full', 'a', [1, 2])
    const other = {
      ...cell('summary', 'b', [1, 2]),
      protocol: { ...protocol('summary', 'b'), budget: 3 },
    } as CellSummary
    expect(historyComparisons([full, other])).toEqual([])
    expect(historyComparisons([full, cell('full', 'b', [1, 2])])).toEqual([])
  })
})
