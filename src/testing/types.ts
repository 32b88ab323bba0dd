// The public types of `vitest-seqk/testing`. Kept apart from the server so that the wire modules,
// the responders and the fault queue can share them without importing each other.

/**
 * Which wire protocol a request arrived on: OpenAI Chat Completions, OpenAI Responses or
 * Anthropic Messages.
 *
 * @example
 * server.injectFaults({ kind: 'reset', match: (r) => r.api === 'responses' })
 */
export type TestServerApi = 'chat' | 'responses' | 'messages'

/**
 * One request the test server received, after validation. `messages` is the conversation
 * normalised across the three wire protocols; `body` is exactly what the client sent.
 *
 * @example
 * const server = await startTestServer()
 * // ... run the code under test ...
 * const [first] = server.requests
 * expect(first?.api).toBe('messages')
 * expect(first?.messages.at(-1)).toEqual({ role: 'user', content: 'Write a haiku' })
 * expect(first?.headers.authorization).toBe('[redacted]')
 */
export interface TestServerRequest {
  api: TestServerApi
  model: string
  /**
   * Normalised conversation: system prompt(s) first (Chat `system`/`developer` messages, the
   * Responses `instructions`, the Messages `system` field), then user/assistant turns as plain
   * text. A message made of several text parts is joined with `\n`.
   */
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[]
  stream: boolean
  /** The parsed JSON body as received. */
  body: unknown
  /** Request headers (lower-case names). Credentials (`authorization`, `x-api-key`, ...) read `[redacted]`. */
  headers: Record<string, string | string[] | undefined>
  /** 0-based order of arrival since the server started (or since the last `reset()`). */
  index: number
  /** True when the server's `rateLimit` refused it with a 429 (absent otherwise). */
  rateLimited?: true
  /**
   * When the server's `rateLimit` checked it (`performance.now()` in ms, the token bucket's own
   * clock; absent without a `rateLimit`): the accepted requests' times obey the bucket's law
   * exactly, at most `burst + requestsPerSecond × t / 1000` in any window of `t` ms.
   */
  rateCheckedAt?: number
  /** Set for a request answered as part of a batch: the batch and the request's `custom_id`. */
  batch?: { id: string; customId: string }
  /** The tools the request offers (absent when it offers none), normalised across the three wires. */
  tools?: { name: string; description: string; parameters: Record<string, unknown> }[]
  /**
   * Every tool result the conversation holds, in order (absent when it holds none): Chat `role:
   * 'tool'` messages, Responses `function_call_output` items, Messages `tool_result` blocks.
   * They are not in `messages`, which keep the conversation's text.
   */
  toolResults?: { callId: string; content: string; isError: boolean }[]
}

/**
 * A tool call a responder asks the client to make. `id` defaults to one per request and index;
 * `arguments` (default `{}`) is sent as JSON text (Chat, Responses) or as an object (Messages;
 * a string that is not a JSON object is sent as `{}` there).
 *
 * @example
 * const call: TestServerToolCall = { name: 'read_file', arguments: { path: 'src/app.py' } }
 */
export interface TestServerToolCall {
  id?: string
  name: string
  arguments?: Record<string, unknown> | string
}

/**
 * What a responder answers. A plain string is shorthand for `{ text }`.
 *
 * @example
 * const reply: TestServerReply = { text: 'I cannot help with that.', finishReason: 'refusal' }
 * const slow: TestServerReply = { text: 'ok', delayMs: 200, usage: { inputTokens: 1000 } }
 */
export interface TestServerReply {
  text: string
  /**
   * Why generation stopped (default `'stop'`). On the wire: Chat `finish_reason` `stop` |
   * `length` | `content_filter` (with `message.refusal`); Responses `status: 'completed'` |
   * `'incomplete'` with `incomplete_details.reason: 'max_output_tokens'` | a `refusal` content
   * part; Messages `stop_reason` `end_turn` | `max_tokens` | `refusal`.
   */
  finishReason?: 'stop' | 'length' | 'refusal'
  /**
   * Overrides for the computed usage. `inputTokens` counts every prompt token, cached ones
   * included (as `src/models/pricing.ts` expects); the Messages wire reports
   * `input_tokens = inputTokens - cacheReadTokens - cacheWriteTokens`, as Anthropic does.
   * Defaults: `inputTokens = ceil(prompt characters / 4)`, `outputTokens = ceil(text characters / 4)`,
   * cache fields from the prompt-cache simulation.
   */
  usage?: Partial<{ inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }>
  /** Wait this long before answering (aborted when the client goes away or the server closes). */
  delayMs?: number
  /**
   * Tool calls to answer with (several: parallel calls), after `text` (often `''`). On the wire:
   * Chat `tool_calls` with `finish_reason: 'tool_calls'`, Responses `function_call` items,
   * Messages `tool_use` blocks with `stop_reason: 'tool_use'`; streamed as each wire streams them.
   */
  toolCalls?: TestServerToolCall[]
}

