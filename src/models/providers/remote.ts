import {
  throwIfAborted,
  type CallContext,
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type FinishReason,
  type ModelDescriptor,
  type Usage,
} from '../chat-model.js'
import {
  batchCostOf,
  costOf,
  DEFAULT_BATCH_SHARE,
  findPrice,
  uncachedCostOf,
  type Price,
  type PriceTable,
} from '../pricing.js'
import { BatchDeadlineError } from '../batch/gatherer.js'
import { resolveCassette, withCassette, type CassetteOptions } from '../cassette.js'
import { callSignal, TimeLimit, type CallSignal } from '../call-signal.js'
import { limiterFor, type AdaptiveLimiter, type PushBack } from '../rate-limit.js'
import {
  beyondCap,
  classifyFailure,
  gaveUpText,
  notifyRetry,
  ownRefusal,
  ProviderError,
  quotaText,
  retryAfterFailure,
  retryDelay,
  sleep,
  TransportError,
  waitText,
  type FailureClass,
  type RetryOptions,
} from '../retry.js'
import { breakerFor, connectionCause, endpointName, type EndpointBreaker } from '../endpoint-health.js'
import { redactName, redactSecrets, registerSecret } from '../redact.js'
import type { ToolCall, ToolDefinition, ToolTurn } from '../tools.js'
import {
  bytesText,
  DEFAULT_MAX_BATCH_RESULTS_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  type BodyLimits,
} from '../bounded-fetch.js'

/** What one provider call returns before pricing and timing. */
export interface RawCompletion {
  text: string
  /** Null when the reply reported no usage. */
  usage: Usage | null
  finishReason: FinishReason
  /** The answer was longer than `maxAnswerChars`: `text` is its start. */
  cut?: boolean
  /** The model the provider says served the call (its response's `model`), when it says. */
  servedModel?: string
  /** The tools the model asked to call. */
  toolCalls?: ToolCall[]
}

/** The tool part of a request: what the model may call and the episode so far (see ChatRequest). */
export interface ToolExchange {
  tools: readonly ToolDefinition[]
  turns: readonly ToolTurn[]
}

/** The served model a response names, when it names one (a gateway may leave it empty). */
export function served(model: unknown): { servedModel?: string } {
  return typeof model === 'string' && model !== '' ? { servedModel: model } : {}
}

/** Default `maxAnswerChars`: about 250 000 tokens, far beyond any answer a model gives on purpose. */
export const DEFAULT_MAX_ANSWER_CHARS = 1_000_000

/**
 * An answer's text, assembled from a stream's deltas and kept up to `max` characters: a server
 * that streams without end fills no memory.
 */
export class CappedText {
  text = ''
  cut = false
  constructor(private readonly max: number) {}
  add(delta: string | null | undefined): void {
    if (!delta || this.cut) return
    if (this.text.length + delta.length <= this.max) this.text += delta
    else {
      this.text = cutToChars(this.text + delta.slice(0, this.max - this.text.length + 1), this.max)
      this.cut = true
    }
  }
}

/** The longest start of `text` with at most `max` UTF-16 units that does not split a surrogate pair. */
export function cutToChars(text: string, max: number): string {
  if (text.length <= max) return text
  const end = /[\ud800-\udbff]/.test(text.charAt(max - 1)) ? max - 1 : max
  return text.slice(0, end)
}

/** A model's body caps from its options (see bounded-fetch.ts). */
export function bodyLimits(options: RemoteOptions & { batch?: boolean | { maxResultsBytes?: number } }): BodyLimits {
  return {
    responseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    batchResultsBytes:
      (typeof options.batch === 'object' ? options.batch.maxResultsBytes : undefined) ??
      DEFAULT_MAX_BATCH_RESULTS_BYTES,
  }
}

