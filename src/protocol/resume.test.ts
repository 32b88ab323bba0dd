import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Trajectory } from '../core/schemas.js'
import { simulatedActor as simulated } from '../models/simulated.js'
import { runCell, type CellSpec } from './cell.js'
import { planResume, ResumeRefusedError, reuseKey } from './resume.js'
import { cellSpec, saysCorrect } from './test-helpers.js'
import type { Task } from './task.js'

const tasks: Task[] = Array.from({ length: 8 }, (_, i) => ({
  id: `t${i}`,
  prompt: `Say CORRECT #${i}`,
  simulation: { difficulty: i / 8, correct: ['CORRECT'], wrong: ['WRONG'] },
}))
const spec = (overrides: Partial<CellSpec> = {}) =>
  cellSpec(tasks, simulated({ profile: 'reviser', seed: 7 }), {
    verifier: saysCorrect,
    repeats: 3,
    budget: 4,
    concurrency: 3,
    errors: 'censored',
    ...overrides,
  })
const cellOf = (s: CellSpec, t: Trajectory) => ({
  benchmark: s.benchmark,
  cellId: s.cellId,
  fingerprint: t.fingerprint,
  protocol: t.protocol,
  taskIds: s.tasks.map((x) => x.id),
  repeats: s.repeats,
})
/** A summary without what legitimately differs between two runs of the same trajectories (wall time). */
const numbers = (summary: object) =>
  JSON.parse(JSON.stringify(summary, (key, value) => (key === 'durationMs' ? undefined : value)))

describe('planResume', () => {
  it('keeps ended trajectories, runs errored and undeclared ones again', async () => {
    const { trajectories } = await runCell(spec())
    const first = trajectories[0]!
    const errored: Trajectory = {
      ...trajectories[1]!,
      status: 'error',
      firstSuccess: null,
      error: { stage: 'actor', attempt: 1, message: 'ECONNRESET' },
    }
    const foreign: Trajectory = { ...trajectories[2]!, cellId: 'someone else · binary' }
    const gone: Trajectory = { ...first, taskId: 'removed-task' }
    const extraRepeat: Trajectory = { ...first, repeat: 3 }
    const plan = planResume([first, errored, foreign, gone, extraRepeat], cellOf(spec(), first), '/runs/x')
    expect([...plan.reuse.keys()]).toEqual([reuseKey(first.taskId, first.repeat)])
    expect(plan.errored).toBe(1)
  })

  it('refuses a cell whose protocol changed, naming each field with its old and new value', async () => {
    const { trajectories } = await runCell(spec())
    const [changed] = (await runCell(spec({ budget: 3, actor: simulated({ profile: 'reviser', seed: 8 }) })))
      .trajectories
    const attempt = () => planResume(trajectories, cellOf(spec(), changed!), '/runs/x')
    expect(attempt).toThrow(ResumeRefusedError)
    expect(attempt).toThrow(
      /cannot resume "simulated:reviser · binary" from \/runs\/x: its protocol changed since those trajectories ran \(.*budget: 4 → 3.*\)/,
    )
    expect(attempt).toThrow(/actor\.params\.seed: 7 → 8/)
  })
})

describe('runCell with kept trajectories', () => {
  it('returns them as they are, calls no model for them, and hands only the new ones to onTrajectory', async () => {
    const whole = await runCell(spec())
    const kept = new Map(whole.trajectories.filter((_, i) => i % 2 === 0).map((t) => [reuseKey(t.taskId, t.repeat), t]))
    let calls = 0
    const actor = simulated({ profile: 'reviser', seed: 7 })
    const counting = { ...actor, chat: (...args: Parameters<typeof actor.chat>) => ((calls += 1), actor.chat(...args)) }
    const handed: Trajectory[] = []
    const resumed = await runCell(spec({ actor: counting, reuse: kept, onTrajectory: (t) => void handed.push(t) }))
    expect(handed).toHaveLength(whole.trajectories.length - kept.size)
    expect(handed.some((t) => kept.has(reuseKey(t.taskId, t.repeat)))).toBe(false)
    const fresh = whole.trajectories.filter((t) => !kept.has(reuseKey(t.taskId, t.repeat)))
    expect(calls).toBe(fresh.reduce((n, t) => n + t.attempts.length, 0))
    expect(numbers(resumed.summary)).toEqual(numbers(whole.summary))
  })

  it('any split into kept and rerun gives the summary of one uninterrupted run (simulated actors are seeded)', async () => {
    const whole = await runCell(spec())
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { minLength: whole.trajectories.length, maxLength: whole.trajectories.length }),
        async (keepMask) => {
          const kept = new Map(
            whole.trajectories.filter((_, i) => keepMask[i]).map((t) => [reuseKey(t.taskId, t.repeat), t]),
          )
          const resumed = await runCell(spec({ reuse: kept }))
          expect(numbers(resumed.summary)).toEqual(numbers(whole.summary))
          expect(resumed.trajectories.map((t) => `${t.taskId}/${t.repeat}`)).toEqual(
            whole.trajectories.map((t) => `${t.taskId}/${t.repeat}`),
          )
        },
      ),
      { seed: 15, numRuns: 25 },
    )
  })

  it('refuses a kept trajectory from another protocol instead of mixing it in', async () => {
    const whole = await runCell(spec())
    const alien = { ...whole.trajectories[0]!, fingerprint: 'f'.repeat(16) }
    await expect(runCell(spec({ reuse: new Map([[reuseKey(alien.taskId, alien.repeat), alien]]) }))).rejects.toThrow(
      /is not this cell's \(fingerprint ffffffffffffffff/,
    )
  })
})
