// The test server driven by the real SDKs (openai 6.49, @anthropic-ai/sdk 1.14) over real
// sockets: every API, streaming and not. Clients use `maxRetries: 0` so faults surface as is.
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { echo, rules, scripted, startTestServer, type TestServer, type TestServerApi } from './index.js'

let server: TestServer
let openai: OpenAI
let anthropic: Anthropic

// `logLevel: 'off'`: the SDKs log unparsable stream events with console.error before throwing.
const clientOptions = { apiKey: 'test-key', maxRetries: 0, timeout: 5000, logLevel: 'off' } as const

beforeAll(async () => {
  server = await startTestServer()
  openai = new OpenAI({ ...clientOptions, baseURL: server.openaiBaseURL })
  anthropic = new Anthropic({ ...clientOptions, baseURL: server.anthropicBaseURL })
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  server.respondWith(echo)
})

interface Conversation {
  system?: string
  messages: { role: 'user' | 'assistant'; content: string }[]
  maxTokens?: number
  model?: string
}

/** What a provider reads from a response, the same way for every API. */
interface Answer {
  text: string
  /** The wire's own finish signal: Chat finish_reason, Responses status (+ refusal part), Messages stop_reason. */
  finish: string
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number }
}

interface AskOptions {
  signal?: AbortSignal
  timeout?: number
  onDelta?: (piece: string) => void
}

/** One call through the real SDK: `create` when not streaming, the streaming helpers when streaming. */
async function ask(
  api: TestServerApi,
  stream: boolean,
  conversation: Conversation,
  options: AskOptions = {},
): Promise<Answer> {
  // Only the options given: the SDKs reject `timeout: undefined`.
  const request = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeout ? { timeout: options.timeout } : {}),
  }
  const model = conversation.model ?? `${api}-model`
  if (api === 'chat') {
    const params = {
      model,
      messages: [
        ...(conversation.system ? [{ role: 'system' as const, content: conversation.system }] : []),
        ...conversation.messages,
      ],
      ...(conversation.maxTokens ? { max_completion_tokens: conversation.maxTokens } : {}),
    }
    let completion: OpenAI.ChatCompletion
    if (stream) {
      const run = openai.chat.completions.stream({ ...params, stream_options: { include_usage: true } }, request)
      run.on('content', (delta) => options.onDelta?.(delta))
      completion = await run.finalChatCompletion()
    } else {
      completion = await openai.chat.completions.create(params, request)
    }
    const choice = completion.choices[0]
    return {
      text: choice?.message.content ?? choice?.message.refusal ?? '',
      finish: choice?.finish_reason ?? '(no choice)',
      usage: {
        input: completion.usage!.prompt_tokens,
        output: completion.usage!.completion_tokens,
        cacheRead: completion.usage!.prompt_tokens_details?.cached_tokens ?? 0,
        cacheWrite: 0,
      },
    }
  }
  if (api === 'responses') {
    const params = {
      model,
      input: conversation.messages,
      ...(conversation.system ? { instructions: conversation.system } : {}),
      ...(conversation.maxTokens ? { max_output_tokens: conversation.maxTokens } : {}),
    }
    let response: OpenAI.Responses.Response
    if (stream) {
      const run = openai.responses.stream(params, request)
      run.on('response.output_text.delta', (event) => options.onDelta?.(event.delta))
      response = await run.finalResponse()
    } else {
      response = await openai.responses.create(params, request)
    }
    const parts = response.output.flatMap((item) => (item.type === 'message' ? item.content : []))
    const refusal = parts.find((part) => part.type === 'refusal')
    return {
      text: refusal ? refusal.refusal : response.output_text,
      finish:
        response.status === 'incomplete'
          ? `incomplete:${response.incomplete_details?.reason}`
          : refusal
            ? `${response.status}:refusal`
            : `${response.status}`,
      usage: {
        input: response.usage!.input_tokens,
        output: response.usage!.output_tokens,
        cacheRead: response.usage!.input_tokens_details.cached_tokens,
        cacheWrite: 0,
      },
    }
  }
  const params = {
    model,
    max_tokens: conversation.maxTokens ?? 1024,
    messages: conversation.messages,
    ...(conversation.system ? { system: conversation.system } : {}),
  }
  let message: Anthropic.Message
  if (stream) {
    const run = anthropic.messages.stream(params, request)
    run.on('text', (delta) => options.onDelta?.(delta))
    message = await run.finalMessage()
  } else {
    message = await anthropic.messages.create(params, request)
  }
  const read = message.usage.cache_read_input_tokens ?? 0
  const write = message.usage.cache_creation_input_tokens ?? 0
  return {
    text: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
    finish: message.stop_reason ?? '(none)',
    usage: {
      input: message.usage.input_tokens + read + write,
      output: message.usage.output_tokens,
      cacheRead: read,
      cacheWrite: write,
    },
  }
}

