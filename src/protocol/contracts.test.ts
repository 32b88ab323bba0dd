// The loop's checked extension points: what a user's verifier, feedback mode, history policy or
// chat model returns is checked where it enters the loop, and a malformed value fails the cell with
// a ComponentError naming the component, the field and the fix: never a pass, never a silent
// failure, never a crash far away (a reporter, readTrajectories).
import { describe, expect, it } from 'vitest'
import { critic } from '../feedback/critic.js'
import { binary } from '../feedback/binary.js'
import type { FeedbackMode } from '../feedback/feedback-mode.js'
import { ZERO_USAGE, type ChatModel, type ChatResponse } from '../models/chat-model.js'
import { isComponentError } from '../core/component-error.js'
import { fakeModel } from '../verifiers/rubric/test-helpers.js'
import { rubric } from '../verifiers/rubric/rubric-verifier.js'
import type { Verifier } from '../verifiers/verifier.js'
import { TrajectorySchema, type Trajectory } from '../core/schemas.js'
import { runCell } from './cell.js'
import { fullHistory, type HistoryPolicy } from './history.js'
import { runIndependent } from './independent.js'
import { defaultPromptBuilder, type PromptBuilder } from './prompt-builder.js'
import { runSequential, type SequentialInput } from './sequential.js'
import type { Task } from './task.js'
import { cellSpec } from './test-helpers.js'

const TASK: Task = { id: 'task-1', prompt: 'Reply with OK.' }

/** Answers `text` every time; counts its calls. */
function constantActor(
  text = 'NO',
  response: Partial<ChatResponse> | (() => unknown) = {},
): ChatModel & { calls: number } {
  const model = {
    id: 'const',
    descriptor: { provider: 'test', model: 'const', params: {} },
    calls: 0,
    async chat() {
      model.calls++
      return typeof response === 'function'
        ? (response() as ChatResponse)
        : { text, usage: ZERO_USAGE, latencyMs: 0, finishReason: 'stop' as const, ...response }
    },
  }
  return model
}

function verifierReturning(value: unknown, name = 'custom'): Verifier {
  return { name, version: '1', settings: {}, verify: () => value as never }
}

const good = (pass: boolean) => ({
  pass,
  diagnostics: { outcome: pass ? 'passed' : 'failed', summary: pass ? 'ok' : 'wrong' },
})

function sequential(input: Partial<SequentialInput>) {
  return runSequential({
    task: TASK,
    repeat: 0,
    actor: constantActor(),
    verifier: verifierReturning(good(false)),
    feedback: binary(),
    history: fullHistory,
    promptBuilder: defaultPromptBuilder,
    budget: 3,
    discloseBudget: false,
    ...input,
  })
}

async function componentError(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    (value) => {
      throw new Error(`resolved: ${JSON.stringify(value)}`)
    },
    (e: unknown) => e,
  )
  expect(isComponentError(error)).toBe(true)
  return error as Error
}

