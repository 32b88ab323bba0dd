import type OpenAI from 'openai'
import type { ChatMessage, ChatModel, FinishReason, Usage } from '../chat-model.js'
import { REDACTED, refuseKeyAsModel, registerSecret, registerUrlSecrets, redactUrl } from '../redact.js'
import { checkBaseURL, checkRemoteOptions, REMOTE_BOUNDS } from '../remote-options.js'
import { BatchGatherer, type BatchOptions } from '../batch/gatherer.js'
import { openaiBatches } from '../batch/transports.js'
import { boundedFetch } from '../bounded-fetch.js'
import { TransportError } from '../retry.js'
import { StreamedToolCalls } from '../tools.js'
import {
  addChatToolDeltas,
  chatToolCalls,
  chatToolFields,
  responsesToolCalls,
  responsesToolFields,
} from './openai-tools.js'
import {
  apiKeyFor,
  bodyLimits,
  CappedText,
  callIdentity,
  DEFAULT_MAX_ANSWER_CHARS,
  DEFAULT_TIMEOUT_MS,
  registerHeaderSecrets,
  definedParams,
  expectBody,
  fromEnv,
  MissingApiKeyError,
  remoteChatModel,
  served,
  unavailableModel,
  type RawCompletion,
  type RemoteOptions,
  type ToolExchange,
} from './remote.js'

/** The options of `actors.openai()`. */
export interface OpenAIOptions extends RemoteOptions {
  model: string
  /** `chat` (Chat Completions, default) or `responses` (Responses API). */
  api?: 'chat' | 'responses'
  temperature?: number
  maxTokens?: number
  seed?: number
  reasoningEffort?: 'minimal' | 'low' | 'medium' | 'high'
  /** Default: `OPENAI_BASE_URL`, else the SDK's default. */
  baseURL?: string
  /** Default: `OPENAI_API_KEY`. Never written to artifacts or cassettes. */
  apiKey?: string
  /** With no key, skip this actor's cells with a reason instead of failing at declaration. */
  skipWithoutKey?: boolean
  /**
   * Send the calls through OpenAI's Batch API at half the price (`true`, or options): calls that
   * arrive together (a round of a cell: every trajectory's next attempt) go in one batch. Not part
   * of the protocol (the model sees the same requests); every call records that it was batched.
   * For nightly runs and studies, not for a pull-request gate that waits on the result.
   */
  batch?: boolean | BatchOptions
}

/** The options of `actors.openaiCompatible()`: any server that speaks the OpenAI chat protocol. */
export interface CompatibleOptions extends Omit<
  OpenAIOptions,
  'api' | 'reasoningEffort' | 'baseURL' | 'skipWithoutKey' | 'batch'
> {
  /** The server's OpenAI-compatible base URL, e.g. `http://localhost:11434/v1` (Ollama). */
  baseURL: string
  /**
   * What the server serves, e.g. `'qwen2.5-coder-7b-instruct-q4_k_m'`: named, it takes the base
   * URL's place in the protocol, so the same weights on another host or port keep their baseline.
   * Without it the base URL is part of the protocol (another server may serve other weights).
   */
  served?: string
}

/** Loaded on first use, so evals with only simulated actors never load the SDK. */
async function client(
  apiKey: string,
  baseURL: string | undefined,
  options: RemoteOptions & { batch?: boolean | BatchOptions },
): Promise<OpenAI> {
  const { default: OpenAIClient } = await import('openai')
  // maxRetries 0: we own retries and every wait must be abortable (openai 6.49 sleeps through a whole retry-after before it sees an abort).
  // logLevel off: the SDK would print parse failures to stderr before throwing; we report them.
  // fetch: every body bounded (see bounded-fetch.ts).
  return new OpenAIClient({
    apiKey,
    baseURL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    logLevel: 'off',
    fetch: boundedFetch(bodyLimits(options)),
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
  })
}

function chatFinish(reason: string | null | undefined, refusal: unknown): FinishReason {
  if (refusal || reason === 'content_filter') return 'refusal'
  return reason === 'length'
    ? 'length'
    : reason === 'stop' || reason === 'tool_calls' || reason == null
      ? 'stop'
      : 'other'
}

/** A token count as the reply gave it, or undefined when it is not one. */
const count = (n: unknown): number | undefined =>
  typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined

