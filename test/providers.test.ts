// The real SDKs against our local server over real sockets: every provider runs a whole Seq@K
// cell, prices it, survives injected faults, stops promptly on abort, and records then replays.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  actors,
  defaultPromptBuilder,
  feedback,
  fullHistory,
  MissingApiKeyError,
  runCell,
  type CellSpec,
  type ChatModel,
  type Task,
  type Verifier,
} from '../src/index.js'
import type { Trajectory } from '../src/artifacts/index.js'
import { rules, startTestServer, type TestServer } from '../src/testing/index.js'

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
beforeEach(() => {
  server.reset()
  // First attempts are wrong; any revision after feedback is right.
  server.respondWith(rules([{ match: /incorrect/, reply: 'Here it is: CORRECT' }], 'my first try: WRONG'))
})

const tasks: Task[] = ['a', 'b', 'c', 'd'].map((id) => ({
  id,
  prompt: `Task ${id}: answer it well. ${'context '.repeat(40)}`,
}))
const verifier: Verifier = {
  name: 'contains-correct',
  version: '1',
  settings: {},
  async verify(_task, answer) {
    const pass = answer.includes('CORRECT')
    return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: pass ? 'ok' : 'wrong' } }
  },
}

function spec(actor: ChatModel, overrides: Partial<CellSpec> = {}): CellSpec {
  return {
    runId: 'providers',
    benchmark: 'providers',
    cellId: `${actor.id} · binary`,
    tasks,
    actor,
    verifier,
    mode: { name: 'binary', feedback: feedback.binary() },
    history: fullHistory,
    promptBuilder: defaultPromptBuilder,
    budget: 3,
    repeats: 1,
    discloseBudget: false,
    concurrency: 2,
    thresholds: {},
    errors: 'left-out',
    ...overrides,
  }
}

const fast = { retry: { baseDelayMs: 1, maxDelayMs: 5 }, timeoutMs: 5000 }
const providers: Record<string, (stream: boolean) => ChatModel> = {
  'openai chat': (stream) =>
    actors.openai({
      model: 'gpt-4o-mini',
      apiKey: KEY,
      baseURL: server.openaiBaseURL,
      stream,
      temperature: 0,
      ...fast,
    }),
  'openai responses': (stream) =>
    actors.openai({
      model: 'gpt-4.1-mini',
      api: 'responses',
      apiKey: KEY,
      baseURL: server.openaiBaseURL,
      stream,
      ...fast,
    }),
  anthropic: (stream) =>
    actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL: server.anthropicBaseURL, stream, ...fast }),
  'openai-compatible': (stream) =>
    actors.openaiCompatible({ model: 'qwen2.5-coder:7b', baseURL: server.openaiBaseURL, stream, ...fast }),
}

