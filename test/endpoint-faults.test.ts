// Endpoints that break the way real ones do, over real sockets, with the real SDKs: a body that
// stalls after the headers, a port with nothing listening, an HTML page with status 200. Every
// call ends within its timeout, a dead endpoint fails a whole cell in seconds, and every error
// names the endpoint and the cause.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { actors, defaultPromptBuilder, feedback, fullHistory, runCell, type ChatModel, type Task, type Verifier } from '../src/index.js'
import { ProviderError } from '../src/models/retry.js'
import { deadPort } from './dead-port.js'

const KEY = 'fake-key-faults-0123456789'
const context = { role: 'actor' as const, taskId: 't', attempt: 1, repeat: 0, protocol: 'sequential' as const }
const ask = (model: ChatModel, signal?: AbortSignal) => model.chat({ messages: [{ role: 'user', content: 'hi' }], context, signal })

/** A server whose every response is decided by `handle`; requests are counted. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
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

let stall: Awaited<ReturnType<typeof serve>>
let html: Awaited<ReturnType<typeof serve>>
beforeAll(async () => {
  // Headers, then nothing: the body (or the stream) never comes.
  stall = await serve((req, res) => {
    const streaming = (req.headers.accept ?? '').includes('text/event-stream')
    res.writeHead(200, { 'content-type': streaming ? 'text/event-stream' : 'application/json' })
    if (streaming) res.write('data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"par"}}]}\n\n')
  })
  // A gateway's login page, with status 200.
  html = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end('<!doctype html><html><body><h1>Sign in to the gateway</h1></body></html>')
  })
})
afterAll(async () => {
  await stall.close()
  await html.close()
})

describe('timeoutMs bounds the whole call', () => {
  const providers: Record<string, (baseURL: string, stream: boolean) => ChatModel> = {
    'openai chat': (baseURL, stream) => actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: `${baseURL}/v1`, stream, timeoutMs: 300, ...fast }),
    'openai responses': (baseURL, stream) => actors.openai({ model: 'gpt-4.1-mini', api: 'responses', apiKey: KEY, baseURL: `${baseURL}/v1`, stream, timeoutMs: 300, ...fast }),
    anthropic: (baseURL, stream) => actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL, stream, timeoutMs: 300, ...fast }),
  }
  for (const [name, make] of Object.entries(providers)) {
    for (const stream of [false, true]) {
      it(`${name}${stream ? ' (stream)' : ''}: a body that stalls after the headers is a retried timeout, not a hang`, async () => {
        const before = stall.requests()
        const started = performance.now()
        const error = await ask(make(stall.url, stream)).catch((e: unknown) => e)
        const took = performance.now() - started
        expect(error).toBeInstanceOf(ProviderError)
        expect((error as Error).message).toMatch(new RegExp(`${stall.url.replace(/[.]/g, '\\.')}(/v1)?: no complete response within 300 ms \\(timeoutMs\\) \\(gave up after 2 tries\\)$`))
        // Two tries of 300 ms and a short backoff: nowhere near the 600 s a cell waits.
        expect(took).toBeLessThan(2000)
        expect(stall.requests() - before).toBe(2)
      })
    }
  }

  it('an abort stops a stalled call at once', async () => {
    const controller = new AbortController()
    const model = actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: `${stall.url}/v1`, timeoutMs: 60_000, ...fast })
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
    const verifier: Verifier = { name: 'never', version: '1', settings: {}, verify: async () => ({ pass: false, diagnostics: { outcome: 'failed', summary: 'no' } }) }
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
    for (const t of trajectories) expect(t.error?.message).toContain(`http://127.0.0.1:${port}/v1: connection refused (ECONNREFUSED)`)
  })
})

describe('a body that is not the API', () => {
  const providers: Record<string, (baseURL: string) => ChatModel> = {
    openai: (baseURL) => actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: `${baseURL}/v1`, ...fast }),
    anthropic: (baseURL) => actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL, ...fast }),
  }
  for (const [name, make] of Object.entries(providers)) {
    it(`${name}: an HTML page with status 200 is retried as malformed, with a reason a person can read`, async () => {
      const before = html.requests()
      const error = (await ask(make(html.url)).catch((e: unknown) => e)) as Error
      expect(error).toBeInstanceOf(ProviderError)
      expect(html.requests() - before).toBe(2)
      expect(error.message).toMatch(/malformed response: .*(not JSON|text\/html).*\(gave up after 2 tries\)$/)
      expect(error.message).not.toMatch(/TypeError|flatMap/)
    })
  }
})

describe('declaration', () => {
  it('a compatible actor without a base URL is an error that says what to pass', () => {
    expect(() => actors.openaiCompatible({ model: 'coder' } as never)).toThrow("actors.openaiCompatible({ model: \"coder\" }): baseURL is required and must be the server's http(s) URL, e.g. 'http://localhost:11434/v1'")
    expect(() => actors.openaiCompatible({ model: 'coder', baseURL: 'localhost:11434' })).toThrow('(got "localhost:11434")')
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
        const verifier: Verifier = { name: 'never', version: '1', settings: {}, verify: async () => ({ pass: false, diagnostics: { outcome: 'failed', summary: 'no' } }) }
        const { trajectories, summary } = await runCell({ runId: 'echo', benchmark: 'echo', cellId: 'echo', tasks, actor: model, verifier, mode: { name: 'binary', feedback: feedback.binary() }, history: fullHistory, promptBuilder: defaultPromptBuilder, budget: 2, repeats: 1, discloseBudget: false, concurrency: 1, thresholds: {}, errors: 'censored' })
        expect(trajectories[0]!.status).toBe('error')
        for (const text of [JSON.stringify(trajectories), JSON.stringify(summary)]) expect(text).not.toContain('echoed-SECRET')
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
      if (req.url?.includes('/messages')) res.end(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 3, output_tokens: 5 } }))
      else res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 0, model: 'gpt-x', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 } }))
    })
    try {
      for (const model of [
        actors.openai({ model: 'gpt-4o-mini', apiKey: key, baseURL: `${echo.url}/v1`, ...fast }),
        actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: key, baseURL: echo.url, ...fast }),
        actors.openaiCompatible({ model: 'coder', apiKey: key, baseURL: `${echo.url}/v1`, ...fast }),
      ]) {
        const tasks: Task[] = [{ id: 't', prompt: 'hi' }]
        const verifier: Verifier = { name: 'never', version: '1', settings: {}, verify: async (_t, answer) => ({ pass: false, diagnostics: { outcome: 'failed', summary: `wrong: ${answer}` } }) }
        const { trajectories, summary } = await runCell({ runId: 'echo', benchmark: 'echo', cellId: 'echo', tasks, actor: model, verifier, mode: { name: 'binary', feedback: feedback.binary() }, history: fullHistory, promptBuilder: defaultPromptBuilder, budget: 2, repeats: 1, discloseBudget: false, concurrency: 1, thresholds: {}, errors: 'censored' })
        expect(trajectories[0]!.status).toBe('failed')
        expect(trajectories[0]!.attempts[0]!.answer).toContain('[REDACTED]')
        for (const text of [JSON.stringify(trajectories), JSON.stringify(summary)]) expect(text).not.toContain('echoed-SECRET')
      }
    } finally {
      await echo.close()
    }
  })

  it("credentials in a compatible server's base URL are in no protocol and no message", async () => {
    const port = await deadPort()
    const model = actors.openaiCompatible({ model: 'coder', baseURL: `http://alice:pa55word-SECRET@127.0.0.1:${port}/v1?api-key=qkey-SECRET-123`, ...fast })
    expect(JSON.stringify(model.descriptor)).not.toMatch(/SECRET|alice/)
    const error = (await ask(model).catch((e: unknown) => e)) as Error
    // fetch refuses a URL with credentials before connecting; the message says so, and names the endpoint.
    expect(error.message).toContain(`http://127.0.0.1:${port}/v1?api-key=`)
    expect(error.message).toContain('could not connect: Request cannot be constructed from a URL that includes credentials')
    expect(error.message).not.toMatch(/SECRET|alice/)
  })
})

describe('compat identity', () => {
  it("'served' takes the base URL's place in the protocol: the same weights elsewhere keep their baseline", () => {
    const here = actors.openaiCompatible({ model: 'qwen', baseURL: 'http://127.0.0.1:11434/v1', served: 'qwen2.5-coder-7b-instruct-q4_k_m' })
    const there = actors.openaiCompatible({ model: 'qwen', baseURL: 'http://gpu-box:8000/v1', served: 'qwen2.5-coder-7b-instruct-q4_k_m' })
    expect(here.descriptor).toEqual(there.descriptor)
    expect(here.descriptor.params).toEqual({ served: 'qwen2.5-coder-7b-instruct-q4_k_m' })
    const unnamed = [actors.openaiCompatible({ model: 'qwen', baseURL: 'http://127.0.0.1:11434/v1' }), actors.openaiCompatible({ model: 'qwen', baseURL: 'http://gpu-box:8000/v1' })]
    expect(unnamed[0]!.descriptor).not.toEqual(unnamed[1]!.descriptor)
  })
})

describe('typos do not pass silently', () => {
  it('an unknown option is an error naming the nearest valid one', () => {
    expect(() => actors.openai({ model: 'x', apiKey: KEY, temprature: 0.7 } as never)).toThrow('actors.openai({ model: "x" }): unknown option "temprature" (did you mean "temperature"?); valid options: ')
    expect(() => actors.anthropic({ model: 'y', apiKey: KEY, max_tokens: 10 } as never)).toThrow('unknown option "max_tokens" (did you mean "maxTokens"?)')
    expect(() => actors.openaiCompatible({ model: 'z', baseURL: 'http://localhost:1/v1', retry: { retries: 3 } } as never)).toThrow('actors.openaiCompatible({ model: "z" }), retry: unknown option "retries" (did you mean "maxRetries"?)')
    expect(() => actors.openai({ model: 'x', apiKey: KEY, flavour: 'vanilla' } as never)).toThrow(/unknown option "flavour"; valid options/)
  })
})
