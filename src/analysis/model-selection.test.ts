import { describe, expect, it } from 'vitest'
import type { CellSummary } from '../core/schemas.js'
import { passAtK } from '../metrics/index.js'
import { selectModels } from './analyze.js'
import { AnalysisInputError, TruncationRefusedError } from './cell-scores.js'
import { modelSelection, selectionTable, splitTaskGroups, type SelectionTable } from './model-selection.js'
import { SelectionSchema } from './report-schema.js'
import { simulateRun } from './simulated-runs.js'

/** A table with constant per-actor scores, so every number of the experiment can be worked out by hand. */
function handTable(
  tasks: number,
  scores: { pass: number[]; seq: number[]; held: (t: number) => number[] },
  cost: { pass: number | null; seq: number | null } = { pass: 1, seq: 2 },
): SelectionTable {
  const ids = Array.from({ length: tasks }, (_, t) => `t${t}`)
  const actors = ['x', 'y']
  return {
    benchmark: 'hand',
    mode: 'verifier',
    actors,
    tasks: ids,
    passK: 5,
    calibrationK: 3,
    deployK: 5,
    passScore: ids.map(() => scores.pass),
    seqScore: ids.map(() => scores.seq),
    heldout: ids.map((_, t) => scores.held(t)),
    passCost: ids.map(() => actors.map(() => cost.pass)),
    seqCost: ids.map(() => actors.map(() => cost.seq)),
    excludedTasks: [],
    notes: [],
  }
}

describe('splitTaskGroups', () => {
  it('splits into fixed halves, A taking the odd one, whatever the input order', () => {
    const ids = ['t1', 't2', 't3', 't4', 't5']
    const groups = splitTaskGroups(ids, 1)
    expect(groups.a).toHaveLength(3)
    expect(groups.b).toHaveLength(2)
    expect([...groups.a, ...groups.b].sort()).toEqual(ids)
    expect(splitTaskGroups([...ids].reverse(), 1)).toEqual(groups)
  })

  it('depends on the seed', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `t${i}`)
    expect(splitTaskGroups(ids, 1)).not.toEqual(splitTaskGroups(ids, 2))
  })
})

