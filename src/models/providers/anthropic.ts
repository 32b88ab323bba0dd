import type Anthropic from '@anthropic-ai/sdk'
import type { ChatMessage, ChatModel, FinishReason, Usage } from '../chat-model.js'
import { REDACTED, refuseKeyAsModel, registerSecret, registerUrlSecrets } from '../redact.js'
import { checkBaseURL, checkRemoteOptions, REMOTE_BOUNDS } from '../remote-options.js'
import { BatchGatherer, type BatchOptions } from '../batch/gatherer.js'
import { anthropicBatches } from '../batch/transports.js'
import { boundedFetch } from '../bounded-fetch.js'
import { TransportError } from '../retry.js'
import { StreamedToolCalls, type ToolTurn } from '../tools.js'
import { anthropicToolCalls, anthropicTools, anthropicToolTurns } from './anthropic-tools.js'
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

/** The options of `actors.anthropic()`. */
export interface AnthropicOptions extends RemoteOptions {
  model: string
  temperature?: number
  /** Required by the Messages API; default 4096. */
  maxTokens?: number
  /** Extended thinking with this token budget (then temperature must be left unset). */
  thinking?: { budgetTokens: number }
  /** Default: `ANTHROPIC_BASE_URL`, else the SDK's default. */
  baseURL?: string
  /** Default: `ANTHROPIC_API_KEY`. Never written to artifacts or cassettes. */
  apiKey?: string
  skipWithoutKey?: boolean
  /** Place prompt-cache breakpoints on the growing history (default true). */
  cache?: boolean
  /**
   * Send the calls through Anthropic's Message Batches at half the price (`true`, or options):
   * calls that arrive together (a round of a cell) go in one batch; prompt caching still applies.
   * Not part of the protocol; every call records that it was batched.
   */
  batch?: boolean | BatchOptions
}

type Block = Anthropic.TextBlockParam
const EPHEMERAL = { type: 'ephemeral' as const }

/**
 * Messages API request parts, with cache breakpoints on the system prompt and on the last two
 * user turns. A revision resends the whole previous conversation plus one answer and one
 * feedback turn: the breakpoint on the second-to-last user turn sits exactly where the previous
 * call put its last one, so that prefix is read from cache, and the last one writes the prefix
 * the next revision will read. That is 3 of the 4 breakpoints the API allows. An agent's episode
 * (`turns`) follows the messages; its steps grow the history the same way.
 */
export function anthropicRequest(
  messages: readonly ChatMessage[],
  cache: boolean,
  episode: readonly ToolTurn[] = [],
): { system?: Block[]; messages: Anthropic.MessageParam[] } {
  const systemText = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n')
  const turns: Anthropic.MessageParam[] = []
  for (const m of messages) {
    if (m.role === 'system') continue
    const last = turns.at(-1)
    // The API wants alternating roles; merge any consecutive same-role turns.
    if (last && last.role === m.role) (last.content as Block[]).push({ type: 'text', text: m.content })
    else turns.push({ role: m.role, content: [{ type: 'text', text: m.content }] })
  }
  for (const turn of anthropicToolTurns(episode)) {
    const last = turns.at(-1)
    if (last && last.role === turn.role) (last.content as Block[]).push(...(turn.content as Block[]))
    else turns.push(turn)
  }
  if (cache) {
    const userTurns = turns.filter((t) => t.role === 'user').slice(-2)
    for (const turn of userTurns) {
      const blocks = turn.content as Block[]
      blocks[blocks.length - 1] = { ...blocks[blocks.length - 1]!, cache_control: EPHEMERAL }
    }
  }
  const system: Block[] | undefined = systemText
    ? [{ type: 'text', text: systemText, ...(cache ? { cache_control: EPHEMERAL } : {}) }]
    : undefined
  return { ...(system ? { system } : {}), messages: turns }
}