/** Options every real provider shares. */
export interface RemoteOptions {
  /** Name shown in tables (default `<provider>:<model>`). */
  id?: string
  /**
   * Longest one try of a call may take in ms, from connecting to the last byte of the body or
   * stream (default 120 000); a try that takes longer is a retryable timeout.
   */
  timeoutMs?: number
  /**
   * Longest a whole call may take in ms, every try and every wait between tries included
   * (default 300 000, half the cell's default timeout): past it the call fails, saying so. Batched
   * calls wait for their batch instead (the batch's `deadlineMs`).
   */
  callTimeoutMs?: number
  /** Our retry loop (the SDKs' own retries are off): `{ maxRetries: 5, baseDelayMs: 500, maxDelayMs: 30000, maxRetryAfterMs: 60000 }`. */
  retry?: RetryOptions
  /**
   * Calls in flight at once to this endpoint (default 8), shared by every model using it in this
   * worker process; when models set different values the smallest applies. Halved on a 429,
   * recovers on success.
   */
  concurrency?: number
  /** Price overrides, `provider:model` prefix → USD per million tokens. */
  prices?: PriceTable
  /** Use the streaming API and assemble the answer (default false). */
  stream?: boolean
  /** Record and replay (default: `SEQK_CASSETTE` / `SEQK_CASSETTE_DIR`, else off). */
  cassette?: CassetteOptions
  /**
   * Largest response body in bytes (default 16 MiB), checked on the wire (`content-length`) and
   * as it is read, decompressed: a body over it fails the call, naming the cap.
   */
  maxResponseBytes?: number
  /**
   * Longest answer kept, in characters (default 1 000 000): a longer one is cut there, recorded
   * with `finishReason: 'length'` and `cutAtChars` on its call, and never sent again whole (the
   * revision's history holds the cut answer).
   */
  maxAnswerChars?: number
  /**
   * Headers sent with every request, e.g. a gateway's own key (`{ 'x-gateway-key': … }`) or
   * `{ authorization: 'Basic …' }` where a URL would have carried `user:pass@`. Their values are
   * secrets: never written to artifacts or cassettes, redacted wherever echoed.
   */
  headers?: Record<string, string>
}

/**
 * Wraps one provider's single call with what every real model needs: its SDK client loaded on
 * first use, a shared adaptive concurrency limit per endpoint, our abortable retry loop, latency
 * and nominal cost.
 */
