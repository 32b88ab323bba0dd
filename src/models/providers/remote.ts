import { throwIfAborted, type ChatMessage, type ChatModel, type ChatRequest, type ChatResponse, type FinishReason, type ModelDescriptor, type Usage } from '../chat-model.js'
import { costOf, findPrice, uncachedCostOf, type Price, type PriceTable } from '../pricing.js'
import { resolveCassette, withCassette, type CassetteOptions } from '../cassette.js'
import { callSignal } from '../call-signal.js'
import { limiterFor } from '../rate-limit.js'
import { retryAfterFailure, sleep, type FailureClass, type RetryOptions } from '../retry.js'

/** What one provider call returns before pricing and timing. */
export interface RawCompletion {
  text: string
  usage: Usage
  finishReason: FinishReason
}

/** Options every real provider shares. */
export interface RemoteOptions {
  /** Name shown in tables (default `<provider>:<model>`). */
  id?: string
  /** Per-call timeout in ms (default 120 000). */
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
}): ChatModel {
  const { descriptor, options } = input
  const limiter = limiterFor(input.endpoint, options.concurrency)
  const price = input.price ?? findPrice(descriptor.provider, descriptor.model, options.prices)
  const retry = options.retry ?? {}
  const load = loadOnce(input.client)
  let client: Client | undefined
  const onFailure = (failure: FailureClass) => {
    if (failure.rateLimited) limiter.rateLimited()
  }
  return withCassette({
    id: input.id,
    descriptor,
    async chat(request: ChatRequest): Promise<ChatResponse> {
      throwIfAborted(request.signal)
      const started = performance.now()
      const call = callSignal(request.signal)
      const signal = call.signal
      let raw: RawCompletion
      // The retry loop written out (see withRetries): this runs once per model call, and the common
      // case, a free slot and a first try that succeeds, then costs no closure and no extra frame.
      try {
        for (let tries = 1; ; tries++) {
          if (!limiter.tryAcquire()) await limiter.acquire(signal)
          let failure: unknown
          try {
            raw = await input.call(client ?? (client = await load()), request.messages, signal)
            break
          } catch (error) {
            failure = error
          } finally {
            limiter.release()
          }
          const label = () => `${input.id} (${request.context.role}, task ${request.context.taskId}, attempt ${request.context.attempt})`
          await sleep(retryAfterFailure(failure, tries, retry, { signal, label, onFailure }), signal)
        }
      } finally {
        call.release()
      }
      limiter.succeeded()
      return {
        text: raw.text,
        usage: raw.usage,
        finishReason: raw.finishReason,
        latencyMs: performance.now() - started,
        costUsd: price ? costOf(raw.usage, price) : undefined,
        costUsdWithoutCache: price ? uncachedCostOf(raw.usage, price) : undefined,
      }
    },
  }, options.cassette)
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
