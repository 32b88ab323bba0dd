import { describe, expect, it } from 'vitest'
import { TRAJECTORY_SCHEMA, type Attempt, type Protocol, type Trajectory } from '../core/schemas.js'
import { heldOutGapLine, heldOutGapSummary } from './held-out-gap.js'

const protocol = { kind: 'sequential', budget: 3 } as Protocol
/** `OK`: every test passed; `VIS`: the visible ones only (held-out 4 failed); `X`: a visible test failed too; `NONE`: no code ran. */
function attempt(index: number, answer: 'OK' | 'VIS' | 'X' | 'NONE'): Attempt {
  const pass = answer === 'OK'
  const heldOut =
    answer === 'NONE'
      ? undefined
      : { statements: 5, tests: [3, 4], failed: pass ? [] : [4], visiblePass: answer !== 'X' }
  return {
    index,
    answer,
    verdict: {
      pass,
      diagnostics: { outcome: pass ? 'passed' : 'failed', summary: '' },
      ...(heldOut ? { heldOut } : {}),
    },
    feedback: null,
    finishReason: 'stop',
    usage: null,
    latencyMs: 0,
    costUsd: null,
    costUsdWithoutCache: null,
    replayed: false,
    helperCalls: [],
    unmodified: null,
  }
}
function trajectory(taskId: string, answers: ('OK' | 'VIS' | 'X' | 'NONE')[], error = false): Trajectory {
  const attempts = answers.map((a, i) => attempt(i + 1, a))
  const first = attempts.find((a) => a.verdict.pass)?.index ?? null
  return {
    schema: TRAJECTORY_SCHEMA,
    runId: 'r',
    benchmark: 'b',
    cellId: 'c',
    actorId: 'a',
    mode: 'verifier',
    fingerprint: 'f',
    protocol,
    taskId,
    repeat: 0,
    status: error ? 'error' : first !== null ? 'solved' : 'failed',
    firstSuccess: error ? null : first,
    error: error ? { stage: 'actor', attempt: answers.length + 1, message: 'down' } : null,
    attempts,
    usage: null,
    costUsd: null,
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
  }
}

describe('heldOutGapSummary', () => {
  it('reads the verdicts’ held-out records, leaving errored trajectories out', () => {
    const gap = heldOutGapSummary(
      [trajectory('a', ['X', 'VIS', 'OK']), trajectory('b', ['NONE', 'VIS', 'VIS']), trajectory('c', ['X'], true)],
      3,
      false,
    )!
    expect(gap.trajectories).toBe(2)
    expect(gap.visibleAt).toEqual([0, 1, 1])
    expect(gap.allAt).toEqual([0, 0, 0.5])
    expect(gap.gapAt).toEqual([0, 1, 0.5])
    // a@2 and b@2 repaired the visible failure and failed held-out 4; b's attempt 1 ran nothing, so it broke nothing known.
    expect({ repairs: gap.visibleRepairs, overfit: gap.overfit, broke: gap.broke }).toEqual({
      repairs: 2,
      overfit: 2,
      broke: 0,
    })
    expect(gap.gapInterval.point).toBe(0.5)
    expect(gap.gapInterval.method).toBe('paired-agresti-min-t/1')
  })

  it('is null for an independent cell and for verdicts that hold out nothing', () => {
    expect(heldOutGapSummary([trajectory('a', ['X', 'VIS'])], 3, true)).toBeNull()
    expect(heldOutGapSummary([trajectory('a', ['NONE'])], 3, false)).toBeNull()
  })
})

describe('heldOutGapLine', () => {
  it('says both rates, the gap with its interval and the overfitting repairs', () => {
    const heldOut = heldOutGapSummary(
      [trajectory('a', ['X', 'VIS', 'OK']), trajectory('b', ['X', 'VIS', 'VIS'])],
      3,
      false,
    )!
    const line = heldOutGapLine({ cellId: 'sim:overfit · verifier', budget: 3, heldOut })!
    expect(line).toMatch(
      /^held-out tests, sim:overfit · verifier: Seq@3 100\.0% on the visible tests, 50\.0% on every test, gap 50\.0 points \(95% CI 0\.0–100\.0\); 2 of 2 visible repairs \(100\.0%\) still fail a held-out test, 0 broke one$/,
    )
    expect(heldOutGapLine({ cellId: 'c', budget: 3 })).toBeNull()
    expect(heldOut.over).toBe('tests')
  })

  it('says criteria for a rubric cell (its verdicts carry criteria), and tests for an older summary without `over`', () => {
    const rubric = (t: Trajectory): Trajectory => ({
      ...t,
      attempts: t.attempts.map((a) => ({
        ...a,
        verdict: {
          ...a.verdict,
          criteria: [{ id: 'c0', text: 'visible', met: a.verdict.heldOut?.visiblePass ?? false }],
        },
      })),
    })
    const heldOut = heldOutGapSummary(
      [rubric(trajectory('a', ['X', 'VIS', 'OK'])), rubric(trajectory('b', ['X', 'VIS', 'VIS']))],
      3,
      false,
    )!
    expect(heldOut.over).toBe('criteria')
    expect(heldOutGapLine({ cellId: 'sim:overfit · verifier', budget: 3, heldOut })).toBe(
      'held-out criteria, sim:overfit · verifier: Seq@3 100.0% on the visible criteria, 50.0% on every criterion, gap 50.0 points (95% CI 0.0–100.0); 2 of 2 visible repairs (100.0%) still fail a held-out criterion, 0 broke one',
    )
    const { over: _over, ...older } = heldOut
    expect(heldOutGapLine({ cellId: 'c', budget: 3, heldOut: older })).toMatch(/^held-out tests, c: .* on every test,/)
  })
})