/** Usage of a Chat Completions reply; null when it reported none (a compatible server may send no `usage`): unknown, never zero. */
function chatUsage(usage: OpenAI.CompletionUsage | null | undefined): Usage | null {
  const [input, output] = [count(usage?.prompt_tokens), count(usage?.completion_tokens)]
  if (input === undefined || output === undefined) return null
  return {
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: count(usage?.prompt_tokens_details?.cached_tokens) ?? 0,
    cacheWriteTokens: 0,
  }
}

/** Usage of a Responses reply; null when it reported none. */
function responsesUsage(usage: OpenAI.Responses.ResponseUsage | null | undefined): Usage | null {
  const [input, output] = [count(usage?.input_tokens), count(usage?.output_tokens)]
  if (input === undefined || output === undefined) return null
  return {
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: count(usage?.input_tokens_details?.cached_tokens) ?? 0,
    cacheWriteTokens: 0,
  }
}

function responseText(response: OpenAI.Responses.Response): { text: string; refusal: boolean } {
  let text = ''
  let refusal = false
  for (const item of response.output ?? []) {
    if (item.type !== 'message') continue
    for (const part of item.content) {
      if (part.type === 'output_text') text += part.text
      else if (part.type === 'refusal') refusal = true
    }
  }
  return { text, refusal }
}

/** An empty answer with no finish reason is a broken response, not a model failure: retried, saying what came. */
function emptyResponse(what: string): TransportError {
  return new TransportError(`malformed response: ${what}`)
}

/** The Chat Completions decoding fields, built once per model rather than once per call. */
function chatDecoding(o: OpenAIOptions, tokenField: 'max_completion_tokens' | 'max_tokens'): Record<string, unknown> {
  return {
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...(o.maxTokens !== undefined ? { [tokenField]: o.maxTokens } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.reasoningEffort !== undefined ? { reasoning_effort: o.reasoningEffort } : {}),
  }
}

/** One Chat Completions call. No async frame of its own: the common path is one SDK promise and one `then`. */
function callChat(
  openai: OpenAI,
  o: OpenAIOptions,
  decoding: Record<string, unknown>,
  messages: ChatMessage[],
  signal: AbortSignal | undefined,
  exchange?: ToolExchange,
): Promise<RawCompletion> {
  const body = Object.assign({ model: o.model, messages }, exchange ? chatToolFields(messages, exchange) : {}, decoding)
  if (o.stream) return streamChat(openai, body, signal, o.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS)
  return openai.chat.completions
    .create(body as OpenAI.ChatCompletionCreateParamsNonStreaming, { signal })
    .then(chatCompletion)
}

/** The answer, usage and finish reason of one Chat Completions response. */
function chatCompletion(completion: OpenAI.ChatCompletion): RawCompletion {
  expectBody(completion, 'choices', 'Chat Completions')
  const choice = completion.choices?.[0]
  if (!choice) throw emptyResponse(`no choices in ${JSON.stringify(completion).slice(0, 80)}`)
  const toolCalls = chatToolCalls(choice.message)
  // Assigned, not spread: this runs on every call (see remoteChatModel's response).
  const raw: RawCompletion = {
    text: choice.message?.content ?? '',
    usage: chatUsage(completion.usage),
    finishReason: chatFinish(choice.finish_reason, choice.message?.refusal),
  }
  if (typeof completion.model === 'string' && completion.model !== '') raw.servedModel = completion.model
  if (toolCalls.length) raw.toolCalls = toolCalls
  return raw
}

/**
 * A streamed Chat Completions answer, assembled. Past `maxChars` the rest of the text is not kept
 * (the stream is still read, for its finish reason and usage; its bytes are bounded by the fetch).
 */
async function streamChat(
  openai: OpenAI,
  body: { model: string; messages: unknown[] },
  signal: AbortSignal | undefined,
  maxChars: number,
): Promise<RawCompletion> {
  const stream = await openai.chat.completions.create(
    { ...(body as OpenAI.ChatCompletionCreateParamsStreaming), stream: true, stream_options: { include_usage: true } },
    { signal },
  )
  const calls = new StreamedToolCalls()
  const answer = new CappedText(maxChars)
  let finish: string | null | undefined
  let refusal = ''
  let usage: OpenAI.CompletionUsage | null | undefined
  let events = 0
  let model: string | undefined
  for await (const chunk of stream) {
    events++
    model = chunk.model || model
    const choice = chunk.choices?.[0]
    answer.add(choice?.delta?.content)
    addChatToolDeltas(calls, choice?.delta?.tool_calls)
    if (refusal.length < 1000) refusal += choice?.delta?.refusal ?? ''
    finish = choice?.finish_reason ?? finish
    usage = chunk.usage ?? usage
  }
  if (finish === undefined && answer.text === '')
    throw emptyResponse(
      `the stream ended after ${events} ${events === 1 ? 'event' : 'events'} with no text and no finish reason`,
    )
  const toolCalls = calls.list()
  return {
    text: answer.text,
    usage: chatUsage(usage),
    finishReason: chatFinish(finish, refusal),
    ...(answer.cut ? { cut: true } : {}),
    ...served(model),
    ...(toolCalls.length ? { toolCalls } : {}),
  }
}

