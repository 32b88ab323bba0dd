import { describe, expect, it } from 'vitest'
import type { RunSummary } from '../core/schemas.js'
import { analyzeRuns, selectModels } from './analyze.js'
import {
  assertComparable,
  ComparabilityError,
  comparabilityProblems,
  crossProtocolNotes,
  differencesBesidesActor,
} from './comparability.js'
import { sourcedCells } from './load-runs.js'
import { simulateRun, type SimulatedRunOptions } from './simulated-runs.js'

const base: SimulatedRunOptions = {
  actors: [{ id: 'a', firstTry: 0.5, repair: { verifier: 0.5 } }],
  modes: ['verifier'],
  tasks: 4,
  repeats: 1,
  budget: 3,
  seed: 1,
}
const run = (overrides: Partial<SimulatedRunOptions>, runId: string): RunSummary =>
  simulateRun({ ...base, ...overrides, runId })
const cellsOf = (...runs: RunSummary[]) => sourcedCells(runs.map((summary) => ({ path: null, summary })))

describe('differencesBesidesActor', () => {
  it('ignores the actor and names every other differing field', () => {
    const [a, b] = [run({}, 'r1'), run({ actors: [{ id: 'b', firstTry: 0.9, repair: {} }] }, 'r2')].map(
      (r) => r.benchmarks[0]?.cells[0]?.protocol,
    )
    expect(differencesBesidesActor(a!, b!)).toEqual([])
    expect(
      differencesBesidesActor(a!, { ...b!, budget: 4, verifier: { ...b!.verifier, settings: { timeoutMs: 1 } } }),
    ).toEqual(['verifier.settings.timeoutMs', 'budget'])
  })
})

describe('comparabilityProblems', () => {
  it('accepts two runs of different actors on the same protocol', () => {
    const one = run({}, 'r1')
    const two = run({ actors: [{ id: 'b', firstTry: 0.9, repair: { verifier: 0.1 } }] }, 'r2')
    expect(comparabilityProblems(cellsOf(one, two))).toEqual([])
    expect(analyzeRuns([one, two], { selection: false }).benchmarks[0]?.rankings[0]?.actors).toHaveLength(2)
  })

  it('refuses, naming the cells and fields, when protocols differ in more than the actor', () => {
    const one = run({}, 'r1')
    const two = run(
      { actors: [{ id: 'b', firstTry: 0.9, repair: { verifier: 0.1 } }], verifierSettings: { timeoutMs: 10 } },
      'r2',
    )
    const problems = comparabilityProblems(cellsOf(one, two))
    // The independent cells are compared with each other, the verifier cells with each other.
    expect(problems.map((p) => [p.mode, p.kind, p.fields])).toEqual([
      ['independent', 'protocol', ['verifier.settings.timeoutMs']],
      ['verifier', 'protocol', ['verifier.settings.timeoutMs']],
    ])
    expect(problems[1]?.message).toBe(
      'simulated · verifier: "a · verifier" (run r1) and "b · verifier" (run r2) differ in verifier.settings.timeoutMs',
    )
    expect(() => analyzeRuns([one, two])).toThrow(ComparabilityError)
    expect(() => selectModels([one, two])).toThrow(
      /refused: these numbers are not comparable[\s\S]*verifier\.settings\.timeoutMs/,
    )
  })

  it('refuses a budget difference (and names it) even though the actor is the only other change', () => {
    const problems = comparabilityProblems(
      cellsOf(run({}, 'r1'), run({ actors: [{ id: 'b', firstTry: 0.5, repair: {} }], budget: 5 }, 'r2')),
    )
    expect(problems.every((p) => p.fields.includes('budget'))).toBe(true)
  })

  it('refuses one actor measured twice for the same benchmark and mode', () => {
    const problems = comparabilityProblems(cellsOf(run({}, 'r1'), run({}, 'r2')))
    expect(problems.map((p) => p.kind)).toEqual(['duplicate', 'duplicate'])
    expect(problems[0]?.message).toMatch(
      /actor a was measured 2 times \("a · independent" \(run r1\), "a · independent" \(run r2\)\); pass only one of these runs/,
    )
  })

  it('refuses one actor id that stands for different actors in different modes', () => {
    const one = run({ independent: false }, 'r1')
    const two = run({ modes: [], actors: [{ id: 'a', firstTry: 0.6, repair: { verifier: 0.5 } }] }, 'r2')
    const problems = comparabilityProblems(cellsOf(one, two))
    expect(problems.map((p) => [p.kind, p.fields])).toEqual([['actor', ['actor.params.firstTry']]])
    expect(() => assertComparable(cellsOf(one, two))).toThrow(/actor id a stands for different actors/)
  })
})

describe('crossProtocolNotes', () => {
  it('warns when independent and mode cells differ in more than kind, feedback and history', () => {
    const indep = run({ modes: [] }, 'r1')
    const seq = run({ independent: false, budget: 5 }, 'r2')
    expect(crossProtocolNotes(cellsOf(indep, seq))).toEqual([
      'simulated: the independent and verifier cells also differ in budget, so Pass@K and Seq@K there are not measured on equal terms',
    ])
    expect(crossProtocolNotes(cellsOf(run({}, 'r3')))).toEqual([])
  })
})
