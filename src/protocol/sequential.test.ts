import { describe, expect, it } from 'vitest'
import type { FeedbackInput, FeedbackMode } from '../feedback/feedback-mode.js'
import { binary } from '../feedback/binary.js'
import type { CallContext, ChatMessage, ChatModel, Usage } from '../models/chat-model.js'
import { addUsage, ZERO_USAGE } from '../models/chat-model.js'
import { totals } from './attempt.js'
import type { Verdict, Verifier } from '../verifiers/verifier.js'
import { fullHistory, lastHistory, summaryHistory, type HistoryPolicy } from './history.js'
import { defaultPromptBuilder } from './prompt-builder.js'
import { runSequential, type SequentialInput } from './sequential.js'
import type { Task } from './task.js'

// ---- small doubles: no Python, no network ------------------------------------------------------

const USAGE: Usage = { inputTokens: 10, outputTokens: 3, cacheReadTokens: 1, cacheWriteTokens: 0 }

interface Recorded {
  messages: ChatMessage[]
  context: CallContext
}

/** Answers from a list, in order; records a copy of every request. */
function scriptedModel(
  answers: readonly (string | Error)[],
  options: { id?: string; usage?: Usage; costUsd?: number } = {},
) {
  const calls: Recorded[] = []
  const id = options.id ?? 'scripted'
  const model: ChatModel = {
    id,
    descriptor: { provider: 'test', model: id, params: {} },
    async chat({ messages, context }) {
      calls.push({ messages: messages.map((m) => ({ ...m })), context: { ...context } })
      const next = answers[calls.length - 1]
      if (next === undefined) throw new Error(`${id} ran out of answers at call ${calls.length}`)
      if (next instanceof Error) throw next
      return {
        text: next,
        usage: options.usage ?? USAGE,
        latencyMs: 1,
        finishReason: 'stop',
        costUsd: options.costUsd ?? 0.01,
      }
    },
  }
  return { model, calls }
}

function verdictFor(answer: string, target: string): Verdict {
  const pass = answer.trim() === target
  return {
    pass,
    diagnostics: {
      outcome: pass ? 'passed' : 'failed',
      summary: pass ? 'all tests passed' : `1 of 1 tests failed`,
      tests: [
        {
          index: 0,
          source: `assert solve() == ${JSON.stringify(target)}`,
          pass,
          call: 'solve()',
          expected: JSON.stringify(target),
          actual: JSON.stringify(answer),
        },
      ],
    },
  }
}

/** Passes when the trimmed answer equals `target`. */
function targetVerifier(target = 'OK', extra: Partial<Verifier> = {}): Verifier & { seen: string[] } {
  const seen: string[] = []
  return {
    name: 'equals',
    version: '1',
    settings: { target },
    seen,
    async verify(_task, answer) {
      seen.push(answer)
      return verdictFor(answer, target)
    },
    ...extra,
  }
}

/** Feedback that quotes the failed answer, so tests can find it in later prompts. */
function echoFeedback(extra: { usage?: Usage; costUsd?: number } = {}) {
  const calls = extra.usage
    ? [
        {
          role: 'critic' as const,
          usage: extra.usage,
          latencyMs: 0,
          costUsd: extra.costUsd ?? null,
          costUsdWithoutCache: extra.costUsd ?? null,
          replayed: false,
        },
      ]
    : undefined
  const inputs: FeedbackInput[] = []
  const mode: FeedbackMode = {
    kind: 'verifier',
    name: 'echo',
    version: '1',
    settings: {},
    async render(input) {
      inputs.push(input)
      return { kind: 'verifier', text: `FEEDBACK#${input.attempt}: "${input.answer}" is wrong`, calls }
    },
  }
  return { mode, inputs }
}

const TASK: Task = { id: 'task-1', prompt: 'Reply with OK.' }

function run(input: Partial<SequentialInput> & Pick<SequentialInput, 'actor'>) {
  return runSequential({
    task: TASK,
    repeat: 0,
    verifier: targetVerifier(),
    feedback: binary(),
    history: fullHistory,
    promptBuilder: defaultPromptBuilder,
    budget: 5,
    discloseBudget: false,
    ...input,
  })
}

const roles = (messages: readonly ChatMessage[]) => messages.map((m) => m.role)

// ---- the loop ---------------------------------------------------------------------------------

