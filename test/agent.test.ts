// actors.agent over the real SDKs and our local server: an attempt is an episode of tool calls,
// recorded on the trajectory; bad calls go back to the model as errors; each limit ends the
// episode with its reason; a cassette replays an episode exactly.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { spentCalls } from '../src/models/chat-model.js'
import {
  actors,
  defaultPromptBuilder,
  feedback,
  fullHistory,
  runCell,
  tool,
  type CallContext,
  type CellSpec,
  type ChatModel,
  type Task,
  type Verifier,
} from '../src/index.js'
import { TrajectorySchema } from '../src/core/schemas.js'
import { startTestServer, type Responder, type TestServer, type TestServerRequest } from '../src/testing/index.js'

const KEY = 'fake-key-SECRET-never-written-0123456789'
let server: TestServer
const dirs: string[] = []
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const notes: Record<string, string> = { a: 'alpha', b: 'beta' }
const readNote = tool({
  name: 'read_note',
  description: 'Reads a note by key.',
  parameters: z.object({ key: z.string() }),
  run: ({ key }) => notes[key] ?? 'no such note',
})
const fail = tool({
  name: 'explode',
  description: 'Always fails.',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  run: () => {
    throw new Error('boom')
  },
})
/** Waits until it is stopped: the wall-time and tool-timeout limits must cut it. */
const wait = tool({
  name: 'wait',
  description: 'Waits.',
  parameters: z.object({}),
  run: (_args, { signal }) =>
    new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
})

/** Reads both notes at once, then answers with the results it got (errors marked). */
const readThenAnswer: Responder = (request) => {
  if (!request.toolResults?.length)
    return {
      text: 'Reading.',
      toolCalls: [
        { name: 'read_note', arguments: { key: 'a' } },
        { name: 'read_note', arguments: { key: 'b' } },
      ],
    }
  return `ANSWER ${request.toolResults.map((r) => r.content).join(' ')}`
}
beforeEach(() => {
  server.reset()
  server.respondWith(readThenAnswer)
})

/** Calls the `wait` tool once, then says what it read back. */
const waitThenSay: Responder = (request) =>
  request.toolResults?.length
    ? `saw ${request.toolResults[0]!.content}`
    : { text: '', toolCalls: [{ name: 'wait', arguments: {} }] }
/** A tool that never returns and ignores its signal; `started.yes` once it was called. */
const neverReturns = () => {
  const started = { yes: false }
  const forever = tool({
    name: 'wait',
    description: 'Never returns.',
    parameters: z.object({}),
    run: () => {
      started.yes = true
      return new Promise(() => {})
    },
  })
  return { forever, started }
}
const fast = { retry: { baseDelayMs: 1, maxDelayMs: 5 }, timeoutMs: 5000 }
const openai = (extra: object = {}) =>
  actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.openaiBaseURL, ...fast, ...extra })
const anthropic = (extra: object = {}) =>
  actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL: server.anthropicBaseURL, ...fast, ...extra })
const context: CallContext = { role: 'actor', taskId: 't1', attempt: 1, repeat: 0, protocol: 'sequential' }
const ask = (agent: ChatModel, signal?: AbortSignal) =>
  agent.chat({ messages: [{ role: 'user', content: 'Read the notes.' }], context, ...(signal ? { signal } : {}) })

const tasks: Task[] = [{ id: 'notes', prompt: 'Read notes a and b and report them.' }]
const verifier: Verifier = {
  name: 'both-notes',
  version: '1',
  settings: {},
  verify(_task, answer) {
    const pass = answer.includes('alpha') && answer.includes('beta')
    return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: pass ? 'ok' : 'missing a note' } }
  },
}
function spec(actor: ChatModel): CellSpec {
  return {
    runId: 'agent',
    benchmark: 'agent',
    cellId: `${actor.id} · binary`,
    tasks,
    actor,
    verifier,
    mode: { name: 'binary', feedback: feedback.binary() },
    history: fullHistory,
    promptBuilder: defaultPromptBuilder,
    budget: 2,
    repeats: 1,
    discloseBudget: false,
    concurrency: 1,
    thresholds: {},
    errors: 'left-out',
  }
}

