// Endpoints that break the way real ones do, over real sockets, with the real SDKs: a body that
// stalls after the headers, a port with nothing listening, an HTML page with status 200. Every
// call ends within its timeout, a dead endpoint fails a whole cell in seconds, and every error
// names the endpoint and the cause.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { createGzip } from 'node:zlib'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import {
  actors,
  defaultPromptBuilder,
  feedback,
  fullHistory,
  runCell,
  type ChatModel,
  type Task,
  type Verifier,
} from '../src/index.js'
import { ProviderError } from '../src/models/retry.js'
import { cellSpec, saysCorrect } from '../src/protocol/test-helpers.js'
import { startTestServer } from '../src/testing/index.js'
import { deadPort } from './dead-port.js'

const KEY = 'fake-key-faults-0123456789'
const context = { role: 'actor' as const, taskId: 't', attempt: 1, repeat: 0, protocol: 'sequential' as const }
const ask = (model: ChatModel, signal?: AbortSignal) =>
  model.chat({ messages: [{ role: 'user', content: 'hi' }], context, signal })

/** A server whose every response is decided by `handle`; requests are counted. */
async function serve(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((req, res) => {
    requests++
    req.resume()
    req.on('end', () => handle(req, res))
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

const fast = { retry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 10 } }

/**
 * Headers, then nothing: the body (or the stream) never comes. One per test: timeouts count
 * toward the endpoint's breaker, so tests sharing one would see it open.
 */
const stalling = () =>
  serve((req, res) => {
    const streaming = (req.headers.accept ?? '').includes('text/event-stream')
    res.writeHead(200, { 'content-type': streaming ? 'text/event-stream' : 'application/json' })
    if (streaming)
      res.write(
        'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"par"}}]}\n\n',
      )
  })

let html: Awaited<ReturnType<typeof serve>>
beforeAll(async () => {
  // The SDKs load before any timed call: a first import takes a second on a loaded machine.
  await Promise.all([import('openai'), import('@anthropic-ai/sdk')])
  // A gateway's login page, with status 200.
  html = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<!doctype html><html><body><h1>Sign in to the gateway</h1></body></html>')
  })
})
afterAll(async () => {
  await html.close()
})

describe('timeoutMs bounds the whole call', () => {
  const providers: Record<string, (baseURL: string, stream: boolean) => ChatModel> = {
    'openai chat': (baseURL, stream) =>
      actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: `${baseURL}/v1`, stream, timeoutMs: 300, ...fast }),
    'openai responses': (baseURL, stream) =>
      actors.openai({
        model: 'gpt-4.1-mini',
        api: 'responses',
        apiKey: KEY,
        baseURL: `${baseURL}/v1`,
        stream,
        timeoutMs: 300,
        ...fast,
      }),
    anthropic: (baseURL, stream) =>
      actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL, stream, timeoutMs: 300, ...fast }),
  }
  for (const [name, make] of Object.entries(providers)) {
    for (const stream of [false, true]) {
      it(`${name}${stream ? ' (stream)' : ''}: a body that stalls after the headers is a retried timeout, not a hang`, async () => {
        const stall = await stalling()
        onTestFinished(() => stall.close())
        const before = stall.requests()
        const started = performance.now()
        const error = await ask(make(stall.url, stream)).catch((e: unknown) => e)
        const took = performance.now() - started
        expect(error).toBeInstanceOf(ProviderError)
        expect((error as Error).message).toMatch(
          new RegExp(
            `${stall.url.replace(/[.]/g, '\\.')}(/v1)?: no complete response within 300 ms \\(timeoutMs\\) \\(gave up after 2 tries: 1 \\+ retry\\.maxRetries 1\\)$`,
          ),
        )
        // Two tries of 300 ms and a short backoff: nowhere near the 600 s a cell waits.
        expect(took).toBeLessThan(2000)
        // Two tries (on a loaded machine the first may time out before its request is even sent).
        expect(stall.requests() - before).toBeGreaterThanOrEqual(1)
        expect(stall.requests() - before).toBeLessThanOrEqual(2)
      })
    }
  }

  it('an abort stops a stalled call at once', async () => {
    const stall = await stalling()
    onTestFinished(() => stall.close())
    const controller = new AbortController()
    const model = actors.openai({
      model: 'gpt-4o-mini',
      apiKey: KEY,
      baseURL: `${stall.url}/v1`,
      timeoutMs: 60_000,
      ...fast,
    })
    const started = performance.now()
    setTimeout(() => controller.abort(new Error('test timed out')), 100)
    await expect(ask(model, controller.signal)).rejects.toThrow('test timed out')
    expect(performance.now() - started).toBeLessThan(1000)
  })
})

describe('a dead endpoint fails fast and by name', () => {
  it('a call names the endpoint and the cause', async () => {
    const port = await deadPort()
    const model = actors.openaiCompatible({ model: 'coder', baseURL: `http://127.0.0.1:${port}/v1`, ...fast })
    await expect(ask(model)).rejects.toThrow(`http://127.0.0.1:${port}/v1: connection refused (ECONNREFUSED)`)
  })

  it('a 52-trajectory cell against it ends in seconds, every error naming the endpoint', async () => {
    const port = await deadPort()
    const model = actors.openaiCompatible({ model: 'coder', baseURL: `http://127.0.0.1:${port}/v1` })
    const tasks: Task[] = Array.from({ length: 26 }, (_, i) => ({ id: `t${i}`, prompt: `task ${i}` }))
    const verifier: Verifier = {
      name: 'never',
      version: '1',
      settings: {},
      verify: async () => ({ pass: false, diagnostics: { outcome: 'failed', summary: 'no' } }),
    }
    const started = performance.now()
    const { summary, trajectories } = await runCell({
      runId: 'dead',
      benchmark: 'dead',
      cellId: 'dead · binary',
      tasks,
      actor: model,
      verifier,
      mode: { name: 'binary', feedback: feedback.binary() },
      history: fullHistory,
      promptBuilder: defaultPromptBuilder,
      budget: 3,
      repeats: 2,
      discloseBudget: false,
      concurrency: 4,
      thresholds: {},
      errors: 'censored',
    })
    const took = performance.now() - started
    expect(trajectories).toHaveLength(52)
    expect(summary.errors.count).toBe(52)
    expect(took).toBeLessThan(10_000)
    for (const t of trajectories)
      expect(t.error?.message).toContain(`http://127.0.0.1:${port}/v1: connection refused (ECONNREFUSED)`)
  })
})