describe('runSequential: stopping', () => {
  it('stops at the first success: no more actor calls, firstSuccess = t', async () => {
    const actor = scriptedModel(['BAD', 'BAD', 'OK', 'OK', 'OK'])
    const outcome = await run({ actor: actor.model })
    expect(outcome.firstSuccess).toBe(3)
    expect(outcome.error).toBeNull()
    expect(outcome.attempts.map((a) => a.index)).toEqual([1, 2, 3])
    expect(actor.calls).toHaveLength(3)
    expect(outcome.attempts.map((a) => a.verdict.pass)).toEqual([false, false, true])
    // The passing attempt gets no feedback.
    expect(outcome.attempts[2]?.feedback).toBeNull()
  })

  it('solves on the first attempt with a single call', async () => {
    const actor = scriptedModel(['OK'])
    const outcome = await run({ actor: actor.model })
    expect(outcome.firstSuccess).toBe(1)
    expect(actor.calls).toHaveLength(1)
    expect(outcome.attempts[0]?.unmodified).toBeNull()
  })

  it('exhausts the budget: K attempts, firstSuccess null, no error', async () => {
    const actor = scriptedModel(['B1', 'B2', 'B3', 'B4'])
    const outcome = await run({ actor: actor.model, budget: 3 })
    expect(outcome.firstSuccess).toBeNull()
    expect(outcome.error).toBeNull()
    expect(outcome.attempts).toHaveLength(3)
    expect(actor.calls).toHaveLength(3)
  })

  it('renders no feedback after the last attempt', async () => {
    const fb = echoFeedback()
    const actor = scriptedModel(['B1', 'B2', 'B3'])
    const outcome = await run({ actor: actor.model, feedback: fb.mode, budget: 3 })
    expect(fb.inputs.map((i) => i.attempt)).toEqual([1, 2])
    expect(outcome.attempts.map((a) => a.feedback?.text ?? null)).toEqual([
      'FEEDBACK#1: "B1" is wrong',
      'FEEDBACK#2: "B2" is wrong',
      null,
    ])
    expect(outcome.attempts[0]?.feedback?.kind).toBe('verifier')
  })

  it('with budget 1 makes one call and renders no feedback', async () => {
    const fb = echoFeedback()
    const actor = scriptedModel(['B1'])
    const outcome = await run({ actor: actor.model, feedback: fb.mode, budget: 1 })
    expect(outcome.attempts).toHaveLength(1)
    expect(fb.inputs).toHaveLength(0)
  })

  it('records the actor response and verdict on each attempt', async () => {
    const actor = scriptedModel(['BAD', 'OK'], { costUsd: 0.25 })
    const outcome = await run({ actor: actor.model })
    const [first, second] = outcome.attempts
    expect(first).toMatchObject({
      index: 1,
      answer: 'BAD',
      finishReason: 'stop',
      usage: USAGE,
      costUsd: 0.25,
      latencyMs: 1,
    })
    expect(first?.verdict.diagnostics.tests?.[0]?.actual).toBe('"BAD"')
    expect(second).toMatchObject({ index: 2, answer: 'OK', feedback: null })
  })

  it('keeps an unknown actor cost as null', async () => {
    const model: ChatModel = {
      id: 'free',
      descriptor: { provider: 'test', model: 'free', params: {} },
      async chat() {
        return { text: 'OK', usage: ZERO_USAGE, latencyMs: 0, finishReason: 'length' }
      },
    }
    const outcome = await run({ actor: model })
    expect(outcome.attempts[0]?.costUsd).toBeNull()
    expect(outcome.attempts[0]?.finishReason).toBe('length')
  })
})

