// A local HTTP server speaking the OpenAI Chat Completions, OpenAI Responses and Anthropic
// Messages wire protocols over real sockets, so the real SDKs (and their retry, timeout and
// streaming code) run unchanged against it.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { z } from 'zod'
import { describeZodError } from '../core/zod-errors.js'
import { FaultQueue, retryHeaders } from './faults.js'
import { limitHeaders, rateLimitHeaders, RateLimitSchema, TokenBucket, type RateLimitOptions } from './rate-limit.js'
import { echo, normaliseReply } from './responders.js'
import { SSE_HEADERS, writeSse } from './sse.js'
import { BatchApi, BatchOptionsSchema, type BatchAnswer, type BatchOptions } from './batches.js'
import type { Fault, FaultSpec, Responder, TestServer, TestServerReply, TestServerRequest } from './types.js'
import { approxTokens, PromptCacheSimulator, promptChars, type AnthropicCacheUsage } from './usage.js'
import { anthropicMessages } from './wire/anthropic-messages.js'
import { openaiChat } from './wire/openai-chat.js'
import { openaiResponses } from './wire/openai-responses.js'
import { normaliseMessages, type Completion, type ParsedBody, type WireProtocol } from './wire/shared.js'

const WIRES: readonly WireProtocol[] = [openaiChat, openaiResponses, anthropicMessages]

/** Header names whose values never reach `requests`. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'api-key', 'proxy-authorization', 'cookie'])

const SERVER_NAME = 'vitest-seqk test server'

const STATUS_MESSAGES: Record<number, string> = {
  408: 'Request timed out.',
  409: 'Conflict: the request could not be processed.',
  429: 'Rate limit reached. Please try again later.',
  500: 'The server had an error while processing your request.',
  502: 'Bad gateway.',
  503: 'The service is temporarily unavailable.',
  529: 'Overloaded.',
}

/**
 * Options of `startTestServer`.
 *
 * @example
 * const server = await startTestServer({ responder: echo, port: 0, host: '127.0.0.1' })
 */
export interface TestServerOptions {
  /** What to answer (default `echo`). Replace it later with `respondWith`. */
  responder?: Responder
  /** Default 0: a free port. */
  port?: number
  /** Default `127.0.0.1`. */
  host?: string
  /**
   * Enforce a request rate, as a provider does: a token bucket of `burst` requests (default one
   * second's worth) refilled at `requestsPerSecond`. A request beyond it gets a 429 in the
   * provider's error shape with `retry-after` (whole seconds, rounded up) and, unless
   * `retryAfterMs: false`, `retry-after-ms` (the exact wait), and unless `limitHeaders: false`
   * the provider's request-limit headers (the rate per minute, the reset); it is recorded in `requests` with
   * `rateLimited: true` and takes no fault. Checked after credentials and the body's validation.
   * Default: no limit.
   *
   * @example
   * const server = await startTestServer({ rateLimit: { requestsPerSecond: 20, burst: 4 } })
   */
  rateLimit?: RateLimitOptions
  /**
   * How the batch endpoints behave (OpenAI `/v1/files` + `/v1/batches`, Anthropic
   * `/v1/messages/batches`): how long a batch stays in progress at least (`delayMs`), when an
   * unfinished one expires (`expireAfterMs`), and how many of its requests are answered at once.
   * Each batched request is answered as the direct API would answer it (responder, faults, usage).
   *
   * @example
   * const server = await startTestServer({ batches: { delayMs: 200 } })
   */
  batches?: BatchOptions
  /**
   * The one key the server accepts, as a key-protected server (vLLM `--api-key`, a LiteLLM proxy,
   * OpenRouter) does: a request without `authorization: Bearer <apiKey>` or `x-api-key: <apiKey>`
   * gets a 401 in the provider's error shape. Default: any non-empty credentials pass.
   *
   * @example
   * const server = await startTestServer({ apiKey: 'sk-local-test' })
   */
  apiKey?: string
}

const OptionsSchema = z.strictObject({
  apiKey: z.string().min(1).optional(),
  batches: BatchOptionsSchema.optional(),
  responder: z.custom<Responder>((value) => typeof value === 'function', 'expected a responder function').optional(),
  port: z.number().int().min(0).max(65_535).optional(),
  host: z.string().min(1).optional(),
  rateLimit: RateLimitSchema.optional(),
})

