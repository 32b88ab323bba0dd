import { throwIfAborted, type CallContext, type ChatMessage, type ChatModel, type ChatRequest, type ChatResponse, type FinishReason, type ModelDescriptor, type Usage } from '../chat-model.js'
import { batchCostOf, costOf, DEFAULT_BATCH_SHARE, findPrice, uncachedCostOf, type Price, type PriceTable } from '../pricing.js'
import { BatchDeadlineError } from '../batch/gatherer.js'
import { resolveCassette, withCassette, type CassetteOptions } from '../cassette.js'
import { callSignal } from '../call-signal.js'
import { limiterFor } from '../rate-limit.js'
import { retryAfterFailure, sleep, TransportError, type FailureClass, type RetryOptions } from '../retry.js'
import { breakerFor, connectionCause, endpointName } from '../endpoint-health.js'
import { redactSecrets } from '../redact.js'

/** What one provider call returns before pricing and timing. */
export interface RawCompletion {
  text: string
  /** Null when the reply reported no usage. */
  usage: Usage | null
  finishReason: FinishReason
  /** The model the provider says served the call (its response's `model`), when it says. */
  servedModel?: string
}

/** The served model a response names, when it names one (a gateway may leave it empty). */
export function served(model: unknown): { servedModel?: string } {
  return typeof model === 'string' && model !== '' ? { servedModel: model } : {}
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
  /** One SDK call. It may also throw synchronously (building the request): the caller awaits it inside its `try`. */
  call: (client: Client, messages: ChatMessage[], signal: AbortSignal | undefined) => Promise<RawCompletion>
  /**
   * The same call through the provider's batch API (the model's `batch` option): it waits for
   * the batch, however long, and rejects with a BatchDeadlineError when the call should go
   * through the normal API instead.
   */
  batched?: (client: Client, messages: ChatMessage[], signal: AbortSignal | undefined, context: CallContext) => Promise<RawCompletion>
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
  const timeoutMs = options.timeoutMs ?? 120_000
  return withCassette({
    id: input.id,
    descriptor,
    ...(input.batched ? { gathers: true } : {}),
    ...(price ? { price } : {}),
    async chat(request: ChatRequest): Promise<ChatResponse> {
      throwIfAborted(request.signal)
      const started = performance.now()
      const call = callSignal(request.signal)
      const signal = call.signal
      let raw: RawCompletion | undefined
      const label = () => `${input.id} (${request.context.role}, task ${request.context.taskId}, attempt ${request.context.attempt})`
      // The retry loop written out (see withRetries): this runs once per model call, and the common
      // case, a free slot and a first try that succeeds, then costs no closure and no extra frame.
      try {
        // Batched: one slot of a batch, not of the endpoint's concurrency, and no per-try timeout
        // (a batch takes minutes to hours); a request that failed inside its batch is retried in the next.
        if (input.batched) {
          for (let tries = 1; ; tries++) {
            try {
              raw = await input.batched(client ?? (client = await load()), request.messages, signal, request.context)
              break
            } catch (error) {
              // Past its deadline the call goes through the normal API, at the normal price.
              if (error instanceof BatchDeadlineError) break
              await sleep(retryAfterFailure(error, tries, retry, { signal, label, onFailure }), signal)
            }
          }
        }
        const batched = raw !== undefined
        if (!batched) for (let tries = 1; ; tries++) {
          // A dead endpoint fails at once, by name (not retryable: the breaker already waited).
          breaker.check()
          if (!limiter.tryAcquire()) await limiter.acquire(signal)
          let failure: unknown
          const deadline = new Deadline(signal, timeoutMs)
          try {
            raw = await deadline.race(input.call(client ?? (client = await load()), request.messages, deadline.signal))
            breaker.reached()
            break
          } catch (error) {
            failure = diagnose(error, deadline, input.endpoint, timeoutMs)
            const cause = connectionCause(error)
            if (cause) breaker.failed(cause)
            else if (deadline.timedOut || signal?.aborted) breaker.settled()
            else breaker.reached()
          } finally {
            deadline.dispose()
            limiter.release()
          }
          await sleep(retryAfterFailure(failure, tries, retry, { signal, label, onFailure }), signal)
        }
        if (!batched) limiter.succeeded()
        const done = raw as RawCompletion
        return {
          // A gateway may echo the request's headers into the answer: the configured key never reaches an artifact.
          text: redactSecrets(done.text),
          usage: done.usage,
          finishReason: done.finishReason,
          ...(done.servedModel ? { servedModel: done.servedModel } : {}),
          latencyMs: performance.now() - started,
          // Unknown usage has an unknown cost (undefined: null in the record), never $0.
          costUsd: price && done.usage ? (batched ? batchCostOf(done.usage, price) : costOf(done.usage, price)) : undefined,
          costUsdWithoutCache: price && done.usage ? uncachedCostOf(done.usage, price) * (batched ? (price.batch ?? DEFAULT_BATCH_SHARE) : 1) : undefined,
          // A batched model's call that went direct (past its batch deadline) says so: batched false.
          ...(batched ? { batched: true, ...(price && done.usage ? { costUsdAtListPrice: costOf(done.usage, price) } : {}) } : input.batched ? { batched: false } : {}),
        }
      } finally {
        call.release()
      }
    },
  }, options.cassette)
}