describe('quotas, storms and silent ports fail the endpoint once, not every call', () => {
  const tasks = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}`, prompt: `Task ${i}: say CORRECT.` }))

  it('a 429 asking to wait an hour fails every call of a 16-trajectory cell at once, saying what the server asked', async () => {
    // Before: each call waited the 60 s cap five times, 10 minutes for sixteen trajectories.
    const server = await startTestServer({ responder: () => 'CORRECT' })
    onTestFinished(() => server.close())
    server.injectFaults({ kind: 'status', status: 429, retryAfterSeconds: 3600, times: 1000 })
    const actor = actors.openaiCompatible({ model: 'coder', baseURL: server.openaiBaseURL, apiKey: KEY })
    const started = performance.now()
    const { trajectories, summary } = await runCell(
      cellSpec(tasks(16), actor, { concurrency: 8, verifier: saysCorrect, errors: 'censored' }),
    )
    const took = performance.now() - started
    expect(took).toBeLessThan(5000)
    expect(trajectories.every((t) => t.status === 'error' && t.error?.kind === 'quota')).toBe(true)
    // Only the calls already in flight together asked the server; the rest were told at once.
    expect(server.requests.length).toBeLessThanOrEqual(8)
    const first = trajectories.find((t) => t.error?.message.includes('HTTP 429'))!
    expect(first.error!.message).toContain(
      'the server asked to wait 3600 s, more than the 60 s cap (retry.maxRetryAfterMs): a quota? Raise retry.maxRetryAfterMs or wait',
    )
    expect(first.error!.message).not.toContain('gave up after')
    const told = trajectories.find((t) => !t.error?.message.includes('HTTP 429'))!
    expect(
      told.error!.message.startsWith(
        `${server.openaiBaseURL}: the server asked to wait 3600 s, more than the 60 s cap`,
      ),
    ).toBe(true)
    expect(told.error!.message).toMatch(/calls to it fail at once until 20\d\d-\d\d-\d\dT/)
    const check = summary.thresholds.find((t) => t.metric === 'measured')!
    expect(check.message).toContain('Fix (quota):')
    expect(check.message).not.toContain('raise maxErrorRate')
  })

  it('a storm of 30 × 503 over 10 concurrent trajectories: one shared backoff, none runs out of retries, each answer paid once', async () => {
    // Before: every call backed off on its own, and 3 of 10 trajectories ran out of retries.
    const server = await startTestServer({ responder: () => 'CORRECT' })
    onTestFinished(() => server.close())
    server.injectFaults({ kind: 'status', status: 503, times: 30 })
    const actor = actors.openaiCompatible({
      model: 'coder',
      baseURL: server.openaiBaseURL,
      apiKey: KEY,
      retry: { baseDelayMs: 50 },
    })
    const started = performance.now()
    const { trajectories } = await runCell(
      cellSpec(tasks(10), actor, { concurrency: 10, verifier: saysCorrect, budget: 1, errors: 'censored' }),
    )
    expect(trajectories.map((t) => t.error?.message ?? t.status)).toEqual(Array(10).fill('solved'))
    // 30 refused, 10 answered: nothing lost, nothing asked twice once answered.
    expect(server.requests.length).toBe(40)
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  it('a port that accepts and never answers opens the breaker: 50 trajectories fail in about one timeoutMs, not 6 tries × timeoutMs each', async () => {
    // Before: 135 s at 2 s a try for 50 trajectories; timeouts did not count toward the breaker.
    const server = await startTestServer()
    onTestFinished(() => server.close())
    server.injectFaults({ kind: 'hang', times: 10_000 })
    const actor = actors.openaiCompatible({
      model: 'coder',
      baseURL: server.openaiBaseURL,
      apiKey: KEY,
      timeoutMs: 500,
    })
    const started = performance.now()
    const { trajectories } = await runCell(
      cellSpec(tasks(25), actor, { repeats: 2, concurrency: 8, errors: 'censored' }),
    )
    const took = performance.now() - started
    expect(trajectories).toHaveLength(50)
    expect(trajectories.every((t) => t.status === 'error' && t.error?.kind === 'timeout')).toBe(true)
    // One wave of tries in flight timed out; the rest failed at once (the 6 × 0.5 s a call used to take is 3 s).
    expect(took).toBeLessThan(2500)
    expect(server.requests.length).toBeLessThanOrEqual(12)
    const told = trajectories.map((t) => t.error!.message).find((m) => m.includes('tries in a row timed out'))
    expect(told).toMatch(
      /: no complete response within 500 ms \(timeoutMs\); \d+ tries in a row timed out, so calls to it fail at once .*raise timeoutMs if the model needs longer/,
    )
  })

  it("callTimeoutMs bounds a call's whole time, every try and wait included", async () => {
    const server = await startTestServer()
    onTestFinished(() => server.close())
    // Every try fails slowly and retryably: without a bound, 21 tries with backoff.
    server.injectFaults({ kind: 'slow', delayMs: 150, times: 1000 })
    server.respondWith(() => {
      throw new Error('upstream exploded')
    })
    const actor = actors.openaiCompatible({
      model: 'coder',
      baseURL: server.openaiBaseURL,
      apiKey: KEY,
      callTimeoutMs: 1000,
      retry: { maxRetries: 20, baseDelayMs: 100 },
    })
    const started = performance.now()
    const error = (await ask(actor).catch((e: unknown) => e)) as ProviderError
    const took = performance.now() - started
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.message).toMatch(
      /^compat:coder \(actor, task t, attempt 1\): no answer within the call's 1 s bound \(callTimeoutMs\), /,
    )
    expect(error.kind).toBe('timeout')
    expect(took).toBeGreaterThanOrEqual(900)
    // The bound and one try's slack, with margin for a loaded machine.
    expect(took).toBeLessThan(3000)
  })
})

describe('advice that fits the cause', () => {
  const tasks = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}`, prompt: `Task ${i}: say CORRECT.` }))
  const failedCheck = (summary: { thresholds: { pass: boolean; message: string }[] }) =>
    summary.thresholds
      .filter((t) => !t.pass)
      .map((t) => t.message)
      .join(' | ')

  it('a wrong key: authentication, the status said once, the fix is the key, not maxErrorRate', async () => {
    const wrongKey = await serve((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          error: {
            message: 'Incorrect API key provided: sk-wr****ong.',
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        }),
      )
    })
    onTestFinished(() => wrongKey.close())
    const actor = actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: `${wrongKey.url}/v1` })
    const { trajectories, summary } = await runCell(cellSpec(tasks(2), actor, { errors: 'censored' }))
    expect(trajectories.map((t) => t.error?.kind)).toEqual(['authentication', 'authentication'])
    expect(trajectories[0]!.error!.message).toBe(
      'openai:gpt-4o-mini (actor, task t0, attempt 1): HTTP 401: Incorrect API key provided: sk-wr****ong.',
    )
    const message = failedCheck(summary)
    expect(message).toContain(
      'Fix (authentication): the endpoint refused the credentials: check the API key (apiKey, OPENAI_API_KEY or ANTHROPIC_API_KEY)',
    )
    expect(message).not.toMatch(/maxErrorRate/)
    expect(message).not.toMatch(/HTTP 401: 401/)
  })

  it('a mistyped port: connection, the fix is the baseURL', async () => {
    const port = await deadPort()
    const actor = actors.openaiCompatible({ model: 'coder', baseURL: `http://127.0.0.1:${port}/v1` })
    const { trajectories, summary } = await runCell(cellSpec(tasks(4), actor, { errors: 'censored' }))
    expect(new Set(trajectories.map((t) => t.error?.kind))).toEqual(new Set(['connection']))
    expect(failedCheck(summary)).toContain(
      'Fix (connection): no connection to the endpoint: check the baseURL (host and port) and that the server is running.',
    )
    expect(failedCheck(summary)).not.toMatch(/maxErrorRate/)
  })

  it('a few 503s among answers: server, and there tolerating is the fix', async () => {
    const server = await startTestServer({ responder: () => 'CORRECT' })
    onTestFinished(() => server.close())
    server.injectFaults({
      kind: 'status',
      status: 503,
      times: 1000,
      match: (r) => r.messages.some((m) => m.content.startsWith('Task 0:')),
    })
    const actor = actors.openaiCompatible({
      model: 'coder',
      baseURL: server.openaiBaseURL,
      apiKey: KEY,
      retry: { maxRetries: 1, baseDelayMs: 5 },
    })
    const { trajectories, summary } = await runCell(
      cellSpec(tasks(4), actor, { verifier: saysCorrect, errors: 'censored' }),
    )
    expect(trajectories.filter((t) => t.status === 'error').map((t) => t.error?.kind)).toEqual(['server'])
    const message = failedCheck(summary)
    expect(message).toContain('1 trajectory ended in an infrastructure error (25.0% > allowed 0.0%)')
    expect(message).toContain(
      "Fix (server): the server failed (HTTP 5xx): many such errors mean it is down or overloaded; a few such errors are noise: raise maxErrorRate in the cell's expect",
    )
  })
})