/** A Responses API request body. */
function responsesBody(o: OpenAIOptions, messages: ChatMessage[], exchange?: ToolExchange) {
  const instructions = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n')
  const tools = exchange ? responsesToolFields(exchange) : undefined
  const input: OpenAI.Responses.ResponseInputItem[] = messages
    .filter((m) => m.role !== 'system')
    .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content }))
  return {
    model: o.model,
    input: tools ? [...input, ...tools.items] : input,
    ...(tools?.tools ? { tools: tools.tools } : {}),
    ...(instructions ? { instructions } : {}),
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...(o.maxTokens !== undefined ? { max_output_tokens: o.maxTokens } : {}),
    ...(o.reasoningEffort !== undefined ? { reasoning: { effort: o.reasoningEffort } } : {}),
    store: false,
  }
}

async function callResponses(
  openai: OpenAI,
  o: OpenAIOptions,
  messages: ChatMessage[],
  signal: AbortSignal | undefined,
  exchange?: ToolExchange,
): Promise<RawCompletion> {
  const body = responsesBody(o, messages, exchange)
  let response: OpenAI.Responses.Response | undefined
  if (o.stream) {
    const stream = await openai.responses.create({ ...body, stream: true }, { signal })
    let events = 0
    let last = 'none'
    for await (const event of stream) {
      events++
      last = String((event as { type?: unknown }).type)
      if (event.type === 'response.completed' || event.type === 'response.incomplete') response = event.response
    }
    if (!response)
      throw emptyResponse(
        `the stream ended after ${events} ${events === 1 ? 'event' : 'events'} without response.completed (the last: ${JSON.stringify(last)})`,
      )
  } else {
    // The plain POST, not responses.create: on a body that is not JSON (a gateway's HTML page) the
    // SDK's helper fails with "Cannot use 'in' operator…"; this way expectBody says what came.
    response = await openai.post<OpenAI.Responses.Response>('/responses', { body, signal })
  }
  return responsesCompletion(response)
}

/** The answer, usage and finish reason of one Responses API response. */
function responsesCompletion(response: OpenAI.Responses.Response): RawCompletion {
  expectBody(response, 'output', 'Responses')
  const { text, refusal } = responseText(response)
  const toolCalls = responsesToolCalls(response)
  if (!text && !refusal && !toolCalls.length && response.status === 'completed')
    throw emptyResponse(`a completed response with no output text (${response.output.length} output items)`)
  const truncated = response.status === 'incomplete' && response.incomplete_details?.reason === 'max_output_tokens'
  return {
    text,
    usage: responsesUsage(response.usage),
    finishReason: refusal ? 'refusal' : truncated ? 'length' : response.status === 'completed' ? 'stop' : 'other',
    ...served(response.model),
    ...(toolCalls.length ? { toolCalls } : {}),
  }
}

/**
 * An OpenAI model through the official `openai` client, by Chat Completions or the Responses API.
 * The key and base URL come from `OPENAI_API_KEY` / `OPENAI_BASE_URL` unless given. Decoding
 * parameters are part of the protocol fingerprint; the key and base URL are not.
 *
 * @example
 * actors: [actors.openai({ model: 'gpt-4.1-mini', temperature: 0.7, maxTokens: 2048 })]
 */