export function remoteChatModel<Client>(input: {
  descriptor: ModelDescriptor
  id: string
  endpoint: string
  options: RemoteOptions
  price?: Price
  /** Creates the SDK client (on first call; a failed load is tried again on the next). */
  client: () => Promise<Client>
  /**
   * One SDK call. It may also throw synchronously (building the request): the caller awaits it inside its `try`.
   * `exchange` is set when the request offers tools (then `tools` must be true).
   */
  call: (
    client: Client,
    messages: ChatMessage[],
    signal: AbortSignal | undefined,
    exchange?: ToolExchange,
  ) => Promise<RawCompletion>
  /** The provider maps tools to its wire: the model says so (`ChatModel.tools`). */
  tools?: boolean
  /**
   * The same call through the provider's batch API (the model's `batch` option): it waits for
   * the batch, however long, and rejects with a BatchDeadlineError when the call should go
   * through the normal API instead.
   */
  batched?: (
    client: Client,
    messages: ChatMessage[],
    signal: AbortSignal | undefined,
    context: CallContext,
  ) => Promise<RawCompletion>
}): ChatModel {
  const { descriptor, options } = input
  const limiter = limiterFor(input.endpoint, options.concurrency)
  const price = input.price ?? findPrice(descriptor.provider, descriptor.model, options.prices)
  const retry = options.retry ?? {}
  const load = loadOnce(input.client)
  let client: Client | undefined
  const onFailure = (failure: FailureClass) => {
    if (failure.rateLimited) limiter.rateLimited(failure)
  }
  const breaker = breakerFor(input.endpoint)
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
  const maxAnswerChars = options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS
  const endpoint: Endpoint = { key: input.endpoint, limiter, breaker, retry }
  return withCassette(
    {
      id: input.id,
      descriptor,
      ...(input.batched ? { gathers: true } : {}),
      ...(price ? { price } : {}),
      ...(input.tools ? { tools: true } : {}),
      async chat(request: ChatRequest): Promise<ChatResponse> {
        throwIfAborted(request.signal)
        const exchange = toolExchange(input.id, request, input.tools === true)
        const started = performance.now()
        // The SDK never sees this signal on the direct path, only each try's Deadline (a fresh one it
        // may leave its listener on); our own waits remove theirs. A batch hands its signal on, so it
        // gets the linked one (see callSignal), released when the call ends.
        const batch = exchange ? undefined : input.batched
        const call = batch ? callSignal(request.signal) : UNLINKED
        const signal = batch ? call.signal : request.signal
        let raw: RawCompletion | undefined
        const label = () =>
          `${input.id} (${request.context.role}, task ${request.context.taskId}, attempt ${request.context.attempt})`
        // The retry loop written out (see withRetries): this runs once per model call, and the common
        // case, a free slot and a first try that succeeds, then costs no closure and no extra frame.
        try {
          // Batched: one slot of a batch, not of the endpoint's concurrency, and no per-try timeout
          // (a batch takes minutes to hours); a request that failed inside its batch is retried in the next.
          // An agent's steps go direct: each waits on the last one's tool results, a batch would hold every step for hours.
          if (batch) {
            for (let tries = 1; ; tries++) {
              try {
                raw = await batch(client ?? (client = await load()), request.messages, signal, request.context)
                break
              } catch (error) {
                // Past its deadline the call goes through the normal API, at the normal price.
                if (error instanceof BatchDeadlineError) break
                await sleep(retryAfterFailure(error, tries, retry, { signal, label, onFailure }), signal)
              }
            }
          }
          const batched = raw !== undefined
          if (!batched) {
            const ends = started + callTimeoutMs
            // Retries spent against retry.maxRetries: a push-back shared with calls in flight together spends none.
            // The last failure's answer is kept, to tell the request's own error from the server's weather.
            const failures: CallFailures = { retries: 0, answersAtStart: breaker.answers }
            for (let tries = 1; ; tries++) {
              // A dead endpoint, or one holding a quota's wait, fails at once, by name (not retryable).
              breaker.check()
              // Loaded before the try's deadline starts: an SDK's first import can take longer than a short timeoutMs.
              const sdk = client ?? (client = await load())
              const startedAt = limiter.tryAcquire()
                ? limiter.clock()
                : await limiter.acquire(signal, ends - performance.now(), () =>
                    callBoundError(label(), tries - 1, callTimeoutMs, 'waiting for a slot'),
                  )
              let failure: unknown
              let timedOutTry = false
              const tryMs = Math.min(timeoutMs, ends - performance.now())
              const deadline = new Deadline(signal, Math.max(1, tryMs))
              try {
                // The endpoint may have closed while this call waited for its slot.
                breaker.check()
                raw = await deadline.race(input.call(sdk, request.messages, deadline.signal, exchange))
                breaker.reached()
                breaker.answered()
                break
              } catch (error) {
                failure = diagnose(
                  error,
                  deadline,
                  input.endpoint,
                  tryMs < timeoutMs
                    ? `${Math.round(tryMs)} ms (what was left of callTimeoutMs)`
                    : `${timeoutMs} ms (timeoutMs)`,
                )
                const cause = connectionCause(error)
                timedOutTry = deadline.passed
                if (cause) breaker.failed(cause)
                else if (deadline.passed && tryMs >= timeoutMs) breaker.timedOut(timeoutMs)
                else if (deadline.passed || signal?.aborted) breaker.settled()
                else if (!(error instanceof Error && error.name === 'EndpointDownError')) breaker.reached()
              } finally {
                deadline.dispose()
                limiter.release()
              }
              if (timedOutTry && tryMs < timeoutMs && !signal?.aborted)
                throw callBoundError(label(), tries, callTimeoutMs, 'its last try was cut short')
              const delayMs = afterFailure(endpoint, failure, failures, {
                tries,
                startedAt,
                signal,
                label,
                ends,
                callTimeoutMs,
              })
              if (delayMs > 0) await sleep(delayMs, signal)
            }
          }
          if (!batched) limiter.succeeded()
          const done = raw as RawCompletion
          const cut = done.cut === true || done.text.length > maxAnswerChars
          // Built field by field, in the order a literal with spreads would give: a spread of a
          // conditional object costs a runtime call, about 0.7 µs for this object on Node 20, on every call.
          const response = {
            // A gateway may echo the request's headers into the answer: the configured key never reaches an artifact.
            text: redactSecrets(cut ? cutToChars(done.text, maxAnswerChars) : done.text),
            usage: done.usage,
            finishReason: cut ? 'length' : done.finishReason,
          } as ChatResponse
          if (cut) response.cutAtChars = maxAnswerChars
          // A server may echo the request's key as its `model`: the name is kept, a credential in it is not.
          if (done.servedModel) response.servedModel = redactName(done.servedModel)
          if (done.toolCalls?.length) response.toolCalls = redactedCalls(done.toolCalls)
          response.latencyMs = performance.now() - started
          // Unknown usage has an unknown cost (undefined: null in the record), never $0.
          response.costUsd =
            price && done.usage ? (batched ? batchCostOf(done.usage, price) : costOf(done.usage, price)) : undefined
          response.costUsdWithoutCache =
            price && done.usage
              ? uncachedCostOf(done.usage, price) * (batched ? (price.batch ?? DEFAULT_BATCH_SHARE) : 1)
              : undefined
          // A batched model's call that went direct (past its batch deadline) says so: batched false.
          if (batched) {
            response.batched = true
            if (price && done.usage) response.costUsdAtListPrice = costOf(done.usage, price)
          } else if (input.batched) response.batched = false
          return response
        } finally {
          call.release()
        }
      },
    },
    options.cassette,
  )
}