describe('modelSelection on a hand-made table', () => {
  it('gives the hand-computed loss, gain, picks, cost and random baseline', () => {
    // Pass@K always prefers x, Seq@k always prefers y; held out, y scores 1 and x 0.5 on every task.
    const result = modelSelection(handTable(6, { pass: [1, 0], seq: [0, 1], held: () => [0.5, 1] }), {
      draws: 20,
      resamples: 30,
      seed: 5,
    })
    expect(result.sizes.map((s) => s.n)).toEqual([1, 2, 3])
    for (const size of result.sizes) {
      expect(size.pass.loss).toMatchObject({ point: 0.5, lo: 0.5, hi: 0.5 })
      expect(size.seq.loss).toMatchObject({ point: 0, lo: 0, hi: 0 })
      expect(size.gain).toMatchObject({ point: 0.5, lo: 0.5, hi: 0.5 })
      expect(size.pass.heldout.point).toBe(0.5)
      expect(size.pass.picks).toEqual({ x: 1, y: 0 })
      expect(size.seq.picks).toEqual({ x: 0, y: 1 })
      // Every candidate (2) on each of the n calibration tasks, at 1 (Pass) or 2 (Seq) per task.
      expect(size.pass.cost).toBeCloseTo(2 * size.n, 12)
      expect(size.seq.cost).toBeCloseTo(4 * size.n, 12)
    }
    // Random choice: x half the time (loss 0.5), y half the time (loss 0).
    expect(result.random.loss.point).toBeCloseTo(0.25, 12)
    expect(result.random.heldout.point).toBeCloseTo(0.75, 12)
    expect(SelectionSchema.parse(result)).toEqual(result)
  })

  it('weights each direction by the size of the group it is scored on', () => {
    // 5 tasks: A has 3, B has 2. x is always picked by Pass@K; the best actor differs by task.
    const held = (t: number): number[] => (t % 2 === 0 ? [0.2, 0.9] : [0.6, 0.4])
    const result = modelSelection(handTable(5, { pass: [1, 0], seq: [0, 1], held }), { draws: 10, resamples: 0 })
    const mean = (ids: string[], a: number) =>
      ids.reduce((s, id) => s + (held(Number(id.slice(1)))[a] as number), 0) / ids.length
    const { a, b } = result.groups
    const lossOn = (ids: string[]) => Math.max(mean(ids, 0), mean(ids, 1)) - mean(ids, 0)
    // Calibrate on A, score on B (weight |B|); calibrate on B, score on A (weight |A|).
    const expected = (b.length * lossOn(b) + a.length * lossOn(a)) / (a.length + b.length)
    expect(result.sizes[0]?.pass.loss.point).toBeCloseTo(expected, 12)
    expect(result.heldoutByGroup.a.x).toBeCloseTo(mean(a, 0), 12)
    expect(result.sizes[0]?.pass.loss.lo).toBeNull()
  })

  it('breaks exact ties at random, reproducibly from the seed', () => {
    const table = handTable(8, { pass: [0.5, 0.5], seq: [0, 1], held: () => [0.5, 1] })
    const once = modelSelection(table, { draws: 400, resamples: 0, seed: 9 })
    expect(modelSelection(table, { draws: 400, resamples: 0, seed: 9 })).toEqual(once)
    const share = once.sizes[0]?.pass.picks.x as number
    expect(share).toBeGreaterThan(0.4)
    expect(share).toBeLessThan(0.6)
  })

  it('reports the cost as unknown when a calibration task is unpriced', () => {
    const result = modelSelection(
      handTable(4, { pass: [1, 0], seq: [0, 1], held: () => [0.5, 1] }, { pass: null, seq: 2 }),
      { draws: 5, resamples: 0 },
    )
    expect(result.sizes[0]?.pass.cost).toBeNull()
    expect(result.sizes[0]?.seq.cost).toBe(4)
    expect(result.notes).toContain('some calibration tasks are unpriced: calibration cost is unknown (null)')
  })

  it('checks its options', () => {
    const table = handTable(4, { pass: [1, 0], seq: [0, 1], held: () => [0.5, 1] })
    expect(() => modelSelection(table, { draws: 0 })).toThrow(/draws must be an integer >= 1 \(got 0\)/)
    expect(() => modelSelection(table, { maxN: 0 })).toThrow(/maxN must be an integer >= 1/)
  })
})

