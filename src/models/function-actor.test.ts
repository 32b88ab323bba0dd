import { afterEach, describe, expect, it, vi } from 'vitest'
import { verifierFeedback } from '../feedback/verifier-feedback.js'
import { runCell } from '../protocol/cell.js'
import type { Task } from '../protocol/task.js'
import { cellSpec, saysCorrect } from '../protocol/test-helpers.js'
import { isComponentError } from '../core/component-error.js'
import { fromFunction, type FunctionActorInput } from './function-actor.js'
import { registerSecret } from './redact.js'
import { isBundledSimulation } from './simulated.js'
import { SimulationInCiError } from './simulation-policy.js'

const tasks: Task[] = [
  {
    id: 't1',
    prompt: 'Say CORRECT, eventually.',
    simulation: { difficulty: 0.5, correct: ['CORRECT'], wrong: ['no'] },
  },
  {
    id: 't2',
    prompt: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say CORRECT.' },
    ],
  },
]
const verifierMode = { name: 'verifier', feedback: verifierFeedback() }
afterEach(() => vi.unstubAllEnvs())

describe('actors.fromFunction', () => {
  it("calls the function once per attempt with the task's prompt, the messages, the attempt and the last feedback", async () => {
    const seen: Omit<FunctionActorInput, 'signal'>[] = []
    const app = fromFunction(
      ({ signal, ...input }) => {
        seen.push(input)
        expect(signal).toBeInstanceOf(AbortSignal)
        return input.attempt === 1 ? 'not yet' : 'CORRECT'
      },
      { name: 'echo-app' },
    )
    const { summary, trajectories } = await runCell(
      cellSpec(tasks, app, { verifier: saysCorrect, mode: verifierMode, budget: 3 }),
    )
    expect(summary.seqAt).toEqual([0, 1, 1])
    const t1 = seen.filter((s) => s.taskId === 't1')
    expect(t1.map((s) => [s.prompt, s.attempt, s.feedback, s.repeat])).toEqual([
      ['Say CORRECT, eventually.', 1, null, 0],
      ['Say CORRECT, eventually.', 2, 'expected CORRECT', 0],
    ])
    expect(t1[1]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    // A chat-message prompt is handed on as its last user message.
    expect(seen.find((s) => s.taskId === 't2')?.prompt).toBe('Say CORRECT.')
    // Its answers carry no usage unless it reports some: unknown, never zero.
    expect(trajectories[0]!.attempts[0]!.usage).toBeNull()
    expect(trajectories[0]!.attempts[0]!.costUsd).toBeNull()
  })

  it("counts the usage and cost the app reports for its own calls; the name, version and params are the protocol's actor", async () => {
    const app = fromFunction(
      async () => ({
        answer: 'CORRECT',
        usage: { inputTokens: 120, outputTokens: 8, cacheReadTokens: 100 },
        costUsd: 0.0004,
      }),
      { name: 'invoice-app', version: '3', params: { model: 'gpt-4.1-mini', retrieval: 'bm25' }, id: 'invoices' },
    )
    expect(app.descriptor).toEqual({
      provider: 'function',
      model: 'invoice-app',
      params: { model: 'gpt-4.1-mini', retrieval: 'bm25', version: '3' },
    })
    expect(app.id).toBe('invoices')
    const { summary, trajectories } = await runCell(cellSpec(tasks.slice(0, 1), app, { verifier: saysCorrect }))
    expect(trajectories[0]!.attempts[0]).toMatchObject({
      usage: { inputTokens: 120, outputTokens: 8, cacheReadTokens: 100, cacheWriteTokens: 0 },
      costUsd: 0.0004,
    })
    expect(summary.protocol.actor).toEqual(app.descriptor)
    expect(fromFunction(() => '', { name: 'invoice-app' }).descriptor.params).toEqual({ version: '1' })
  })

  it('fails the cell naming the function and the field when it returns anything else', async () => {
    const bad = async (value: unknown) => {
      const app = fromFunction(() => value as never, { name: 'sloppy' })
      return runCell(cellSpec(tasks.slice(0, 1), app, { verifier: saysCorrect })).catch((e: unknown) => e as Error)
    }
    const cases: [unknown, RegExp][] = [
      [{ choices: [] }, /answer: Invalid input: expected string, received undefined/],
      [{ answer: 3 }, /answer: Invalid input: expected string, received number/],
      [{ answer: 'x', usage: { inputTokens: -1, outputTokens: 0 } }, /usage\.inputTokens: Too small/],
      [{ answer: 'x', usage: { input_tokens: 5 } }, /usage/],
      [{ answer: 'x', costUsd: Number.NaN }, /costUsd/],
      [undefined, /did the function forget to return/],
    ]
    for (const [value, message] of cases) {
      const error = await bad(value)
      expect(isComponentError(error), JSON.stringify(value)).toBe(true)
      expect((error as Error).message).toMatch(
        /^actors\.fromFunction\(fn, \{ name: "sloppy" \}\)'s function returned a malformed result for task "t1", attempt 1/,
      )
      expect((error as Error).message).toMatch(message)
    }
  })

  it('an error it throws is an error of that trajectory, redacted like every stored error', async () => {
    const key = ['sk', 'app', 'secret', 'z'.repeat(16)].join('-')
    registerSecret(key)
    const app = fromFunction(
      async ({ taskId }) => {
        if (taskId === 't1') throw new Error(`upstream 401 for key ${key}`)
        return 'CORRECT'
      },
      { name: 'leaky' },
    )
    const { trajectories, summary } = await runCell(cellSpec(tasks, app, { verifier: saysCorrect }))
    const failed = trajectories.find((t) => t.taskId === 't1')!
    expect(failed.status).toBe('error')
    expect(failed.error).toMatchObject({ stage: 'actor', attempt: 1 })
    expect(failed.error!.message).toContain('upstream 401 for key')
    expect(failed.error!.message).not.toContain(key)
    expect(summary.errors.count).toBe(1)
  })

  it('stops waiting when the cell aborts, even for a function that ignores its signal', async () => {
    const app = fromFunction(() => new Promise<string>(() => {}), { name: 'hangs' })
    const controller = new AbortController()
    const context = { role: 'actor' as const, taskId: 't', attempt: 1, repeat: 0, protocol: 'sequential' as const }
    const pending = app.chat({ messages: [{ role: 'user', content: 'x' }], context, signal: controller.signal })
    controller.abort(new Error('the cell timed out'))
    await expect(pending).rejects.toThrow('the cell timed out')
    const listening = fromFunction(
      ({ signal }) => new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      { name: 'listens' },
    )
    const stopped = new AbortController()
    const second = listening.chat({ messages: [{ role: 'user', content: 'x' }], context, signal: stopped.signal })
    stopped.abort(new Error('cancelled'))
    await expect(second).rejects.toThrow('cancelled')
  })

  it('refuses bad options at declaration, naming the option and the fix', () => {
    expect(() => fromFunction('app' as never, { name: 'x' })).toThrow(/fn must be a function/)
    expect(() => fromFunction(() => '', undefined as never)).toThrow(/give the app a name/)
    expect(() => fromFunction(() => '', { name: 'my app' })).toThrow(/name must be 1 to 100 letters/)
    expect(() => fromFunction(() => '', { name: 'a', verison: '2' } as never)).toThrow(
      /unknown option "verison" \(did you mean "version"\?\)/,
    )
    expect(() => fromFunction(() => '', { name: 'a', params: { model: {} as never } })).toThrow(
      /params\.model must be a string, a finite number, a boolean or null/,
    )
    expect(() => fromFunction(() => '', { name: 'a', params: { version: '2' } })).toThrow(/params\.version is taken/)
    expect(() => fromFunction(() => '', { name: 'a', requires: 'OPENAI_API_KEY' as never })).toThrow(
      /requires must be a list of environment variable names/,
    )
  })
})

describe("actors.fromFunction's simulated twin", () => {
  const options = {
    name: 'invoice-app',
    version: '2',
    requires: ['SEQK_TEST_APP_KEY'],
    twin: { profile: 'reviser' as const },
  }
  const real = () => 'CORRECT'

  it('runs the app when its variables are set, and the twin when one is missing (outside CI)', () => {
    vi.stubEnv('CI', '')
    vi.stubEnv('SEQK_ACTORS', '')
    vi.stubEnv('SEQK_TEST_APP_KEY', 'k')
    expect(fromFunction(real, options).descriptor.provider).toBe('function')
    vi.stubEnv('SEQK_TEST_APP_KEY', '')
    const twin = fromFunction(real, options)
    expect(twin.id).toBe('simulated:invoice-app')
    expect(twin.descriptor).toMatchObject({
      provider: 'simulated',
      model: 'reviser',
      params: { twinOf: 'invoice-app' },
    })
    expect(isBundledSimulation(twin)).toBe(true)
  })

  it('in CI a missing variable fails closed at declaration, naming it and how to run the twin on purpose', () => {
    vi.stubEnv('CI', 'true')
    vi.stubEnv('SEQK_ACTORS', '')
    vi.stubEnv('SEQK_TEST_APP_KEY', '')
    expect(() => fromFunction(real, options)).toThrow(SimulationInCiError)
    expect(() => fromFunction(real, options)).toThrow(
      'actors.fromFunction(fn, { name: "invoice-app" }): SEQK_TEST_APP_KEY is not set, so its simulated twin would run in its place: this eval would measure a seeded simulation instead of the app, and in CI (CI=true) that fails closed rather than gate the simulation. Fix: set SEQK_TEST_APP_KEY (a repository secret in the workflow\'s env); or set SEQK_ACTORS=simulated to run the simulations on purpose (the bundled offline evals do).',
    )
    vi.stubEnv('SEQK_ACTORS', 'simulated')
    expect(fromFunction(real, options).id).toBe('simulated:invoice-app')
  })

  it('SEQK_ACTORS=simulated runs the twin even where the app could run; without a twin the app is refused', () => {
    vi.stubEnv('SEQK_ACTORS', 'simulated')
    vi.stubEnv('SEQK_TEST_APP_KEY', 'k')
    expect(fromFunction(real, options).descriptor.provider).toBe('simulated')
    expect(() => fromFunction(real, { name: 'bare' })).toThrow(
      /SEQK_ACTORS=simulated asks for simulations, but this app has no twin/,
    )
    vi.stubEnv('SEQK_ACTORS', '')
    vi.stubEnv('SEQK_TEST_APP_KEY', '')
    expect(() => fromFunction(real, { name: 'keyed', requires: ['SEQK_TEST_APP_KEY'] })).toThrow(
      /SEQK_TEST_APP_KEY is not set; the app needs it to run \(requires\)/,
    )
  })
})