/**
 * The calls with every configured secret redacted from their arguments, and any credential from
 * their names (a name is no tool's when it holds one): the provider's own list when none holds one
 * (the common case).
 */
function redactedCalls(calls: ToolCall[]): ToolCall[] {
  let out: ToolCall[] | undefined
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!
    const args = redactSecrets(call.arguments)
    const name = redactName(call.name)
    if (args !== call.arguments || name !== call.name) (out ??= calls.slice())[i] = { ...call, name, arguments: args }
  }
  return out ?? calls
}

/** The direct path's call signal: the caller's own, nothing to release. */
const UNLINKED: CallSignal = { signal: undefined, release: () => {} }

/**
 * The request's tool part, or undefined when it offers none. A provider that does not map tools
 * refuses them, naming itself: tools silently dropped would make an agent's model answer blind.
 */
function toolExchange(id: string, request: ChatRequest, supported: boolean): ToolExchange | undefined {
  if (!request.tools?.length && !request.turns?.length) return undefined
  if (!supported) throw new TypeError(`${id} does not speak the tool protocol: it cannot be sent tools or tool turns`)
  return { tools: request.tools ?? [], turns: request.turns ?? [] }
}

/**
 * The try signals free for another try: a controller no try aborted goes back here when its try
 * ends, and the next try anywhere in the process takes it, so a call costs no fresh AbortSignal
 * (on Node 20 one costs about 8 µs and its first listener 5 µs more, a tenth of the harness's
 * budget per call in test/agent.bench.ts). A try holds its controller alone, so its timeout
 * aborts only its own request. openai 6.49 leaves its listener on the signal it was given (the
 * Anthropic SDK removes its own when the body settles): a controller is retired after
 * {@link TRY_SIGNAL_USES} tries, so at most that many such listeners, each holding one finished
 * request's controller, ever sit on one, below Node's warning at 11. Exported for its tests, which
 * start from an empty list (a lease near its last use, left by an earlier test in the same worker,
 * would retire after one try).
 */
export const freeTrySignals: { controller: AbortController; uses: number }[] = []
const TRY_SIGNAL_USES = 8
/** Most controllers kept free: about the calls a process has in flight at once. */
const MAX_FREE_TRY_SIGNALS = 64

/** The reason a try's deadline gives. */
const tryTimedOut = (ms: number) => new TransportError(`timed out after ${ms} ms`)

/**
 * One try's deadline: a signal that aborts when the caller's does or when `ms` have passed,
 * whichever is first (`passed` then says it was the time). The SDKs' own `timeout` covers only the
 * wait for headers; this one covers the body and every gap of a stream too. Its controller may
 * have served earlier tries (see freeTrySignals), never one in flight, and never an aborted one.
 */
class Deadline extends TimeLimit {
  readonly #lease: { controller: AbortController; uses: number }

  constructor(parent: AbortSignal | undefined, ms: number) {
    const lease = freeTrySignals.pop() ?? { controller: new AbortController(), uses: 0 }
    lease.uses++
    super(parent, ms, tryTimedOut, lease.controller)
    this.#lease = lease
  }

  /**
   * Ends the try. Called once its SDK call has settled (resolved: the body read; rejected: the
   * SDK is done with it) or been abandoned by an abort, which retires the controller.
   */
  override dispose(): void {
    super.dispose()
    const lease = this.#lease
    if (!this.stopped && lease.uses < TRY_SIGNAL_USES && freeTrySignals.length < MAX_FREE_TRY_SIGNALS)
      freeTrySignals.push(lease)
  }
}

