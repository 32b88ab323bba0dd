import { describe, expect, it } from 'vitest'
import { CellSummarySchema, TrajectorySchema, type Trajectory } from '../core/schemas.js'
import type { FeedbackMode } from '../feedback/feedback-mode.js'
import { passAtCurve, passHatCurve, seqAtCurve, seqAtCurveCensored } from '../metrics/index.js'
import { gPassCurve, gPassInterval } from '../metrics/g-pass-at-k.js'
import type { CallContext, ChatMessage, ChatModel, Usage } from '../models/chat-model.js'
import type { Verdict, Verifier } from '../verifiers/verifier.js'
import { runCell, type CellSpec } from './cell.js'
import { cellSpec } from './test-helpers.js'
import { protocolFingerprint } from '../core/fingerprint.js'
import type { Task } from './task.js'

// ---- doubles ----------------------------------------------------------------------------------

const USAGE: Usage = { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 }

type Answer = (context: CallContext, messages: ChatMessage[]) => string | Error

/** An actor whose answer depends on (task, repeat, attempt); records every call and the peak concurrency. */
function contextActor(
  answer: Answer,
  options: {
    delayMs?: (context: CallContext) => number
    before?: (context: CallContext) => Promise<void>
    costUsd?: number
  } = {},
) {
  const calls: { context: CallContext; messages: ChatMessage[] }[] = []
  const stats = { inFlight: 0, peak: 0 }
  const model: ChatModel = {
    id: 'ctx-actor',
    descriptor: { provider: 'test', model: 'ctx', params: { temperature: 0 } },
    async chat({ messages, context }) {
      calls.push({ context: { ...context }, messages: messages.map((m) => ({ ...m })) })
      stats.inFlight++
      stats.peak = Math.max(stats.peak, stats.inFlight)
      try {
        await options.before?.(context)
        const delay = options.delayMs?.(context) ?? 0
        await new Promise((resolve) => setTimeout(resolve, delay))
        const text = answer(context, messages)
        if (text instanceof Error) throw text
        return { text, usage: USAGE, latencyMs: delay, finishReason: 'stop', costUsd: options.costUsd ?? 0.001 }
      } finally {
        stats.inFlight--
      }
    },
  }
  return { model, calls, stats }
}

function verdictFor(answer: string): Verdict {
  const pass = answer === 'OK'
  return {
    pass,
    diagnostics: {
      outcome: pass ? 'passed' : 'failed',
      summary: pass ? 'ok' : 'expected OK',
      tests: [
        { index: 0, source: 'assert f() == "OK"', pass, call: 'f()', expected: '"OK"', actual: JSON.stringify(answer) },
      ],
    },
  }
}

const verifier: Verifier = {
  name: 'equals-ok',
  version: '1',
  settings: {},
  async verify(_task, answer) {
    return verdictFor(answer)
  },
}

const TASKS: Task[] = ['a', 'b', 'c', 'd'].map((id) => ({ id, prompt: `Solve task ${id}.` }))

/** First successful attempt per task and repeat (null: never). */
const SOLVES_AT: Record<string, (number | null)[]> = { a: [1, 1], b: [3, null], c: [null, null], d: [2, 1] }

const scripted: Answer = (ctx) =>
  SOLVES_AT[ctx.taskId]?.[ctx.repeat] === ctx.attempt ? 'OK' : `wrong-${ctx.taskId}-${ctx.repeat}-${ctx.attempt}`

function spec(overrides: Partial<CellSpec> & Pick<CellSpec, 'actor'>): CellSpec {
  return cellSpec(TASKS, overrides.actor, {
    runId: 'run-1',
    benchmark: 'bench',
    cellId: 'ctx-actor × binary',
    verifier,
    concurrency: 4,
    ...overrides,
  })
}

const key = (t: Pick<Trajectory, 'taskId' | 'repeat'>) => `${t.taskId}#${t.repeat}`

