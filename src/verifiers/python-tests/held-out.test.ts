import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Verdict } from '../../core/contract.js'
import { HELD_OUT_FAILED, heldOutIndices, heldOutShareProblem, hideHeldOut } from './held-out.js'

const statement = (i: number) => `assert f(${i}) == ${i * 10}`
/** A verdict over `n` statements where `failing` failed, as toVerdict() builds it. */
function verdictOf(n: number, failing: ReadonlySet<number>, extra: Partial<Verdict['diagnostics']> = {}): Verdict {
  const tests = Array.from({ length: n }, (_, i) =>
    failing.has(i)
      ? { index: i, source: statement(i), pass: false, call: `f(${i})`, expected: `${i * 10}`, actual: '0' }
      : { index: i, source: statement(i), pass: true },
  )
  const pass = failing.size === 0
  return {
    pass,
    score: (n - failing.size) / n,
    diagnostics: {
      outcome: pass ? 'passed' : 'failed',
      summary: pass ? `all ${n} tests passed` : `${failing.size} of ${n} tests failed`,
      tests,
      ...extra,
    },
  }
}

describe('heldOutIndices', () => {
  it('is deterministic, sorted, within range, and keeps both sides non-empty', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        fc.integer({ min: 0, max: 40 }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.integer(),
        (id, n, share, seed) => {
          const split = heldOutIndices(id, n, { share, seed })
          expect(heldOutIndices(id, n, { share, seed })).toEqual(split)
          expect([...split].sort((a, b) => a - b)).toEqual(split)
          expect(new Set(split).size).toBe(split.length)
          for (const i of split) expect(i >= 0 && i < n).toBe(true)
          if (n < 2) expect(split).toEqual([])
          else {
            expect(split.length).toBe(Math.min(n - 1, Math.max(1, Math.round(share * n))))
          }
        },
      ),
      { seed: 31, numRuns: 300 },
    )
  })

  it('depends on the seed and the task id', () => {
    const a = heldOutIndices('HumanEval/0', 20, { share: 0.5, seed: 1 })
    expect(heldOutIndices('HumanEval/0', 20, { share: 0.5, seed: 2 })).not.toEqual(a)
    expect(heldOutIndices('HumanEval/1', 20, { share: 0.5, seed: 1 })).not.toEqual(a)
  })

  it('holds out each statement about as often as the share says (seeded over many task ids)', () => {
    const counts = new Array<number>(4).fill(0)
    for (let t = 0; t < 2000; t++)
      for (const i of heldOutIndices(`task/${t}`, 4, { share: 0.25, seed: 7 })) counts[i]!++
    // One of four per task: each position near 500 (binomial sd ≈ 19).
    for (const c of counts) expect(Math.abs(c - 500)).toBeLessThan(100)
  })
})

describe('heldOutShareProblem', () => {
  it('names the field and the fix', () => {
    expect(heldOutShareProblem({ share: 0.5, seed: 1 })).toBeUndefined()
    expect(heldOutShareProblem({ share: 1, seed: 1 })).toMatch(
      /heldOut.share must be a number strictly between 0 and 1/,
    )
    expect(heldOutShareProblem({ share: 0.5, seed: 1.5 })).toMatch(/heldOut.seed must be an integer/)
    expect(heldOutShareProblem({ share: 0.5, seed: 1, count: 2 })).toMatch(/unknown field "count"/)
    expect(heldOutShareProblem(0.5)).toMatch(/heldOut must be \{ share, seed \}/)
  })
})