describe.each(Object.keys(providers))('%s', (name) => {
  it.each([false, true])('runs a Seq@K cell end to end (stream: %s), with usage and cost', async (stream) => {
    const { summary, trajectories } = await runCell(spec(providers[name]!(stream)))
    expect(summary.seqAt).toEqual([0, 1, 1])
    // No thresholds declared: the cell ran and checked nothing, never shown as a pass.
    expect(summary.verdict).toBe('no-thresholds')
    expect(server.requests).toHaveLength(8)
    expect(server.requests.every((r) => r.stream === stream)).toBe(true)
    expect(new Set(server.requests.map((r) => r.api))).toEqual(
      new Set([name === 'anthropic' ? 'messages' : name === 'openai responses' ? 'responses' : 'chat']),
    )
    // Second attempts see the first answer and the feedback.
    const revision = server.requests.find((r) => r.messages.some((m) => m.role === 'assistant'))!
    expect(revision.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(revision.messages[2]!.content).toContain('Your answer is incorrect.')
    // Usage adds up to what the server reported, and a priced model has a cost.
    expect(summary.usage!.outputTokens).toBe(
      trajectories.flatMap((t) => t.attempts).reduce((n, a) => n + a.usage!.outputTokens, 0),
    )
    expect(summary.usage!.inputTokens).toBeGreaterThan(0)
    if (name === 'openai-compatible') expect(summary.costUsd).toBe(0)
    else expect(summary.costUsd).toBeGreaterThan(0)
    expect(summary.byRole.actor?.calls).toBe(8)
    // Every attempt names the model the server said served it (the response's `model`), for the disclosure card.
    const requested = {
      'openai chat': 'gpt-4o-mini',
      'openai responses': 'gpt-4.1-mini',
      anthropic: 'claude-sonnet-4-5',
      'openai-compatible': 'qwen2.5-coder:7b',
    }[name]
    expect(new Set(trajectories.flatMap((t) => t.attempts.map((a) => a.servedModel)))).toEqual(new Set([requested]))
  })
})

describe('faults', () => {
  const model = () => actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.openaiBaseURL, ...fast })

  it.each(Object.keys(providers))(
    '%s: retries every transient fault; the cell completes with every trajectory solved',
    async (name) => {
      server.injectFaults(
        { kind: 'status', status: 429, retryAfterMs: 5, times: 2 },
        { kind: 'status', status: 500 },
        { kind: 'status', status: 529 },
        { kind: 'status', status: 503, retryAfterSeconds: 0 },
        { kind: 'status', status: 408 },
        { kind: 'reset' },
        { kind: 'malformed-json' },
        { kind: 'empty-choices' },
        { kind: 'slow', delayMs: 50 },
        { kind: 'hang' },
      )
      const options = { retry: { maxRetries: 12, baseDelayMs: 1, maxDelayMs: 5 }, timeoutMs: 300 }
      const patient =
        name === 'anthropic'
          ? actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL: server.anthropicBaseURL, ...options })
          : name === 'openai responses'
            ? actors.openai({
                model: 'gpt-4.1-mini',
                api: 'responses',
                apiKey: KEY,
                baseURL: server.openaiBaseURL,
                ...options,
              })
            : name === 'openai-compatible'
              ? actors.openaiCompatible({ model: 'qwen2.5-coder:7b', baseURL: server.openaiBaseURL, ...options })
              : actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.openaiBaseURL, ...options })
      const { summary, trajectories } = await runCell(spec(patient, { concurrency: 1 }))
      expect(summary.errors.examples).toEqual([])
      expect(trajectories.every((t) => t.status === 'solved')).toBe(true)
      // 10 faulted requests were retried (the slow one answered late, within the timeout) on top of the 8 answered calls.
      expect(server.requests).toHaveLength(8 + 10)
      expect(summary.byRole.actor?.calls).toBe(8)
    },
  )

  it('retries a cut stream', async () => {
    server.injectFaults({ kind: 'stream-cut', times: 2 })
    const { summary } = await runCell(
      spec(
        actors.anthropic({
          model: 'claude-sonnet-4-5',
          apiKey: KEY,
          baseURL: server.anthropicBaseURL,
          stream: true,
          ...fast,
        }),
      ),
    )
    expect(summary.errors.count).toBe(0)
    expect(summary.seqAt).toEqual([0, 1, 1])
  })

  it('records a truncated answer as such (it is a model outcome, not an error)', async () => {
    server.injectFaults({ kind: 'truncated', times: 1 })
    const { trajectories } = await runCell(spec(model(), { concurrency: 1, tasks: tasks.slice(0, 1) }))
    expect(trajectories[0]!.attempts[0]!.finishReason).toBe('length')
    expect(trajectories[0]!.status).toBe('solved')
  })

  it('marks a trajectory as an infrastructure error when retries run out, and the cell says so', async () => {
    // An overload (503) is the server's weather, retried to the end of the allowance.
    server.injectFaults({
      kind: 'status',
      status: 503,
      times: 1000,
      match: (r) => r.messages.some((m) => m.content.startsWith('Task b')),
    })
    const flaky = actors.openai({
      model: 'gpt-4o-mini',
      apiKey: KEY,
      baseURL: server.openaiBaseURL,
      retry: { maxRetries: 2, baseDelayMs: 1 },
    })
    const { summary, trajectories } = await runCell(spec(flaky))
    const b = trajectories.find((t) => t.taskId === 'b')!
    expect(b.status).toBe('error')
    expect(b.error).toMatchObject({ stage: 'actor', attempt: 1 })
    expect(b.error!.message).toMatch(/HTTP 503.*gave up after 3 tries: 1 \+ retry\.maxRetries 2\)$/)
    expect(summary.errors.count).toBe(1)
    // Errors are left out of the rate, counted beside it, and fail the cell by default.
    expect(summary.seqAt).toEqual([0, 1, 1])
    expect(summary.verdict).toBe('fail')
    expect(summary.thresholds.find((t) => t.metric === 'maxErrorRate')!.message).toContain(
      'task b repeat 0, actor at attempt 1: openai:gpt-4o-mini (actor, task b, attempt 1): HTTP 503',
    )
    const counted = await runCell(spec(flaky, { errors: 'failures', thresholds: { maxErrorRate: 0.5 } }))
    expect(counted.summary.seqAt[2]).toBeCloseTo(0.75, 10)
    expect(counted.summary.verdict).toBe('pass')
  })

  it('an abort in the middle of a retry-after wait returns within 1 s', async () => {
    server.injectFaults({ kind: 'status', status: 429, retryAfterSeconds: 30, times: 100 })
    const controller = new AbortController()
    const started = Date.now()
    const run = runCell(spec(model(), { signal: controller.signal }))
    setTimeout(() => controller.abort(new Error('test timed out')), 200)
    await expect(run).rejects.toThrow('test timed out')
    expect(Date.now() - started).toBeLessThan(1200)
  })

  it('an abort of a hanging request returns promptly', async () => {
    server.injectFaults({ kind: 'hang', times: 100 })
    const controller = new AbortController()
    const started = Date.now()
    const run = runCell(spec(model(), { signal: controller.signal }))
    setTimeout(() => controller.abort(new Error('cancelled')), 200)
    await expect(run).rejects.toThrow('cancelled')
    expect(Date.now() - started).toBeLessThan(1200)
  })
})

