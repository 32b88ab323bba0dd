import { describe, expect, it } from 'vitest'
import { simulateRun } from '../analysis/simulated-runs.js'
import type { CellSummary } from '../core/schemas.js'
import { compareToBaseline } from './gate.js'
import { compareRuns, compareSubjects, variantComparisons } from './subject-comparison.js'

const run = (repair: number, id = 'reviser', runId = `r${repair}`) =>
  simulateRun({
    actors: [{ id, firstTry: 0.4, repair: { verifier: repair } }],
    modes: ['verifier'],
    tasks: 40,
    repeats: 2,
    budget: 4,
    seed: 3,
    runId,
  })
const verifierCell = (r: ReturnType<typeof run>) => r.benchmarks[0]!.cells.find((c) => c.mode === 'verifier')!

describe('compareSubjects', () => {
  it("gives the baseline gate's own difference, interval and p-value, and what changed between the subjects", () => {
    const [a, b] = [verifierCell(run(0.8)), verifierCell(run(0.1))]
    const row = compareSubjects(a, b)
    const gate = compareToBaseline({ ...a, recordedAt: '' }, b, { power: false })
    const atK = gate.comparisons.find((c) => c.k === 4)!
    expect(row.diff).toEqual({ point: atK.diff.point, lo: atK.diff.lo, hi: atK.diff.hi })
    expect(row.p).toBe(atK.p)
    expect(row).toMatchObject({ metric: 'seqAt', k: 4, tasks: 40, verdict: 'worse', instrumentChanges: [] })
    expect(row.subjectChanges).toEqual(['actor.params.repair.verifier: 0.8 → 0.1'])
    // The other way round: the same difference with its sign turned, and "better".
    const back = compareSubjects(b, a)
    expect(back.diff!.point).toBeCloseTo(-row.diff!.point!, 12)
    expect(back.verdict).toBe('better')
  })

  it('compares nothing across instruments, and says which fields differ', () => {
    const a = verifierCell(run(0.8))
    const b: CellSummary = { ...a, protocol: { ...a.protocol, budget: 5 }, budget: 5 }
    const row = compareSubjects(a, b)
    expect(row).toMatchObject({ verdict: 'not-comparable', diff: null, tasks: 0, instrumentChanges: ['budget: 4 → 5'] })
  })
})

describe('variantComparisons', () => {
  it('pairs the variants of each benchmark and mode in declaration order, B − A, and nothing else', () => {
    const cells = (['a', 'b', 'c'] as const).map((name, i) => ({
      ...verifierCell(run([0.8, 0.5, 0.1][i]!)),
      variant: name,
      actorId: name,
      cellId: `${name} · verifier`,
    }))
    const plain = verifierCell(run(0.3))
    const rows = variantComparisons([...cells, plain])
    expect(rows.map((r) => [r.a.subject, r.b.subject])).toEqual([
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ])
    expect(rows[0]).toEqual(compareSubjects(cells[0]!, cells[1]!))
  })
})

describe('compareRuns', () => {
  it('matches each cell of B with A by id, else by mode, and gives the rows variants give for the same subjects', () => {
    const [a, b] = [run(0.8, 'main'), run(0.1, 'branch')]
    const { rows, unmatched } = compareRuns(a, b)
    expect(unmatched).toEqual([])
    expect(rows.map((r) => [r.a.cellId, r.b.cellId]).sort()).toEqual([
      ['main · independent', 'branch · independent'],
      ['main · verifier', 'branch · verifier'],
    ])
    const row = rows.find((r) => r.mode === 'verifier')!
    expect(row).toEqual(compareSubjects(verifierCell(a), verifierCell(b)))
  })

  it('lists the cells it cannot pair, on either side', () => {
    const a = run(0.8)
    const b = { ...a, benchmarks: [{ ...a.benchmarks[0]!, cells: a.benchmarks[0]!.cells.slice(0, 1) }] }
    expect(compareRuns(a, b).unmatched).toEqual([expect.stringMatching(/: only in run A$/)])
    expect(compareRuns(b, a).unmatched).toEqual([expect.stringMatching(/: only in run B$/)])
  })
})