/** Anthropic's `input_tokens` excludes cached tokens; ours counts every input token. Null when the reply reported none: unknown, never zero. */
function normaliseUsage(usage: Anthropic.Usage | Anthropic.MessageDeltaUsage | undefined): Usage | null {
  if (typeof usage?.input_tokens !== 'number' || typeof usage.output_tokens !== 'number') return null
  const read = usage.cache_read_input_tokens ?? 0
  const write = usage.cache_creation_input_tokens ?? 0
  return {
    inputTokens: usage.input_tokens + read + write,
    outputTokens: usage.output_tokens,
    cacheReadTokens: read,
    cacheWriteTokens: write,
  }
}

function finish(reason: string | null | undefined): FinishReason {
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length'
  if (reason === 'refusal') return 'refusal'
  // tool_use: the model stopped to call tools, as it meant to.
  return reason === 'end_turn' || reason === 'stop_sequence' || reason === 'tool_use' ? 'stop' : 'other'
}

/**
 * A Claude model through the official `@anthropic-ai/sdk` client (Messages API), with prompt
 * caching of the growing history. Key and base URL from `ANTHROPIC_API_KEY` /
 * `ANTHROPIC_BASE_URL` unless given.
 *
 * @example
 * actors: [actors.anthropic({ model: 'claude-sonnet-4-5', maxTokens: 4096 })]
 */
export function anthropicModel(options: AnthropicOptions): ChatModel {
  refuseKeyAsModel(`actors.anthropic({ model: ${REDACTED} })`, options?.model)
  const where = `actors.anthropic({ model: ${JSON.stringify(options.model)} })`
  checkRemoteOptions(where, options, {
    known: ['model', 'temperature', 'maxTokens', 'thinking', 'baseURL', 'apiKey', 'skipWithoutKey', 'cache', 'batch'],
    bounds: { ...REMOTE_BOUNDS, temperature: { min: 0, max: 1, why: 'Anthropic accepts 0 to 1' } },
    maxBatch: 100_000,
    baseURL: 'optional',
  })
  const id = options.id ?? `anthropic:${options.model}`
  const maxTokens = options.maxTokens ?? 4096
  const cache = options.cache ?? true
  const descriptor = {
    provider: 'anthropic',
    model: options.model,
    params: definedParams({
      temperature: options.temperature,
      maxTokens,
      thinkingBudget: options.thinking?.budgetTokens,
    }),
  }
  const apiKey = apiKeyFor(options.apiKey, 'ANTHROPIC_API_KEY', options.cassette)
  if (!apiKey) {
    if (options.skipWithoutKey) return unavailableModel(id, descriptor, 'ANTHROPIC_API_KEY is not set')
    throw new MissingApiKeyError('actors.anthropic', options.model, 'ANTHROPIC_API_KEY')
  }
  registerSecret(apiKey)
  const baseURL = options.baseURL ?? fromEnv('ANTHROPIC_BASE_URL')
  if (options.baseURL === undefined && baseURL !== undefined) checkBaseURL(where, baseURL, false, 'ANTHROPIC_BASE_URL')
  if (baseURL) registerUrlSecrets(baseURL)
  registerHeaderSecrets(options.headers)
  const load = async (): Promise<Anthropic> => {
    const { default: AnthropicClient } = await import('@anthropic-ai/sdk')
    // maxRetries 0: we own retries. A timeout is always set: without one the SDK refuses
    // non-streaming calls with max_tokens of 22000 or more.
    // fetch: every body bounded (see bounded-fetch.ts).
    return new AnthropicClient({
      apiKey,
      baseURL,
      maxRetries: 0,
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      logLevel: 'off',
      fetch: boundedFetch(bodyLimits(options)),
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    })
  }
  const bodyOf = (messages: ChatMessage[], exchange?: ToolExchange): Anthropic.MessageCreateParamsNonStreaming => ({
    model: options.model,
    max_tokens: maxTokens,
    ...anthropicRequest(messages, cache, exchange?.turns),
    ...(exchange?.tools.length ? { tools: anthropicTools(exchange.tools) } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.thinking ? { thinking: { type: 'enabled', budget_tokens: options.thinking.budgetTokens } } : {}),
  })
  const batches = options.batch
    ? new BatchGatherer(
        anthropicBatches(load, { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, retry: options.retry ?? {} }),
        options.batch === true ? {} : options.batch,
      )
    : undefined
  return remoteChatModel<Anthropic>({
    id,
    descriptor,
    endpoint: `anthropic|${baseURL ?? 'default'}`,
    options,
    client: load,
    tools: true,
    // No async frame of its own: the common path is one SDK promise and one `then`.
    call: (client, messages, signal, exchange): Promise<RawCompletion> => {
      const body = bodyOf(messages, exchange)
      if (options.stream) return streamMessage(client, body, signal, options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS)
      return client.messages.create(body, { signal }).then(completionOf)
    },
    ...(batches
      ? {
          batched: (_client, messages, signal, context) =>
            batches
              .submit(bodyOf(messages) as unknown as Record<string, unknown>, signal, callIdentity(context))
              .then((m) => completionOf(m as Anthropic.Message)),
        }
      : {}),
  })
}

