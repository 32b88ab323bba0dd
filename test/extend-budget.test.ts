// Extending K: a run made at K = 3 and extended to K = 5 (its trajectories kept, the unsolved ones
// continued from their last feedback) equals a run made at K = 5 from the start, on a seeded
// simulation: the same attempts, verdicts and feedback in every trajectory, and the same Seq@k,
// Pass@k and Score@k. Rubric fixture tasks with a rule-based grader and critic on the local test
// server (the critic is a real model call over the OpenAI SDK, rendered after the kept last attempt).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rubricTasks } from '../fixtures/rubric-tasks.js'
import { feedback } from '../src/feedback/index.js'
import { actors } from '../src/models/index.js'
import { cellProtocol, runCell, type CellResult } from '../src/protocol/cell.js'
import { protocolFingerprint } from '../src/core/fingerprint.js'
import { extendedLine, planResume, ResumeRefusedError } from '../src/protocol/resume.js'
import { rubricRules, startTestServer, testServerModel, type TestServer } from '../src/testing/index.js'
import { verifiers } from '../src/verifiers/index.js'
import { resolveOptions } from '../src/vitest/options.js'
import { planCells, withBudgetFromEnv, type CellPlan } from '../src/vitest/seq-eval.js'
import type { Trajectory } from '../src/core/schemas.js'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ responder: rubricRules() })
})
afterAll(() => server.close())

function plans(budget: number, protocol?: 'seq_k-reference'): CellPlan[] {
  return planCells(
    'rubric',
    resolveOptions('rubric', {
      tasks: rubricTasks,
      actors: [actors.simulated({ profile: 'reviser' }), actors.simulated({ profile: 'stubborn' })],
      verifier: verifiers.rubric({ grader: testServerModel(server, { model: 'rule-grader' }), passRule: 'all' }),
      budget,
      repeats: 2,
      independent: true,
      ...(protocol ? { protocol } : {}),
      modes: {
        critic: {
          feedback: feedback.critic({
            model: testServerModel(server, { model: 'rule-critic' }),
            rubric: 'aware',
            style: 'directive',
          }),
        },
        binary: { feedback: feedback.binary() },
      },
    }),
  )
}

/** What must be equal between two runs of one cell: every trajectory's record but timings and costs' latencies. */
function comparable(result: CellResult) {
  return {
    trajectories: result.trajectories.map((t: Trajectory) => ({
      taskId: t.taskId,
      repeat: t.repeat,
      status: t.status,
      firstSuccess: t.firstSuccess,
      attempts: t.attempts.map((a) => ({
        answer: a.answer,
        pass: a.verdict.pass,
        score: a.verdict.score,
        feedback: a.feedback?.text ?? null,
        unmodified: a.unmodified,
        helpers: a.helperCalls.map((c) => c.role),
      })),
    })),
    seqAt: result.summary.seqAt,
    passAt: result.summary.passAt,
    score: result.summary.score,
    fingerprint: result.summary.fingerprint,
    perTask: result.summary.perTask.map(({ costAtK: _c, ...p }) => p),
  }
}

async function extendedAndFresh(from: number, to: number, protocol?: 'seq_k-reference') {
  const small = plans(from, protocol)
  const large = plans(to, protocol)
  const out = []
  for (const [i, cell] of small.entries()) {
    const ran = await runCell({ ...cell, runId: 'r', concurrency: 4 })
    const target = large[i]!
    const protocol = cellProtocol(target)
    const plan = planResume(
      ran.trajectories,
      {
        benchmark: target.benchmark,
        cellId: target.cellId,
        fingerprint: protocolFingerprint(protocol),
        protocol,
        taskIds: target.tasks.map((t) => t.id),
        repeats: target.repeats,
      },
      'run dir',
    )
    const extended = await runCell({ ...target, runId: 'r', concurrency: 4, reuse: plan.reuse, extend: plan.extend })
    const fresh = await runCell({ ...target, runId: 'r', concurrency: 4 })
    out.push({ cell: target.cellId, ran, plan, extended, fresh })
  }
  return out
}