describe('runSequential: what the actor and the feedback see', () => {
  it('passes a sequential actor context with the task id, attempt and repeat (never the task: only its prompt, a simulation script and the last feedback travel)', async () => {
    const actor = scriptedModel(['B1', 'OK'])
    await run({ actor: actor.model, repeat: 4 })
    const prompt = 'Reply with OK.'
    expect(actor.calls.map((c) => c.context)).toEqual([
      { role: 'actor', taskId: 'task-1', attempt: 1, repeat: 4, protocol: 'sequential', prompt },
      {
        role: 'actor',
        taskId: 'task-1',
        attempt: 2,
        repeat: 4,
        protocol: 'sequential',
        prompt,
        feedback: 'Your answer is incorrect.',
      },
    ])
  })

  it('full history shows every (answer, feedback) pair in order with alternating roles', async () => {
    const fb = echoFeedback()
    const actor = scriptedModel(['B1', 'B2', 'B3', 'B4'])
    await run({ actor: actor.model, feedback: fb.mode, budget: 4 })
    expect(actor.calls[0]?.messages).toEqual([{ role: 'user', content: 'Reply with OK.' }])
    const fourth = actor.calls[3]?.messages ?? []
    expect(roles(fourth)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user'])
    expect(fourth.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(['B1', 'B2', 'B3'])
    const replies = fourth
      .slice(1)
      .filter((m) => m.role === 'user')
      .map((m) => m.content)
    expect(replies.map((r) => r.split('\n')[0])).toEqual([
      'FEEDBACK#1: "B1" is wrong',
      'FEEDBACK#2: "B2" is wrong',
      'FEEDBACK#3: "B3" is wrong',
    ])
    // Each call is the previous one plus exactly one new (answer, feedback) pair.
    for (let t = 1; t < actor.calls.length; t++) {
      expect(actor.calls[t]?.messages.slice(0, -2)).toEqual(actor.calls[t - 1]?.messages)
    }
  })

  it('last history shows only the latest (answer, feedback) pair', async () => {
    const fb = echoFeedback()
    const actor = scriptedModel(['B1', 'B2', 'B3'])
    await run({ actor: actor.model, feedback: fb.mode, history: lastHistory, budget: 3 })
    const third = actor.calls[2]?.messages ?? []
    expect(roles(third)).toEqual(['user', 'assistant', 'user'])
    expect(third[0]?.content).toBe('Reply with OK.')
    expect(third[1]?.content).toBe('B2')
    expect(third[2]?.content).toContain('FEEDBACK#2: "B2" is wrong')
    expect(JSON.stringify(third)).not.toContain('B1')
  })

  it('the revision user turn carries the feedback text and asks for a revision', async () => {
    const actor = scriptedModel(['B1', 'OK'])
    await run({ actor: actor.model, feedback: binary({ text: 'Nope, that failed.' }) })
    const reply = actor.calls[1]?.messages.at(-1)
    expect(reply?.role).toBe('user')
    expect(reply?.content.startsWith('Nope, that failed.')).toBe(true)
    expect(reply?.content).toMatch(/revise/i)
    expect(reply?.content).not.toMatch(/attempts left/)
  })

  it('a disclosed budget is stated in the prompt and in each revision turn', async () => {
    const actor = scriptedModel(['B1', 'B2', 'OK'])
    await run({ actor: actor.model, budget: 4, discloseBudget: true })
    expect(actor.calls[0]?.messages[0]?.content).toContain('up to 4 attempts')
    expect(actor.calls[1]?.messages.at(-1)?.content).toContain('You have 3 attempts left.')
    expect(actor.calls[2]?.messages.at(-1)?.content).toContain('You have 2 attempts left.')
  })

  it('gives the feedback mode the failed answer, its verdict and the conversation so far', async () => {
    const fb = echoFeedback()
    const actor = scriptedModel(['B1', 'B2', 'OK'])
    await run({ actor: actor.model, feedback: fb.mode, repeat: 2 })
    const second = fb.inputs[1]
    expect(second).toMatchObject({ attempt: 2, repeat: 2, answer: 'B2', task: TASK })
    expect(second?.verdict.pass).toBe(false)
    expect(second?.history.at(-1)).toEqual({ role: 'assistant', content: 'B2' })
    expect(second?.history.slice(0, -1)).toEqual(actor.calls[1]?.messages)
  })

  it('does not mutate the task prompt', async () => {
    const task: Task = {
      id: 'chat',
      prompt: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: 'Reply with OK.' },
      ],
    }
    const before = structuredClone(task)
    const summariser = scriptedModel(['S1', 'S2'])
    await run({
      actor: scriptedModel(['B1', 'B2', 'B3', 'B4']).model,
      task,
      history: summaryHistory(summariser.model),
      budget: 4,
      discloseBudget: true,
    })
    expect(task).toEqual(before)
  })
})