describe.each([
  ['openai chat', () => openai()],
  ['openai chat, streamed', () => openai({ stream: true })],
  ['openai responses', () => openai({ api: 'responses', model: 'gpt-4.1-mini' })],
  ['openai responses, streamed', () => openai({ api: 'responses', model: 'gpt-4.1-mini', stream: true })],
  ['anthropic', () => anthropic()],
  ['anthropic, streamed', () => anthropic({ stream: true })],
])('%s', (_name, model) => {
  it('runs an episode per attempt and records every turn and tool call on the trajectory', async () => {
    const { trajectories } = await runCell(spec(actors.agent({ model: model(), tools: [readNote] })))
    const [trajectory] = trajectories
    expect(trajectory!.status).toBe('solved')
    // What is written reads back under the schema, episode included.
    expect(TrajectorySchema.parse(JSON.parse(JSON.stringify(trajectory))).schema).toBe('seqk.trajectory/3')
    const [attempt] = trajectory!.attempts
    expect(attempt!.answer).toBe('ANSWER alpha beta')
    const episode = attempt!.episode!
    expect(episode.endedBy).toBe('answer')
    expect(
      episode.turns.map((t) => [t.text, t.toolCalls.map((c) => [c.name, JSON.parse(c.arguments), c.result, c.error])]),
    ).toEqual([
      [
        'Reading.',
        [
          ['read_note', { key: 'a' }, 'alpha', null],
          ['read_note', { key: 'b' }, 'beta', null],
        ],
      ],
      ['ANSWER alpha beta', []],
    ])
    // The attempt's usage and cost are its turns', added: a priced model's episode has a cost.
    expect(attempt!.usage!.outputTokens).toBe(episode.turns.reduce((n, t) => n + t.usage!.outputTokens, 0))
    expect(attempt!.costUsd).toBeCloseTo(
      episode.turns.reduce((n, t) => n + t.costUsd!, 0),
      12,
    )
    expect(attempt!.costUsd).toBeGreaterThan(0)
    expect(server.requests).toHaveLength(2)
    // What served the turns, as the provider said: the disclosure card's served model.
    expect(attempt!.servedModel).toBe(server.requests[0]!.model)
  })
})

describe('a bad call goes back to the model as its error, and the episode goes on', () => {
  it.each([
    ['invalid arguments', { name: 'read_note', arguments: { key: 7 } }, /^error: invalid arguments: key: /],
    ['malformed JSON', { name: 'read_note', arguments: '{"key": ' }, /^error: the arguments are not valid JSON/],
    [
      'an unknown tool',
      { name: 'rm_rf', arguments: {} },
      /^error: there is no tool named "rm_rf"; the tools are read_note, explode/,
    ],
    ['a tool that throws', { name: 'explode', arguments: {} }, /^error: the tool failed: boom$/],
    [
      'JSON Schema arguments that do not fit',
      { name: 'explode', arguments: { extra: 1 } },
      /^error: invalid arguments: \(arguments\) must NOT have additional properties/,
    ],
  ])('%s', async (_name, call, message) => {
    server.respondWith((request) =>
      request.toolResults?.length ? `saw ${request.toolResults[0]!.content}` : { text: '', toolCalls: [call] },
    )
    const response = await ask(actors.agent({ model: openai(), tools: [readNote, fail] }))
    expect(response.episode!.endedBy).toBe('answer')
    const [first] = response.episode!.turns
    expect(first!.toolCalls[0]!.result).toBeNull()
    expect(`error: ${first!.toolCalls[0]!.error}`).toMatch(message)
    // The model read the error as the call's result.
    expect(server.requests[1]!.toolResults![0]!.content).toMatch(message)
    expect(response.text).toMatch(/^saw error: /)
  })
})

