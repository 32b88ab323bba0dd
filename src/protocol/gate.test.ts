import { describe, expect, it } from 'vitest'
import type { CellSummary, Protocol } from '../core/schemas.js'
import { compareToBaseline, type BaselineCell } from './gate.js'
import { protocolFixture } from '../../test/protocol-fixture.js'

const protocol: Protocol = protocolFixture({
  benchmark: { name: 'b', tasks: 20, contentHash: 'h1' },
  verifier: { name: 'v', version: '1', settings: { timeoutMs: 3000 } },
  feedback: { kind: 'verifier', name: 'verifier', version: '1', settings: {} },
  actor: { provider: 'simulated', model: 'reviser', params: { seed: 1 } },
})

type Row = CellSummary['perTask'][number]
const row = (taskId: string, firstSuccess: (number | null)[], contentHash = `c-${taskId}`): Row => ({
  taskId,
  contentHash,
  firstSuccess,
  errors: 0,
  costAtK: [0, 0, 0],
})
const ids = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`)

function baseline(perTask: Row[], p: Protocol = protocol): BaselineCell {
  return { fingerprint: 'f', protocol: p, perTask, seqAt: [], passAt: null, recordedAt: '2026-01-01T00:00:00Z' }
}
function current(perTask: Row[], p: Protocol = protocol): CellSummary {
  return { protocol: p, perTask, budget: p.budget } as unknown as CellSummary
}

describe('compareToBaseline', () => {
  const solvedEverywhere = ids.map((id) => row(id, [1, 2, 2]))

  it('passes a rerun with the same outcomes: a difference of exactly zero, but never a zero-width interval', () => {
    const result = compareToBaseline(baseline(solvedEverywhere), current(solvedEverywhere), { ks: [1] })
    expect(result.pass).toBe(true)
    expect(result.comparisons.map((c) => c.k)).toEqual([1, 3])
    for (const c of result.comparisons) {
      expect(c.diff.point).toBe(0)
      expect(c.diff.lo).toBeLessThan(-0.01)
      expect(c.diff.hi).toBeGreaterThan(0.01)
    }
    expect(result.gate).toEqual({
      protocol: 'seqk.gate/2',
      interval: 'paired-agresti-min-t/1',
      margin: 0,
      maxDrop: 0.1,
      level: 0.95,
      ks: [1, 3],
    })
    expect(result.regressed).toEqual([])
  })

  it('fails a clear regression with its p-value and lists the tasks that got worse', () => {
    const worse = ids.map((id, i) => (i % 2 === 0 ? row(id, [null, null, 3]) : row(id, [1, 2, 2])))
    const result = compareToBaseline(baseline(solvedEverywhere), current(worse))
    expect(result.pass).toBe(false)
    expect(result.reasons[0]).toMatch(
      /^Seq@3 100\.0% → 66\.7% on 20 common tasks \(difference −33\.3 points, 95% CI −\d+\.\d–−\d+\.\d\): a real drop beyond zero \(one-sided p (=|<) [\d.]+, below 0\.025\)\.$/,
    )
    expect(result.regressed).toContain('t00 3/3 → 1/3')
    expect(result.regressed).toHaveLength(10)
    expect(result.reasons.at(-1)).toContain('tasks that got worse: t00 3/3 → 1/3')
  })

  it('a one-task drop passes, even under a tight maxDrop: the hard limit needs a drop that is real', () => {
    const oneWorse = solvedEverywhere.map((r, i) => (i === 0 ? row(r.taskId, [1, null, null]) : r))
    expect(compareToBaseline(baseline(solvedEverywhere), current(oneWorse)).pass).toBe(true)
    expect(compareToBaseline(baseline(solvedEverywhere), current(oneWorse), { maxDrop: 0.01 }).pass).toBe(true)
  })

  it('maxDrop fails a drop at K that is real on its own where Holm over several k lets it pass', () => {
    // Find, among growing drops at K only, one whose p-value lies between 0.025/2 and 0.025: with
    // Seq@1 gated too (unchanged, p = 1), Holm holds Seq@3 to 0.0125 and passes it; maxDrop does not.
    const solved = ids.map((id) => row(id, [1, 1, 1]))
    for (let n = 1; n <= 20; n++) {
      const worse = ids.map((id, i) => (i < n ? row(id, [1, 1, null]) : row(id, [1, 1, 1])))
      const alone = compareToBaseline(baseline(solved), current(worse), { ks: [1], maxDrop: 1, power: false })
      const atK = alone.comparisons.find((c) => c.k === 3)!
      if (!(atK.p < 0.025 && atK.p >= 0.0125)) continue
      expect(alone.pass).toBe(true)
      const limited = compareToBaseline(baseline(solved), current(worse), { ks: [1], maxDrop: 0.01, power: false })
      expect(limited.pass).toBe(false)
      expect(limited.reasons[0]).toMatch(
        /the drop exceeds the hard limit of 1\.0 points and is real on its own \(one-sided p (=|<) [\d.]+, below 0\.025\)\.$/,
      )
      return
    }
    throw new Error('no drop with 0.0125 <= p < 0.025 found')
  })

  it('a margin holds for maxDrop too: a drop within the margin never fails', () => {
    const worse = ids.map((id, i) => (i % 2 === 0 ? row(id, [null, null, 3]) : row(id, [1, 2, 2])))
    const tolerant = compareToBaseline(baseline(solvedEverywhere), current(worse), {
      margin: 0.5,
      maxDrop: 0.1,
      power: false,
    })
    expect(tolerant.pass).toBe(true)
  })

  it('compares runs with different repeat counts on the repeats both have, and says so', () => {
    // 1 repeat solved everywhere against 10 repeats solved 9 times in 10: no change on the first repeat.
    const one = ids.map((id) => row(id, [1]))
    const ten = ids.map((id) => row(id, [1, 1, 1, 1, 1, 1, 1, 1, 1, null]))
    const result = compareToBaseline(baseline(one), current(ten), { power: false })
    expect(result.pass).toBe(true)
    expect(result.comparisons.at(-1)!.diff.point).toBe(0)
    expect(result.notes).toEqual([
      'the baseline has up to 1 repeats per task and this run up to 10: 20 tasks were compared on the repeats both have; refresh the baseline with `vitest run -u` to compare all of them',
    ])
  })

  it('with censored errors a drop must also be real with the errored repeats left out', () => {
    const solved = ids.map((id) => row(id, [1, 1, 1]))
    // Every task lost one repeat to an error at attempt 3 after failing twice: censored, the
    // pooled tail (everyone else solved at 1) says nothing about attempt 3, so the estimate drops.
    const errored = ids.map((id) => ({ ...row(id, [1, 1]), censoredAt: [3], errors: 1 }))
    const result = compareToBaseline(baseline(solved), current(errored), { power: false })
    expect(result.pass).toBe(true)
    // Left out, nothing changed (p = 0.5, the t statistic at zero): that p-value is the one kept.
    expect(result.comparisons.at(-1)!.p).toBeGreaterThanOrEqual(0.5)
  })

  it('Holm: a drop at k that is real alone but not against the family of gated k passes, and says which threshold it met', () => {
    // Find, among growing drops at k = 1 only, one whose p-value lies between 0.025/2 and 0.025.
    for (let n = 1; n <= 20; n++) {
      const worse = ids.map((id, i) => (i < n ? row(id, [2, 2, 2]) : row(id, [1, 1, 1])))
      const alone = compareToBaseline(baseline(ids.map((id) => row(id, [1, 1, 1]))), current(worse), {
        ks: [1],
        power: false,
      })
      const atOne = alone.comparisons.find((c) => c.k === 1)!
      if (!(atOne.p < 0.025 && atOne.p >= 0.0125)) continue
      // Seq@3 did not move (p = 1 there), so Holm compares Seq@1 with 0.025 / 2 first and stops.
      expect(atOne.threshold).toBeCloseTo(0.0125, 12)
      expect(alone.pass).toBe(true)
      return
    }
    throw new Error('no drop with 0.0125 <= p < 0.025 found')
  })

  it('lets no rounding decide: a drop of exactly maxDrop passes, 8/10 -> 7/10 as 9/10 -> 8/10', () => {
    const ten = ids.slice(0, 10)
    const solved = (n: number) => ten.map((id, i) => row(id, i < n ? [1, 1, 1] : [null, null, null]))
    // 0.7 - 0.8 is -0.10000000000000009 in floating point; 0.8 - 0.9 is -0.09999999999999998.
    for (const [from, to] of [
      [8, 7],
      [9, 8],
    ] as const) {
      const result = compareToBaseline(baseline(solved(from)), current(solved(to)), { maxDrop: 0.1, margin: 1 })
      expect(
        result.reasons.filter((r) => r.includes('hard limit')),
        `${from}/10 -> ${to}/10`,
      ).toEqual([])
      expect(result.comparisons.at(-1)?.diff.point).toBeCloseTo(-0.1, 12)
    }
    // The margin holds for maxDrop too (it tests beyond the margin): a drop within it never fails.
    expect(compareToBaseline(baseline(solved(8)), current(solved(1)), { maxDrop: 0.1, margin: 1 }).pass).toBe(true)
  })

  it('says what the gate could see: the smallest drop it catches 80% of the time at these tasks and repeats', () => {
    const mixed = ids.map((id, i) => row(id, i % 4 === 0 ? [null, null, null] : i % 4 === 1 ? [1, null, 2] : [1, 1, 1]))
    const result = compareToBaseline(baseline(mixed), current(mixed))
    expect(result.power).not.toBeNull()
    const power = result.power!
    expect(power).toMatchObject({ tasks: 20, repeats: 3 })
    expect(power.detectableDrop).toBeGreaterThan(0.05)
    // The lower power of the two alternatives, named: 20 tasks, a few of them broken, hide a drop better.
    expect(power.alternative).toBe('concentrated')
    expect(power.sentence).toMatch(
      /^with 20 tasks × 3 repeats this gate catches an? \d+-point drop of Seq@3 80% of the time when a few tasks break outright \(a 5-point drop \d+%, a 10-point drop \d+%; an? \d+-point drop when every task gets worse in proportion\)$/,
    )
    const [proportional, concentrated] = (['proportional', 'concentrated'] as const).map((a) =>
      power.alternatives.find((x) => x.alternative === a)!,
    )
    expect(power.detectableDrop).toBe(Math.max(proportional!.detectableDrop!, concentrated!.detectableDrop!))
    for (const [i, at] of power.at.entries())
      expect(at.power).toBe(Math.min(proportional!.at[i]!.power, concentrated!.at[i]!.power))
    // Three repeats show how much the tasks differ.
    expect(power.spread).toBe('repeats')
    // Seeded: the same comparison says the same thing.
    expect(compareToBaseline(baseline(mixed), current(mixed)).power).toEqual(power)
    expect(compareToBaseline(baseline(mixed), current(mixed), { power: false }).power).toBeNull()
  })

  it('never prints "-0.0"', () => {
    const result = compareToBaseline(baseline(solvedEverywhere), current(solvedEverywhere))
    const oneWorse = solvedEverywhere.map((r, i) => (i === 0 ? row(r.taskId, [1, null, null]) : r))
    const strict = compareToBaseline(baseline(solvedEverywhere), current(oneWorse), { maxDrop: 0.01 })
    for (const text of [...result.reasons, ...strict.reasons]) expect(text).not.toMatch(/-0\.0(?!\d)/)
  })

  it('reads a baseline from before the errors field: left-out compares equal, the new default censored is a change', () => {
    const old = { ...protocol }
    delete (old as Partial<Protocol>).errors
    expect(
      compareToBaseline(baseline(solvedEverywhere, old), current(solvedEverywhere, { ...protocol, errors: 'left-out' }))
        .instrumentChanges,
    ).toEqual([])
    const changed = compareToBaseline(
      baseline(solvedEverywhere, old),
      current(solvedEverywhere, { ...protocol, errors: 'censored' }),
    )
    expect(changed.instrumentChanges).toEqual(['errors: "left-out" → "censored"'])
  })

  it('fails an instrument change naming each field with both values, and how to accept it', () => {
    const changed = { ...protocol, budget: 4, history: { name: 'last', settings: {} } }
    const result = compareToBaseline(baseline(solvedEverywhere), current(solvedEverywhere, changed))
    expect(result.pass).toBe(false)
    expect(result.instrumentChanges).toEqual(['history.name: "full" → "last"', 'budget: 3 → 4'])
    expect(result.reasons[0]).toMatch(/^the instrument changed since the baseline \(history\.name/)
    expect(result.reasons[0]).toContain('accept it with `vitest run -u` or SEQK_UPDATE_BASELINE=1')
  })

  it('compares added, removed and changed tasks on the common set only', () => {
    const now = [
      ...solvedEverywhere.slice(1, 19).map((r, i) => (i === 0 ? row(r.taskId, [null, null, null], 'edited') : r)),
      row('new', [null, null, null]),
    ]
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

  describe('on a metric other than the headline (the registry says which can be gated)', () => {
    // Half the tasks solved in every repeat, half never; then every task solved in two repeats of
    // three: Seq@3 rises (50% → 67%) while Seq^3 and Cover@1 (every repeat) fall to 0.
    const steady = ids.map((id, i) => row(id, i < 10 ? [1, 1, 1] : [null, null, null]))
    const flaky = ids.map((id) => row(id, [1, null, 2]))

    it('gates Seq^K: a drop the headline does not show fails, paired by task, with the tasks that got worse', () => {
      expect(compareToBaseline(baseline(steady), current(flaky)).pass).toBe(true)
      const result = compareToBaseline(baseline(steady), current(flaky), { metric: 'seqHat' })
      expect(result.pass).toBe(false)
      expect(result.comparisons).toEqual([
        expect.objectContaining({ metric: 'seqHat', k: 3, baseline: 0.5, current: 0 }),
      ])
      expect(result.reasons[0]).toMatch(/^Seq\^3 50\.0% → 0\.0% on 20 common tasks/)
      expect(result.regressed).toHaveLength(10)
      expect(result.improved).toHaveLength(0)
      // What the gate could see is said in drops of the metric it gates.
      expect(result.power?.sentence).toMatch(/drop of Seq\^3 80% of the time|even a drop of Seq\^3 to zero/)
    })

    it('gates Cover@τ at the shares asked (default τ = 1), read at the budget', () => {
      const result = compareToBaseline(baseline(steady), current(flaky), { metric: 'coverAt' })
      expect(result.comparisons.map((c) => [c.metric, c.k])).toEqual([['coverAt', 1]])
      expect(result.pass).toBe(false)
      // Two of three repeats is at least half: Cover@0.5 rises, so a gate at τ = 0.5 alone passes.
      const half = compareToBaseline(baseline(steady), current(flaky), { metric: 'coverAt', ks: [0.5], power: false })
      expect(half.comparisons[0]).toMatchObject({ k: 0.5, baseline: 0.5, current: 1 })
      expect(half.pass).toBe(true)
    })

    it('fails closed on a metric the cell does not measure, or a share outside (0, 1]', () => {
      const passHat = compareToBaseline(baseline(steady), current(steady), { metric: 'passHat' })
      expect(passHat.pass).toBe(false)
      expect(passHat.reasons[0]).toBe(
        'sequential cells do not measure pass^k, so a gate on it cannot be judged; gate on Seq@3 or a metric this cell measures.',
      )
      const tau = compareToBaseline(baseline(steady), current(steady), { metric: 'coverAt', ks: [2] })
      expect(tau.pass).toBe(false)
      expect(tau.reasons[0]).toMatch(/^no share τ in \(0, 1\] to gate Cover@τ at/)
    })

    it('gates pass^K on independent cells', () => {
      const p: Protocol = { ...protocol, kind: 'independent', feedback: null, history: null }
      const before = ids.map((id) => ({ ...row(id, [1]), samples: 6, passes: 6 }))
      const after = ids.map((id) => ({ ...row(id, [1]), samples: 6, passes: 4 }))
      const result = compareToBaseline(baseline(before, p), current(after, p), { metric: 'passHat', power: false })
      // pass^3 of 4 passes in 6 samples: C(4,3)/C(6,3) = 0.2.
      expect(result.comparisons[0]).toMatchObject({ metric: 'passHat', k: 3, baseline: 1 })
      expect(result.comparisons[0]!.current).toBeCloseTo(0.2, 12)
      expect(result.pass).toBe(false)
    })
  })

  it('nothing in common is a failure that says so', () => {
    const result = compareToBaseline(baseline(solvedEverywhere), current([row('other', [1])]))
    expect(result.pass).toBe(false)
    expect(result.reasons[0]).toContain('no task is common to the baseline and this run')
  })
})