describe('a server that fails the same request every time', () => {
  const tasks = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}`, prompt: `Task ${i}: say CORRECT.` }))
  const asked = (server: { requests: { messages: { content: string }[] }[] }, task: number) =>
    server.requests.filter((r) => r.messages.some((m) => m.content.startsWith(`Task ${task}:`))).length

  it("the same 500 twice for one request while others are answered is the request's error: 2 tries, not 6, and the advice fits", async () => {
    const server = await startTestServer({ responder: () => 'CORRECT' })
    onTestFinished(() => server.close())
    server.injectFaults({
      kind: 'status',
      status: 500,
      times: 1000,
      match: (r) => r.messages.some((m) => m.content.startsWith('Task 0:')),
    })
    // The default allowance (5 retries): before, task 0 took all 6 tries, each a shared backoff.
    const actor = actors.openaiCompatible({
      model: 'coder',
      baseURL: server.openaiBaseURL,
      retry: { baseDelayMs: 200 },
    })
    const { trajectories, summary } = await runCell(
      cellSpec(tasks(4), actor, { verifier: saysCorrect, errors: 'censored', concurrency: 4 }),
    )
    const [t0, ...others] = trajectories
    expect(t0!.status).toBe('error')
    expect(t0!.error!.kind).toBe('request')
    expect(t0!.error!.message).toMatch(
      /: HTTP 500: .* \(the same answer to this request twice, while the endpoint answers others: the request's own error, not the server's weather, so it is not retried\) \(2 tries\)$/,
    )
    expect(asked(server, 0)).toBe(2)
    // Nothing lost, nothing paid twice: every other task answered once and solved.
    expect(others.map((t) => t.status)).toEqual(['solved', 'solved', 'solved'])
    for (const task of [1, 2, 3]) expect(asked(server, task)).toBe(1)
    const failed = summary.thresholds.filter((t) => !t.pass).map((t) => t.message)
    expect(failed.join(' ')).toContain(
      'Fix (request refused): the endpoint refused the request itself (an HTTP 4xx, or the same 5xx answer to it twice while it answered others)',
    )
    expect(failed.join(' ')).not.toMatch(/down or overloaded/)
  })

  it('a server that fails every request with the same 500 opens the breaker: a 12-trajectory cell makes 2 tries per call in flight, not 6 per call', async () => {
    const always = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: 'Internal Server Error', type: 'server_error' } }))
    })
    onTestFinished(() => always.close())
    const concurrency = 8
    const actor = actors.openaiCompatible({ model: 'coder', baseURL: `${always.url}/v1`, retry: { baseDelayMs: 20 } })
    const { trajectories } = await runCell(
      cellSpec(tasks(4), actor, { errors: 'censored', concurrency, repeats: 3, verifier: saysCorrect }),
    )
    // Before: 107 requests and 267 s (12 trajectories, the default retries; /tmp measurement in the commit).
    expect(trajectories).toHaveLength(12)
    expect(trajectories.every((t) => t.status === 'error' && t.error?.kind === 'server')).toBe(true)
    for (const t of trajectories)
      expect(t.error!.message).toMatch(
        /HTTP 500: Internal Server Error; 3 requests in a row failed on server errors and none was answered, so calls to it fail at once \(next try in \d+ s\); the server fails every request, not one/,
      )
    // The calls in flight tried twice each; the rest never reached it (one probe allowed after a cool-down).
    expect(always.requests()).toBeLessThanOrEqual(2 * concurrency + 1)
  })

  it('an overload (503 with the same body) is weather: retried with the shared backoff, and answers when it passes', async () => {
    const server = await startTestServer({ responder: () => 'CORRECT' })
    onTestFinished(() => server.close())
    server.injectFaults({ kind: 'status', status: 503, times: 3 })
    const actor = actors.openaiCompatible({ model: 'coder', baseURL: server.openaiBaseURL, retry: { baseDelayMs: 5 } })
    const { trajectories } = await runCell(cellSpec(tasks(1), actor, { verifier: saysCorrect }))
    expect(trajectories[0]!.status).toBe('solved')
    expect(server.requests).toHaveLength(4)
  })
})

describe('every byte bounded', () => {
  /** Samples this process's resident memory while `run` runs: the peak above where it started, in MB. */
  async function peakGrowthMb<T>(run: () => Promise<T>): Promise<{ value: T; mb: number }> {
    const base = process.memoryUsage().rss
    let peak = base
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
    try {
      const value = await run()
      peak = Math.max(peak, process.memoryUsage().rss)
      return { value, mb: (peak - base) / 1e6 }
    } finally {
      clearInterval(timer)
    }
  }
  const chat = (text: string) =>
    JSON.stringify({
      id: 'c1',
      object: 'chat.completion',
      created: 0,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
    })

  it('a 300 KB gzip that inflates to 300 MB is refused at the cap while it is read, memory bounded', async () => {
    // Before: accepted, at 1 GB of resident memory.
    const chunks: Buffer[] = []
    const gzip = createGzip({ level: 9 })
    gzip.on('data', (c: Buffer) => chunks.push(c))
    const done = new Promise((r) => gzip.on('end', r))
    const prefix = chat('X').split('"X"')
    gzip.write(`${prefix[0]}"`)
    const zeros = Buffer.alloc(1 << 20, 'a')
    for (let i = 0; i < 300; i++) if (!gzip.write(zeros)) await new Promise((r) => gzip.once('drain', r))
    gzip.end(`"${prefix[1]}`)
    await done
    const bomb = Buffer.concat(chunks)
    expect(bomb.length).toBeLessThan(400_000)
    const server = await serve((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': bomb.length,
      })
      res.end(bomb)
    })
    onTestFinished(() => server.close())
    const model = actors.openaiCompatible({ model: 'coder', baseURL: `${server.url}/v1`, apiKey: KEY, ...fast })
    const { value: error, mb } = await peakGrowthMb(() => ask(model).catch((e: unknown) => e as ProviderError))
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as Error).message).toBe(
      'compat:coder (actor, task t, attempt 1): the response body (more than 16 MiB decompressed) is over the 16 MiB cap (maxResponseBytes); raise maxResponseBytes if that much is expected',
    )
    // Refused, not retried: the same request would get the same body.
    expect(server.requests()).toBe(1)
    expect(mb).toBeLessThan(200)
  })

  it('a 200 MB answer is refused at the cap, by its content-length before a byte is read, or as it streams in', async () => {
    const size = 200 * (1 << 20)
    const [head, tail] = chat('X').split('"X"')
    const server = await serve((req, res) => {
      const declared = req.url?.includes('declared')
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(declared ? { 'content-length': size + head!.length + tail!.length + 2 } : {}),
      })
      res.write(`${head}"`)
      const block = Buffer.alloc(1 << 20, 'b')
      let sent = 0
      const more = () => {
        while (sent < 200) {
          sent++
          if (!res.write(block)) return void res.once('drain', more)
        }
        res.end(`"${tail}`)
      }
      res.on('close', () => (sent = 1000))
      more()
    })
    onTestFinished(() => server.close())
    for (const path of ['/declared/v1', '/chunked/v1']) {
      const model = actors.openaiCompatible({ model: 'coder', baseURL: `${server.url}${path}`, apiKey: KEY, ...fast })
      const started = performance.now()
      const { value: error, mb } = await peakGrowthMb(() => ask(model).catch((e: unknown) => e as ProviderError))
      expect((error as Error).message).toMatch(
        path.startsWith('/declared')
          ? /the response body \(200 MiB on the wire\) is over the 16 MiB cap \(maxResponseBytes\)/
          : /the response body \(more than 16 MiB decompressed\) is over the 16 MiB cap/,
      )
      expect(mb).toBeLessThan(150)
      expect(performance.now() - started).toBeLessThan(10_000)
    }
  })

  it('an answer over maxAnswerChars is cut and recorded as such, and the revision sends the cut answer, not the whole', async () => {
    // Before: a 50 MB answer was sent again whole on the revision and made a 105 MB trajectories file.
    const long = 'y'.repeat(5_000_000)
    const received: number[] = []
    const server = await startTestServer({
      responder: (request) => {
        received.push(JSON.stringify(request.body).length)
        return long
      },
    })
    onTestFinished(() => server.close())
    for (const stream of [false, true]) {
      received.length = 0
      const actor = actors.openaiCompatible({
        model: 'coder',
        baseURL: server.openaiBaseURL,
        apiKey: KEY,
        stream,
        maxAnswerChars: 100_000,
      })
      const { trajectories } = await runCell(cellSpec([{ id: 't', prompt: 'write a lot' }], actor, { budget: 2 }))
      const [first, second] = trajectories[0]!.attempts
      expect(first!.answer.length).toBe(100_000)
      expect(first!.finishReason).toBe('length')
      expect(first!.cutAtChars).toBe(100_000)
      expect(second!.answer.length).toBe(100_000)
      // The revision's request holds the cut answer once: far below the 5 MB answer.
      expect(received[1]!).toBeLessThan(150_000)
      expect(JSON.stringify(trajectories).length).toBeLessThan(300_000)
    }
  })
})