// ---- tests ------------------------------------------------------------------------------------

describe('runCell: sequential cells', () => {
  it('gives the expected Seq@k curve and per-task first successes', async () => {
    const actor = contextActor(scripted)
    const { summary, trajectories } = await runCell(spec({ actor: actor.model, repeats: 2 }))
    expect(summary.seqAt[0]).toBeCloseTo(0.375, 12)
    expect(summary.seqAt[1]).toBeCloseTo(0.5, 12)
    expect(summary.seqAt[2]).toBeCloseTo(0.625, 12)
    expect(summary.perTask.map(({ costAtK: _c, contentHash: _h, bestScore: _s, ...p }) => p)).toEqual([
      { taskId: 'a', firstSuccess: [1, 1], errors: 0 },
      { taskId: 'b', firstSuccess: [3, null], errors: 0 },
      { taskId: 'c', firstSuccess: [null, null], errors: 0 },
      { taskId: 'd', firstSuccess: [2, 1], errors: 0 },
    ])
    expect(trajectories.map((t) => t.status)).toEqual([
      'solved',
      'solved',
      'solved',
      'failed',
      'failed',
      'failed',
      'solved',
      'solved',
    ])
    // Early stop: a solved trajectory has exactly firstSuccess attempts, a failed one K.
    for (const t of trajectories) expect(t.attempts).toHaveLength(t.firstSuccess ?? 3)
    expect(actor.calls).toHaveLength(1 + 1 + 3 + 3 + 3 + 3 + 2 + 1)
    expect(summary.statistics.meanAttempts?.value).toBeCloseTo(17 / 8, 12)
    expect(summary.statistics.gain?.value).toBeCloseTo(0.25, 12)
    expect(summary.statistics.egs?.value).toBeCloseTo(0.5, 12)
    expect(summary.statistics.lgs?.value).toBeCloseTo(0.5, 12)
    expect(summary.passAt).toBeNull()
    // A binary verifier's scores are 1 and 0: the score curve is the solved rate, Seq@k.
    expect(summary.score?.binary).toBe(true)
    for (let k = 0; k < 3; k++) expect(summary.score!.at[k]).toBeCloseTo(summary.seqAt[k]!, 12)
    expect(summary.perTask.find((p) => p.taskId === 'b')!.bestScore).toEqual([0, 0, 0.5])
    expect(summary.verdict).toBe('no-thresholds')
    expect(summary).toMatchObject({
      runId: 'run-1',
      benchmark: 'bench',
      cellId: 'ctx-actor × binary',
      actorId: 'ctx-actor',
      mode: 'binary',
      budget: 3,
      repeats: 2,
      tasks: 4,
      trajectories: 8,
    })
  })

  it('produces a summary and trajectories that validate against their schemas, with one fingerprint', async () => {
    const { summary, trajectories } = await runCell(spec({ actor: contextActor(scripted).model, repeats: 2 }))
    expect(CellSummarySchema.parse(summary)).toEqual(summary)
    for (const t of trajectories) {
      expect(TrajectorySchema.parse(t)).toEqual(t)
      expect(t.fingerprint).toBe(summary.fingerprint)
      expect(t.protocol).toEqual(summary.protocol)
      expect(t).toMatchObject({
        runId: 'run-1',
        benchmark: 'bench',
        cellId: 'ctx-actor × binary',
        actorId: 'ctx-actor',
        mode: 'binary',
      })
    }
    expect(summary.fingerprint).toBe(protocolFingerprint(summary.protocol))
    expect(summary.protocol).toMatchObject({
      kind: 'sequential',
      budget: 3,
      budgetDisclosed: false,
      history: { name: 'full', settings: {} },
      feedback: { kind: 'binary', name: 'binary' },
    })
  })

  it('calls onTrajectory once per trajectory, as each ends; returns them in (task, repeat) order', async () => {
    const seen: Trajectory[] = []
    // Task a waits until every other trajectory has been reported, so it finishes last although it is first in order.
    let othersDone!: () => void
    const others = new Promise<void>((resolve) => (othersDone = resolve))
    const actor = contextActor(scripted, { before: (ctx) => (ctx.taskId === 'a' ? others : Promise.resolve()) })
    const onTrajectory = (t: Trajectory) => {
      seen.push(t)
      if (seen.length === 6) othersDone()
    }
    const { trajectories } = await runCell(spec({ actor: actor.model, repeats: 2, concurrency: 8, onTrajectory }))
    expect(seen).toHaveLength(8)
    expect(new Set(seen.map(key)).size).toBe(8)
    expect(trajectories.map(key)).toEqual(['a#0', 'a#1', 'b#0', 'b#1', 'c#0', 'c#1', 'd#0', 'd#1'])
    expect(seen.slice(-2).map((t) => t.taskId)).toEqual(['a', 'a'])
    for (const t of trajectories) expect(seen).toContain(t)
  })

  it('waits for an async onTrajectory before finishing', async () => {
    let written = 0
    await runCell(
      spec({
        actor: contextActor(scripted).model,
        onTrajectory: async () => {
          await new Promise((r) => setTimeout(r, 2))
          written++
        },
      }),
    )
    expect(written).toBe(4)
  })

  it('runs at most `concurrency` trajectories at once', async () => {
    const two = contextActor(scripted, { delayMs: () => 2 })
    await runCell(spec({ actor: two.model, repeats: 2, concurrency: 2 }))
    expect(two.stats.peak).toBe(2)
    const one = contextActor(scripted, { delayMs: () => 1 })
    await runCell(spec({ actor: one.model, repeats: 2, concurrency: 1 }))
    expect(one.stats.peak).toBe(1)
  })

  it('shares each trajectory signal among at most 16 trajectories, and many in flight raise no MaxListenersExceededWarning', async () => {
    const signals = new Set<AbortSignal | undefined>()
    const seen: ChatModel = {
      id: 'signals',
      descriptor: { provider: 'test', model: 'signals', params: {} },
      async chat({ signal, context }) {
        signals.add(signal)
        await new Promise((r) => setTimeout(r, 1))
        return { text: `wrong-${context.taskId}`, usage: USAGE, latencyMs: 0, finishReason: 'stop' }
      },
    }
    const warnings: Error[] = []
    const onWarning = (w: Error) => warnings.push(w)
    process.on('warning', onWarning)
    try {
      const tasks = Array.from({ length: 30 }, (_, i) => ({ id: `t${i}`, prompt: 'p' }))
      const test = new AbortController()
      await runCell(spec({ actor: seen, tasks, concurrency: 30, signal: test.signal }))
      await new Promise((r) => setImmediate(r))
    } finally {
      process.off('warning', onWarning)
    }
    // 30 trajectories: two shared scopes (16 + 14), each linked to the cell, not one per call.
    expect(signals.size).toBe(2)
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })

  // BUG (cell.ts:64-73, `pool`): after the first rejection the other workers keep taking new jobs,
  // so a cell that has already failed (e.g. onTrajectory hit ENOSPC) goes on calling the actor and
  // appending to the artifact in the background after runCell has rejected.
  it('starts no new trajectory once one has failed', async () => {
    const actor = contextActor(() => 'OK')
    const tasks: Task[] = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, prompt: `Solve task t${i}.` }))
    let written = 0
    const onTrajectory = () => {
      written++
      if (written === 1) throw new Error('ENOSPC: no space left on device')
    }
    await expect(runCell(spec({ actor: actor.model, tasks, concurrency: 2, onTrajectory }))).rejects.toThrow('ENOSPC')
    await new Promise((resolve) => setTimeout(resolve, 30))
    // The two trajectories already in flight may finish; nothing after them may start.
    expect(actor.calls.length).toBeLessThanOrEqual(2)
  })

  it('never shows the actor messages from another task or repeat, even when running concurrently', async () => {
    const tasks: Task[] = ['alpha', 'beta', 'gamma'].map((id) => ({ id, prompt: `Solve task ${id}.` }))
    const echo: FeedbackMode = {
      kind: 'verifier',
      name: 'echo',
      version: '1',
      settings: {},
      async render({ task, repeat, answer }) {
        return { kind: 'verifier', text: `feedback for ${task.id}/${repeat} on ${answer}` }
      },
    }
    const actor = contextActor((ctx) => `answer-${ctx.taskId}-${ctx.repeat}-${ctx.attempt}`, {
      delayMs: (ctx) => (ctx.taskId.length + ctx.attempt * 3 + ctx.repeat * 5) % 4,
    })
    await runCell(
      spec({
        actor: actor.model,
        tasks,
        repeats: 3,
        budget: 4,
        concurrency: 9,
        mode: { name: 'echo', feedback: echo },
      }),
    )
    expect(actor.calls).toHaveLength(3 * 3 * 4)
    expect(actor.stats.peak).toBeGreaterThan(1)
    for (const { context, messages } of actor.calls) {
      const text = messages.map((m) => m.content).join('\n')
      for (const [, taskId, repeat] of text.matchAll(/answer-(\w+)-(\d+)-\d+/g))
        expect(`${taskId}/${repeat}`).toBe(`${context.taskId}/${context.repeat}`)
      for (const [, taskId, repeat] of text.matchAll(/feedback for (\w+)\/(\d+)/g))
        expect(`${taskId}/${repeat}`).toBe(`${context.taskId}/${context.repeat}`)
      for (const [, taskId] of text.matchAll(/Solve task (\w+)/g)) expect(taskId).toBe(context.taskId)
      // Full history: the prompt plus one (answer, feedback) pair per earlier attempt of this trajectory.
      expect(messages).toHaveLength(1 + 2 * (context.attempt - 1))
      expect(messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(
        Array.from({ length: context.attempt - 1 }, (_, i) => `answer-${context.taskId}-${context.repeat}-${i + 1}`),
      )
    }
  })

  it("sends the eval's instructions first, as a system message, in every attempt and sample; they are the subject, not the tasks", async () => {
    const tasks: Task[] = ['a', 'b'].map((id) => ({ id, prompt: `Solve ${id}.` }))
    const instructions = 'Extract the invoice fields carefully.'
    for (const mode of [undefined, null] as const) {
      const actor = contextActor(() => 'nope')
      const plain = await runCell(spec({ actor: actor.model, tasks, ...(mode === null ? { mode } : {}) }))
      const told = await runCell(spec({ actor: actor.model, tasks, instructions, ...(mode === null ? { mode } : {}) }))
      const withIt = actor.calls.slice(actor.calls.length / 2)
      expect(withIt.length).toBeGreaterThan(0)
      for (const { messages } of withIt) expect(messages[0]).toEqual({ role: 'system', content: instructions })
      for (const { messages } of actor.calls.slice(0, actor.calls.length / 2))
        expect(messages.some((m) => m.role === 'system')).toBe(false)
      // Same tasks and instrument, another subject.
      expect(told.summary.perTask.map((r) => r.contentHash)).toEqual(plain.summary.perTask.map((r) => r.contentHash))
      expect(told.summary.protocol.benchmark).toEqual(plain.summary.protocol.benchmark)
      expect(told.summary.instrument).toEqual(plain.summary.instrument)
      expect(told.summary.subject?.instructions).toBe(instructions)
      expect(told.summary.subject?.fingerprint).not.toBe(plain.summary.subject?.fingerprint)
    }
  })

  it('sums usage and cost per trajectory and over the cell', async () => {
    const { summary, trajectories } = await runCell(
      spec({ actor: contextActor(scripted, { costUsd: 0.25 }).model, repeats: 2 }),
    )
    for (const t of trajectories) {
      expect(t.usage!.inputTokens).toBe(10 * t.attempts.length)
      expect(t.costUsd).toBeCloseTo(0.25 * t.attempts.length, 12)
    }
    expect(summary.usage!.inputTokens).toBe(10 * 17)
    expect(summary.usage!.outputTokens).toBe(2 * 17)
    expect(summary.costUsd).toBeCloseTo(0.25 * 17, 12)
  })

  it('counts unmodified revisions in the summary as the attempts flag them', async () => {
    // Task c resubmits the same wrong answer; the others change it every time.
    const actor = contextActor((ctx) => (ctx.taskId === 'c' ? 'same' : scripted(ctx, [])))
    const { summary, trajectories } = await runCell(spec({ actor: actor.model }))
    const flagged = trajectories.flatMap((t) => t.attempts).filter((a) => a.unmodified === true).length
    const revisions = trajectories.flatMap((t) => t.attempts).filter((a) => a.index > 1).length
    expect(flagged).toBe(2)
    expect(summary.statistics.unmodifiedRevisions).toEqual({
      value: 2 / revisions,
      n: revisions,
      detail: { unmodified: 2 },
    })
  })

  // BUG (cell.ts:134, as in sequential.ts:38): normalise is handed over unbound.
  it("uses a class verifier's normalise as a method when summarising", async () => {
    class Squash implements Verifier {
      name = 'squash'
      version = '1'
      settings = {}
      private squash(a: string): string {
        return a.replace(/\s+/g, '')
      }
      normalise(a: string): string {
        return this.squash(a)
      }
      async verify(_t: Task, a: string): Promise<Verdict> {
        return verdictFor(a)
      }
    }
    const { summary } = await runCell(
      spec({
        actor: contextActor((ctx) => (ctx.attempt === 1 ? 'x y' : 'xy')).model,
        tasks: TASKS.slice(0, 1),
        budget: 2,
        verifier: new Squash(),
      }),
    )
    expect(summary.statistics.unmodifiedRevisions).toEqual({ value: 1, n: 1, detail: { unmodified: 1 } })
  })

  it('rejects when the signal is aborted (an abort is not a trajectory error)', async () => {
    const controller = new AbortController()
    const actor = contextActor((ctx) => {
      if (ctx.taskId === 'b') controller.abort(new Error('test timed out'))
      return 'nope'
    })
    await expect(runCell(spec({ actor: actor.model, concurrency: 1, signal: controller.signal }))).rejects.toThrow(
      'test timed out',
    )
  })
})