/**
 * Starts a local server speaking `POST /v1/chat/completions`, `POST /v1/responses` and
 * `POST /v1/messages`, streaming (`stream: true`, server-sent events) and not. Every request needs
 * credentials (`authorization: Bearer ...` or `x-api-key`) and a body with the fields the
 * provider requires (validated; a bad one gets a 400 naming the field, in the provider's error
 * shape). When `max_tokens` / `max_completion_tokens` / `max_output_tokens` is smaller than the
 * reply (at 4 characters a token), the reply is cut to fit and finishes with `length`.
 *
 * Both SDKs retry 408/409/429/5xx and connection errors on their own: create clients with
 * `maxRetries: 0` (and a `timeout`) when a test wants to see the fault.
 *
 * @example
 * import OpenAI from 'openai'
 * import { startTestServer, scripted } from 'vitest-seqk/testing'
 *
 * const server = await startTestServer({ responder: scripted(['4']) })
 * const client = new OpenAI({ apiKey: 'test-key', baseURL: server.openaiBaseURL, maxRetries: 0, timeout: 5000 })
 * const completion = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: '2+2?' }] })
 * completion.choices[0]?.message.content // '4'
 * await server.close()
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const checked = OptionsSchema.safeParse(options)
  if (!checked.success) throw new TypeError(`startTestServer: ${describeZodError(checked.error)}`)
  let responder: Responder = options.responder ?? echo
  const limit = options.rateLimit
  let bucket = limit ? new TokenBucket(limit, performance.now()) : undefined
  const requests: TestServerRequest[] = []
  const faults = new FaultQueue()
  const cache = new PromptCacheSimulator()
  const inflight = new Set<AbortController>()
  let served = 0
  let baseUrl = ''
  const batchApi = new BatchApi(options.batches ?? {}, serveBatched, {
    openai: [openaiChat, openaiResponses],
    anthropic: anthropicMessages,
  })

  /** One request of a batch, answered as the direct API would answer it. */
  async function serveBatched(
    wire: WireProtocol,
    body: unknown,
    batch: { id: string; customId: string; signal: AbortSignal },
  ): Promise<BatchAnswer> {
    const serial = ++served
    const requestId = `req_test_${serial}`
    const parsed = wire.parse(body)
    if (!parsed.ok)
      return { status: 400, body: wire.errorBody(400, parsed.message, { param: parsed.param, requestId }), requestId }
    const request: TestServerRequest = {
      api: wire.api,
      model: parsed.value.model,
      messages: normaliseMessages(parsed.value.blocks),
      stream: false,
      body,
      headers: {},
      index: requests.length,
      batch: { id: batch.id, customId: batch.customId },
      ...toolsOf(parsed.value),
    }
    requests.push(request)
    const fault = faults.take(request)
    if (fault?.kind === 'status')
      return {
        status: fault.status,
        body: wire.errorBody(fault.status, `${STATUS_MESSAGES[fault.status]} (fault injected by the ${SERVER_NAME})`, {
          requestId,
        }),
        requestId,
      }
    const cached: AnthropicCacheUsage =
      wire.api === 'messages'
        ? cache.anthropic(parsed.value.model, parsed.value.blocks)
        : {
            cacheReadTokens: cache.openai(`${wire.api}:${parsed.value.model}`, parsed.value.blocks),
            cacheWriteTokens: 0,
            cacheWrite1hTokens: 0,
          }
    let reply: TestServerReply
    try {
      reply = normaliseReply(await responder(request))
    } catch (error) {
      return {
        status: 500,
        body: wire.errorBody(500, `${SERVER_NAME}: the responder failed: ${messageOf(error)}`, { requestId }),
        requestId,
      }
    }
    if (reply.delayMs && !(await sleep(reply.delayMs, batch.signal))) return { status: 499, body: null, requestId }
    return {
      status: 200,
      body: wire.responseBody(complete({ wire, parsed: parsed.value, body, reply, fault, cached, serial })),
      requestId,
    }
  }

  const server = createServer((req, res) => void handle(req, res))
  // Keep-alive sockets are destroyed by close(); no need for the server to time them out early.
  server.keepAliveTimeout = 30_000

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const controller = new AbortController()
    inflight.add(controller)
    res.on('close', () => {
      controller.abort()
      inflight.delete(controller)
    })
    const serial = ++served
    const requestId = `req_test_${serial}`
    res.setHeader('x-request-id', requestId) // OpenAI's name
    res.setHeader('request-id', requestId) // Anthropic's name
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '')
    const wire = WIRES.find((w) => w.path === path)
    const errorWire = wire ?? (path.startsWith('/v1/messages') ? anthropicMessages : openaiChat)
    const fail = (status: number, message: string, extra: { param?: string; headers?: Record<string, string> } = {}) =>
      sendJson(res, status, errorWire.errorBody(status, message, { param: extra.param, requestId }), extra.headers)
    try {
      const raw = await readBody(req)
      if (/^\/v1\/(files|batches|messages\/batches)(\/|$)/.test(path)) {
        if (!hasCredentials(req.headers, options.apiKey)) return fail(401, credentialsMessage(options.apiKey))
        const routed = await batchApi.route(req.method ?? 'GET', path, raw, req.headers['content-type'], baseUrl)
        if (routed) {
          if ('stall' in routed) {
            res.writeHead(200, { 'content-type': 'application/json' })
            return void res.flushHeaders()
          }
          if ('json' in routed) return sendJson(res, routed.status, routed.json)
          res.writeHead(routed.status, {
            'content-type': routed.contentType,
            'content-length': Buffer.byteLength(routed.text),
          })
          return void res.end(routed.text)
        }
      }
      if (!wire || req.method !== 'POST') {
        return fail(
          404,
          `${SERVER_NAME}: no route for ${req.method} ${path}; it serves POST ${WIRES.map((w) => w.path).join(', ')}`,
        )
      }
      if (!hasCredentials(req.headers, options.apiKey)) return fail(401, credentialsMessage(options.apiKey))
      let body: unknown
      try {
        body = JSON.parse(raw)
      } catch (error) {
        return fail(400, `${SERVER_NAME}: the request body is not valid JSON (${messageOf(error)})`)
      }
      const parsed = wire.parse(body)
      if (!parsed.ok) return fail(400, parsed.message, { param: parsed.param })
      const request: TestServerRequest = {
        api: wire.api,
        model: parsed.value.model,
        messages: normaliseMessages(parsed.value.blocks),
        stream: parsed.value.stream,
        body,
        headers: redact(req.headers),
        index: requests.length,
        ...toolsOf(parsed.value),
      }
      const checkedAt = performance.now()
      const verdict = bucket?.take(checkedAt)
      // The bucket's own clock reading: the law a test checks holds on these times exactly (a responder's are later, and skewed).
      if (bucket) request.rateCheckedAt = checkedAt
      if (verdict && !verdict.ok) {
        request.rateLimited = true
        requests.push(request)
        const wait = `${Math.ceil(verdict.waitMs)} ms`
        return fail(
          429,
          `Rate limit reached for requests: ${bucket!.requestsPerSecond} per second, burst ${bucket!.burst} (the ${SERVER_NAME}'s rateLimit). Please try again in ${wait}.`,
          {
            headers: {
              ...rateLimitHeaders(verdict.waitMs, limit?.retryAfterMs ?? true),
              ...(limit?.limitHeaders === false
                ? {}
                : limitHeaders(
                    wire.api,
                    { requestsPerSecond: bucket!.requestsPerSecond, fullInMs: bucket!.fullInMs(performance.now()) },
                    Date.now(),
                  )),
            },
          },
        )
      }
      requests.push(request)
      await answer({ wire, parsed: parsed.value, request, res, serial, signal: controller.signal, fail })
    } catch (error) {
      if (!res.headersSent && !res.destroyed) fail(500, `${SERVER_NAME}: ${messageOf(error)}`)
      else res.destroy()
    }
  }

  async function answer(input: {
    wire: WireProtocol
    parsed: ParsedBody
    request: TestServerRequest
    res: ServerResponse
    serial: number
    signal: AbortSignal
    fail: (status: number, message: string, extra?: { headers?: Record<string, string> }) => void
  }): Promise<void> {
    const { wire, parsed, request, res, signal, fail } = input
    const fault = faults.take(request)
    if (fault?.kind === 'status') {
      return fail(fault.status, `${STATUS_MESSAGES[fault.status]} (fault injected by the ${SERVER_NAME})`, {
        headers: retryHeaders(fault),
      })
    }
    if (fault?.kind === 'hang') return // never answer; the socket closes when the client aborts or the server closes
    if (fault?.kind === 'reset') {
      res.socket?.destroy()
      return
    }

    // The request is being served: it reads from and writes to the simulated prompt cache now,
    // in order of arrival, before any await.
    const cached: AnthropicCacheUsage =
      wire.api === 'messages'
        ? cache.anthropic(parsed.model, parsed.blocks)
        : {
            cacheReadTokens: cache.openai(`${wire.api}:${parsed.model}`, parsed.blocks),
            cacheWriteTokens: 0,
            cacheWrite1hTokens: 0,
          }

    if (fault?.kind === 'slow' && !(await sleep(fault.delayMs, signal))) return
    let reply: TestServerReply
    try {
      reply = normaliseReply(await responder(request))
    } catch (error) {
      return fail(500, `${SERVER_NAME}: the responder failed: ${messageOf(error)}`)
    }
    if (reply.delayMs && !(await sleep(reply.delayMs, signal))) return
    if (signal.aborted || res.destroyed) return

    const completion = complete({ wire, parsed, body: request.body, reply, fault, cached, serial: input.serial })
    if (parsed.stream) return stream(res, wire, completion, fault, signal)
    if (fault?.kind === 'malformed-json') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(`{"id":"${completion.id}","object":`)
      return
    }
    const json = JSON.stringify(wire.responseBody(completion))
    if (fault?.kind === 'stream-cut') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) })
      res.write(json.slice(0, Math.floor(json.length / 2)), () => res.socket?.destroy())
      return
    }
    sendJson(res, 200, json)
  }

  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error)
    server.once('error', onError)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', onError)
      const address = server.address() as AddressInfo
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
      const url = `http://${host}:${address.port}`
      baseUrl = url
      let closing: Promise<void> | undefined
      resolve({
        url,
        openaiBaseURL: `${url}/v1`,
        anthropicBaseURL: url,
        requests,
        respondWith(next) {
          if (typeof next !== 'function')
            throw new TypeError(`respondWith: expected a responder function, got ${typeof next}`)
          responder = next
        },
        injectFaults(...specs: FaultSpec[]) {
          faults.add(...specs)
        },
        batches() {
          return batchApi.list()
        },
        reset() {
          batchApi.clear()
          requests.length = 0
          faults.clear()
          cache.clear()
          if (limit) bucket = new TokenBucket(limit, performance.now())
        },
        close() {
          closing ??= new Promise<void>((done) => {
            batchApi.close()
            server.close(() => done())
            for (const controller of inflight) controller.abort()
            server.closeAllConnections()
          })
          return closing
        },
      })
    })
  })
}

