import { describe, expect, it } from 'vitest'
import type { CellSummary, Protocol } from '../artifacts/schemas.js'
import { compareToBaseline, type BaselineCell } from './gate.js'

const protocol: Protocol = {
  schema: 'seqk.protocol/1',
  kind: 'sequential',
  benchmark: { name: 'b', tasks: 20, contentHash: 'h1' },
  verifier: { name: 'v', version: '1', settings: { timeoutMs: 3000 } },
  feedback: { kind: 'verifier', name: 'verifier', version: '1', settings: {} },
  history: { name: 'full', settings: {} },
  promptBuilder: 'seqk-prompt/1',
  actor: { provider: 'simulated', model: 'reviser', params: { seed: 1 } },
  budget: 3,
  budgetDisclosed: false,
  errorsCountedAsFailures: false,
}

type Row = CellSummary['perTask'][number]
const row = (taskId: string, firstSuccess: (number | null)[], contentHash = `c-${taskId}`): Row => ({ taskId, contentHash, firstSuccess, errors: 0, costAtK: [0, 0, 0] })
const ids = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`)

function baseline(perTask: Row[], p: Protocol = protocol): BaselineCell {
  return { fingerprint: 'f', protocol: p, perTask, seqAt: [], passAt: null, recordedAt: '2026-01-01T00:00:00Z' }
}
function current(perTask: Row[], p: Protocol = protocol): CellSummary {
  return { protocol: p, perTask, budget: p.budget } as unknown as CellSummary
}

describe('compareToBaseline', () => {
  const solvedEverywhere = ids.map((id) => row(id, [1, 2, 2]))

  it('passes a rerun with the same outcomes, with a difference of exactly zero', () => {
    const result = compareToBaseline(baseline(solvedEverywhere), current(solvedEverywhere), { ks: [1] })
    expect(result.pass).toBe(true)
    expect(result.comparisons.map((c) => [c.k, c.diff])).toEqual([
      [1, { point: 0, lo: 0, hi: 0 }],
      [3, { point: 0, lo: 0, hi: 0 }],
    ])
    expect(result.regressed).toEqual([])
  })

  it('fails a clear regression and lists the tasks that got worse', () => {
    const worse = ids.map((id, i) => (i % 2 === 0 ? row(id, [null, null, 3]) : row(id, [1, 2, 2])))
    const result = compareToBaseline(baseline(solvedEverywhere), current(worse), { resamples: 500 })
    expect(result.pass).toBe(false)
    expect(result.reasons[0]).toMatch(/^Seq@3 100\.0 → 66\.7 on 20 common tasks \(difference -33\.3 points, 95% CI -\d+\.\d to -\d+\.\d\): the whole interval lies below zero\.$/)
    expect(result.regressed).toContain('t00 3/3 → 1/3')
    expect(result.regressed).toHaveLength(10)
    expect(result.reasons.at(-1)).toContain('tasks that got worse: t00 3/3 → 1/3')
  })

  it('a small drop whose interval crosses zero passes unless it exceeds maxDrop', () => {
    const oneWorse = solvedEverywhere.map((r, i) => (i === 0 ? row(r.taskId, [1, null, null]) : r))
    expect(compareToBaseline(baseline(solvedEverywhere), current(oneWorse)).pass).toBe(true)
    const strict = compareToBaseline(baseline(solvedEverywhere), current(oneWorse), { maxDrop: 0.01 })
    expect(strict.pass).toBe(false)
    expect(strict.reasons[0]).toContain('the drop exceeds the hard limit of 1.0 points')
  })

  it('lets no rounding decide: a drop of exactly maxDrop passes, 8/10 -> 7/10 as 9/10 -> 8/10', () => {
    const ten = ids.slice(0, 10)
    const solved = (n: number) => ten.map((id, i) => row(id, i < n ? [1, 1, 1] : [null, null, null]))
    // 0.7 - 0.8 is -0.10000000000000009 in floating point; 0.8 - 0.9 is -0.09999999999999998.
    for (const [from, to] of [[8, 7], [9, 8]] as const) {
      const result = compareToBaseline(baseline(solved(from)), current(solved(to)), { maxDrop: 0.1, margin: 1 })
      expect(result.reasons.filter((r) => r.includes('hard limit')), `${from}/10 -> ${to}/10`).toEqual([])
      expect(result.comparisons.at(-1)?.diff.point).toBeCloseTo(-0.1, 12)
    }
    const beyond = compareToBaseline(baseline(solved(8)), current(solved(6)), { maxDrop: 0.1, margin: 1 })
    expect(beyond.reasons[0]).toContain('the drop exceeds the hard limit of 10.0 points')
  })

  it('never prints "-0.0"', () => {
    const result = compareToBaseline(baseline(solvedEverywhere), current(solvedEverywhere))
    const oneWorse = solvedEverywhere.map((r, i) => (i === 0 ? row(r.taskId, [1, null, null]) : r))
    const strict = compareToBaseline(baseline(solvedEverywhere), current(oneWorse), { maxDrop: 0.01 })
    for (const text of [...result.reasons, ...strict.reasons]) expect(text).not.toMatch(/-0\.0(?!\d)/)
  })

  it('fails a protocol change naming each field with both values, and how to accept it', () => {
    const changed = { ...protocol, budget: 4, history: { name: 'last', settings: {} } }
    const result = compareToBaseline(baseline(solvedEverywhere), current(solvedEverywhere, changed))
    expect(result.pass).toBe(false)
    expect(result.protocolChanges).toEqual(['history.name: "full" → "last"', 'budget: 3 → 4'])
    expect(result.reasons[0]).toContain('accept it with `vitest run -u` or SEQK_UPDATE_BASELINE=1')
  })

  it('compares added, removed and changed tasks on the common set only', () => {
    const now = [...solvedEverywhere.slice(1, 19).map((r, i) => (i === 0 ? row(r.taskId, [null, null, null], 'edited') : r)), row('new', [null, null, null])]
    const grown = { ...protocol, benchmark: { ...protocol.benchmark, tasks: 19, contentHash: 'h2' } }
    const result = compareToBaseline(baseline(solvedEverywhere), current(now, grown))
    expect(result.added).toEqual(['new'])
    expect(result.removed).toEqual(['t00', 't19'])
    expect(result.changed).toEqual(['t01'])
    expect(result.pass).toBe(true)
    expect(result.comparisons[0]!.diff.point).toBe(0)
  })

  it('gates independent cells on the unbiased Pass@K from samples', () => {
    const p: Protocol = { ...protocol, kind: 'independent', feedback: null, history: null }
    const before = ids.map((id) => ({ ...row(id, [1]), samples: 6, passes: 6 }))
    const after = ids.map((id) => ({ ...row(id, [null]), samples: 6, passes: 0 }))
    const result = compareToBaseline(baseline(before, p), current(after, p))
    expect(result.comparisons[0]).toMatchObject({ metric: 'passAt', k: 3, baseline: 1, current: 0 })
    expect(result.pass).toBe(false)
    expect(result.regressed[0]).toBe('t00 6/6 samples → 0/6 samples')
  })

  it('nothing in common is a failure that says so', () => {
    const result = compareToBaseline(baseline(solvedEverywhere), current([row('other', [1])]))
    expect(result.pass).toBe(false)
    expect(result.reasons[0]).toContain('no task is common to the baseline and this run')
  })
})
