// `vitest-seqk/gate` from a script: two runs' summaries gated cell by cell, through the package's
// own entry point (the alias points it at the sources).
import { describe, expect, it } from 'vitest'
import { baselineOf, compareCells, compareToBaseline, gateSummaries } from 'vitest-seqk/gate'
import { simulateRun } from '../analysis/simulated-runs.js'

const run = (repair: number, seed = 3) =>
  simulateRun({
    actors: [{ id: 'reviser', firstTry: 0.4, repair: { verifier: repair } }],
    modes: ['verifier'],
    tasks: 30,
    repeats: 2,
    budget: 4,
    seed,
    runId: `r${repair}`,
  })

describe('vitest-seqk/gate', () => {
  it('passes a run against itself, with what the gate could see for every cell', () => {
    const main = run(0.7)
    const gate = gateSummaries(main, main, { power: true })
    expect(gate.pass).toBe(true)
    expect(gate.cells.map((c) => c.cellId).sort()).toEqual(['reviser · independent', 'reviser · verifier'].sort())
    for (const cell of gate.cells)
      expect(cell.result.power?.sentence).toMatch(/^with 30 tasks × 2 repeats this gate catches/)
  })

  it('fails a real regression, naming the cell, and compareCells says the same as compareToBaseline', () => {
    const main = run(0.7)
    // The same protocol, every other task of the verifier cell never solved: a real drop.
    const broken = main.benchmarks[0]!.cells.map((cell) =>
      cell.mode === 'verifier'
        ? {
            ...cell,
            perTask: cell.perTask.map((row, i) =>
              i % 2 === 0 ? { ...row, firstSuccess: row.firstSuccess.map(() => null) } : row,
            ),
          }
        : cell,
    )
    const branch = { ...main, benchmarks: [{ ...main.benchmarks[0]!, cells: broken }] }
    const gate = gateSummaries(main, branch, { power: false })
    expect(gate.pass).toBe(false)
    expect(gate.cells.find((c) => c.cellId.endsWith('independent'))?.result.pass).toBe(true)
    expect(gate.reasons[0]).toMatch(
      /^simulated · reviser · verifier: Seq@4 \d+\.\d% → \d+\.\d% on 30 common tasks .*: a real drop beyond zero/,
    )
    const [before, now] = [
      main.benchmarks[0]!.cells.find((c) => c.mode === 'verifier')!,
      broken.find((c) => c.mode === 'verifier')!,
    ]
    expect(compareCells(before, now, { power: false })).toEqual(
      compareToBaseline(baselineOf(before), now, { power: false }),
    )
  })

  it("compares across a changed actor setting, naming it with both values (a key with a dot: a simulated actor's repair.verifier)", () => {
    const gate = gateSummaries(run(0.9), run(0.05), { power: false })
    const verifier = gate.cells.find((c) => c.cellId.endsWith('verifier'))!
    // The subject changed: compared paired by task, and the change said, not refused.
    expect(verifier.result.subjectChanges).toEqual(['actor.params.repair.verifier: 0.9 → 0.05'])
    expect(verifier.result.instrumentChanges).toEqual([])
    expect(verifier.result.comparisons).toHaveLength(1)
    expect(verifier.result.pass).toBe(false)
    expect(gate.reasons[0]).toMatch(/^simulated · reviser · verifier: Seq@4 .* a real drop beyond zero/)
  })

  it('matches a cell whose subject id changed by its mode, and says it is ambiguous when it cannot tell', () => {
    const main = run(0.7)
    const renamed = (cells: (typeof main.benchmarks)[0]['cells'], id: string) =>
      cells.map((c) => ({ ...c, actorId: id, cellId: `${id} · ${c.mode}` }))
    const branch = {
      ...main,
      benchmarks: [{ ...main.benchmarks[0]!, cells: renamed(main.benchmarks[0]!.cells, 'next') }],
    }
    const gate = gateSummaries(main, branch, { power: false })
    expect(gate.pass).toBe(true)
    expect(gate.cells.map((c) => [c.cellId, c.baselineCellId]).sort()).toEqual([
      ['next · independent', 'reviser · independent'],
      ['next · verifier', 'reviser · verifier'],
    ])
    // Two new subjects in one mode for one earlier cell: which replaced it cannot be told.
    const two = {
      ...main,
      benchmarks: [
        {
          ...main.benchmarks[0]!,
          cells: [...renamed(main.benchmarks[0]!.cells, 'a'), ...renamed(main.benchmarks[0]!.cells, 'b')],
        },
      ],
    }
    const ambiguous = gateSummaries(main, two, { power: false })
    expect(ambiguous.pass).toBe(false)
    expect(ambiguous.unmatched).toContainEqual(
      expect.stringMatching(/^simulated · a · verifier: this cell's id is not in the baseline, .* ambiguous/),
    )
  })

  it('fails closed on a cell without a counterpart, and refuses what is not a summary, naming it', () => {
    const main = run(0.7)
    const fewer = { ...main, benchmarks: [{ ...main.benchmarks[0]!, cells: main.benchmarks[0]!.cells.slice(0, 1) }] }
    const gate = gateSummaries(main, fewer, { power: false })
    expect(gate.pass).toBe(false)
    expect(gate.unmatched).toEqual([expect.stringMatching(/: in the baseline run but not in this one$/)])
    expect(gateSummaries(fewer, main, { power: false }).unmatched).toEqual([
      expect.stringMatching(/: not in the baseline run, so nothing says it did not regress$/),
    ])
    expect(() => gateSummaries({ ...main, schema: 'nope' } as never, main)).toThrow(
      /^gateSummaries: the baseline summary is not a seqk summary: .*schema/,
    )
  })

  it("gates every cell on its own protocol's reliability rate with metric: 'reliability', like with like", () => {
    const main = run(0.7)
    // Same protocol and Seq@4 kept on most tasks, but half the tasks now solved in one repeat of two:
    // Seq^4 (every repeat) falls while the headline rate falls less.
    const inconsistent = main.benchmarks[0]!.cells.map((cell) =>
      cell.mode === 'verifier'
        ? {
            ...cell,
            perTask: cell.perTask.map((row, i) =>
              i % 2 === 0 ? { ...row, firstSuccess: row.firstSuccess.map((f, r) => (r === 0 ? f : null)) } : row,
            ),
          }
        : cell,
    )
    const branch = { ...main, benchmarks: [{ ...main.benchmarks[0]!, cells: inconsistent }] }
    const gate = gateSummaries(main, branch, { metric: 'reliability', power: false })
    const metricOf = (mode: string) =>
      gate.cells.find((c) => c.cellId.endsWith(mode))!.result.comparisons.map((c) => [c.metric, c.k])
    expect(metricOf('verifier')).toEqual([['seqHat', 4]])
    expect(metricOf('independent')).toEqual([['passHat', 4]])
    expect(gate.cells.find((c) => c.cellId.endsWith('independent'))!.result.pass).toBe(true)
    expect(gate.reasons[0]).toMatch(/^simulated · reviser · verifier: Seq\^4 \d+\.\d% → \d+\.\d% on 30 common tasks/)
    // The headline role is the default's metric.
    expect(
      gateSummaries(main, branch, { metric: 'headline', power: false }).cells.map((c) => c.result.comparisons),
    ).toEqual(gateSummaries(main, branch, { power: false }).cells.map((c) => c.result.comparisons))
    // A typo is the setting's error, naming the field and what it takes, before any cell is judged.
    expect(() => gateSummaries(main, branch, { metric: 'pass^k' as never })).toThrow(
      /^gateSummaries: options\.metric: "pass\^k" is neither a metric nor a role; use 'headline' .*'reliability' .*seqAt, passAt, seqHat, passHat, coverAt$/,
    )
    expect(() =>
      compareCells(main.benchmarks[0]!.cells[0]!, main.benchmarks[0]!.cells[0]!, { metric: 'Seq^4' as never }),
    ).toThrow(/^GateOptions\.metric: "Seq\^4" is neither/)
  })
})