describe('runCell: errors', () => {
  const failingC = contextActor((ctx) => (ctx.taskId === 'c' ? new Error('boom') : scripted(ctx, [])))

  it("counts errored trajectories apart and leaves them out of the rates with errors: 'left-out'", async () => {
    const { summary, trajectories } = await runCell(spec({ actor: failingC.model }))
    expect(trajectories.find((t) => t.taskId === 'c')).toMatchObject({
      status: 'error',
      error: { stage: 'actor', attempt: 1, message: 'boom' },
      firstSuccess: null,
      attempts: [],
    })
    expect(summary.errors).toEqual({
      count: 1,
      rate: 0.25,
      countedAsFailures: false,
      policy: 'left-out',
      // Next to the estimate: c as a failure (of 4 tasks), as a success at attempt 1, c left out (of 3).
      bounds: { asFailures: [1 / 4, 2 / 4, 3 / 4], asSuccesses: [2 / 4, 3 / 4, 1], leftOut: [1 / 3, 2 / 3, 1] },
      // Counted apart and said: c is in no rate.
      unmeasured: ['c'],
      examples: [{ taskId: 'c', repeat: 0, message: 'actor failed at attempt 1: boom' }],
    })
    // a@1, d@2, b@3 over the three tasks that did not error.
    expect(summary.seqAt).toEqual([1 / 3, 2 / 3, 1])
    expect(summary.perTask.find((p) => p.taskId === 'c')).toMatchObject({
      taskId: 'c',
      firstSuccess: [],
      errors: 1,
      costAtK: [null, null, null],
    })
  })

  it("keeps the spend of an attempt whose verifier failed after the actor answered, in the trajectory's and the cell's totals", async () => {
    const actor = contextActor(scripted, { costUsd: 0.25 })
    const flaky: Verifier = {
      ...verifier,
      async verify(task, answer, options) {
        if (task.id === 'c' && answer.endsWith('-2')) throw new Error('grader down')
        return verifier.verify(task, answer, options)
      },
    }
    const { summary, trajectories } = await runCell(spec({ actor: actor.model, verifier: flaky, errors: 'failures' }))
    const c = trajectories.find((t) => t.taskId === 'c')!
    expect(c.error).toMatchObject({ stage: 'verifier', attempt: 2, calls: [{ role: 'actor', costUsd: 0.25 }] })
    // Attempt 1 (kept) and attempt 2's actor call (spent before the verifier failed).
    expect(c.costUsd).toBe(0.5)
    expect(c.usage!.inputTokens).toBe(2 * USAGE.inputTokens)
    const calls = trajectories.reduce((n, t) => n + t.attempts.length + (t.error?.calls?.length ?? 0), 0)
    expect(summary.calls).toBe(calls)
    expect(summary.costUsd).toBeCloseTo(calls * 0.25, 10)
    expect(summary.byRole.actor?.calls).toBe(calls)
    expect(summary.perTask.find((p) => p.taskId === 'c')!.costAtK).toEqual([0.25, 0.5, 0.5])
  })

  it("censors them with errors: 'censored': failed before the error, unknown from it on (Kaplan–Meier), between the two bounds", async () => {
    const flaky: Verifier = {
      ...verifier,
      async verify(task, answer, options) {
        if (task.id === 'c' && answer.endsWith('-2')) throw new Error('grader down')
        return verifier.verify(task, answer, options)
      },
    }
    const { summary } = await runCell(
      spec({ actor: contextActor(scripted).model, verifier: flaky, errors: 'censored' }),
    )
    const c = summary.perTask.find((p) => p.taskId === 'c')!
    // Attempt 1 failed with a verdict; the verifier crashed on attempt 2: censored at 2.
    expect(c).toMatchObject({ firstSuccess: [], censoredAt: [2], errors: 1 })
    expect(summary.errors.policy).toBe('censored')
    const expected = seqAtCurveCensored(
      summary.perTask.map((p) => ({
        taskId: p.taskId,
        repeats: [
          ...p.firstSuccess.map((f) => ({ firstSuccess: f })),
          ...(p.censoredAt ?? []).map((at) => ({ censoredAt: at })),
        ],
      })),
      3,
    )
    expect(summary.seqAt).toEqual(expected)
    const { asFailures, leftOut } = summary.errors.bounds!
    for (let k = 0; k < 3; k++) {
      expect(summary.seqAt[k]!).toBeGreaterThanOrEqual(asFailures[k]!)
      expect(summary.seqAt[k]!).toBeLessThanOrEqual(leftOut[k]! + 1e-12)
    }
    // At k = 1, c's failed first attempt counts as a failure (it ran); left out it would not.
    expect(summary.seqAt[0]).toBe(asFailures[0])
  })

  it('counts them as failures with countErrorsAsFailures', async () => {
    const { summary } = await runCell(spec({ actor: failingC.model, errors: 'failures' }))
    expect(summary.seqAt).toEqual([0.25, 0.5, 0.75])
    expect(summary.errors.countedAsFailures).toBe(true)
    expect(summary.perTask.find((p) => p.taskId === 'c')).toMatchObject({
      taskId: 'c',
      firstSuccess: [null],
      errors: 1,
      costAtK: [0, 0, 0],
    })
  })

  it('fails the cell on any error by default (maxErrorRate 0), naming the task', async () => {
    const { summary } = await runCell(spec({ actor: failingC.model }))
    expect(summary.verdict).toBe('fail')
    const check = summary.thresholds.find((t) => t.metric === 'maxErrorRate')
    expect(check).toMatchObject({ pass: false, limit: 0, actual: 0.25, k: null })
    expect(check?.message).toContain('task c')
    expect(check?.message).toContain('boom')
    expect(check?.message).toContain('25.0%')
  })

  it('passes when the error rate is within maxErrorRate', async () => {
    const { summary } = await runCell(spec({ actor: failingC.model, thresholds: { maxErrorRate: 0.3 } }))
    expect(summary.verdict).toBe('pass')
    expect(summary.thresholds.find((t) => t.metric === 'maxErrorRate')?.message).toBe('error rate 25.0% ≤ 30.0%')
  })
})