const COMBINATIONS = (['chat', 'responses', 'messages'] as const).flatMap((api) =>
  [false, true].map((stream) => ({ api, stream, label: `${api}${stream ? ' (stream)' : ''}` })),
)

const FINISH = {
  chat: { stop: 'stop', length: 'length', refusal: 'content_filter' },
  responses: { stop: 'completed', length: 'incomplete:max_output_tokens', refusal: 'completed:refusal' },
  messages: { stop: 'end_turn', length: 'max_tokens', refusal: 'refusal' },
} as const

const ERROR_CLASSES = {
  openai: {
    408: OpenAI.APIError,
    409: OpenAI.ConflictError,
    429: OpenAI.RateLimitError,
    500: OpenAI.InternalServerError,
    502: OpenAI.InternalServerError,
    503: OpenAI.InternalServerError,
    529: OpenAI.InternalServerError,
  },
  anthropic: {
    408: Anthropic.RequestTimeoutError,
    409: Anthropic.ConflictError,
    429: Anthropic.RateLimitError,
    500: Anthropic.InternalServerError,
    502: Anthropic.InternalServerError,
    503: Anthropic.ServiceUnavailableError,
    529: Anthropic.OverloadedError,
  },
} as const

async function failure(
  promise: Promise<unknown>,
): Promise<Error & { status?: number; headers?: Headers; type?: string; code?: string; param?: string }> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error('expected the call to fail')
}

