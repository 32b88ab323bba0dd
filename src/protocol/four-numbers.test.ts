import { describe, expect, it } from 'vitest'
import { fakeRun } from '../../test/report-fixtures.js'
import type { CellSummary } from '../core/schemas.js'
import { fourNumbers, singleTryLabel } from './four-numbers.js'

const run = fakeRun({
  actors: [
    { id: 'sim:a', skill: 0.3 },
    { id: 'sim:b', skill: 0.7 },
  ],
  tasks: ['t/1', 't/2', 't/3', 't/4'],
  repeats: 2,
})
const cells = run.summary.benchmarks[0]!.cells

/** A copy of a cell whose actor ran at `temperature`, under another id. */
const atTemperature = (cell: CellSummary, temperature: number, passAt1: number): CellSummary => ({
  ...cell,
  cellId: `${cell.cellId} T=${temperature}`,
  passAt: cell.passAt!.map((v, i) => (i === 0 ? passAt1 : v)),
  protocol: { ...cell.protocol, actor: { ...cell.protocol.actor, params: { temperature } } },
})

describe('fourNumbers', () => {
  it("reads each actor's four numbers from its cells, as the summaries hold them", () => {
    const rows = fourNumbers(cells)
    expect(rows.map((r) => r.actorId)).toEqual(['sim:a', 'sim:b'])
    for (const row of rows) {
      const ind = cells.find((c) => c.actorId === row.actorId && c.protocol.kind === 'independent')!
      const K = ind.budget
      expect(row.singleTry).toMatchObject({ value: ind.passAt![0], source: 'Pass@1', cellId: ind.cellId })
      expect(row.passAtK).toMatchObject({ value: ind.passAt![K - 1], k: K, interval: ind.passAtInterval })
      expect(row.passHatK).toMatchObject({ value: ind.passHat![K - 1], interval: ind.reliability!.hatInterval })
      const seq = cells.filter((c) => c.actorId === row.actorId && c.protocol.kind === 'sequential')
      expect(row.seqAtK.map((s) => [s.mode, s.number.value])).toEqual(seq.map((c) => [c.mode, c.seqAt[c.budget - 1]]))
    }
  })

  it('takes the single try at temperature 0 when the actor ran so', () => {
    const ind = cells.find((c) => c.actorId === 'sim:a' && c.protocol.kind === 'independent')!
    const rows = fourNumbers([...cells, atTemperature(ind, 0, 0.25), atTemperature(ind, 0.7, 0.9)])
    expect(rows[0]!.singleTry).toMatchObject({ value: 0.25, deterministic: true, cellId: `${ind.cellId} T=0` })
    expect(rows[1]!.singleTry!.deterministic).toBe(false)
  })

  it("falls back to a sequential cell's first attempt, and leaves what no cell measured unknown (null, never 0)", () => {
    const sequential = cells.filter((c) => c.protocol.kind === 'sequential')
    const row = fourNumbers(sequential)[0]!
    const first = sequential.find((c) => c.actorId === row.actorId)!
    expect(row.singleTry).toMatchObject({ value: first.seqAt[0], source: 'Seq@1', mode: first.mode })
    expect(singleTryLabel(row.singleTry)).toBe(`Seq@1 (first attempt of ${first.mode})`)
    // Whatever order an output reads the cells in, it picks the same first attempt.
    expect(fourNumbers([...sequential].reverse()).find((r) => r.actorId === row.actorId)!.singleTry).toEqual(
      row.singleTry,
    )
    expect(row.passAtK).toBeNull()
    expect(row.passHatK).toBeNull()
    // Told its budget, the actor may plan for K attempts: its Seq@1 is not a single try.
    const disclosed = sequential.map((c) => ({ ...c, protocol: { ...c.protocol, budgetDisclosed: true } }))
    expect(fourNumbers(disclosed)[0]!.singleTry).toBeNull()
    expect(singleTryLabel(null)).toBe('a single try')
    // An all-errors cell: its numbers are null, not 0.
    const failing = fakeRun({
      tasks: ['t/1'],
      errorFor: (_t, _r, actor) => (actor === 'sim:quick' ? 'boom' : undefined),
    })
    const quick = fourNumbers(failing.summary.benchmarks[0]!.cells).find((r) => r.actorId === 'sim:quick')!
    expect(quick.singleTry?.value ?? null).toBeNull()
    expect(quick.passAtK?.value ?? null).toBeNull()
    expect(quick.passHatK?.value ?? null).toBeNull()
    for (const s of quick.seqAtK) expect(s.number.value).toBeNull()
  })
})