describe('a body that is not the API', () => {
  const providers: Record<string, (baseURL: string, stream?: boolean) => ChatModel> = {
    'openai chat': (baseURL, stream) =>
      actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: `${baseURL}/v1`, stream, ...fast }),
    'openai responses': (baseURL, stream) =>
      actors.openai({
        model: 'gpt-4.1-mini',
        api: 'responses',
        apiKey: KEY,
        baseURL: `${baseURL}/v1`,
        stream,
        ...fast,
      }),
    compat: (baseURL, stream) =>
      actors.openaiCompatible({ model: 'coder', apiKey: KEY, baseURL: `${baseURL}/v1`, stream, ...fast }),
    anthropic: (baseURL, stream) =>
      actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL, stream, ...fast }),
  }
  for (const [name, make] of Object.entries(providers)) {
    it(`${name}: an HTML page with status 200 is retried as malformed, saying what came (kind, size, start)`, async () => {
      // Before, on the Responses API: "Cannot use 'in' operator…", not retried.
      const before = html.requests()
      const error = (await ask(make(html.url)).catch((e: unknown) => e)) as ProviderError
      expect(error).toBeInstanceOf(ProviderError)
      expect(html.requests() - before).toBe(2)
      expect(error.message).toMatch(
        /malformed response: the body is not JSON but an HTML page, 72 B, starting "<!doctype html><html><body><h1>Sign in t…" \(a proxy or gateway page, not the .* API\?\) \(gave up after 2 tries: 1 \+ retry\.maxRetries 1\)$/,
      )
      expect(error.kind).toBe('model-output')
    })
  }

  const streams: Record<string, [string, RegExp]> = {
    'no event at all': ['', /the stream ended after 0 events/],
    'a malformed event': [
      'event: message_start\ndata: {"type":"message_start","message":\n\n',
      /malformed response: the body or a stream event is not JSON \(Unexpected end of JSON input\)/,
    ],
  }
  for (const [what, [body, message]] of Object.entries(streams)) {
    for (const [name, make] of Object.entries(providers)) {
      it(`${name} (stream): ${what} with status 200 is retried, saying what came`, async () => {
        // Before: Anthropic's was not retried; compat and Responses said only "empty response".
        const server = await serve((_req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          res.end(body)
        })
        onTestFinished(() => server.close())
        const error = (await ask(make(server.url, true)).catch((e: unknown) => e)) as ProviderError
        expect(error).toBeInstanceOf(ProviderError)
        expect(server.requests()).toBe(2)
        expect(error.message).toMatch(message)
        expect(error.message).toMatch(/\(gave up after 2 tries: 1 \+ retry\.maxRetries 1\)$/)
        expect(error.kind).toBe('model-output')
      })
    }
  }
})