describe.each(COMBINATIONS)('$label through the real SDK', ({ api, stream }) => {
  it("answers with the responder's text and records the normalised request, credentials redacted", async () => {
    server.respondWith(scripted(['The answer is 4.']))
    const answer = await ask(api, stream, {
      system: 'You are terse.',
      messages: [
        { role: 'user', content: 'What is 2+2?' },
        { role: 'assistant', content: 'Let me think.' },
        { role: 'user', content: 'Well?' },
      ],
      model: 'model-x',
    })
    expect(answer.text).toBe('The answer is 4.')
    expect(answer.finish).toBe(FINISH[api].stop)
    expect(server.requests).toHaveLength(1)
    const [request] = server.requests
    expect(request).toMatchObject({ api, model: 'model-x', stream, index: 0 })
    expect(request!.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'What is 2+2?' },
      { role: 'assistant', content: 'Let me think.' },
      { role: 'user', content: 'Well?' },
    ])
    expect(request!.headers.authorization).toBe('[redacted]')
    expect(JSON.stringify(request)).not.toContain('test-key')
    expect((request!.body as { model: string }).model).toBe('model-x')
  })

  it.skipIf(!stream)('streams the text in several pieces', async () => {
    const pieces: string[] = []
    const answer = await ask(
      api,
      stream,
      { messages: [{ role: 'user', content: 'one two three four five six' }] },
      { onDelta: (piece) => pieces.push(piece) },
    )
    expect(answer.text).toBe('one two three four five six')
    expect(pieces.length).toBeGreaterThan(1)
    expect(pieces.join('')).toBe(answer.text)
  })

  it('maps finishReason length and refusal to the wire', async () => {
    server.respondWith(
      scripted([
        { text: 'partial answ', finishReason: 'length' },
        { text: 'I cannot help with that.', finishReason: 'refusal' },
      ]),
    )
    const cut = await ask(api, stream, { messages: [{ role: 'user', content: 'long please' }] })
    expect(cut).toMatchObject({ text: 'partial answ', finish: FINISH[api].length })
    const refused = await ask(api, stream, { messages: [{ role: 'user', content: 'something bad' }] })
    expect(refused).toMatchObject({ text: 'I cannot help with that.', finish: FINISH[api].refusal })
  })

  it('cuts a reply longer than the max tokens and finishes with length', async () => {
    server.respondWith(() => 'x'.repeat(100)) // 25 approx tokens
    const answer = await ask(api, stream, { messages: [{ role: 'user', content: 'hi' }], maxTokens: 5 })
    expect(answer).toMatchObject({ text: 'x'.repeat(20), finish: FINISH[api].length })
    expect(answer.usage.output).toBe(5)
  })

  it('reports default usage (4 characters a token) and honours overrides', async () => {
    server.respondWith(scripted(['abcdefghi', { text: 'ok', usage: { inputTokens: 1000, outputTokens: 7 } }]))
    const conversation = { system: 'sys', messages: [{ role: 'user' as const, content: 'hello world!' }] } // 3 + 12 = 15 chars
    expect((await ask(api, stream, conversation)).usage).toEqual({ input: 4, output: 3, cacheRead: 0, cacheWrite: 0 })
    expect((await ask(api, stream, conversation)).usage).toEqual({
      input: 1000,
      output: 7,
      cacheRead: 0,
      cacheWrite: 0,
    })
  })

  it.each([408, 409, 429, 500, 502, 503, 529] as const)(
    'surfaces a %i status fault as the SDK error class, with retry headers',
    async (status) => {
      server.injectFaults({ kind: 'status', status, retryAfterSeconds: 2, retryAfterMs: 1500 })
      const error = await failure(ask(api, stream, { messages: [{ role: 'user', content: 'hi' }] }))
      expect(error).toBeInstanceOf(api === 'messages' ? ERROR_CLASSES.anthropic[status] : ERROR_CLASSES.openai[status])
      expect(error.status).toBe(status)
      expect(error.headers?.get('retry-after')).toBe('2')
      expect(error.headers?.get('retry-after-ms')).toBe('1500')
      expect(error.message).toContain('fault injected')
      // The next request is served normally: a fault applies once by default.
      expect((await ask(api, stream, { messages: [{ role: 'user', content: 'again' }] })).text).toBe('again')
    },
  )

  it('reset: destroys the socket, a connection error', async () => {
    server.injectFaults({ kind: 'reset' })
    const error = await failure(ask(api, stream, { messages: [{ role: 'user', content: 'hi' }] }))
    expect(error).toBeInstanceOf(api === 'messages' ? Anthropic.APIConnectionError : OpenAI.APIConnectionError)
  })

  it('malformed-json: a 200 whose body (or first event) is not JSON is rejected', async () => {
    server.injectFaults({ kind: 'malformed-json' })
    const error = await failure(ask(api, stream, { messages: [{ role: 'user', content: 'hi' }] }))
    expect(error.message).toMatch(/JSON/)
  })

  it('empty-choices: a valid answer with no choices, output items or content blocks', async () => {
    server.injectFaults({ kind: 'empty-choices' })
    if (api === 'chat' && stream) {
      // The streaming helper refuses a completion without choices; the raw stream has none.
      const chunks = await openai.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      })
      const choices: unknown[] = []
      for await (const chunk of chunks) choices.push(...chunk.choices)
      expect(choices).toEqual([])
      return
    }
    const answer = await ask(api, stream, { messages: [{ role: 'user', content: 'hi' }] })
    expect(answer.text).toBe('')
    if (api === 'chat') expect(answer.finish).toBe('(no choice)')
  })

  it('truncated: the answer is cut short with the length finish reason', async () => {
    server.injectFaults({ kind: 'truncated' })
    const answer = await ask(api, stream, { messages: [{ role: 'user', content: 'abcdefghij' }] })
    expect(answer).toMatchObject({ text: 'abcde', finish: FINISH[api].length })
  })

  it('slow: answers after the delay, or times out a client with a shorter timeout', async () => {
    server.injectFaults({ kind: 'slow', delayMs: 60 }, { kind: 'slow', delayMs: 2000 })
    const started = Date.now()
    expect((await ask(api, stream, { messages: [{ role: 'user', content: 'late' }] })).text).toBe('late')
    expect(Date.now() - started).toBeGreaterThanOrEqual(55)
    const error = await failure(
      ask(api, stream, { messages: [{ role: 'user', content: 'too late' }] }, { timeout: 100 }),
    )
    expect(error).toBeInstanceOf(
      api === 'messages' ? Anthropic.APIConnectionTimeoutError : OpenAI.APIConnectionTimeoutError,
    )
  })

  it('hang: an AbortController aborts the call quickly', async () => {
    server.injectFaults({ kind: 'hang' })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    const started = Date.now()
    const error = await failure(
      ask(api, stream, { messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal }),
    )
    expect(error).toBeInstanceOf(api === 'messages' ? Anthropic.APIUserAbortError : OpenAI.APIUserAbortError)
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it('stream-cut: the first events arrive, then the connection drops and the call fails', async () => {
    server.injectFaults({ kind: 'stream-cut' })
    const pieces: string[] = []
    const error = await failure(
      ask(
        api,
        stream,
        { messages: [{ role: 'user', content: 'one two three four five six' }] },
        { onDelta: (piece) => pieces.push(piece) },
      ),
    )
    expect(error.message).toMatch(/terminated/)
    if (stream) expect(pieces).toEqual(['one two'])
  })
})