describe('runCell: thresholds', () => {
  it('reports each seqAt threshold with its value and limit', async () => {
    const { summary } = await runCell(
      spec({ actor: contextActor(scripted).model, thresholds: { seqAt: { 1: 0.2, 3: 0.9 } } }),
    )
    // Repeat 0 only: a@1, d@2, b@3, c never -> [0.25, 0.5, 0.75].
    const [one, three] = summary.thresholds.filter((t) => t.metric === 'seqAt')
    expect(one).toMatchObject({ k: 1, limit: 0.2, actual: 0.25, pass: true })
    expect(one?.message).toBe('Seq@1 = 25.0% ≥ 20.0%')
    expect(three).toMatchObject({ k: 3, limit: 0.9, actual: 0.75, pass: false })
    expect(three?.message).toMatch(/^Seq@3 = 75\.0%, below the required 90\.0% \(95% CI \d+\.\d%–\d+\.\d%\)$/)
    expect(three?.message).toMatch(/95% CI/)
    expect(summary.verdict).toBe('fail')
  })

  it('fails a threshold the cell cannot measure, saying why', async () => {
    const { summary } = await runCell(
      spec({ actor: contextActor(scripted).model, thresholds: { passAt: { 1: 0.1 }, seqAt: { 9: 0.1 } } }),
    )
    const messages = summary.thresholds.filter((t) => !t.pass).map((t) => t.message)
    expect(messages).toHaveLength(2)
    expect(messages.join('\n')).toContain('does not measure Pass@k')
    expect(messages.join('\n')).toContain(
      'Seq@9 is undefined here (k = 9 is outside the budget of 3 attempts), so the required',
    )
  })
})