export function openaiModel(options: OpenAIOptions): ChatModel {
  refuseKeyAsModel(`actors.openai({ model: ${REDACTED} })`, options?.model)
  const where = `actors.openai({ model: ${JSON.stringify(options.model)} })`
  checkRemoteOptions(where, options, {
    known: [
      'model',
      'api',
      'temperature',
      'maxTokens',
      'seed',
      'reasoningEffort',
      'baseURL',
      'apiKey',
      'skipWithoutKey',
      'batch',
    ],
    bounds: REMOTE_BOUNDS,
    choices: { api: ['chat', 'responses'], reasoningEffort: ['minimal', 'low', 'medium', 'high'] },
    maxBatch: 50_000,
    baseURL: 'optional',
  })
  const api = options.api ?? 'chat'
  const id = options.id ?? `openai:${options.model}`
  const descriptor = {
    provider: 'openai',
    model: options.model,
    params: definedParams({
      api,
      temperature: options.temperature,
      maxTokens: options.maxTokens,
      seed: options.seed,
      reasoningEffort: options.reasoningEffort,
    }),
  }
  const apiKey = apiKeyFor(options.apiKey, 'OPENAI_API_KEY', options.cassette)
  if (!apiKey) {
    if (options.skipWithoutKey) return unavailableModel(id, descriptor, 'OPENAI_API_KEY is not set')
    throw new MissingApiKeyError('actors.openai', options.model, 'OPENAI_API_KEY')
  }
  registerSecret(apiKey)
  const baseURL = options.baseURL ?? fromEnv('OPENAI_BASE_URL')
  if (options.baseURL === undefined && baseURL !== undefined) checkBaseURL(where, baseURL, false, 'OPENAI_BASE_URL')
  // Credentials in the base URL (a gateway's ?api-key=) are redacted wherever they are echoed.
  if (baseURL) registerUrlSecrets(baseURL)
  const decoding = chatDecoding(options, 'max_completion_tokens')
  registerHeaderSecrets(options.headers)
  const load = () => client(apiKey, baseURL, options)
  // One gatherer per model: a batch file holds one model's requests.
  const batches = options.batch
    ? new BatchGatherer(
        openaiBatches(load, api === 'responses' ? '/v1/responses' : '/v1/chat/completions', {
          timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          retry: options.retry ?? {},
        }),
        options.batch === true ? {} : options.batch,
      )
    : undefined
  return remoteChatModel<OpenAI>({
    id,
    descriptor,
    endpoint: `openai|${baseURL ?? 'default'}`,
    options,
    client: load,
    tools: true,
    call:
      api === 'responses'
        ? (openai, messages, signal, exchange) => callResponses(openai, options, messages, signal, exchange)
        : (openai, messages, signal, exchange) => callChat(openai, options, decoding, messages, signal, exchange),
    ...(batches
      ? {
          batched: (_openai, messages, signal, context) =>
            api === 'responses'
              ? batches
                  .submit(responsesBody(options, messages), signal, callIdentity(context))
                  .then((r) => responsesCompletion(r as OpenAI.Responses.Response))
              : batches
                  .submit(Object.assign({ model: options.model, messages }, decoding), signal, callIdentity(context))
                  .then((r) => chatCompletion(r as OpenAI.ChatCompletion)),
        }
      : {}),
  })
}

/**
 * A model behind an OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio), by Chat
 * Completions. Local servers need no key; their calls are priced at $0 unless `prices` says
 * otherwise. The base URL is part of the protocol: another server may serve other weights.
 *
 * @example
 * actors: [actors.openaiCompatible({ baseURL: 'http://localhost:11434/v1', model: 'qwen2.5-coder:7b' })]
 */
export function openaiCompatibleModel(options: CompatibleOptions): ChatModel {
  refuseKeyAsModel(`actors.openaiCompatible({ model: ${REDACTED} })`, options?.model)
  const where = `actors.openaiCompatible({ model: ${JSON.stringify(options.model)} })`
  // Without a base URL the SDK would send a local model's calls to api.openai.com.
  checkRemoteOptions(where, options, {
    known: ['model', 'temperature', 'maxTokens', 'seed', 'baseURL', 'apiKey', 'served'],
    bounds: REMOTE_BOUNDS,
    baseURL: 'required',
  })
  const id = options.id ?? `compat:${options.model}`
  const descriptor = {
    provider: 'openai-compatible',
    model: options.model,
    // The weights' identity: what the server serves when named, else where it is (without credentials).
    params: definedParams({
      ...(options.served ? { served: options.served } : { baseURL: redactUrl(options.baseURL) }),
      temperature: options.temperature,
      maxTokens: options.maxTokens,
      seed: options.seed,
    }),
  }
  registerSecret(options.apiKey)
  registerHeaderSecrets(options.headers)
  // Also with `served`, which keeps the URL out of the protocol: an echo of its credentials is redacted.
  registerUrlSecrets(options.baseURL)
  const decoding = chatDecoding(options, 'max_tokens')
  return remoteChatModel({
    id,
    descriptor,
    endpoint: `compat|${options.baseURL}`,
    options,
    price: options.prices ? undefined : { input: 0, output: 0 },
    client: () => client(options.apiKey ?? 'not-needed', options.baseURL, options),
    tools: true,
    call: (openai, messages, signal, exchange) => callChat(openai, options, decoding, messages, signal, exchange),
  })
}