/** The failure a person should read: our timeout, or a connection that could not be made, named with its endpoint. */
function diagnose(error: unknown, deadline: Deadline, key: string, limit: string): unknown {
  const endpoint = endpointName(key)
  if (deadline.passed)
    return new TransportError(`${endpoint}: no complete response within ${limit}`, { cause: error, kind: 'timeout' })
  // Our own refusal inside the SDK's call (a body over its cap), which the SDK wraps as a connection error.
  const own = ownRefusal(error)
  if (own) return own
  const cause = connectionCause(error)
  if (cause)
    return new TransportError(`${endpoint}: ${cause.text} (${cause.code})`, { cause: error, kind: 'connection' })
  // Any other failure to connect: name the endpoint and the innermost reason the SDK wrapped away.
  const name = (error as { constructor?: { name?: string } } | null)?.constructor?.name ?? ''
  if (/ConnectionError$/.test(name) && !/Timeout/.test(name))
    return new TransportError(`${endpoint}: could not connect: ${innermostMessage(error)}`, {
      cause: error,
      kind: 'connection',
    })
  return error
}

/** Default `timeoutMs`: one try. */
export const DEFAULT_TIMEOUT_MS = 120_000
/** Default `callTimeoutMs`: a whole call, below the cell's default timeout (600 s) so the call's own error is what a cell reports. */
export const DEFAULT_CALL_TIMEOUT_MS = 300_000

/** What the retry decision of a direct call reads of its endpoint. */
interface Endpoint {
  key: string
  limiter: AdaptiveLimiter
  breaker: EndpointBreaker
  retry: RetryOptions
}

function callBoundError(label: string, tries: number, callTimeoutMs: number, why: string): ProviderError {
  const failure: FailureClass = {
    retryable: false,
    rateLimited: false,
    reason: `no answer within the call's ${waitText(callTimeoutMs)} bound (callTimeoutMs), ${why}`,
    kind: 'timeout',
  }
  return new ProviderError(`${label}: ${failure.reason} (${tries} ${tries === 1 ? 'try' : 'tries'})`, tries, failure)
}

/** What a direct call's failures so far leave for the next decision (see afterFailure). */
interface CallFailures {
  /** Retries spent against retry.maxRetries. */
  retries: number
  /** The last failure's status and reason, when it was a server error that may be the request's own. */
  answer?: string
  /** The endpoint's answered calls when this call started (see EndpointBreaker.answers). */
  answersAtStart: number
  /** This call has told the breaker it failed for good on server errors (once: the breaker counts requests). */
  told?: boolean
}

/**
 * Server errors that are the server's weather whatever the body says: a gateway that lost its
 * upstream (502, 504), an overload (503, 529). A 500 or 501 with the same body twice is the
 * request's (a server that rejects this prompt), unless the server asked to wait.
 */
const WEATHER_STATUS = new Set([502, 503, 504, 529])

/** The answer a failure repeats, when it is a server error that may be the request's own; else undefined. */
function ownAnswer(failure: FailureClass): string | undefined {
  if (failure.kind !== 'server' || failure.status === undefined || WEATHER_STATUS.has(failure.status)) return undefined
  return failure.retryAfterMs === undefined ? failure.reason : undefined
}

/**
 * The wait before the next try after try `tries` of a direct call failed, or the error that ends
 * the call (thrown); `failures` is updated. The endpoint hears of it first: a 429 or a 5xx is the
 * endpoint's event (see AdaptiveLimiter), a wait beyond the cap holds the endpoint closed for every
 * call (see EndpointBreaker.hold). The same server error twice for this request is the request's
 * own when the endpoint answered other calls since this one started (it is not retried again), and
 * the server's when it answered none (three such requests open the endpoint's breaker).
 */