describe('runSequential: summary history', () => {
  const SUMMARY_USAGE: Usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 5 }

  it('summarises from attempt 3 on, with role summariser, keeping the latest pair verbatim', async () => {
    const fb = echoFeedback()
    const summariser = scriptedModel(['SUMMARY-ONE', 'SUMMARY-TWO'], { id: 'summ', usage: SUMMARY_USAGE, costUsd: 0.5 })
    const actor = scriptedModel(['A1', 'A2', 'A3', 'A4'])
    const outcome = await run({
      actor: actor.model,
      feedback: fb.mode,
      history: summaryHistory(summariser.model),
      budget: 4,
      repeat: 1,
    })
    expect(outcome.attempts).toHaveLength(4)

    expect(summariser.calls.map((c) => c.context)).toEqual([
      { role: 'summariser', taskId: 'task-1', attempt: 3, repeat: 1, protocol: 'sequential' },
      { role: 'summariser', taskId: 'task-1', attempt: 4, repeat: 1, protocol: 'sequential' },
    ])
    // The summariser sees the earlier attempts and their feedback, not the latest one.
    const firstRequest = JSON.stringify(summariser.calls[0]?.messages)
    expect(firstRequest).toContain('A1')
    expect(firstRequest).toContain('FEEDBACK#1')
    expect(firstRequest).not.toContain('A2')
    const secondRequest = JSON.stringify(summariser.calls[1]?.messages)
    expect(secondRequest).toContain('FEEDBACK#2')
    expect(secondRequest).not.toContain('A3')

    // Attempt 2 sees the plain conversation; attempt 3 the summary plus the latest pair verbatim.
    expect(roles(actor.calls[1]?.messages ?? [])).toEqual(['user', 'assistant', 'user'])
    const third = actor.calls[2]?.messages ?? []
    expect(roles(third)).toEqual(['user', 'assistant', 'user'])
    expect(third[0]?.content).toContain('Reply with OK.')
    expect(third[0]?.content).toContain('SUMMARY-ONE')
    expect(third[1]?.content).toBe('A2')
    expect(third[2]?.content).toContain('FEEDBACK#2: "A2" is wrong')
    expect(JSON.stringify(third)).not.toContain('A1')
    const fourth = actor.calls[3]?.messages ?? []
    expect(fourth[0]?.content).toContain('SUMMARY-TWO')
    expect(fourth[1]?.content).toBe('A3')
  })

  it("records the summariser's calls on the attempt they served", async () => {
    const summariser = scriptedModel(['S1', 'S2'], { usage: SUMMARY_USAGE, costUsd: 0.5 })
    const actor = scriptedModel(['A1', 'A2', 'A3', 'OK'])
    const outcome = await run({ actor: actor.model, history: summaryHistory(summariser.model), budget: 4 })
    expect(outcome.firstSuccess).toBe(4)
    expect(outcome.attempts.map((a) => a.helperCalls.map((c) => [c.role, c.usage, c.costUsd]))).toEqual([
      [],
      [],
      [['summariser', SUMMARY_USAGE, 0.5]],
      [['summariser', SUMMARY_USAGE, 0.5]],
    ])
    expect(totals(outcome.attempts).byRole.summariser).toEqual({
      usage: addUsage(SUMMARY_USAGE, SUMMARY_USAGE),
      usageUnknownCalls: 0,
      costUsd: 1,
      calls: 2,
    })
  })

  it("keeps the summariser's spend when the actor or the verifier then fails in that attempt", async () => {
    const summariser = scriptedModel(['S1', 'S2'], { usage: SUMMARY_USAGE, costUsd: 0.5 })
    // Attempt 3 is summarised, then the actor fails.
    const actorDown = await run({
      actor: scriptedModel(['A1', 'A2', new Error('HTTP 500')]).model,
      history: summaryHistory(summariser.model),
      budget: 4,
    })
    expect(actorDown.error).toMatchObject({ stage: 'actor', attempt: 3 })
    expect(actorDown.error?.calls?.map((c) => [c.role, c.costUsd])).toEqual([['summariser', 0.5]])
    // Attempt 3 is summarised and answered, then the verifier fails.
    const verifier = targetVerifier('OK', {
      async verify(_task, answer) {
        if (answer === 'A3') throw new Error('python missing')
        return verdictFor(answer, 'OK')
      },
    })
    const verifierDown = await run({
      actor: scriptedModel(['A1', 'A2', 'A3'], { costUsd: 0.25 }).model,
      verifier,
      history: summaryHistory(scriptedModel(['S1'], { costUsd: 0.5 }).model),
      budget: 4,
    })
    expect(verifierDown.error?.calls?.map((c) => [c.role, c.costUsd])).toEqual([
      ['summariser', 0.5],
      ['actor', 0.25],
    ])
  })

  it("adds a critic's calls after the summariser's", async () => {
    const critic: Usage = { inputTokens: 7, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 }
    const summariser = scriptedModel(['S1'], { usage: SUMMARY_USAGE, costUsd: 0.5 })
    const fb = echoFeedback({ usage: critic, costUsd: 0.125 })
    const outcome = await run({
      actor: scriptedModel(['A1', 'A2', 'A3', 'OK']).model,
      feedback: fb.mode,
      history: summaryHistory(summariser.model),
      budget: 4,
    })
    expect(outcome.attempts[0]?.helperCalls.map((c) => c.role)).toEqual(['critic'])
    expect(outcome.attempts[2]?.helperCalls.map((c) => [c.role, c.costUsd])).toEqual([
      ['summariser', 0.5],
      ['critic', 0.125],
    ])
    expect(totals(outcome.attempts).byRole.critic?.calls).toBe(3)
  })

  it('an unknown summariser cost makes the helper cost unknown', async () => {
    const summariser: ChatModel = {
      id: 's',
      descriptor: { provider: 'test', model: 's', params: {} },
      async chat() {
        return { text: 'S', usage: SUMMARY_USAGE, latencyMs: 0, finishReason: 'stop' }
      },
    }
    const outcome = await run({
      actor: scriptedModel(['A1', 'A2', 'A3']).model,
      history: summaryHistory(summariser),
      budget: 3,
    })
    expect(outcome.attempts[2]?.helperCalls[0]?.costUsd).toBeNull()
    expect(totals(outcome.attempts).costUsd).toBeNull()
  })
})