describe('model selection with simulated actors', () => {
  // A: strong first try, revises poorly. B: weaker first try, revises well. C: weak at both.
  const run = simulateRun({
    actors: [
      { id: 'A-one-shot', firstTry: 0.7, repair: { verifier: 0.05 }, costPerAttempt: 0.002 },
      { id: 'B-reviser', firstTry: 0.5, repair: { verifier: 0.6 }, costPerAttempt: 0.002 },
      { id: 'C-weak', firstTry: 0.35, repair: { verifier: 0.15 }, costPerAttempt: 0.001 },
    ],
    modes: ['verifier'],
    tasks: 40,
    repeats: 3,
    budget: 5,
    seed: 21,
    difficultySpread: 0.2,
  })

  it('selects the planted better reviser more often with Seq@k calibration than with Pass@K calibration, at every n', () => {
    const report = selectModels([run], { k: 3, draws: 100, resamples: 40, seed: 1 })
    const selection = report.selections[0]!
    expect(selection.sizes).toHaveLength(20)
    for (const size of selection.sizes) {
      expect(size.seq.picks['B-reviser']).toBeGreaterThan(size.pass.picks['B-reviser'] as number)
      expect(size.seq.loss.point!).toBeLessThan(size.pass.loss.point!)
    }
    const atTen = selection.sizes[9]!
    expect(atTen.seq.picks['B-reviser']).toBeGreaterThan(0.9)
    expect(atTen.gain.lo!).toBeGreaterThan(0)
    // Calibrating with Seq@3 beats choosing at random; calibrating with Pass@5 here does not.
    expect(atTen.seq.loss.point!).toBeLessThan(selection.random.loss.point!)
    expect(atTen.pass.loss.point!).toBeGreaterThan(selection.random.loss.point!)
  })

  it('reads per-task scores from the cells: unbiased Pass@K, Seq@k and Seq@K by truncation, costAtK', () => {
    const cells = run.benchmarks[0]!.cells
    const table = selectionTable({
      benchmark: 'simulated',
      mode: 'verifier',
      independent: cells.filter((c) => c.mode === 'independent'),
      sequential: cells.filter((c) => c.mode === 'verifier'),
      k: 3,
    })
    const ind = cells.find((c) => c.cellId === 'B-reviser · independent')!.perTask[0]!
    const seq = cells.find((c) => c.cellId === 'B-reviser · verifier')!.perTask[0]!
    const b = table.actors.indexOf('B-reviser')
    expect(table.passScore[0]?.[b]).toBe(passAtK(ind.samples!, ind.passes!, 5))
    expect(table.seqScore[0]?.[b]).toBe(seq.firstSuccess.filter((f) => f !== null && f <= 3).length / 3)
    expect(table.heldout[0]?.[b]).toBe(seq.firstSuccess.filter((f) => f !== null).length / 3)
    expect(table.passCost[0]?.[b]).toBe(ind.costAtK[4])
    expect(table.seqCost[0]?.[b]).toBe(seq.costAtK[2])
  })

  it('leaves out, with the reason, a task one actor has no measurement for', () => {
    const cells = run.benchmarks[0]!.cells.map((c): CellSummary =>
      c.cellId === 'C-weak · verifier'
        ? { ...c, perTask: c.perTask.map((t) => (t.taskId === 'task-001' ? { ...t, firstSuccess: [], errors: 3 } : t)) }
        : c,
    )
    const table = selectionTable({
      benchmark: 'simulated',
      mode: 'verifier',
      independent: cells.filter((c) => c.mode === 'independent'),
      sequential: cells.filter((c) => c.mode === 'verifier'),
    })
    expect(table.excludedTasks).toEqual([{ taskId: 'task-001', reason: 'has no measured repeat in a cell of C-weak' }])
    expect(table.tasks).toHaveLength(39)
    expect(table.calibrationK).toBe(3)
  })

  it('refuses Seq@k calibration by truncation when the actors were told their budget', () => {
    const disclosed = simulateRun({
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
    expect(() => selectModels([disclosed], { k: 3 })).toThrow(TruncationRefusedError)
    expect(() => selectModels([disclosed], { k: 3 })).toThrow(
      /refused: model selection with Seq@3 calibration on simulated: cell "a · verifier" told the actor its budget \(K=5\)/,
    )
    // Calibrating with Seq@K itself needs no truncation.
    expect(selectModels([disclosed], { k: 5, draws: 5, resamples: 0 }).selections[0]?.calibrationK).toBe(5)
  })

  it('refuses a k beyond the budget and an unknown mode or benchmark, naming what exists', () => {
    expect(() => selectModels([run], { k: 6 })).toThrow(AnalysisInputError)
    expect(() => selectModels([run], { k: 6 })).toThrow(/k must be an integer in 1\.\.5/)
    expect(() => selectModels([run], { mode: 'critic' })).toThrow(
      /simulated has no "critic" cells \(modes: "verifier"; "independent" is the Pass@K side\)/,
    )
    expect(() => selectModels([run], { benchmark: 'nope' })).toThrow(
      /no benchmark named "nope" in these runs \(found: "simulated"\)/,
    )
  })
})