function afterFailure(
  endpoint: Endpoint,
  error: unknown,
  failures: CallFailures,
  call: {
    tries: number
    startedAt: number
    signal: AbortSignal | undefined
    label: () => string
    ends: number
    callTimeoutMs: number
  },
): number {
  const { retry, limiter, breaker } = endpoint
  if (call.signal?.aborted) throw call.signal.reason
  const classified = classifyFailure(error)
  const quota = beyondCap(classified, retry)
  if (quota) {
    const asked = classified.retryAfterMs!
    breaker.hold(
      Date.now() + asked,
      `${endpointName(endpoint.key)}: ${quotaText(asked, retry.maxRetryAfterMs ?? 60_000)}; calls to it fail at once until ${new Date(Date.now() + asked).toISOString()}`,
    )
    throw new ProviderError(`${call.label()}: ${quota.reason}`, call.tries, quota)
  }
  if (!classified.retryable) throw new ProviderError(`${call.label()}: ${classified.reason}`, call.tries, classified)
  if (classified.kind === 'server') breaker.serverFailed(classified.reason)
  const answer = ownAnswer(classified)
  const repeated = answer !== undefined && answer === failures.answer
  failures.answer = answer
  // Calls that started with this one were answered: the server serves, this request is the odd one.
  const othersAnswered = breaker.answers > failures.answersAtStart
  if (repeated && othersAnswered) {
    const failure: FailureClass = {
      ...classified,
      retryable: false,
      kind: 'request',
      reason: `${classified.reason} (the same answer to this request twice, while the endpoint answers others: the request's own error, not the server's weather, so it is not retried)`,
    }
    throw new ProviderError(`${call.label()}: ${failure.reason} (${call.tries} tries)`, call.tries, failure)
  }
  if (repeated && !failures.told) {
    failures.told = true
    breaker.requestFailedOnServer(classified.reason)
    // Open now: this call fails at once, naming why, like every call after it.
    breaker.check()
  }
  const maxRetries = retry.maxRetries ?? 5
  let push: PushBack | undefined
  if (classified.rateLimited) push = limiter.rateLimited({ ...classified, startedAt: call.startedAt })
  else if (classified.kind === 'server')
    push = limiter.serverFailed(
      {
        startedAt: call.startedAt,
        ...(classified.retryAfterMs !== undefined ? { retryAfterMs: classified.retryAfterMs } : {}),
      },
      (streak) => sharedBackoff(streak, retry),
    )
  // A storm longer than the allowance spends every call's retries, shared or not: it cannot loop.
  const spends = push === undefined || push.newEvent || limiter.serverStreak > maxRetries
  const retries = failures.retries + (spends ? 1 : 0)
  failures.retries = retries
  if (retries > maxRetries) {
    if (classified.kind === 'server' && !othersAnswered && !failures.told)
      breaker.requestFailedOnServer(classified.reason)
    throw new ProviderError(
      `${call.label()}: ${classified.reason} (${gaveUpText(call.tries, maxRetries)})`,
      call.tries,
      classified,
    )
  }
  // The endpoint holds a shared wait for every call: this one waits for its slot, not on its own too.
  const delayMs = push?.shared ? 0 : retryDelay(Math.max(1, retries), classified, retry)
  if (performance.now() + delayMs >= call.ends)
    throw callBoundError(call.label(), call.tries, call.callTimeoutMs, `after ${classified.reason}`)
  notifyRetry(() => ({
    label: call.label(),
    retry: call.tries,
    delayMs,
    rateLimited: classified.rateLimited,
    reason: classified.reason,
  }))
  return delayMs
}

/** The endpoint's backoff after `streak` 5xx events in a row: doubling from `baseDelayMs`, capped at `maxDelayMs`, with equal jitter (never 0, so it is a pause). */
export function sharedBackoff(streak: number, policy: RetryOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs ?? 30_000, (policy.baseDelayMs ?? 500) * 2 ** (streak - 1))
  return ceiling / 2 + (random() * ceiling) / 2
}

/** The message at the end of an error's cause chain (fetch's own reason under the SDK's "Connection error."). */
function innermostMessage(error: unknown): string {
  let current = error as { message?: unknown; cause?: unknown } | undefined
  let message = String(current?.message ?? error)
  for (let depth = 0; depth < 6 && current?.cause !== undefined && current.cause !== null; depth++) {
    current = current.cause as { message?: unknown; cause?: unknown }
    if (typeof current?.message === 'string' && current.message !== '') message = current.message
  }
  return message
}