describe('runSequential: unmodified revisions', () => {
  it("flags a revision equal to the previous answer after the verifier's normalise", async () => {
    const verifier = targetVerifier('OK', { normalise: (a: string) => a.replace(/\s+/g, '').toLowerCase() })
    const actor = scriptedModel(['def f(): x', 'DEF F():X', 'other', 'other ', 'OK'])
    const outcome = await run({ actor: actor.model, verifier })
    expect(outcome.attempts.map((a) => a.unmodified)).toEqual([null, true, false, true, false])
  })

  it('falls back to trimming when the verifier has no normalise', async () => {
    const actor = scriptedModel(['  x', 'x\n', 'X'])
    const outcome = await run({ actor: actor.model, budget: 3 })
    expect(outcome.attempts.map((a) => a.unmodified)).toEqual([null, true, false])
  })

  // BUG (sequential.ts:38, cell.ts:134): `verifier.normalise` is read off the object and called
  // unbound, so a class-based verifier whose normalise uses `this` throws a TypeError.
  it('calls normalise as a method of the verifier (a class verifier may use `this`)', async () => {
    class SquashingVerifier implements Verifier {
      name = 'squash'
      version = '1'
      settings = {}
      private squash(answer: string): string {
        return answer.replace(/\s+/g, '')
      }
      normalise(answer: string): string {
        return this.squash(answer)
      }
      async verify(_task: Task, answer: string): Promise<Verdict> {
        return verdictFor(answer, 'OK')
      }
    }
    const outcome = await run({
      actor: scriptedModel(['a b', 'ab']).model,
      verifier: new SquashingVerifier(),
      budget: 2,
    })
    expect(outcome.attempts.map((a) => a.unmodified)).toEqual([null, true])
  })
})

describe('runSequential: normalise is only needed for revisions', () => {
  it('never normalises when the first attempt passes, and normalises each answer once after that', async () => {
    const normalised: string[] = []
    const verifier = targetVerifier('OK', {
      normalise: (a: string) => {
        normalised.push(a)
        return a.trim()
      },
    })
    expect((await run({ actor: scriptedModel(['OK']).model, verifier })).firstSuccess).toBe(1)
    expect(normalised).toEqual([])
    await run({ actor: scriptedModel(['a', 'b', 'c', 'OK']).model, verifier })
    // Attempt 2 normalises its answer and then the first; later attempts only their own.
    expect(normalised).toEqual(['b', 'a', 'c', 'OK'])
  })
})