describe('Anthropic prompt caching', () => {
  it('each revision reads the previous prefix from cache; the share and the saving are reported', async () => {
    server.respondWith(rules([{ match: /incorrect/, reply: 'still WRONG' }], 'WRONG'))
    const { summary, trajectories } = await runCell(
      spec(actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL: server.anthropicBaseURL, ...fast }), {
        budget: 4,
      }),
    )
    for (const t of trajectories) {
      expect(t.attempts[0]!.usage!.cacheReadTokens).toBe(0)
      for (const a of t.attempts.slice(1)) {
        expect(a.usage!.cacheReadTokens).toBeGreaterThan(0)
        expect(a.costUsd!).toBeLessThan(a.costUsdWithoutCache!)
      }
    }
    expect(summary.cache.cachedShare).toBeGreaterThan(0.3)
    expect(summary.cache.savedUsd).toBeGreaterThan(0)
    const lastCall = server.requests.at(-1)!.body as { messages: { content: { cache_control?: unknown }[] }[] }
    const marked = lastCall.messages.flatMap((m) => m.content).filter((b) => b.cache_control)
    expect(marked).toHaveLength(2)
  })
})

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : [path]
  })
}

describe('record and replay', () => {
  it('replay gives the same trajectories with no HTTP call; no key is written anywhere', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-cassettes-'))
    dirs.push(dir)
    const make = (mode: 'record' | 'replay') =>
      actors.openai({
        model: 'gpt-4o-mini',
        apiKey: KEY,
        baseURL: server.openaiBaseURL,
        cassette: { mode, dir },
        ...fast,
      })
    const recorded = await runCell(spec(make('record'), { repeats: 2, mode: null, cellId: 'independent' }))
    const recordedSeq = await runCell(spec(make('record'), { repeats: 2 }))
    const calls = server.requests.length
    expect(calls).toBe(2 * 4 * 3 + 2 * 4 * 2)
    const replayed = await runCell(spec(make('replay'), { repeats: 2, mode: null, cellId: 'independent' }))
    const replayedSeq = await runCell(spec(make('replay'), { repeats: 2 }))
    expect(server.requests.length).toBe(calls)
    const comparable = (ts: Trajectory[]) =>
      ts.map(({ startedAt: _s, durationMs: _d, ...t }) => ({
        ...t,
        attempts: t.attempts.map(({ replayed: _r, verdict, ...a }) => ({
          ...a,
          verdict: { ...verdict, durationMs: 0 },
        })),
      }))
    expect(comparable(replayed.trajectories)).toEqual(comparable(recorded.trajectories))
    expect(comparable(replayedSeq.trajectories)).toEqual(comparable(recordedSeq.trajectories))
    expect(replayedSeq.summary.replayedCalls).toBe(replayedSeq.summary.calls)
    expect(replayedSeq.summary.costUsd).toBe(recordedSeq.summary.costUsd)
    const written = [
      ...files(dir).map((f) => readFileSync(f, 'utf8')),
      JSON.stringify(recordedSeq),
      JSON.stringify(replayedSeq),
    ].join('\n')
    expect(written).not.toContain(KEY)
    expect(written).not.toMatch(/authorization|bearer/i)
  })
})