/**
 * Loads something once, on first use (an SDK client: evals with only simulated actors never load
 * the SDK); every call after the first gets the same promise. A failed load is tried again.
 *
 * @example
 * const sdk = loadOnce(async () => new (await import('openai')).default({ apiKey }))
 * const openai = await sdk()
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined
      throw error
    }))
}

/** Registers every header value as a secret, and a `Basic` header's decoded `user:pass` too. */
export function registerHeaderSecrets(headers: Record<string, string> | undefined): void {
  for (const value of Object.values(headers ?? {})) {
    registerSecret(value)
    const token = /^(?:Bearer|Basic)\s+(\S+)$/i.exec(value)?.[1]
    if (token) {
      registerSecret(token)
      if (/^Basic/i.test(value)) registerSecret(Buffer.from(token, 'base64').toString('utf8'))
    }
  }
}

/** The first of `names` set in the environment. */
export function fromEnv(...names: string[]): string | undefined {
  for (const name of names) {
    const value = process.env[name]
    if (value) return value
  }
  return undefined
}

/**
 * The API key, or a placeholder when cassettes replay every call (forks without keys can then
 * run a recorded eval in CI), or undefined.
 */
export function apiKeyFor(
  explicit: string | undefined,
  variable: string,
  cassette: CassetteOptions | undefined,
): string | undefined {
  const key = explicit ?? fromEnv(variable)
  if (key) return key
  return resolveCassette(cassette).mode === 'replay' ? 'replay-only-no-key' : undefined
}

/** Thrown at declaration time when a provider has no API key. */
export class MissingApiKeyError extends Error {
  constructor(constructorName: string, model: string, variable: string) {
    super(
      `${constructorName}({ model: ${JSON.stringify(model)} }): no API key. Set ${variable}, pass apiKey, or pass skipWithoutKey: true to skip its cells instead.`,
    )
    this.name = 'MissingApiKeyError'
  }
}

/** A model that cannot run here: its cells are skipped with `reason`. */
export function unavailableModel(id: string, descriptor: ModelDescriptor, reason: string): ChatModel {
  return {
    id,
    descriptor,
    unavailable: reason,
    async chat() {
      throw new Error(`${id} is unavailable: ${reason}`)
    },
  }
}

/** Drops undefined values so descriptors hash the same whether an option was omitted or undefined. */
export function definedParams(
  params: Record<string, string | number | boolean | null | undefined>,
): Record<string, string | number | boolean | null> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<
    string,
    string | number | boolean | null
  >
}

/**
 * Checks that an SDK handed back a JSON object holding `field` as an array (a gateway's login page
 * with status 200 comes back as a string, which the SDKs pass through): otherwise a retryable
 * malformed response that says what came instead.
 *
 * @example
 * expectBody('<html>…', 'choices', 'Chat Completions') // throws "malformed response: the body is not JSON but text starting "<html>…""
 */
export function expectBody(body: unknown, field: string, api: string): void {
  if (body !== null && typeof body === 'object' && Array.isArray((body as Record<string, unknown>)[field])) return
  if (typeof body === 'string')
    throw new TransportError(
      `malformed response: the body is not JSON but ${describeText(body)} (a proxy or gateway page, not the ${api} API?)`,
    )
  throw new TransportError(
    `malformed response: not a ${api} response (no ${field} list in ${JSON.stringify(body)?.slice(0, 80) ?? String(body)})`,
  )
}

/**
 * What a body that is not JSON is, for a person: its kind, size and start.
 *
 * @example
 * describeText('<!doctype html><html>…') // 'an HTML page, 1.2 kB, starting "<!doctype html><html>…"'
 */
export function describeText(text: string): string {
  const trimmed = text.trimStart()
  const kind =
    trimmed === ''
      ? 'an empty body'
      : /^<(!doctype html|html)\b/i.test(trimmed)
        ? 'an HTML page'
        : /^<\?xml/i.test(trimmed)
          ? 'an XML document'
          : 'text'
  if (trimmed === '') return kind
  const start = trimmed.length > 40 ? `${trimmed.slice(0, 40)}…` : trimmed
  return `${kind}, ${bytesText(Buffer.byteLength(text))}, starting ${JSON.stringify(start)}`
}

/**
 * Which call this is, for a batch's ledger: its cell, task, repeat, attempt and role (what a
 * cassette keys on besides the messages). Two repeats with the same prompt are different calls.
 */
export function callIdentity(context: CallContext): Record<string, string | number | null> {
  return {
    cell: context.cell ?? null,
    taskId: context.taskId,
    repeat: context.repeat,
    attempt: context.attempt,
    role: context.role,
  }
}