describe('Chat Completions wire details', () => {
  it('streams chunks ending in [DONE]; usage only with stream_options.include_usage, in a last chunk without choices', async () => {
    const chunks: OpenAI.ChatCompletionChunk[] = []
    for await (const chunk of await openai.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hello there' }],
      stream: true,
    }))
      chunks.push(chunk)
    expect(chunks.every((chunk) => chunk.usage === undefined && chunk.choices.length === 1)).toBe(true)
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant')
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop')

    const withUsage: OpenAI.ChatCompletionChunk[] = []
    const run = await openai.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hello there' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    for await (const chunk of run) withUsage.push(chunk)
    const last = withUsage.at(-1)!
    expect(last.choices).toEqual([])
    expect(last.usage).toMatchObject({
      prompt_tokens: 3,
      completion_tokens: 3,
      total_tokens: 6,
      prompt_tokens_details: { cached_tokens: 0 },
    })
    expect(withUsage.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true)
  })

  it('puts a refusal in message.refusal with content null', async () => {
    server.respondWith(() => ({ text: 'No.', finishReason: 'refusal' }))
    const completion = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'content_filter',
      message: { role: 'assistant', content: null, refusal: 'No.' },
    })
  })

  it('accepts content parts and developer messages', async () => {
    await openai.chat.completions.create({
      model: 'm',
      messages: [
        { role: 'developer', content: 'dev rules' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'part one' },
            { type: 'text', text: 'part two' },
          ],
        },
      ],
    })
    expect(server.requests[0]!.messages).toEqual([
      { role: 'system', content: 'dev rules' },
      { role: 'user', content: 'part one\npart two' },
    ])
  })
})

describe('Responses wire details', () => {
  it('emits named events with increasing sequence numbers, as the SDK expects', async () => {
    const events: OpenAI.Responses.ResponseStreamEvent[] = []
    for await (const event of await openai.responses.create({ model: 'm', input: 'hi there', stream: true }))
      events.push(event)
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i))
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent
    expect(completed.response.usage).toEqual({
      input_tokens: 2,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 2,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 4,
    })
  })

  it('accepts input as message items with content parts, and instructions', async () => {
    await openai.responses.create({
      model: 'm',
      instructions: 'be brief',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'q1' }] },
        { type: 'message', role: 'assistant', content: 'a1' },
        { role: 'user', content: 'q2' },
      ],
    })
    expect(server.requests[0]!.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
    ])
  })
})