describe('runSequential: infrastructure errors', () => {
  it('an actor throwing ends the trajectory as an actor error at that attempt, keeping earlier attempts', async () => {
    const actor = scriptedModel(['B1', new Error('rate limited for good')])
    const outcome = await run({ actor: actor.model })
    expect(outcome.error).toEqual({ stage: 'actor', attempt: 2, message: 'rate limited for good' })
    expect(outcome.firstSuccess).toBeNull()
    expect(outcome.attempts.map((a) => a.answer)).toEqual(['B1'])
    expect(outcome.attempts[0]?.feedback?.text).toBe('Your answer is incorrect.')
  })

  it('a verifier throwing is a verifier error; the attempt is not kept, the actor call it had made is', async () => {
    let calls = 0
    const verifier = targetVerifier('OK', {
      async verify(_task, answer) {
        calls++
        if (calls === 1) throw new Error('python missing')
        return verdictFor(answer, 'OK')
      },
    })
    const outcome = await run({ actor: scriptedModel(['B1', 'OK']).model, verifier })
    expect(outcome.error).toMatchObject({ stage: 'verifier', attempt: 1, message: 'python missing' })
    expect(outcome.error?.calls?.map((c) => c.role)).toEqual(['actor'])
    expect(outcome.attempts).toEqual([])
  })

  it('a feedback mode throwing is a feedback error at the failed attempt, which is kept', async () => {
    const mode: FeedbackMode = {
      kind: 'critic',
      name: 'broken',
      version: '1',
      settings: {},
      async render() {
        throw new Error('critic down')
      },
    }
    const actor = scriptedModel(['B1', 'OK'])
    const outcome = await run({ actor: actor.model, feedback: mode })
    expect(outcome.error).toEqual({ stage: 'feedback', attempt: 1, message: 'critic down' })
    expect(outcome.attempts).toHaveLength(1)
    expect(outcome.attempts[0]?.feedback).toBeNull()
    expect(actor.calls).toHaveLength(1)
  })

  it('a summariser throwing is a history error at the attempt it was building', async () => {
    const summariser = scriptedModel([new Error('summariser 500')])
    const outcome = await run({
      actor: scriptedModel(['B1', 'B2', 'OK']).model,
      history: summaryHistory(summariser.model),
    })
    expect(outcome.error).toEqual({ stage: 'history', attempt: 3, message: 'summariser 500' })
    expect(outcome.attempts.map((a) => a.answer)).toEqual(['B1', 'B2'])
  })

  it('a non-Error throw keeps its text as the message', async () => {
    const policy: HistoryPolicy = {
      name: 'odd',
      settings: {},
      async build() {
        throw 'plain string failure'
      },
    }
    const outcome = await run({ actor: scriptedModel(['OK']).model, history: policy })
    expect(outcome.error).toEqual({ stage: 'history', attempt: 1, message: 'plain string failure' })
  })
})