describe('runCell: budget disclosed', () => {
  it('reports only Seq@K, with a timing note', async () => {
    const actor = contextActor(scripted)
    const { summary } = await runCell(
      spec({ actor: actor.model, discloseBudget: true, thresholds: { seqAt: { 1: 0.1, 3: 0.5 } } }),
    )
    expect(summary.protocol.budgetDisclosed).toBe(true)
    expect(summary.seqAt).toEqual([null, null, 0.75])
    expect(summary.statistics.egs?.note).toMatch(/budget disclosed/)
    expect(summary.statistics.egs?.value).toBeNull()
    expect(summary.statistics.lgs?.value).toBeNull()
    const [one, three] = summary.thresholds
    expect(one).toMatchObject({ k: 1, pass: false, actual: null })
    expect(one?.message).toContain(
      'Seq@1 is undefined here (the budget was disclosed to the actor, so only Seq@3 is defined), so the required',
    )
    expect(three).toMatchObject({ k: 3, pass: true, actual: 0.75 })
    expect(actor.calls[0]?.messages[0]?.content).toContain('up to 3 attempts')
  })
})

describe('runCell: independent cells', () => {
  /** Which samples pass, per task and repeat. */
  const PASSES: Record<string, number[][]> = {
    a: [[2, 4], [3]],
    b: [[], []],
    c: [
      [1, 2, 3, 4],
      [1, 2, 3, 4],
    ],
    d: [[1], []],
  }
  const independentActor = () =>
    contextActor((ctx, messages) => {
      if (messages.some((m) => m.role === 'assistant'))
        return new Error('independent samples must not see earlier answers')
      return PASSES[ctx.taskId]?.[ctx.repeat]?.includes(ctx.attempt) ? 'OK' : 'BAD'
    })

  it('draws K samples per trajectory and matches passAtCurve from the metrics', async () => {
    const actor = independentActor()
    const { summary, trajectories } = await runCell(
      spec({
        actor: actor.model,
        mode: null,
        budget: 4,
        repeats: 2,
        discloseBudget: true,
        thresholds: { passAt: { 4: 0.5, 1: 0.9 } },
      }),
    )
    expect(actor.calls).toHaveLength(4 * 2 * 4)
    expect(actor.calls.every((c) => c.context.protocol === 'independent')).toBe(true)
    const samples = [
      { taskId: 'a', n: 8, c: 3 },
      { taskId: 'b', n: 8, c: 0 },
      { taskId: 'c', n: 8, c: 8 },
      { taskId: 'd', n: 8, c: 1 },
    ]
    const expected = passAtCurve(samples, 4)
    expect(summary.passAt).toHaveLength(4)
    summary.passAt?.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 12))
    passHatCurve(samples, 4).forEach((v, i) => expect(summary.passHat?.[i]).toBeCloseTo(v, 12))
    // G-Pass@k_τ beside them: each τ's curve and its interval at K, from the same samples.
    expect(summary.gPass?.map((g) => g.tau)).toEqual([0.5, 0.75])
    for (const g of summary.gPass!) {
      gPassCurve(samples, 4, g.tau).forEach((v, i) => expect(g.curve[i]).toBeCloseTo(v, 12))
      expect(g.atK.point).toBeCloseTo(gPassInterval(samples, 4, g.tau).point, 12)
    }
    expect(summary.perTask.map((p) => [p.taskId, p.samples, p.passes])).toEqual(
      samples.map((s) => [s.taskId, s.n, s.c]),
    )
    // seqAt of an independent cell: "solved by sample k".
    const firstPass = trajectories.map((t) => t.firstSuccess)
    expect(firstPass).toEqual([2, 3, null, null, 1, 1, 1, null])
    expect(summary.seqAt).toEqual(
      seqAtCurve(
        [
          { taskId: 'a', firstSuccess: [2, 3] },
          { taskId: 'b', firstSuccess: [null, null] },
          { taskId: 'c', firstSuccess: [1, 1] },
          { taskId: 'd', firstSuccess: [1, null] },
        ],
        4,
      ),
    )
    expect(summary.statistics.gain?.value).toBeCloseTo(expected[3]! - expected[0]!, 12)
    expect(summary.passAtInterval?.point).toBeCloseTo(expected[3]!, 12)
    expect(summary.statistics.egs).toBeUndefined()
    expect(summary.statistics.unmodifiedRevisions).toBeUndefined()
    expect(summary.mode).toBe('independent')
    expect(summary.protocol).toMatchObject({
      kind: 'independent',
      feedback: null,
      history: null,
      budgetDisclosed: false,
    })
    const four = summary.thresholds.find((t) => t.k === 4)
    const one = summary.thresholds.find((t) => t.k === 1)
    expect(four).toMatchObject({ metric: 'passAt', k: 4, pass: true })
    expect(four?.message).toMatch(/^Pass@4 = \d+\.\d% ≥ 50\.0%$/)
    expect(one).toMatchObject({ metric: 'passAt', k: 1, pass: false })
    expect(one?.message).toContain('below the required 90.0%')
    expect(CellSummarySchema.safeParse(summary).success).toBe(true)
    for (const t of trajectories) expect(TrajectorySchema.safeParse(t).success).toBe(true)
  })
})