describe('hideHeldOut', () => {
  it('keeps no held-out statement, call or value anywhere in what feedback reads', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 12 })
          .chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.subarray([...Array(n).keys()], { minLength: 1, maxLength: n - 1 }),
              fc.subarray([...Array(n).keys()]),
            ),
          ),
        ([n, held, failing]) => {
          const verdict = verdictOf(n, new Set(failing), { stdout: `args ${held.map(statement).join(';')}` })
          const hidden = hideHeldOut(verdict, { statements: n, heldOut: held })
          const seen = JSON.stringify(hidden.diagnostics)
          for (const i of held) {
            expect(seen).not.toContain(statement(i))
            expect(seen).not.toContain(`f(${i})`)
          }
          expect(hidden.pass).toBe(verdict.pass)
          expect(hidden.score).toBe(verdict.score)
          expect(hidden.diagnostics.outcome).toBe(verdict.diagnostics.outcome)
          expect(hidden.heldOut).toEqual({
            statements: n,
            tests: held,
            failed: held.filter((i) => failing.includes(i)),
            visiblePass: failing.every((i) => held.includes(i)),
          })
          expect(hidden.diagnostics.tests?.map((t) => t.index)).toEqual(
            [...Array(n).keys()].filter((i) => !held.includes(i)),
          )
        },
      ),
      { seed: 31, numRuns: 300 },
    )
  })

  it('says when only held-out tests failed, without naming them', () => {
    const hidden = hideHeldOut(verdictOf(4, new Set([3])), { statements: 4, heldOut: [3] })
    expect(hidden.pass).toBe(false)
    expect(hidden.diagnostics.summary).toBe(HELD_OUT_FAILED)
    expect(hidden.diagnostics.tests?.every((t) => t.pass)).toBe(true)
    expect(hidden.heldOut?.visiblePass).toBe(true)
    expect(hideHeldOut(verdictOf(4, new Set([0, 3])), { statements: 4, heldOut: [3] }).diagnostics.summary).toBe(
      '1 of 3 visible tests failed (1 held-out tests not shown)',
    )
    expect(hideHeldOut(verdictOf(4, new Set()), { statements: 4, heldOut: [3] }).diagnostics.summary).toBe(
      'all 3 visible tests passed (and 1 held-out)',
    )
  })

  it('withholds where a timeout struck unless it was a visible call', () => {
    const timeout = (ran: number, place: string): Verdict => {
      const base = verdictOf(ran, new Set())
      return {
        ...base,
        pass: false,
        diagnostics: { ...base.diagnostics, outcome: 'timeout', summary: `timed out after 3000 ms${place}` },
      }
    }
    // Statement 2 (held out) was running: its call is not named.
    const inHeld = hideHeldOut(timeout(2, ' in the call f(2)'), { statements: 4, heldOut: [2] })
    expect(inHeld.diagnostics.summary).not.toContain('f(2)')
    expect(inHeld.diagnostics.summary).toMatch(/^timed out after 3000 ms \(where is not shown/)
    // Statement 3 (visible) never ran, so the visible tests are not known to pass.
    expect(inHeld.heldOut).toEqual({ statements: 4, tests: [2], failed: [2], visiblePass: false })
    expect(hideHeldOut(timeout(1, ' in the call f(1)'), { statements: 4, heldOut: [2] }).diagnostics.summary).toBe(
      'timed out after 3000 ms in the call f(1)',
    )
    expect(
      hideHeldOut(timeout(0, ' while loading the code'), { statements: 4, heldOut: [0] }).diagnostics.summary,
    ).toBe('timed out after 3000 ms while loading the code')
  })

  it('fails closed when the statements could not be counted', () => {
    const verdict: Verdict = {
      pass: false,
      diagnostics: { outcome: 'timeout', summary: 'timed out after 3000 ms in the evaluation of the tests', tests: [] },
    }
    const hidden = hideHeldOut(verdict, { statements: 0, heldOut: [] })
    expect(hidden.heldOut?.visiblePass).toBe(false)
    expect(hidden.diagnostics.summary).not.toContain('evaluation of the tests')
  })
})

describe('hideHeldOut with the visible statements run on their own', () => {
  /** The visible run's records: only the visible indices, with texts of that run. */
  function shownOf(indices: number[], failing: ReadonlySet<number>, outcome?: Verdict['diagnostics']['outcome']) {
    const all = verdictOf(6, failing)
    const tests = (all.diagnostics.tests ?? [])
      .filter((t) => indices.includes(t.index))
      .map((t) => (t.pass ? t : { ...t, actual: `shown ${t.index}` }))
    const pass = tests.every((t) => t.pass)
    return {
      ...all,
      pass,
      diagnostics: { ...all.diagnostics, outcome: outcome ?? (pass ? 'passed' : 'failed'), tests },
    } as Verdict
  }
  const split = { statements: 6, heldOut: [1, 3, 5] }

  it('takes every text from the visible run and the verdict from the run of every statement', () => {
    const full = verdictOf(6, new Set([0, 1]))
    const hidden = hideHeldOut(full, split, shownOf([0, 2, 4], new Set([0])))
    expect(hidden.pass).toBe(false)
    expect(hidden.score).toBe(full.score)
    expect(hidden.diagnostics.tests?.map((t) => [t.index, t.actual])).toEqual([
      [0, 'shown 0'],
      [2, undefined],
      [4, undefined],
    ])
    expect(hidden.diagnostics.summary).toBe('1 of 3 visible tests failed (3 held-out tests not shown)')
    expect(hidden.heldOut).toEqual({ statements: 6, tests: [1, 3, 5], failed: [1], visiblePass: false })
  })

  it('says held-out tests failed when the visible run passed, and keeps a pass a visible pass', () => {
    const hidden = hideHeldOut(verdictOf(6, new Set([3])), split, shownOf([0, 2, 4], new Set()))
    expect(hidden.diagnostics.summary).toBe(HELD_OUT_FAILED)
    const passed = hideHeldOut(verdictOf(6, new Set()), split, shownOf([0, 2, 4], new Set()))
    expect(passed.heldOut?.visiblePass).toBe(true)
  })

  it("shows the visible run's load error and timeout place, never the other run's", () => {
    const loadError = (error: string): Verdict => ({
      pass: false,
      diagnostics: { outcome: 'load-error', summary: `code did not load: ${error}`, error },
    })
    const hidden = hideHeldOut(loadError('NameError: held_only'), split, loadError('NameError: visible'))
    expect(hidden.diagnostics.error).toBe('NameError: visible')
    expect(JSON.stringify(hidden)).not.toContain('held_only')
    const loadedThere = hideHeldOut(loadError('NameError: held_only'), split, shownOf([0, 2, 4], new Set()))
    expect(loadedThere.diagnostics.error).toBe('the code did not load in the run with the held-out tests')
    const timeout = (summary: string): Verdict => ({
      pass: false,
      diagnostics: { outcome: 'timeout', summary, tests: [] },
    })
    expect(
      hideHeldOut(timeout('timed out after 3000 ms in the call f(3)'), split, shownOf([0, 2, 4], new Set())).diagnostics
        .summary,
    ).toBe('timed out after 3000 ms (where is not shown: held-out tests run alongside the visible ones)')
    expect(
      hideHeldOut(
        timeout('timed out after 3000 ms in the call f(3)'),
        split,
        timeout('timed out after 3000 ms in the call f(2)'),
      ).diagnostics.summary,
    ).toBe('timed out after 3000 ms in the call f(2)')
  })
})