describe('a malformed verdict', () => {
  it.each([
    ['without diagnostics.outcome', { pass: false, diagnostics: { summary: 'wrong' } }, /diagnostics\.outcome: /],
    ['without diagnostics', { pass: true }, /diagnostics: .*Fix: add `diagnostics: \{ outcome, summary \}`/],
    ["with pass: 'yes'", { pass: 'yes', diagnostics: { outcome: 'passed', summary: 'ok' } }, /pass: .*\(got "yes"\)/],
    [
      'resolved by an async verify',
      Promise.resolve({ pass: 1, diagnostics: { outcome: 'failed', summary: '' } }),
      /pass: .*\(got 1\)/,
    ],
  ])(
    '%s fails the trajectory out of the loop (sequential and independent), naming the verifier',
    async (_, verdict, message) => {
      for (const run of [
        () => sequential({ verifier: verifierReturning(verdict) }),
        () =>
          runIndependent({
            task: TASK,
            repeat: 0,
            actor: constantActor(),
            verifier: verifierReturning(verdict),
            promptBuilder: defaultPromptBuilder,
            budget: 3,
          }),
      ]) {
        const error = await componentError(run())
        expect(error.message).toMatch(
          /^verifier "custom"@1 returned a malformed verdict for task "task-1", attempt 1: /,
        )
        expect(error.message).toMatch(message)
      }
    },
  )

  it('fails the cell at once: no trajectory is counted, and the rest stop spending', async () => {
    const tasks: Task[] = Array.from({ length: 20 }, (_, i) => ({ id: `t${i}`, prompt: `p${i}` }))
    const actor = constantActor()
    // Well-formed for every task but one: one bug fails the whole cell.
    const verifier: Verifier = {
      name: 'flaky-shape',
      version: '1',
      settings: {},
      verify: (task) =>
        (task.id === 't3' ? { pass: 'yes', diagnostics: { outcome: 'passed', summary: 'ok' } } : good(false)) as never,
    }
    const written: Trajectory[] = []
    const error = await componentError(
      runCell(
        cellSpec(tasks, actor, { verifier, budget: 3, concurrency: 2, onTrajectory: (t) => void written.push(t) }),
      ),
    )
    expect(error.message).toMatch(
      /^verifier "flaky-shape"@1 returned a malformed verdict for task "t3", attempt 1: pass: /,
    )
    // Every trajectory written is well-formed and none holds the bad verdict.
    for (const t of written) {
      expect(TrajectorySchema.safeParse(t).success).toBe(true)
      expect(t.taskId).not.toBe('t3')
    }
    expect(actor.calls).toBeLessThan(20 * 3)
  })

  it('is told apart from a verifier that throws, which stays an infrastructure error of the trajectory', async () => {
    const throwing: Verifier = {
      name: 'down',
      version: '1',
      settings: {},
      verify: () => Promise.reject(new Error('grader HTTP 503')),
    }
    const outcome = await sequential({ verifier: throwing })
    expect(outcome.error).toMatchObject({ stage: 'verifier', attempt: 1, message: 'grader HTTP 503' })
  })

  it("in a rubric grader's completion fails the cell with the grader's name, not as a grading error", async () => {
    const grader = fakeModel(() => 'x')
    grader.chat = async () =>
      ({ text: '{"met": true}', usage: ZERO_USAGE, latencyMs: 0, finishReason: 'end_turn' }) as never
    const task = { id: 'rx', prompt: 'p', criteria: [{ id: 'calm', text: 'Calm' }] } as Task
    const error = await componentError(sequential({ task, verifier: rubric({ grader }) }))
    expect(error.message).toMatch(
      /^chat model "fake" \(grader, fake:fake-grader\) returned a malformed completion for task "rx", attempt 0: finishReason: .*\(got "end_turn"\)/,
    )
  })

  it("in a rubric predicate's result names the criterion", async () => {
    const task = { id: 'rx', prompt: 'p', criteria: [{ id: 'short', text: 'Short' }] } as Task
    const error = await componentError(
      sequential({ task, verifier: rubric({ predicates: { short: () => 'yes' as never } }) }),
    )
    expect(error.message).toMatch(
      /^verifiers\.rubric\(\) predicate for criterion "short" returned a malformed predicate result for task "rx": \(root\): .*Fix: return true, false or \{ met: boolean, reason\?: string \} at once/,
    )
  })
})

describe('a malformed completion from the actor', () => {
  it.each([
    ['text: null', { text: null }, /text: /],
    ['no usage', { usage: undefined }, /usage: /],
    ['a negative latency', { latencyMs: -5 }, /latencyMs: .*\(got -5\)/],
  ])(
    '%s fails with the model named (it used to crash while adding up tokens, outside the trajectory)',
    async (_, patch, message) => {
      const actor = constantActor('x', patch as Partial<ChatResponse>)
      const error = await componentError(sequential({ actor }))
      expect(error.message).toMatch(
        /^chat model "const" \(actor, test:const\) returned a malformed completion for task "task-1", attempt 1: /,
      )
      expect(error.message).toMatch(message)
      await componentError(
        runIndependent({
          task: TASK,
          repeat: 0,
          actor: constantActor('x', patch as Partial<ChatResponse>),
          verifier: verifierReturning(good(false)),
          promptBuilder: defaultPromptBuilder,
          budget: 2,
        }),
      )
    },
  )

  it('a bare string', async () => {
    const error = await componentError(sequential({ actor: constantActor('x', () => 'just text') }))
    expect(error.message).toMatch(/\(root\): .*chat\(\) must resolve to a completion object/)
  })
})