describe('declaration', () => {
  it('a compatible actor without a base URL is an error that says what to pass', () => {
    expect(() => actors.openaiCompatible({ model: 'coder' } as never)).toThrow(
      "actors.openaiCompatible({ model: \"coder\" }): baseURL is required and must be the server's http(s) URL as a string, e.g. 'http://localhost:11434/v1'",
    )
    expect(() => actors.openaiCompatible({ model: 'coder', baseURL: 'localhost:11434' })).toThrow(
      '(got "localhost:11434")',
    )
  })

  it('every option is bounded or refused with the fix: base URLs, keys, choices, batch settings', () => {
    const where = 'actors.openai({ model: "gpt-x" })'
    const cases: [() => unknown, string | RegExp][] = [
      [
        () => actors.openaiCompatible({ model: 'c', baseURL: 'ftp://files.example/v1' }),
        `baseURL must be the server's http(s) URL, e.g.`,
      ],
      [
        () => actors.openai({ model: 'gpt-x', apiKey: KEY, baseURL: 'not a url' }),
        `${where}: baseURL must be the server's http(s) URL`,
      ],
      [
        () => actors.openai({ model: 'gpt-x', apiKey: 12345 as never }),
        `${where}: apiKey must be a non-empty string (the key itself), got a number`,
      ],
      [
        () => actors.openai({ model: 'gpt-x', apiKey: KEY, api: 'chatt' as never }),
        `${where}: api must be 'chat' or 'responses', got "chatt"`,
      ],
      [
        () => actors.openai({ model: 'gpt-x', apiKey: KEY, batch: { pollMs: 0 } }),
        `${where}, batch: pollMs must be a number from 1 to 3600000`,
      ],
      [
        () => actors.openai({ model: 'gpt-x', apiKey: KEY, batch: { deadlineMs: -1 } }),
        /batch: deadlineMs must be a number from 1 to 86400000 \(the providers' 24-hour window\), got -1/,
      ],
      [
        () => actors.openai({ model: 'gpt-x', apiKey: KEY, batch: { maxBatch: 1e9 } }),
        /batch: maxBatch must be a whole number from 1 to 50000 \(the provider takes at most 50000 requests in one batch\)/,
      ],
      [
        () => actors.anthropic({ model: 'claude-x', apiKey: KEY, batch: { maxBatch: 200_000 } }),
        /maxBatch must be a whole number from 1 to 100000/,
      ],
      [
        () => actors.anthropic({ model: 'claude-x', apiKey: KEY, headers: { 'x-key': 5 } as never }),
        /headers must be an object of header names to string values/,
      ],
      [
        () => actors.openai({ model: 'gpt-x', apiKey: KEY, callTimeoutMs: 0 }),
        /callTimeoutMs must be a number from 1 to 86400000/,
      ],
    ]
    for (const [make, message] of cases) expect(make).toThrow(message)
    expect(() =>
      actors.openai({
        model: 'gpt-x',
        apiKey: KEY,
        api: 'responses',
        batch: { pollMs: 1, deadlineMs: 86_400_000, maxBatch: 50_000 },
        headers: { 'x-gateway': 'abc' },
      }),
    ).not.toThrow()
  })
})

describe('no secret leaves', () => {
  it('a gateway that echoes every request header in its error body: the key appears in no message and no trajectory', async () => {
    // A fake key in the shape of a real one, built at runtime so no key-shaped literal is committed.
    const key = ['sk', 'proj', 'echoed', 'SECRET', 'abcdefghijklmnop'].join('-')
    const echo = await serve((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `bad credentials; you sent ${JSON.stringify(req.headers)}` } }))
    })
    try {
      for (const model of [
        actors.openai({ model: 'gpt-4o-mini', apiKey: key, baseURL: `${echo.url}/v1`, ...fast }),
        actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: key, baseURL: echo.url, ...fast }),
        actors.openaiCompatible({ model: 'coder', apiKey: key, baseURL: `${echo.url}/v1`, ...fast }),
      ]) {
        const error = (await ask(model).catch((e: unknown) => e)) as Error
        expect(error.message).toContain('HTTP 401')
        expect(error.message).not.toContain(key)
        expect(error.message).not.toContain('echoed-SECRET')
        const tasks: Task[] = [{ id: 't', prompt: 'hi' }]
        const verifier: Verifier = {
          name: 'never',
          version: '1',
          settings: {},
          verify: async () => ({ pass: false, diagnostics: { outcome: 'failed', summary: 'no' } }),
        }
        const { trajectories, summary } = await runCell({
          runId: 'echo',
          benchmark: 'echo',
          cellId: 'echo',
          tasks,
          actor: model,
          verifier,
          mode: { name: 'binary', feedback: feedback.binary() },
          history: fullHistory,
          promptBuilder: defaultPromptBuilder,
          budget: 2,
          repeats: 1,
          discloseBudget: false,
          concurrency: 1,
          thresholds: {},
          errors: 'censored',
        })
        expect(trajectories[0]!.status).toBe('error')
        for (const text of [JSON.stringify(trajectories), JSON.stringify(summary)])
          expect(text).not.toContain('echoed-SECRET')
      }
    } finally {
      await echo.close()
    }
  })

  it('a gateway that echoes every request header in a successful answer: the key is in no answer, feedback or trajectory', async () => {
    const key = ['sk', 'ant', 'echoed', 'SECRET', 'qrstuvwxyzabcdef'].join('-')
    const echo = await serve((req, res) => {
      const text = `you sent ${JSON.stringify(req.headers)}`
      res.writeHead(200, { 'content-type': 'application/json' })
      if (req.url?.includes('/messages'))
        res.end(
          JSON.stringify({
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'claude-x',
            content: [{ type: 'text', text }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 3, output_tokens: 5 },
          }),
        )
      else
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            created: 0,
            model: 'gpt-x',
            choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
          }),
        )
    })
    try {
      for (const model of [
        actors.openai({ model: 'gpt-4o-mini', apiKey: key, baseURL: `${echo.url}/v1`, ...fast }),
        actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: key, baseURL: echo.url, ...fast }),
        actors.openaiCompatible({ model: 'coder', apiKey: key, baseURL: `${echo.url}/v1`, ...fast }),
      ]) {
        const tasks: Task[] = [{ id: 't', prompt: 'hi' }]
        const verifier: Verifier = {
          name: 'never',
          version: '1',
          settings: {},
          verify: async (_t, answer) => ({
            pass: false,
            diagnostics: { outcome: 'failed', summary: `wrong: ${answer}` },
          }),
        }
        const { trajectories, summary } = await runCell({
          runId: 'echo',
          benchmark: 'echo',
          cellId: 'echo',
          tasks,
          actor: model,
          verifier,
          mode: { name: 'binary', feedback: feedback.binary() },
          history: fullHistory,
          promptBuilder: defaultPromptBuilder,
          budget: 2,
          repeats: 1,
          discloseBudget: false,
          concurrency: 1,
          thresholds: {},
          errors: 'censored',
        })
        expect(trajectories[0]!.status).toBe('failed')
        expect(trajectories[0]!.attempts[0]!.answer).toContain('[REDACTED]')
        for (const text of [JSON.stringify(trajectories), JSON.stringify(summary)])
          expect(text).not.toContain('echoed-SECRET')
      }
    } finally {
      await echo.close()
    }
  })

  it("a server that names the request's key as the model it served: the served model is kept without it, in trajectories, summaries and cassettes", async () => {
    const key = ['sk', 'proj', 'served', 'SECRET', 'abcdefghijklmnop'].join('-')
    // A gateway's own key, never configured here: known only by its shape.
    const foreign = ['gsk', 'SECRETforeignGatewayKey0123456789abcd'].join('_')
    const echo = await serve((req, res) => {
      const served = `${String(req.headers.authorization ?? req.headers['x-api-key'] ?? '').replace(/^Bearer /, '')} ${foreign}`
      res.writeHead(200, { 'content-type': 'application/json' })
      if (req.url?.includes('/messages'))
        res.end(
          JSON.stringify({
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: served,
            content: [{ type: 'text', text: 'hello' }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 3, output_tokens: 5 },
          }),
        )
      else
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            created: 0,
            model: served,
            choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
          }),
        )
    })
    const dir = mkdtempSync(join(tmpdir(), 'seqk-served-cassettes-'))
    onTestFinished(async () => {
      await echo.close()
      rmSync(dir, { recursive: true, force: true })
    })
    const cassette = { mode: 'record' as const, dir }
    for (const model of [
      actors.openai({ model: 'gpt-4o-mini', apiKey: key, baseURL: `${echo.url}/v1`, cassette, ...fast }),
      actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: key, baseURL: echo.url, cassette, ...fast }),
      actors.openaiCompatible({ model: 'coder', apiKey: key, baseURL: `${echo.url}/v1`, cassette, ...fast }),
    ]) {
      const { trajectories, summary } = await runCell(cellSpec([{ id: 't', prompt: 'hi' }], model, { budget: 1 }))
      expect(trajectories[0]!.attempts[0]!.servedModel).toBe('[REDACTED] [REDACTED]')
      for (const text of [JSON.stringify(trajectories), JSON.stringify(summary)]) expect(text).not.toMatch(/SECRET/)
    }
    const written = readdirSync(dir, { recursive: true })
      .filter((f) => String(f).endsWith('.json'))
      .map((f) => readFileSync(join(dir, String(f)), 'utf8'))
    expect(written).toHaveLength(3)
    expect(written.join('\n')).not.toMatch(/SECRET/)
  })

  it('a base URL with credentials is refused at declaration, naming the header option, quoting none of them', () => {
    const url = 'http://alice:pa55word-SECRET@127.0.0.1:9/v1?api-key=qkey-SECRET-123'
    for (const make of [
      () => actors.openaiCompatible({ model: 'coder', baseURL: url }),
      () => actors.openai({ model: 'gpt-x', apiKey: KEY, baseURL: url }),
      () => actors.anthropic({ model: 'claude-x', apiKey: KEY, baseURL: url }),
    ]) {
      expect(make).toThrow(
        /baseURL must not carry credentials \(user:pass@\).*pass the key as apiKey .*headers: \{ authorization: 'Basic …' \}/i,
      )
      expect(() => make()).not.toThrow(/SECRET|alice/)
    }
    // Credentials in the query (a gateway's ?api-key=) work, and are in no protocol.
    const model = actors.openaiCompatible({ model: 'coder', baseURL: 'http://127.0.0.1:9/v1?api-key=qkey-SECRET-123' })
    expect(JSON.stringify(model.descriptor)).not.toMatch(/SECRET/)
  })

  it('a server that echoes the key in encoded forms (base64 of the Bearer header, URL-encoded, a Basic pair) puts none of them in answers, errors, trajectories, summaries or cassettes', async () => {
    const key = ['sk', 'proj', 'encoded', 'SECRET', 'abcdefghijklmnop'].join('-')
    const gatewayKey = ['gw', 'SECRET', 'qrstuvwxyz0123'].join('-')
    const forms = (req: IncomingMessage) => {
      const auth = String(req.headers.authorization ?? req.headers['x-api-key'] ?? '')
      return [
        Buffer.from(auth).toString('base64'),
        Buffer.from(`x${auth}`).toString('base64url'),
        encodeURIComponent(auth),
        Buffer.from(`gw:${String(req.headers['x-gateway-key'])}`).toString('base64'),
      ].join(' ')
    }
    let fail = false
    const echo = await serve((req, res) => {
      // Every other request fails with the forms in its error body; the others answer with them.
      fail = !fail
      if (fail) {
        res.writeHead(400, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ error: { message: `bad request, you sent ${forms(req)}` } }))
      }
      const text = `you sent ${forms(req)}`
      res.writeHead(200, { 'content-type': 'application/json' })
      if (req.url?.includes('/messages'))
        res.end(
          JSON.stringify({
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'claude-x',
            content: [{ type: 'text', text }],
            stop_reason: 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 3, output_tokens: 5 },
          }),
        )
      else
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            created: 0,
            model: 'gpt-x',
            choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
          }),
        )
    })
    const dir = mkdtempSync(join(tmpdir(), 'seqk-echo-cassettes-'))
    onTestFinished(async () => {
      await echo.close()
      rmSync(dir, { recursive: true, force: true })
    })
    const headers = { 'x-gateway-key': gatewayKey }
    const cassette = { mode: 'record' as const, dir }
    const secretParts = [key.slice(3, 20), gatewayKey.slice(3, 18)]
    const leaks = (text: string) => {
      const found: string[] = []
      for (const part of secretParts) {
        if (text.includes(part)) found.push(`plain ${part}`)
        // Decode every base64-looking run and every URL-encoded run: nothing may decode back to the key.
        for (const run of text.match(/[A-Za-z0-9+/_-]{12,}={0,2}/g) ?? []) {
          for (const decoded of [
            Buffer.from(run, 'base64').toString('latin1'),
            Buffer.from(run, 'base64url').toString('latin1'),
          ])
            if (decoded.includes(part.slice(0, 10))) found.push(`base64 ${run}`)
        }
        if (safeDecodeURI(text).includes(part)) found.push('url-encoded')
      }
      return found
    }
    for (const model of [
      actors.openai({ model: 'gpt-4o-mini', apiKey: key, baseURL: `${echo.url}/v1`, headers, cassette, ...fast }),
      actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: key, baseURL: echo.url, headers, cassette, ...fast }),
      actors.openaiCompatible({ model: 'coder', apiKey: key, baseURL: `${echo.url}/v1`, headers, cassette, ...fast }),
    ]) {
      // This model's first request fails, its second answers.
      fail = false
      const error = (await ask(model).catch((e: unknown) => e)) as ProviderError
      const answer = await ask(model).then((r) => r.text)
      expect(error).toBeInstanceOf(ProviderError)
      expect(leaks(`${error.message} ${inspect(error, { depth: 10 })} ${JSON.stringify(error.failure)}`)).toEqual([])
      expect(leaks(answer)).toEqual([])
      const tasks: Task[] = [{ id: 't', prompt: 'hi' }]
      const verifier: Verifier = {
        name: 'never',
        version: '1',
        settings: {},
        verify: async (_t, a) => ({ pass: false, diagnostics: { outcome: 'failed', summary: `wrong: ${a}` } }),
      }
      const { trajectories, summary } = await runCell({
        runId: 'echo',
        benchmark: 'echo',
        cellId: 'echo',
        tasks,
        actor: model,
        verifier,
        mode: { name: 'verifier', feedback: feedback.verifier() },
        history: fullHistory,
        promptBuilder: defaultPromptBuilder,
        budget: 3,
        repeats: 1,
        discloseBudget: false,
        concurrency: 1,
        thresholds: {},
        errors: 'censored',
      })
      expect(leaks(JSON.stringify(trajectories))).toEqual([])
      expect(leaks(JSON.stringify(summary))).toEqual([])
    }
    const written = readdirSync(dir, { recursive: true })
      .filter((f) => String(f).endsWith('.json'))
      .map((f) => readFileSync(join(dir, String(f)), 'utf8'))
    expect(written.length).toBeGreaterThan(0)
    expect(leaks(written.join('\n'))).toEqual([])
  })
})