describe('runSequential: extension points answering without a promise', () => {
  it('takes a verdict, feedback and history returned directly, or through any thenable, as it takes promises', async () => {
    const thenable = <T>(value: T): PromiseLike<T> => ({ then: (resolve) => Promise.resolve(value).then(resolve) })
    for (const wrap of [<T>(v: T) => v, thenable, <T>(v: T) => Promise.resolve(v)]) {
      const verifier: Verifier = {
        name: 'equals',
        version: '1',
        settings: {},
        verify: (_task, answer) => wrap(verdictFor(answer, 'OK')),
      }
      const feedback: FeedbackMode = {
        kind: 'binary',
        name: 'wrapped',
        version: '1',
        settings: {},
        render: (input) => wrap({ kind: 'binary', text: `no: ${input.answer}` }),
      }
      const history: HistoryPolicy = {
        name: 'wrapped',
        settings: {},
        build: (input) =>
          wrap({
            messages: [
              ...input.prompt,
              ...input.turns.flatMap((t) => [
                { role: 'assistant' as const, content: t.answer },
                { role: 'user' as const, content: t.reply },
              ]),
            ],
            calls: [],
          }),
      }
      const actor = scriptedModel(['B1', 'B2', 'OK'])
      const outcome = await run({ actor: actor.model, verifier, feedback, history })
      expect(outcome).toMatchObject({ firstSuccess: 3, error: null })
      expect(outcome.attempts.map((a) => a.feedback?.text ?? null)).toEqual(['no: B1', 'no: B2', null])
      expect(actor.calls[2]?.messages.map((m) => m.content)).toEqual([
        'Reply with OK.',
        'B1',
        expect.stringMatching(/^no: B1\n/),
        'B2',
        expect.stringMatching(/^no: B2\n/),
      ])
    }
  })

  it('a synchronous throw is the same stage failure as a rejection', async () => {
    const boom = (what: string) => () => {
      throw new Error(`${what} broke`)
    }
    const verifier: Verifier = { name: 'v', version: '1', settings: {}, verify: boom('verifier') }
    const feedback: FeedbackMode = { kind: 'binary', name: 'f', version: '1', settings: {}, render: boom('feedback') }
    const history: HistoryPolicy = { name: 'h', settings: {}, build: boom('history') }
    expect((await run({ actor: scriptedModel(['B1']).model, verifier })).error).toMatchObject({
      stage: 'verifier',
      attempt: 1,
      message: 'verifier broke',
    })
    expect((await run({ actor: scriptedModel(['B1']).model, feedback })).error).toMatchObject({
      stage: 'feedback',
      attempt: 1,
      message: 'feedback broke',
    })
    expect((await run({ actor: scriptedModel(['B1']).model, history })).error).toMatchObject({
      stage: 'history',
      attempt: 1,
      message: 'history broke',
    })
  })

  it('a rejecting thenable is the same stage failure as a rejected promise', async () => {
    const rejecting: PromiseLike<never> = {
      then: (_resolve, reject) => Promise.reject(new Error('grader down')).then(undefined, reject),
    }
    const verifier: Verifier = { name: 'v', version: '1', settings: {}, verify: () => rejecting }
    expect((await run({ actor: scriptedModel(['B1']).model, verifier })).error).toMatchObject({
      stage: 'verifier',
      attempt: 1,
      message: 'grader down',
    })
  })

  it('an abort followed by a synchronous throw rejects with the abort reason at every stage', async () => {
    for (const stage of ['verifier', 'feedback', 'history'] as const) {
      const controller = new AbortController()
      const reason = new Error(`aborted during ${stage}`)
      const abortThenThrow = () => {
        controller.abort(reason)
        throw new Error('interrupted')
      }
      const overrides: Partial<SequentialInput> =
        stage === 'verifier'
          ? { verifier: { name: 'v', version: '1', settings: {}, verify: abortThenThrow } }
          : stage === 'feedback'
            ? { feedback: { kind: 'binary', name: 'f', version: '1', settings: {}, render: abortThenThrow } }
            : { history: { name: 'h', settings: {}, build: abortThenThrow } }
      await expect(
        run({ actor: scriptedModel(['B1', 'B2']).model, signal: controller.signal, ...overrides }),
      ).rejects.toBe(reason)
    }
  })
})

describe('runSequential: aborts', () => {
  it('rejects with the abort reason instead of recording a trajectory error', async () => {
    const controller = new AbortController()
    const reason = new Error('test timed out')
    let calls = 0
    const actor: ChatModel = {
      id: 'aborting',
      descriptor: { provider: 'test', model: 'aborting', params: {} },
      async chat() {
        calls++
        if (calls === 2) {
          controller.abort(reason)
          throw new Error('socket hang up')
        }
        return { text: 'BAD', usage: USAGE, latencyMs: 0, finishReason: 'stop' }
      },
    }
    await expect(run({ actor, signal: controller.signal })).rejects.toBe(reason)
    expect(calls).toBe(2)
  })

  it('an already aborted signal rejects before any actor call', async () => {
    const controller = new AbortController()
    controller.abort(new Error('cancelled'))
    const actor = scriptedModel(['OK'])
    await expect(run({ actor: actor.model, signal: controller.signal })).rejects.toThrow('cancelled')
    expect(actor.calls).toHaveLength(0)
  })

  it('an abort during feedback rejects too', async () => {
    const controller = new AbortController()
    const mode: FeedbackMode = {
      kind: 'critic',
      name: 'slow',
      version: '1',
      settings: {},
      async render() {
        controller.abort(new Error('ctrl-c'))
        throw new Error('fetch aborted')
      },
    }
    await expect(
      run({ actor: scriptedModel(['B1', 'OK']).model, feedback: mode, signal: controller.signal }),
    ).rejects.toThrow('ctrl-c')
  })
})
