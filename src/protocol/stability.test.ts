// The stability report's arithmetic over verdicts (real Python: test/stability.test.ts).
import { describe, expect, it } from 'vitest'
import type { Verifier } from '../verifiers/verifier.js'
import type { Verdict } from '../core/contract.js'
import { measureStability, taskStability } from './stability.js'

describe('measureStability', () => {
  it('refuses fewer than two repeats and a concurrency below 1', async () => {
    const verifier: Verifier = {
      name: 'v',
      version: '1',
      settings: {},
      verify: () => ({ pass: true, diagnostics: { outcome: 'passed', summary: '' } }),
    }
    await expect(measureStability([], verifier, { repeats: 1 })).rejects.toThrow(/repeats must be an integer >= 2/)
    await expect(measureStability([], verifier, { concurrency: 0 })).rejects.toThrow(/concurrency must be/)
  })

  it("reports a grader's self-agreement per criterion and counts a verification that threw as unknown", async () => {
    // A verifier with criteria as a rubric grader returns them: `tone` flips every other time, `facts` never.
    let calls = 0
    const grader: Verifier = {
      name: 'alternating-grader',
      version: '1',
      settings: {},
      verify(): Verdict {
        const n = calls++
        if (n === 3) throw new Error('grader down')
        const tone = n % 2 === 0
        return {
          pass: tone,
          diagnostics: { outcome: tone ? 'passed' : 'failed', summary: tone ? 'all met' : 'tone not met' },
          criteria: [
            { id: 'facts', text: 'states the facts', met: true },
            { id: 'tone', text: 'is polite', met: tone },
          ],
        }
      },
    }
    const report = await measureStability([{ task: { id: 'r1', prompt: 'q' }, answer: 'a' }], grader, {
      repeats: 3,
      concurrency: 1,
    })
    const [task] = report.tasks
    expect(task).toMatchObject({ runs: 5, errors: 1, flipped: true, nearLimit: null, stableTimeoutMs: null })
    expect(report.timeoutMs).toBeNull()
    expect(report.recommendedTimeoutMs).toBeNull()
    const byId = Object.fromEntries(task!.criteria.map((c) => [c.id, c.agreement]))
    expect(byId.facts).toMatchObject({ items: 1, flipped: 0, identical: 1 })
    expect(byId.tone).toMatchObject({ items: 1, flipped: 1, identical: 0 })
    expect(report.criterionAgreement).toMatchObject({ items: 2, flipped: 1, identical: 0.5 })
  })
})

describe('taskStability', () => {
  const verdict = (pass: boolean, durationMs: number, outcome?: Verdict['diagnostics']['outcome']): Verdict => ({
    pass,
    durationMs,
    diagnostics: { outcome: outcome ?? (pass ? 'passed' : 'failed'), summary: '' },
  })
  it('a timed-out run makes the task flip and its stable limit twice its slowest run, rounded up to 100 ms', () => {
    const t = taskStability(
      't',
      [
        { concurrency: 4, verdict: verdict(true, 1210) },
        { concurrency: 8, verdict: verdict(false, 3001, 'timeout') },
      ],
      3000,
    )
    expect(t).toMatchObject({ flipped: true, nearLimit: true, maxDurationMs: 3001, stableTimeoutMs: 6100 })
    expect(t.outcomes).toEqual({ passed: 1, timeout: 1 })
    const quick = taskStability('q', [{ concurrency: 4, verdict: verdict(true, 1500) }], 3000)
    expect(quick).toMatchObject({ flipped: false, nearLimit: false, stableTimeoutMs: 3000, neverFinished: false })
  })

  it('a task whose every run timed out never finished: no stable limit, since its time is unknown', () => {
    const t = taskStability(
      'loop',
      [
        { concurrency: 4, verdict: verdict(false, 3040, 'timeout') },
        { concurrency: 8, verdict: verdict(false, 3090, 'timeout') },
      ],
      3000,
    )
    expect(t).toMatchObject({ neverFinished: true, flipped: false, maxDurationMs: 3090, stableTimeoutMs: null })
  })
})

describe('measureStability with answers that never finish', () => {
  // A verifier by its time limit: `loop` never ends, `slow` takes 4 s, `quick` 200 ms.
  const timed = (timeoutMs: number): Verifier => ({
    name: 'timed',
    version: '1',
    settings: { timeoutMs },
    verify(task): Verdict {
      const needs = { loop: Infinity, slow: 4000, quick: 200 }[task.id] ?? 0
      const done = needs <= timeoutMs
      return {
        pass: done,
        durationMs: done ? needs : timeoutMs + 40,
        diagnostics: { outcome: done ? 'passed' : 'timeout', summary: '' },
      }
    },
  })
  const items = ['loop', 'slow', 'quick'].map((id) => ({ task: { id, prompt: 'p' }, answer: 'a' }))

  it('recommends a limit from the answers that finish and names the ones that never do', async () => {
    const report = await measureStability(items, timed(3000), { repeats: 2, concurrency: 1 })
    expect(report.neverFinishedTasks).toEqual(['loop', 'slow'])
    expect(report.nearLimitTasks).toEqual([])
    // Not "6100 at least" from the timed-out runs: the only answer that finished needs 400 ms.
    expect(report.recommendedTimeoutMs).toBe(3000)
    expect(report.recommendationIsLowerBound).toBe(false)
    expect(report.longTimeoutMs).toBeNull()
  })

  it('with a longer limit, tells a slow answer (whose time counts) from one that never finishes', async () => {
    const report = await measureStability(items, timed(3000), {
      repeats: 2,
      concurrency: 1,
      longVerifier: timed(30_000),
    })
    expect(report.neverFinishedTasks).toEqual(['loop'])
    const slow = report.tasks.find((t) => t.taskId === 'slow')!
    expect(slow).toMatchObject({ neverFinished: false, stableTimeoutMs: 8000 })
    expect(slow.longRun).toEqual({ timeoutMs: 30_000, outcome: 'passed', durationMs: 4000 })
    expect(report.tasks.find((t) => t.taskId === 'loop')!.longRun).toEqual({
      timeoutMs: 30_000,
      outcome: 'timeout',
      durationMs: 30_040,
    })
    expect(report.recommendedTimeoutMs).toBe(8000)
    expect(report.longTimeoutMs).toBe(30_000)
    // The quick answer is never run again.
    expect(report.tasks.find((t) => t.taskId === 'quick')!.longRun).toBeUndefined()
  })
})