describe('prompt caching', () => {
  // ~4 characters a token: 2100 tokens of shared system prompt.
  const longSystem = 'You are a careful grader. '.repeat(400).slice(0, 8400)

  it('Anthropic: a second request extending the first prefix reads it from the cache', async () => {
    const system = [{ type: 'text' as const, text: longSystem, cache_control: { type: 'ephemeral' as const } }]
    const first = await anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      system,
      messages: [{ role: 'user', content: 'attempt 1' }],
    })
    // system: 8400 chars = 2100 tokens written; "attempt 1" after the breakpoint is plain input.
    expect(first.usage).toMatchObject({
      cache_creation_input_tokens: 2100,
      cache_read_input_tokens: 0,
      input_tokens: 3,
    })

    const history = [
      { role: 'user' as const, content: 'attempt 1' },
      { role: 'assistant' as const, content: 'attempt 1' },
      {
        role: 'user' as const,
        content: [{ type: 'text' as const, text: 'Failed. Try again.', cache_control: { type: 'ephemeral' as const } }],
      },
    ]
    const run = anthropic.messages.stream({ model: 'claude-test', max_tokens: 100, system, messages: history })
    const second = await run.finalMessage()
    // 8400 + 9 + 9 + 18 = 8436 chars = 2109 tokens: 2100 read, 9 written up to the new breakpoint, none after it.
    expect(second.usage).toMatchObject({
      cache_read_input_tokens: 2100,
      cache_creation_input_tokens: 9,
      input_tokens: 0,
    })
    expect(second.usage.cache_creation).toEqual({ ephemeral_5m_input_tokens: 9, ephemeral_1h_input_tokens: 0 })

    // The same prompt again is read entirely from the cache.
    const third = await anthropic.messages.create({ model: 'claude-test', max_tokens: 100, system, messages: history })
    expect(third.usage).toMatchObject({
      cache_read_input_tokens: 2109,
      cache_creation_input_tokens: 0,
      input_tokens: 0,
    })

    // Another model has its own cache; without cache_control nothing is cached.
    const other = await anthropic.messages.create({ model: 'claude-other', max_tokens: 100, system, messages: history })
    expect(other.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 2109 })
    const plain = await anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      system: longSystem,
      messages: [{ role: 'user', content: 'attempt 1' }],
    })
    expect(plain.usage).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      input_tokens: 2103,
    })

    server.reset()
    const afterReset = await anthropic.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      system,
      messages: [{ role: 'user', content: 'attempt 1' }],
    })
    expect(afterReset.usage).toMatchObject({ cache_creation_input_tokens: 2100, cache_read_input_tokens: 0 })
  })

  it.each(COMBINATIONS.filter((c) => c.api !== 'messages'))(
    'OpenAI automatic caching on $label: a shared prefix of >= 1024 tokens, in multiples of 128',
    async ({ api, stream }) => {
      const first = await ask(api, stream, { system: longSystem, messages: [{ role: 'user', content: 'attempt 1' }] })
      expect(first.usage.cacheRead).toBe(0)
      const second = await ask(api, stream, { system: longSystem, messages: [{ role: 'user', content: 'attempt 2' }] })
      // Shared: 8400 system chars + "attempt " (8) = 8408 chars = 2102 tokens → 2048 cached.
      expect(second.usage).toMatchObject({ input: 2103, cacheRead: 2048 })
      const short = await ask(api, stream, { system: 'short', messages: [{ role: 'user', content: 'attempt 1' }] })
      expect(short.usage.cacheRead).toBe(0)
    },
  )
})