describe('extending a run from K = 3 to K = 5', () => {
  it('equals a run at K = 5 from the start: every trajectory, Seq@k, Pass@k and Score@k (seeded simulation)', async () => {
    const runs = await extendedAndFresh(3, 5)
    expect(runs.map((r) => r.cell)).toEqual([
      'simulated:reviser · critic',
      'simulated:reviser · binary',
      'simulated:reviser · independent',
      'simulated:stubborn · critic',
      'simulated:stubborn · binary',
      'simulated:stubborn · independent',
    ])
    let continued = 0
    for (const { ran, plan, extended, fresh } of runs) {
      expect(plan.extendedFrom).toBe(3)
      expect(plan.reuse.size).toBe(0)
      expect(plan.extend.size).toBe(ran.trajectories.length)
      expect(comparable(extended)).toEqual(comparable(fresh))
      // The summary says it was extended, and from which K; a run from the start says nothing.
      expect(extended.summary.extended).toEqual({ from: 3, trajectories: ran.trajectories.length })
      expect(fresh.summary.extended).toBeUndefined()
      expect(extendedLine(extended.summary)).toMatch(
        /extended from K = 3 to K = 5 .*the budget was not disclosed, so this is the run a budget of 5 from the start would give$/,
      )
      continued += extended.trajectories.filter((t) => t.attempts.length > 3).length
    }
    // Not a vacuous equality: trajectories did go on past K = 3, under every kind of cell.
    expect(continued).toBeGreaterThan(10)
    // Kept attempts are the recorded ones (an actor call is never made again for them).
    const critic = runs[0]!
    const before = critic.ran.trajectories.find((t) => t.status === 'failed')!
    const after = critic.extended.trajectories.find((t) => t.taskId === before.taskId && t.repeat === before.repeat)!
    expect(after.attempts.slice(0, 3).map((a) => [a.answer, a.latencyMs])).toEqual(
      before.attempts.map((a) => [a.answer, a.latencyMs]),
    )
    // The last kept attempt had no feedback at K = 3 (none after the last attempt); the critic wrote it now.
    expect(before.attempts[2]!.feedback).toBeNull()
    expect(after.attempts[2]!.feedback?.kind).toBe('critic')
    expect(after.attempts[2]!.helperCalls.some((c) => c.role === 'critic')).toBe(true)
    expect(after.extendedFrom).toBe(3)
  })

  it('under the reference preset keeps the feedback the last attempt already had, and says the disclosed budget makes it another run', async () => {
    const [critic] = await extendedAndFresh(3, 4, 'seq_k-reference')
    const failed = critic!.ran.trajectories.filter((t) => t.status === 'failed')
    expect(failed.length).toBeGreaterThan(0)
    for (const t of failed) expect(t.attempts[2]!.feedback).not.toBeNull()
    expect(extendedLine(critic!.extended.summary)).toMatch(
      /the budget was disclosed, so their first 3 attempts were told K = 3: not a run at K = 4$/,
    )
  })

  it('refuses another change beside the budget, a smaller budget, and a cut through SEQK_BUDGET', async () => {
    const [cell] = plans(3)
    const ran = await runCell({ ...cell!, runId: 'r', concurrency: 4 })
    const other = cellProtocol({ ...plans(5)[0]!, discloseBudget: true })
    expect(() =>
      planResume(
        ran.trajectories,
        {
          benchmark: 'rubric',
          cellId: cell!.cellId,
          fingerprint: protocolFingerprint(other),
          protocol: other,
          taskIds: cell!.tasks.map((t) => t.id),
          repeats: 2,
        },
        'dir',
      ),
    ).toThrow(ResumeRefusedError)
    const smaller = cellProtocol(plans(2)[0]!)
    expect(() =>
      planResume(
        ran.trajectories,
        {
          benchmark: 'rubric',
          cellId: cell!.cellId,
          fingerprint: protocolFingerprint(smaller),
          protocol: smaller,
          taskIds: cell!.tasks.map((t) => t.id),
          repeats: 2,
        },
        'dir',
      ),
    ).toThrow(/budget: 3 → 2/)
    const options = {
      tasks: rubricTasks,
      actors: [actors.simulated({ profile: 'reviser' })],
      verifier: verifiers.rubric(),
      budget: 5,
      independent: true,
    }
    expect(withBudgetFromEnv('x', options, '7').budget).toBe(7)
    expect(withBudgetFromEnv('x', options, undefined)).toBe(options)
    expect(() => withBudgetFromEnv('x', options, '3')).toThrow(
      /SEQK_BUDGET: 3 is below the eval's budget 5: a run is extended, never cut/,
    )
    expect(() => withBudgetFromEnv('x', options, 'ten')).toThrow(/"ten" is not a budget/)
  })
})