function safeDecodeURI(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

describe('compat identity', () => {
  it("'served' takes the base URL's place in the protocol: the same weights elsewhere keep their baseline", () => {
    const here = actors.openaiCompatible({
      model: 'qwen',
      baseURL: 'http://127.0.0.1:11434/v1',
      served: 'qwen2.5-coder-7b-instruct-q4_k_m',
    })
    const there = actors.openaiCompatible({
      model: 'qwen',
      baseURL: 'http://gpu-box:8000/v1',
      served: 'qwen2.5-coder-7b-instruct-q4_k_m',
    })
    expect(here.descriptor).toEqual(there.descriptor)
    expect(here.descriptor.params).toEqual({ served: 'qwen2.5-coder-7b-instruct-q4_k_m' })
    const unnamed = [
      actors.openaiCompatible({ model: 'qwen', baseURL: 'http://127.0.0.1:11434/v1' }),
      actors.openaiCompatible({ model: 'qwen', baseURL: 'http://gpu-box:8000/v1' }),
    ]
    expect(unnamed[0]!.descriptor).not.toEqual(unnamed[1]!.descriptor)
  })
})

describe('typos do not pass silently', () => {
  it('an unknown option is an error naming the nearest valid one', () => {
    expect(() => actors.openai({ model: 'x', apiKey: KEY, temprature: 0.7 } as never)).toThrow(
      'actors.openai({ model: "x" }): unknown option "temprature" (did you mean "temperature"?); valid options: ',
    )
    expect(() => actors.anthropic({ model: 'y', apiKey: KEY, max_tokens: 10 } as never)).toThrow(
      'unknown option "max_tokens" (did you mean "maxTokens"?)',
    )
    expect(() =>
      actors.openaiCompatible({ model: 'z', baseURL: 'http://localhost:1/v1', retry: { retries: 3 } } as never),
    ).toThrow('actors.openaiCompatible({ model: "z" }), retry: unknown option "retries" (did you mean "maxRetries"?)')
    expect(() => actors.openai({ model: 'x', apiKey: KEY, flavour: 'vanilla' } as never)).toThrow(
      /unknown option "flavour"; valid options/,
    )
  })
})