describe('keys', () => {
  it('a missing key is a clear error naming the variable, or a skip with a reason when asked', () => {
    const saved = { openai: process.env.OPENAI_API_KEY, anthropic: process.env.ANTHROPIC_API_KEY }
    delete process.env.OPENAI_API_KEY
    delete process.env.ANTHROPIC_API_KEY
    try {
      expect(() => actors.openai({ model: 'gpt-4o' })).toThrow(MissingApiKeyError)
      expect(() => actors.openai({ model: 'gpt-4o' })).toThrow(
        'Set OPENAI_API_KEY, pass apiKey, or pass skipWithoutKey: true',
      )
      expect(() => actors.anthropic({ model: 'claude-sonnet-4-5' })).toThrow('ANTHROPIC_API_KEY')
      expect(actors.openai({ model: 'gpt-4o', skipWithoutKey: true }).unavailable).toBe('OPENAI_API_KEY is not set')
      // Replaying cassettes needs no key (only a recording of the model).
      const recorded = mkdtempSync(join(tmpdir(), 'seqk-replay-'))
      mkdirSync(join(recorded, 'anthropic', 'claude-sonnet-4-5'), { recursive: true })
      expect(
        actors.anthropic({ model: 'claude-sonnet-4-5', cassette: { mode: 'replay', dir: recorded } }).unavailable,
      ).toBeUndefined()
      rmSync(recorded, { recursive: true, force: true })
    } finally {
      if (saved.openai !== undefined) process.env.OPENAI_API_KEY = saved.openai
      if (saved.anthropic !== undefined) process.env.ANTHROPIC_API_KEY = saved.anthropic
    }
  })

  it('decoding parameters are part of the protocol; the key and base URL are not', () => {
    const a = actors.openai({ model: 'gpt-4o', apiKey: 'k1', baseURL: 'http://a', temperature: 0.2 })
    const b = actors.openai({ model: 'gpt-4o', apiKey: 'k2', baseURL: 'http://b', temperature: 0.2 })
    const c = actors.openai({ model: 'gpt-4o', apiKey: 'k1', temperature: 0.7 })
    expect(a.descriptor).toEqual(b.descriptor)
    expect(a.descriptor).not.toEqual(c.descriptor)
    expect(JSON.stringify(a.descriptor)).not.toContain('k1')
  })
})