/** Reply + fault + prompt-cache verdict → what the wire renders. */
function complete(input: {
  wire: WireProtocol
  parsed: ParsedBody
  body: unknown
  reply: TestServerReply
  fault: Fault | undefined
  cached: AnthropicCacheUsage
  serial: number
}): Completion {
  const { wire, parsed, reply, fault, cached } = input
  const empty = fault?.kind === 'empty-choices'
  let text = empty ? '' : reply.text
  let finishReason = reply.finishReason ?? 'stop'
  if (fault?.kind === 'truncated') {
    text = cutToChars(text, Math.ceil(text.length / 2))
    finishReason = 'length'
  } else if (
    parsed.maxOutputTokens !== undefined &&
    finishReason !== 'refusal' &&
    approxTokens(text.length) > parsed.maxOutputTokens
  ) {
    text = cutToChars(text, parsed.maxOutputTokens * 4)
    finishReason = 'length'
  }
  const cacheWriteTokens = reply.usage?.cacheWriteTokens ?? cached.cacheWriteTokens
  const prefix = { chat: 'chatcmpl-test', responses: 'resp_test', messages: 'msg_test' }[wire.api]
  const callPrefix = wire.api === 'messages' ? 'toolu_test' : 'call_test'
  const toolCalls = empty
    ? []
    : (reply.toolCalls ?? []).map((c, i) => ({
        id: c.id ?? `${callPrefix}_${input.serial}_${i}`,
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
      }))
  const calledChars = toolCalls.reduce((sum, c) => sum + c.name.length + c.arguments.length, 0)
  return {
    id: `${prefix}_${input.serial}`,
    itemId: `msg_test_${input.serial}`,
    model: parsed.model,
    created: Math.floor(Date.now() / 1000),
    text,
    finishReason,
    usage: {
      inputTokens: reply.usage?.inputTokens ?? approxTokens(promptChars(parsed.blocks)),
      outputTokens: reply.usage?.outputTokens ?? approxTokens(text.length + calledChars),
      cacheReadTokens: reply.usage?.cacheReadTokens ?? cached.cacheReadTokens,
      cacheWriteTokens,
      cacheWrite1hTokens: Math.min(cached.cacheWrite1hTokens, cacheWriteTokens),
    },
    includeUsage: parsed.includeUsage,
    empty,
    body: input.body !== null && typeof input.body === 'object' ? (input.body as Record<string, unknown>) : {},
    toolCalls,
  }
}