/**
 * One try's deadline: a signal that aborts when the caller's does or when `ms` have passed,
 * whichever is first. The SDKs' own `timeout` covers only the wait for headers; this one covers the
 * body and every gap of a stream too.
 */
class Deadline {
  readonly #controller = new AbortController()
  readonly #timer: ReturnType<typeof setTimeout>
  readonly #forward: (() => void) | undefined
  /** Rejects the race of {@link Deadline.race}: called directly, no listener on our own signal. */
  #reject: ((reason: unknown) => void) | undefined
  timedOut = false

  constructor(
    private readonly parent: AbortSignal | undefined,
    ms: number,
  ) {
    this.#timer = setTimeout(() => {
      this.timedOut = true
      this.#abort(new TransportError(`timed out after ${ms} ms`))
    }, ms)
    if (parent?.aborted) this.#abort(parent.reason)
    else if (parent) {
      this.#forward = () => this.#abort(parent.reason)
      parent.addEventListener('abort', this.#forward, { once: true })
    }
  }

  #abort(reason: unknown): void {
    this.#controller.abort(reason)
    this.#reject?.(reason)
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /**
   * `promise`, or the abort's reason as soon as the deadline passes or the caller aborts: an SDK
   * that ignores an abort (a retry of a stream whose gzip body broke kept reading for 55 s) cannot
   * hold the call past its deadline.
   */
  race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.#controller.signal
    if (signal.aborted) {
      promise.catch(() => {})
      return Promise.reject(signal.reason)
    }
    return new Promise<T>((resolve, reject) => {
      this.#reject = (reason) => {
        // The abandoned call may still settle; its result is dropped, its error must not go unhandled.
        promise.catch(() => {})
        reject(reason)
      }
      promise.then(resolve, reject)
    })
  }

  dispose(): void {
    clearTimeout(this.#timer)
    this.#reject = undefined
    if (this.#forward) this.parent?.removeEventListener('abort', this.#forward)
  }
}

/** The failure a person should read: our timeout, or a connection that could not be made, named with its endpoint. */
function diagnose(error: unknown, deadline: Deadline, key: string, timeoutMs: number): unknown {
  const endpoint = endpointName(key)
  if (deadline.timedOut) return new TransportError(`${endpoint}: no complete response within ${timeoutMs} ms (timeoutMs)`, { cause: error })
  const cause = connectionCause(error)
  if (cause) return new TransportError(`${endpoint}: ${cause.text} (${cause.code})`, { cause: error })
  // Any other failure to connect: name the endpoint and the innermost reason the SDK wrapped away.
  const name = (error as { constructor?: { name?: string } } | null)?.constructor?.name ?? ''
  if (/ConnectionError$/.test(name) && !/Timeout/.test(name)) return new TransportError(`${endpoint}: could not connect: ${innermostMessage(error)}`, { cause: error })
  return error
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
export function apiKeyFor(explicit: string | undefined, variable: string, cassette: CassetteOptions | undefined): string | undefined {
  const key = explicit ?? fromEnv(variable)
  if (key) return key
  return resolveCassette(cassette).mode === 'replay' ? 'replay-only-no-key' : undefined
}

/** Thrown at declaration time when a provider has no API key. */
export class MissingApiKeyError extends Error {
  constructor(constructorName: string, model: string, variable: string) {
    super(`${constructorName}({ model: ${JSON.stringify(model)} }): no API key. Set ${variable}, pass apiKey, or pass skipWithoutKey: true to skip its cells instead.`)
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
export function definedParams(params: Record<string, string | number | boolean | null | undefined>): Record<string, string | number | boolean | null> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<string, string | number | boolean | null>
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
  if (typeof body === 'string') throw new TransportError(`malformed response: the body is not JSON but text starting ${JSON.stringify(body.slice(0, 60))} (a proxy or gateway page, not the ${api} API?)`)
  throw new TransportError(`malformed response: not a ${api} response (no ${field} list in ${JSON.stringify(body)?.slice(0, 80) ?? String(body)})`)
}

/**
 * Which call this is, for a batch's ledger: its cell, task, repeat, attempt and role (what a
 * cassette keys on besides the messages). Two repeats with the same prompt are different calls.
 */
export function callIdentity(context: CallContext): Record<string, string | number | null> {
  return { cell: context.cell ?? null, taskId: context.taskId, repeat: context.repeat, attempt: context.attempt, role: context.role }
}