/**
 * Decides what the test server answers to one request. It may be async; a throw becomes a 500
 * in the provider's error shape, with the thrown message.
 *
 * @example
 * const upper: Responder = (request) => request.messages.at(-1)!.content.toUpperCase()
 */
export type Responder = (request: TestServerRequest) => TestServerReply | string | Promise<TestServerReply | string>

/**
 * A failure the test server can inject instead of (or into) a normal answer.
 *
 * - `status`: that HTTP status with the provider's error JSON, plus `retry-after` (seconds) and
 *   `retry-after-ms` headers when given.
 * - `slow`: answers normally after `delayMs`.
 * - `hang`: accepts the request and never answers (until the client aborts or the server closes).
 * - `reset`: destroys the socket without a response.
 * - `malformed-json`: 200 with a body that is not JSON (on a stream: an event whose data is not JSON).
 * - `empty-choices`: 200 with valid JSON but no choices / no output items / no content blocks.
 * - `truncated`: the normal answer cut to half its length, with the length / `max_tokens` finish reason.
 * - `stream-cut`: sends the first events up to the first text delta, then destroys the socket
 *   (on a non-streaming request: the headers and half the JSON body, then the socket is destroyed).
 *
 * @example
 * server.injectFaults({ kind: 'status', status: 429, retryAfterSeconds: 2 }, { kind: 'reset' })
 */
export type Fault =
  | {
      kind: 'status'
      status: 408 | 409 | 429 | 500 | 502 | 503 | 529
      retryAfterSeconds?: number
      retryAfterMs?: number
    }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'hang' }
  | { kind: 'reset' }
  | { kind: 'malformed-json' }
  | { kind: 'empty-choices' }
  | { kind: 'truncated' }
  | { kind: 'stream-cut' }

/**
 * A fault with its scope: it applies to the next `times` (default 1) requests for which `match`
 * (default: every request) returns true.
 *
 * @example
 * const spec: FaultSpec = { kind: 'status', status: 503, times: 2, match: (r) => r.api === 'chat' }
 */
export type FaultSpec = Fault & { times?: number; match?: (request: TestServerRequest) => boolean }

/**
 * A running test server. Point the SDKs at `openaiBaseURL` / `anthropicBaseURL`.
 *
 * @example
 * const server = await startTestServer({ responder: scripted(['first', 'second']) })
 * const openai = new OpenAI({ apiKey: 'test', baseURL: server.openaiBaseURL, maxRetries: 0 })
 * const anthropic = new Anthropic({ apiKey: 'test', baseURL: server.anthropicBaseURL, maxRetries: 0 })
 * // ...
 * await server.close()
 */
export interface TestServer {
  /** e.g. `http://127.0.0.1:54321` */
  url: string
  /** `url + '/v1'`, for `new OpenAI({ baseURL })`. */
  openaiBaseURL: string
  /** `url` itself: the Anthropic SDK appends `/v1/messages`. */
  anthropicBaseURL: string
  /**
   * Every authenticated, well-formed request received, in order of arrival (faulted and
   * rate-limited ones included). Requests rejected with 400/401/404 are not recorded. Cleared in place by `reset()`.
   */
  requests: TestServerRequest[]
  /** Replaces the responder for the requests that follow. */
  respondWith(responder: Responder): void
  /** Queue faults for upcoming requests: each applies to the next `times` (default 1) requests matching `match` (default all). */
  injectFaults(...faults: FaultSpec[]): void
  /** Clears recorded requests, queued faults and the prompt-cache state, and refills the rate limit's bucket; keeps the responder. */
  reset(): void
  /** Stops listening and destroys every open socket (hanging requests included). Idempotent. */
  close(): Promise<void>
  /** The batches received (OpenAI Batches and Anthropic Message Batches), with their status as a client would see it now. */
  batches(): { id: string; provider: 'openai' | 'anthropic'; status: string; customIds: string[] }[]
}