describe('malformed feedback', () => {
  const mode = (render: FeedbackMode['render']): FeedbackMode => ({
    kind: 'verifier',
    name: 'hand-written',
    version: '3',
    settings: {},
    render,
  })

  it.each([
    ['a bare string', () => 'Try again.', /\(root\): .*not a bare string/],
    ['a non-string text', () => ({ kind: 'verifier', text: { message: 'x' } }), /text: /],
    ['no kind', async () => ({ text: 'x' }), /kind: /],
  ])('%s fails with the mode named, after the attempt it was for', async (_, render, message) => {
    const error = await componentError(sequential({ feedback: mode(render as unknown as FeedbackMode['render']) }))
    expect(error.message).toMatch(
      /^feedback mode "hand-written"@3 returned a malformed feedback for task "task-1", attempt 1: /,
    )
    expect(error.message).toMatch(message)
  })

  it("from a critic's model names the critic model", async () => {
    const model = fakeModel(() => 'x', { id: 'judge' })
    model.chat = async () => ({ text: 'fine', latencyMs: 0, finishReason: 'stop' }) as never
    const error = await componentError(sequential({ feedback: critic({ model, rubric: 'blind', style: 'directive' }) }))
    expect(error.message).toMatch(
      /^chat model "judge" \(critic, fake:fake-grader\) returned a malformed completion for task "task-1", attempt 1: usage: /,
    )
  })
})

describe('a malformed history', () => {
  const policy = (build: HistoryPolicy['build']): HistoryPolicy => ({ name: 'custom-history', settings: {}, build })

  it.each([
    ['a bare message list', ({ prompt }: { prompt: unknown[] }) => prompt, /\(root\): .*not a bare array/],
    ['no calls', ({ prompt }: { prompt: unknown[] }) => ({ messages: prompt }), /calls: /],
    [
      'a message without content',
      async () => ({ messages: [{ role: 'user' }], calls: [] }),
      /messages\[0\]\.content: /,
    ],
  ])('%s fails with the policy named, before the actor is called', async (_, build, message) => {
    const actor = constantActor()
    const error = await componentError(sequential({ actor, history: policy(build as never) }))
    expect(error.message).toMatch(
      /^history policy "custom-history" returned a malformed history for task "task-1", attempt 1: /,
    )
    expect(error.message).toMatch(message)
    expect(actor.calls).toBe(0)
  })
})

describe('a malformed prompt', () => {
  const builder = (patch: Partial<PromptBuilder>): PromptBuilder => ({
    ...defaultPromptBuilder,
    version: 'my-prompts/1',
    ...patch,
  })

  it.each([
    [
      'a bare string',
      () => 'Reply with OK.',
      /\(root\): .*initial\(\) must return the chat messages the actor sees first/,
    ],
    ['no messages', () => [], /\(root\): /],
    ['a message with a number for content', () => [{ role: 'user', content: 42 }], /\[0\]\.content: .*\(got 42\)/],
  ])('%s from initial() fails before the actor is called (sequential and independent)', async (_, initial, message) => {
    for (const independent of [false, true]) {
      const actor = constantActor()
      const promptBuilder = builder({ initial: initial as never })
      const run = independent
        ? runIndependent({
            task: TASK,
            repeat: 0,
            actor,
            verifier: verifierReturning(good(false)),
            promptBuilder,
            budget: 2,
          })
        : sequential({ actor, promptBuilder })
      const error = await componentError(run)
      expect(error.message).toMatch(
        /^prompt builder "my-prompts\/1" returned a malformed prompt for task "task-1", attempt 1: /,
      )
      expect(error.message).toMatch(message)
      expect(actor.calls).toBe(0)
    }
  })

  it('a revision request that is not a string fails with the builder named', async () => {
    const error = await componentError(
      sequential({ promptBuilder: builder({ revision: () => ({ text: 'again' }) as never }) }),
    )
    expect(error.message).toMatch(
      /^prompt builder "my-prompts\/1" returned a malformed revision request for task "task-1", attempt 1: \(root\): got an object\. Fix: revision\(\) must return the text of the next user turn as a string/,
    )
  })
})

describe('well-formed components', () => {
  it('run as before: a good custom verifier, feedback mode and history policy', async () => {
    let n = 0
    const verifier: Verifier = { name: 'ok-at-2', version: '1', settings: {}, verify: () => good(++n === 2) as never }
    const feedback: FeedbackMode = {
      kind: 'binary',
      name: 'terse',
      version: '1',
      settings: {},
      render: () => ({ kind: 'binary', text: 'Wrong.' }),
    }
    const history: HistoryPolicy = {
      name: 'prompt-only',
      settings: {},
      build: ({ prompt }) => ({ messages: prompt, calls: [] }),
    }
    const outcome = await sequential({ verifier, feedback, history })
    expect(outcome).toMatchObject({ firstSuccess: 2, error: null })
    expect(outcome.attempts[0]!.feedback).toEqual({ kind: 'binary', text: 'Wrong.' })
  })
})