describe('validation, authentication and routing', () => {
  it('rejects a bad body with 400 in the OpenAI shape, naming the field', async () => {
    const error = await failure(
      openai.chat.completions.create({ model: 'm', messages: [{ role: 'robot' as 'user', content: 'hi' }] }),
    )
    expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    expect(error.message).toContain('messages[0].role')
    expect(error.param).toBe('messages[0].role')
    expect(error.type).toBe('invalid_request_error')

    const missing = await failure(
      openai.responses.create({ model: 'm' } as OpenAI.Responses.ResponseCreateParamsNonStreaming),
    )
    expect(missing).toBeInstanceOf(OpenAI.BadRequestError)
    expect(missing.message).toMatch(/^400 Invalid request body: input: Invalid input: expected string or array/)
  })

  it('rejects a bad body with 400 in the Anthropic shape, naming the nested field', async () => {
    const error = await failure(
      anthropic.messages.create({
        model: 'c',
        max_tokens: 10,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'ok' }, { type: 'text' } as Anthropic.TextBlockParam] },
        ],
      }),
    )
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect(error.type).toBe('invalid_request_error')
    expect(error.message).toContain('messages[0].content[1].text')
    const noMaxTokens = await failure(
      anthropic.messages.create({
        model: 'c',
        messages: [{ role: 'user', content: 'hi' }],
      } as Anthropic.MessageCreateParamsNonStreaming),
    )
    expect(noMaxTokens.message).toContain('max_tokens')
    expect(server.requests).toEqual([])
  })

  it('answers 401 without credentials, in each provider shape; accepts x-api-key', async () => {
    const noAuth = new OpenAI({
      ...clientOptions,
      baseURL: server.openaiBaseURL,
      defaultHeaders: { Authorization: null },
    })
    const error = await failure(
      noAuth.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    )
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(error.code).toBe('invalid_api_key')

    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'hey' }] }),
      })
    const anthropic401 = await post('/v1/messages', {})
    expect(anthropic401.status).toBe(401)
    expect(await anthropic401.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } })
    const bearerWithoutToken = await post('/v1/messages', { authorization: 'Bearer ' })
    expect(bearerWithoutToken.status).toBe(401)

    const withKey = await post('/v1/messages', { 'x-api-key': 'secret-key' })
    expect(withKey.status).toBe(200)
    expect(await withKey.json()).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'hey' }] })
    expect(server.requests[0]!.headers['x-api-key']).toBe('[redacted]')
  })

  it('with apiKey, accepts only that key (bearer or x-api-key), as a key-protected server does, never echoing one', async () => {
    const keyed = await startTestServer({ apiKey: 'sk-required-0123' })
    try {
      const post = (headers: Record<string, string>) =>
        fetch(`${keyed.openaiBaseURL}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hey' }] }),
        })
      const wrong = await post({ authorization: 'Bearer not-needed' })
      expect(wrong.status).toBe(401)
      const body = await wrong.text()
      expect(body).toContain('invalid API key')
      expect(body).not.toContain('not-needed')
      expect((await post({ authorization: 'Bearer sk-required-0123' })).status).toBe(200)
      expect((await post({ 'x-api-key': 'sk-required-0123' })).status).toBe(200)
      expect(keyed.requests).toHaveLength(2)
    } finally {
      await keyed.close()
    }
    await expect(startTestServer({ apiKey: '' })).rejects.toThrow(/apiKey/)
  })

  it('answers 404 for unknown routes and 400 for a body that is not JSON', async () => {
    const notFound = await fetch(`${server.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: 'Bearer k' },
      body: '{}',
    })
    expect(notFound.status).toBe(404)
    expect(await notFound.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'unknown_url' } })
    const notJson = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: 'Bearer k' },
      body: '{nope',
    })
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('not valid JSON') },
    })
  })

  it('sends real SSE: text/event-stream, named events for Messages, data-only chunks and [DONE] for Chat', async () => {
    const post = async (path: string, body: object) => {
      const response = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      return { type: response.headers.get('content-type'), text: await response.text() }
    }
    const messages = await post('/v1/messages', {
      model: 'c',
      max_tokens: 5,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(messages.type).toMatch(/^text\/event-stream/)
    expect(messages.text).toMatch(/^event: message_start\ndata: \{"type":"message_start"/)
    expect(messages.text.trimEnd().endsWith('event: message_stop\ndata: {"type":"message_stop"}')).toBe(true)
    const chat = await post('/v1/chat/completions', {
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(chat.text).not.toContain('event:')
    expect(chat.text.endsWith('data: [DONE]\n\n')).toBe(true)
  })
})

describe('responders and server state', () => {
  it('echo is the default responder', async () => {
    const fresh = await startTestServer()
    try {
      const client = new OpenAI({ ...clientOptions, baseURL: fresh.openaiBaseURL })
      const completion = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'say this back' }],
      })
      expect(completion.choices[0]!.message.content).toBe('say this back')
    } finally {
      await fresh.close()
    }
  })

  it('scripted answers in order across APIs and fails with a clear 500 when exhausted', async () => {
    server.respondWith(scripted(['first', { text: 'second' }]))
    expect((await ask('chat', false, { messages: [{ role: 'user', content: 'a' }] })).text).toBe('first')
    expect((await ask('messages', true, { messages: [{ role: 'user', content: 'b' }] })).text).toBe('second')
    const error = await failure(ask('responses', false, { messages: [{ role: 'user', content: 'c' }] }))
    expect(error).toBeInstanceOf(OpenAI.InternalServerError)
    expect(error.message).toContain('no reply left for request #2')
    expect(server.requests.map((r) => r.index)).toEqual([0, 1, 2])
  })

  it('rules match the last user message with a RegExp, or the request with a function, then fall back', async () => {
    server.respondWith(
      rules(
        [
          { match: /capital of france/i, reply: 'Paris' },
          {
            match: (r) => r.api === 'messages',
            reply: (r) => ({ text: `anthropic saw ${r.messages.length} messages` }),
          },
        ],
        'no idea',
      ),
    )
    expect((await ask('chat', false, { messages: [{ role: 'user', content: 'The capital of France?' }] })).text).toBe(
      'Paris',
    )
    expect((await ask('messages', false, { messages: [{ role: 'user', content: 'hello' }] })).text).toBe(
      'anthropic saw 1 messages',
    )
    expect((await ask('responses', false, { messages: [{ role: 'user', content: 'hello' }] })).text).toBe('no idea')

    server.respondWith(rules([{ match: /never/, reply: 'x' }]))
    const error = await failure(ask('messages', false, { messages: [{ role: 'user', content: 'unmatched' }] }))
    expect(error).toBeInstanceOf(Anthropic.InternalServerError)
    expect(error.message).toContain('no rule matched')
  })

  it('turns a throwing or malformed responder into a 500 naming the problem', async () => {
    server.respondWith(() => {
      throw new Error('boom')
    })
    expect((await failure(ask('chat', false, { messages: [{ role: 'user', content: 'a' }] }))).message).toContain(
      'the responder failed: boom',
    )
    server.respondWith(() => 42 as unknown as string)
    expect((await failure(ask('chat', false, { messages: [{ role: 'user', content: 'a' }] }))).message).toContain(
      'must return a string or { text: string',
    )
  })

  it('applies faults to the matching requests only, `times` times', async () => {
    server.injectFaults({ kind: 'status', status: 503, times: 2, match: (r) => r.api === 'messages' })
    expect((await ask('chat', false, { messages: [{ role: 'user', content: 'fine' }] })).text).toBe('fine')
    await expect(ask('messages', false, { messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      Anthropic.ServiceUnavailableError,
    )
    await expect(ask('messages', true, { messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      Anthropic.ServiceUnavailableError,
    )
    expect((await ask('messages', false, { messages: [{ role: 'user', content: 'ok now' }] })).text).toBe('ok now')
    expect(server.requests).toHaveLength(4)
  })

  it('lets the SDK retry through faults when retries are on', async () => {
    const retrying = new OpenAI({ ...clientOptions, maxRetries: 2, baseURL: server.openaiBaseURL })
    server.injectFaults({ kind: 'status', status: 429, retryAfterMs: 10, times: 2 })
    const completion = await retrying.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'persist' }],
    })
    expect(completion.choices[0]!.message.content).toBe('persist')
    expect(server.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2'])
  })

  it('reset() clears requests, faults and cache but keeps the responder', async () => {
    server.respondWith(() => 'kept')
    server.injectFaults({ kind: 'reset' })
    const requests = server.requests
    await ask('chat', false, { messages: [{ role: 'user', content: 'a' }] }).catch(() => undefined)
    expect(requests).toHaveLength(1)
    server.reset()
    expect(requests).toHaveLength(0)
    expect((await ask('chat', false, { messages: [{ role: 'user', content: 'b' }] })).text).toBe('kept')
    expect(server.requests[0]!.index).toBe(0)
  })

  it('injectFaults rejects an unsupported fault up front', () => {
    expect(() => server.injectFaults({ kind: 'status', status: 418 as 429 })).toThrow(/fault #0: status/)
    expect(() => server.injectFaults({ kind: 'slow', delayMs: 5, times: 0 })).toThrow(/times/)
  })

  it('close() ends hanging requests at once: their clients see a connection error', async () => {
    const own = await startTestServer()
    const client = new Anthropic({ ...clientOptions, baseURL: own.anthropicBaseURL, timeout: 20_000 })
    own.injectFaults({ kind: 'hang', times: 2 })
    const hanging = [false, true].map((stream) =>
      failure(
        stream
          ? client.messages
              .stream({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
              .finalMessage()
          : client.messages.create({ model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
      ),
    )
    while (own.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5))
    const started = Date.now()
    await own.close()
    await own.close() // idempotent
    expect(Date.now() - started).toBeLessThan(500)
    for (const error of await Promise.all(hanging)) expect(error).toBeInstanceOf(Anthropic.APIConnectionError)
  })
})