describe('each limit ends the episode with its reason', () => {
  const loop = (request: TestServerRequest) => ({
    text: '',
    toolCalls: [{ name: 'read_note', arguments: { key: `k${request.toolResults?.length ?? 0}` } }],
  })

  it('steps: no turn past maxSteps', async () => {
    server.respondWith(loop)
    const response = await ask(actors.agent({ model: openai(), tools: [readNote], maxSteps: 3 }))
    expect(response.episode!.endedBy).toBe('steps')
    expect(response.episode!.turns).toHaveLength(3)
    expect(server.requests).toHaveLength(3)
    expect(response.finishReason).toBe('other')
  })

  it('tokens: the turn that reaches maxTokens is the last', async () => {
    server.respondWith((request) => ({ ...loop(request), usage: { inputTokens: 40, outputTokens: 10 } }))
    const response = await ask(actors.agent({ model: openai(), tools: [readNote], maxTokens: 120 }))
    expect(response.episode!.endedBy).toBe('tokens')
    expect(response.episode!.turns).toHaveLength(3)
    expect(response.usage).toMatchObject({ inputTokens: 120, outputTokens: 30 })
    expect(response.finishReason).toBe('length')
  })

  it('cost: the turn that reaches maxCostUsd is the last', async () => {
    server.respondWith((request) => ({ ...loop(request), usage: { inputTokens: 1000, outputTokens: 0 } }))
    // $1 per million input tokens: each turn costs $0.001.
    const priced = openai({ model: 'my-model', prices: { 'openai:my-model': { input: 1, output: 1 } } })
    const response = await ask(actors.agent({ model: priced, tools: [readNote], maxCostUsd: 0.0025 }))
    expect(response.episode!.endedBy).toBe('cost')
    expect(response.episode!.turns).toHaveLength(3)
    expect(response.costUsd).toBeCloseTo(0.003, 12)
  })

  it('time: a tool still running at maxWallMs is stopped, and the episode ends', async () => {
    server.respondWith((request) =>
      request.toolResults?.length ? 'too late' : { text: '', toolCalls: [{ name: 'wait', arguments: {} }] },
    )
    const response = await ask(actors.agent({ model: openai(), tools: [wait], maxWallMs: 300 }))
    expect(response.episode!.endedBy).toBe('time')
    expect(response.episode!.turns[0]!.toolCalls[0]!.error).toBe("stopped: the agent's maxWallMs passed")
    expect(server.requests).toHaveLength(1)
  })

  it('time: a model turn still running at maxWallMs is stopped; its cost is unknown, never $0', async () => {
    server.injectFaults({ kind: 'hang' })
    const response = await ask(actors.agent({ model: openai(), tools: [readNote], maxWallMs: 300 }))
    expect(response.episode!.endedBy).toBe('time')
    expect(response.episode!.turns).toMatchObject([{ usage: null, costUsd: null }])
    expect(response.costUsd).toBeUndefined()
  })

  it('a tool past toolTimeoutMs fails, and the model reads so', async () => {
    server.respondWith(waitThenSay)
    const response = await ask(actors.agent({ model: openai(), tools: [wait], toolTimeoutMs: 100 }))
    expect(response.text).toBe('saw error: timed out after 100 ms (toolTimeoutMs)')
  })

  it('a tool that ignores its signal is still stopped at toolTimeoutMs; its signal, read late, is aborted', async () => {
    let late: boolean | undefined
    const stubborn = tool({
      name: 'wait',
      description: 'Waits, never looking at its signal.',
      parameters: z.object({}),
      run: async (_args, context) => {
        await new Promise((resolve) => setTimeout(resolve, 150))
        late = context.signal.aborted
        return 'finished late'
      },
    })
    server.respondWith(waitThenSay)
    const response = await ask(actors.agent({ model: openai(), tools: [stubborn], toolTimeoutMs: 50 }))
    expect(response.text).toBe('saw error: timed out after 50 ms (toolTimeoutMs)')
    await expect.poll(() => late, { timeout: 10_000 }).toBe(true)
  })

  it('a tool that spreads its context keeps the signal, and it aborts at toolTimeoutMs', async () => {
    let spread: { signal?: AbortSignal; taskId: string; extra: number } | undefined
    const spreading = tool({
      name: 'wait',
      description: 'Passes its context on, spread, to a helper that waits on its signal.',
      parameters: z.object({}),
      run: async (_args, context) => {
        spread = { ...context, extra: 1 }
        const { signal } = spread
        await new Promise((_, reject) => signal!.addEventListener('abort', () => reject(new Error('aborted'))))
      },
    })
    server.respondWith(waitThenSay)
    const response = await ask(actors.agent({ model: openai(), tools: [spreading], toolTimeoutMs: 50 }))
    expect(response.text).toBe('saw error: timed out after 50 ms (toolTimeoutMs)')
    expect(spread).toMatchObject({ taskId: expect.any(String), extra: 1 })
    expect(spread!.signal).toBeInstanceOf(AbortSignal)
    await expect.poll(() => spread!.signal!.aborted, { timeout: 10_000 }).toBe(true)
  })

  it('a tool that answers at once is never timed (its result stands); a thenable that never settles is stopped at toolTimeoutMs', async () => {
    let kept: { signal: AbortSignal } | undefined
    let liveDuringCall: boolean | undefined
    const busy = tool({
      name: 'busy',
      description: 'Answers at once, after a few busy milliseconds.',
      parameters: z.object({}),
      run: (_args, context) => {
        const until = performance.now() + 15
        while (performance.now() < until);
        liveDuringCall = !context.signal.aborted
        kept = context
        return 'busy done'
      },
    })
    const hanging = tool({
      name: 'hang',
      description: 'Returns a thenable that never settles.',
      parameters: z.object({}),
      run: () => ({ then: () => {} }),
    })
    server.respondWith((request) =>
      request.toolResults?.length
        ? `saw ${request.toolResults.map((r) => r.content).join(' | ')}`
        : {
            text: '',
            toolCalls: [
              { name: 'busy', arguments: {} },
              { name: 'hang', arguments: {} },
            ],
          },
    )
    const response = await ask(actors.agent({ model: openai(), tools: [busy, hanging], toolTimeoutMs: 5 }))
    expect(response.text).toBe('saw busy done | error: timed out after 5 ms (toolTimeoutMs)')
    expect(liveDuringCall).toBe(true)
    // Its signal, read after the call ended, starts no limit of its own: it is never aborted.
    const late = kept!.signal
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(late.aborted).toBe(false)
  })

  it("with no maxWallMs, the caller's abort still stops a tool that ignores its signal, with the caller's reason", async () => {
    const { forever, started } = neverReturns()
    server.respondWith(() => ({ text: '', toolCalls: [{ name: 'wait', arguments: {} }] }))
    const controller = new AbortController()
    const episode = ask(actors.agent({ model: openai(), tools: [forever] }), controller.signal)
    await expect.poll(() => started.yes).toBe(true)
    controller.abort(new Error('the test was cancelled'))
    await expect(episode).rejects.toThrow('the test was cancelled')
    expect(server.requests).toHaveLength(1)
  })

  it("parallel calls, one answered at once and one that never settles: the caller's abort ends the episode with its reason, nothing left unhandled", async () => {
    const { forever, started } = neverReturns()
    server.respondWith(() => ({
      text: '',
      toolCalls: [
        { name: 'read_note', arguments: { key: 'a' } },
        { name: 'wait', arguments: {} },
        { name: 'read_note', arguments: { key: 'b' } },
      ],
    }))
    const controller = new AbortController()
    const episode = ask(actors.agent({ model: openai(), tools: [readNote, forever] }), controller.signal)
    await expect.poll(() => started.yes).toBe(true)
    controller.abort(new Error('the test was cancelled'))
    // An unhandled rejection from a call left behind would fail this file's run.
    await expect(episode).rejects.toThrow('the test was cancelled')
    expect(server.requests).toHaveLength(1)
  })

  it('a tool that reads its signal gets one that aborts at maxWallMs, with maxWallMs as the reason it reads', async () => {
    let reason: unknown
    const listening = tool({
      name: 'wait',
      description: 'Waits for its signal.',
      parameters: z.object({}),
      run: (_args, { signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            reason = signal.reason
            reject(signal.reason as Error)
          }),
        ),
    })
    server.respondWith((request) =>
      request.toolResults?.length ? 'too late' : { text: '', toolCalls: [{ name: 'wait', arguments: {} }] },
    )
    const response = await ask(actors.agent({ model: openai(), tools: [listening], maxWallMs: 150 }))
    expect(response.episode!.endedBy).toBe('time')
    expect(response.episode!.turns[0]!.toolCalls[0]!.error).toBe("stopped: the agent's maxWallMs passed")
    expect(String((reason as Error)?.message)).toMatch(/time limit of 150 ms passed/)
  })

  it('a token limit it cannot check fails the attempt, keeping the spend (a custom model that reports no usage)', async () => {
    const quiet: ChatModel = {
      id: 'quiet',
      descriptor: { provider: 'custom', model: 'quiet', params: {} },
      tools: true,
      async chat({ turns }) {
        return {
          text: '',
          usage: null,
          latencyMs: 1,
          finishReason: 'stop',
          costUsd: 0.5,
          toolCalls: [{ id: `c${turns?.length ?? 0}`, name: 'read_note', arguments: '{"key":"a"}' }],
        }
      },
    }
    const failure = await ask(actors.agent({ model: quiet, tools: [readNote], maxTokens: 100 })).catch(
      (error: unknown) => error,
    )
    expect(String(failure)).toMatch(/maxTokens cannot be held: quiet reported no usage/)
    expect(spentCalls(failure)).toMatchObject([{ role: 'actor', usage: null, costUsd: 0.5 }])
  })
})