/** The answer, usage and finish reason of one Messages API response. */
function completionOf(message: Anthropic.Message): RawCompletion {
  expectBody(message, 'content', 'Messages')
  const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('')
  const toolCalls = anthropicToolCalls(message.content)
  if (!text && !toolCalls.length && message.stop_reason !== 'refusal' && message.stop_reason !== 'max_tokens') {
    throw new TransportError(
      `malformed response: no text content (${message.content.length} content blocks, stop_reason ${JSON.stringify(message.stop_reason)})`,
    )
  }
  return {
    text,
    usage: normaliseUsage(message.usage),
    finishReason: finish(message.stop_reason),
    ...served(message.model),
    ...(toolCalls.length ? { toolCalls } : {}),
  }
}

/**
 * A streamed Messages answer, assembled from the raw events (not the SDK's MessageStream, whose
 * "stream ended without producing a Message" on an empty or broken stream was not retried): an
 * empty stream or a malformed event is a retried malformed response that says what came. Past
 * `maxChars` the rest of the text is not kept; the stream is still read, for its stop reason and
 * usage.
 */
async function streamMessage(
  client: Anthropic,
  body: Anthropic.MessageCreateParamsNonStreaming,
  signal: AbortSignal | undefined,
  maxChars: number,
): Promise<RawCompletion> {
  const stream = await client.messages.create({ ...body, stream: true }, { signal })
  const answer = new CappedText(maxChars)
  let start: Anthropic.Message | undefined
  let stop: string | null | undefined
  let usage: Anthropic.MessageDeltaUsage | undefined
  let events = 0
  const calls = new StreamedToolCalls()
  for await (const event of stream) {
    events++
    if (event.type === 'message_start') start = event.message
    else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') answer.add(event.delta.text)
    else if (event.type === 'content_block_start' && event.content_block.type === 'tool_use')
      calls.add(event.index, { id: event.content_block.id, name: event.content_block.name })
    else if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta')
      calls.add(event.index, { arguments: event.delta.partial_json })
    else if (event.type === 'message_delta') {
      stop = event.delta.stop_reason ?? stop
      usage = event.usage
    }
  }
  if (!start)
    throw new TransportError(
      `malformed response: the stream ended after ${events} ${events === 1 ? 'event' : 'events'} without message_start`,
    )
  const toolCalls = calls.list()
  if (!answer.text && !toolCalls.length && stop !== 'refusal' && stop !== 'max_tokens')
    throw new TransportError(
      `malformed response: the stream had no text (${events} events, stop_reason ${JSON.stringify(stop ?? null)})`,
    )
  // The start's usage counts the input; the last delta's, the output.
  const merged = {
    ...start.usage,
    ...(usage?.output_tokens !== undefined ? { output_tokens: usage.output_tokens } : {}),
  } as Anthropic.Usage
  return {
    text: answer.text,
    usage: normaliseUsage(merged),
    finishReason: finish(stop),
    ...(answer.cut ? { cut: true } : {}),
    ...served(start.model),
    ...(toolCalls.length ? { toolCalls } : {}),
  }
}
