import { describe, expect, it } from 'vitest'
import type { CellSummary } from '../core/schemas.js'
import { robustnessRows } from './robustness.js'

/** A sequential cell at K = 1 whose tasks passed as given (1) or failed (0); only what the rows read. */
const cell = (cellId: string, solved: number[], extra: Partial<CellSummary> = {}): CellSummary =>
  ({
    benchmark: 'b',
    cellId,
    actorId: 'a',
    mode: 'verifier',
    budget: 1,
    repeats: 1,
    instrument: { fingerprint: 'same' },
    protocol: { kind: 'sequential', actor: { provider: 'p', model: 'm', params: {} } },
    perTask: solved.map((s, i) => ({ taskId: `t${i}`, contentHash: `h${i}`, firstSuccess: [s ? 1 : null], errors: 0 })),
    ...extra,
  }) as unknown as CellSummary

const reworded = (name: string, solved: number[]) =>
  cell(`a ~ ${name} · verifier`, solved, {
    variant: `a ~ ${name}`,
    perturbation: { of: 'a', name, kind: name.split('/')[0] as 'distractor', seed: 1 },
  })

describe('robustnessRows', () => {
  it('pairs each rewording with its original, pools them, and lists the flipped tasks', () => {
    const rows = robustnessRows([
      cell('a · verifier', [1, 1, 1, 1, 0]),
      reworded('distractor/1', [1, 0, 1, 0, 1]),
      reworded('format/1', [1, 1, 1, 1, 0]),
    ])
    expect(rows.map((r) => [r.condition, r.ratio?.point, r.lost, r.gained])).toEqual([
      ['distractor/1', 3 / 4, ['t1', 't3'], ['t4']],
      ['format/1', 1, [], []],
      // Per task, the mean over the rewordings: t1 and t3 at 0.5 still pass, t4 at 0.5 now passes.
      ['all rewordings', 3.5 / 4, [], ['t4']],
    ])
    expect(rows[0]).toMatchObject({ subject: 'a', originalCellId: 'a · verifier', metric: 'seqAt', tasks: 5 })
  })

  it('pairs only tasks with the same content, and compares nothing across instruments', () => {
    const changed = reworded('distractor/1', [1, 0, 1, 0, 1])
    changed.perTask[0] = { ...changed.perTask[0]!, contentHash: 'other' }
    expect(robustnessRows([cell('a · verifier', [1, 1, 1, 1, 0]), changed])[0]!.tasks).toBe(4)
    const other = {
      ...reworded('distractor/1', [1, 1, 1, 1, 1]),
      instrument: { fingerprint: 'another' },
    } as CellSummary
    const [row] = robustnessRows([cell('a · verifier', [1, 1, 1, 1, 0]), other])
    expect(row).toMatchObject({ ratio: null, tasks: 0 })
    expect(row!.note).toMatch(/another instrument/)
  })

  it('says the ratio is undefined when no task passed on the original, never 0 or 1', () => {
    const [row] = robustnessRows([cell('a · verifier', [0, 0, 0]), reworded('distractor/1', [1, 0, 0])])
    expect(row!.ratio).toBeNull()
    expect(row!.note).toMatch(/no task passed on the original/)
  })
})