describe('declaration', () => {
  it('refuses a model that does not speak tools, two tools with one name, a cost limit on an unpriced model, and unknown options', () => {
    expect(() => actors.agent({ model: actors.simulated({ profile: 'reviser' }), tools: [readNote] })).toThrow(
      /does not speak the tool protocol/,
    )
    expect(() => actors.agent({ model: openai(), tools: [readNote, readNote] })).toThrow(
      /two tools are named "read_note"/,
    )
    expect(() =>
      actors.agent({ model: openai({ model: 'unpriced-model' }), tools: [readNote], maxCostUsd: 1 }),
    ).toThrow(/maxCostUsd needs a priced model/)
    expect(() => actors.agent({ model: openai(), tools: [readNote], maxStep: 3 } as never)).toThrow(/maxStep/)
    expect(() => tool({ name: 'bad name', description: 'x', parameters: z.object({}), run: () => '' })).toThrow(
      /name must be 1 to 64/,
    )
  })

  it('puts the tools and limits in the protocol: another tool set is another actor', () => {
    const a = actors.agent({ model: openai(), tools: [readNote], maxSteps: 5 })
    const b = actors.agent({ model: openai(), tools: [readNote, fail], maxSteps: 5 })
    expect(a.descriptor.params).toMatchObject({ tools: 'read_note', maxSteps: 5, 'model.api': 'chat' })
    expect(a.descriptor.params.toolsHash).not.toBe(b.descriptor.params.toolsHash)
  })
})

it('a cassette replays an episode exactly: the same turns, tool calls and results, with no request', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'seqk-agent-cassette-'))
  dirs.push(dir)
  const live = await ask(actors.agent({ model: openai({ cassette: { mode: 'record', dir } }), tools: [readNote] }))
  const sent = server.requests.length
  const replay = await ask(actors.agent({ model: openai({ cassette: { mode: 'replay', dir } }), tools: [readNote] }))
  expect(server.requests).toHaveLength(sent)
  expect(replay.replayed).toBe(true)
  const shape = (r: typeof live) =>
    r.episode!.turns.map(({ latencyMs: _l, replayed: _r, toolCalls, ...turn }) => ({
      ...turn,
      toolCalls: toolCalls.map(({ durationMs: _d, ...call }) => call),
    }))
  expect(shape(replay)).toEqual(shape(live))
  expect(replay.text).toBe(live.text)
})