/** The tool fields a request records, when its body has them. */
function toolsOf(parsed: ParsedBody): Pick<TestServerRequest, 'tools' | 'toolResults'> {
  return {
    ...(parsed.tools ? { tools: parsed.tools } : {}),
    ...(parsed.toolResults ? { toolResults: parsed.toolResults } : {}),
  }
}

async function stream(
  res: ServerResponse,
  wire: WireProtocol,
  completion: Completion,
  fault: Fault | undefined,
  signal: AbortSignal,
): Promise<void> {
  res.writeHead(200, SSE_HEADERS)
  if (fault?.kind === 'malformed-json') return writeSse(res, [wire.malformedEvent()], signal)
  const events = wire.streamEvents(completion)
  if (fault?.kind !== 'stream-cut') return writeSse(res, events, signal)
  const firstDelta = events.findIndex((event) => event.delta)
  return writeSse(res, events, signal, firstDelta >= 0 ? firstDelta + 1 : Math.ceil(events.length / 2))
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return
  const json = typeof body === 'string' ? body : JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), ...headers })
  res.end(json)
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** The 401's message: credentials missing, or (a server with its own key) not that key, which it never echoes. */
const credentialsMessage = (apiKey: string | undefined) =>
  apiKey === undefined
    ? `${SERVER_NAME}: missing credentials; send \`authorization: Bearer <key>\` or \`x-api-key: <key>\``
    : `${SERVER_NAME}: invalid API key; this server requires its own key as \`authorization: Bearer <key>\` or \`x-api-key: <key>\``

/** Whether the request carries credentials: any, or exactly `apiKey` when the server requires one. */
function hasCredentials(headers: IncomingHttpHeaders, apiKey?: string): boolean {
  const authorization = headers.authorization
  const bearer = typeof authorization === 'string' ? /^Bearer\s+(\S.*?)\s*$/i.exec(authorization)?.[1] : undefined
  const key = typeof headers['x-api-key'] === 'string' ? headers['x-api-key'].trim() : undefined
  if (apiKey !== undefined) return bearer === apiKey || key === apiKey
  return bearer !== undefined || (key !== undefined && key !== '')
}

function redact(headers: IncomingHttpHeaders): Record<string, string | string[] | undefined> {
  const copy: Record<string, string | string[] | undefined> = {}
  for (const [name, value] of Object.entries(headers))
    copy[name] = CREDENTIAL_HEADERS.has(name) && value !== undefined ? '[redacted]' : value
  return copy
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false)
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** The longest start of `text` with at most `max` UTF-16 units that does not split a surrogate pair. */
function cutToChars(text: string, max: number): string {
  if (text.length <= max) return text
  let end = max
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end -= 1
  return text.slice(0, end)
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
