/**
 * Our own retry loop: openai 6.49 sleeps through a whole `retry-after` before it
 * notices an abort and neither SDK caps it, so clients run with `maxRetries: 0` and every wait
 * here is capped and abortable.
 */

import { redactText } from './redact.js'

export interface RetryOptions {
  /** Retries after the first try (default 5). */
  maxRetries?: number
  /** First backoff, doubled each retry, with full jitter (default 500 ms). */
  baseDelayMs?: number
  /** Cap of one computed backoff (default 30 s). */
  maxDelayMs?: number
  /** Cap of a server-requested `retry-after` wait (default 60 s). */
  maxRetryAfterMs?: number
}

/** Why a call failed, as far as retrying is concerned. */
export interface FailureClass {
  retryable: boolean
  /** Server-requested wait, from `retry-after-ms` or `retry-after`. */
  retryAfterMs?: number
  /**
   * True when `retryAfterMs` is the server's exact wait (`retry-after-ms`, or `retry-after` with a
   * fraction), false when it is only an upper bound rounded to whole seconds (`retry-after: 1`, an
   * HTTP date): the endpoint's pacing learns the spacing of its requests from exact waits only.
   */
  retryAfterExact?: boolean
  rateLimited: boolean
  reason: string
}

const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529])

function header(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  const value = (headers as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : undefined
}

/** Parses `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: unknown, now = Date.now()): number | undefined {
  return retryAfter(headers, now)?.ms
}

/** The server's wait and whether it is exact (see {@link FailureClass.retryAfterExact}). */
function retryAfter(headers: unknown, now: number): { ms: number; exact: boolean } | undefined {
  const ms = Number(header(headers, 'retry-after-ms'))
  if (header(headers, 'retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return { ms, exact: true }
  const raw = header(headers, 'retry-after')
  if (raw === undefined) return undefined
  const seconds = Number(raw)
  if (Number.isFinite(seconds) && seconds >= 0) return { ms: seconds * 1000, exact: !Number.isInteger(seconds) }
  const date = Date.parse(raw)
  return Number.isFinite(date) ? { ms: Math.max(0, date - now), exact: false } : undefined
}

/**
 * Classifies an SDK error by duck typing (both SDKs share the shape): HTTP 408, 409, 429, 5xx and
 * 529, connection errors, dropped streams, malformed bodies and timeouts are retryable; other
 * statuses (400, 401, 404…) are not.
 */
export function classifyFailure(error: unknown): FailureClass {
  if (error instanceof TransportError) return { retryable: true, rateLimited: false, reason: error.message }
  const e = error as { status?: unknown; headers?: unknown; name?: string; message?: string; apiMessage?: string; cause?: unknown }
  const status = typeof e?.status === 'number' ? e.status : undefined
  // Anthropic's `message` is the whole JSON body; `apiMessage` (SDK 1.14) is the readable part.
  const message = e?.apiMessage ?? e?.message ?? String(error)
  if (status !== undefined) {
    const retryable = RETRYABLE_STATUS.has(status) || status >= 500
    const wait = retryAfter(e.headers, Date.now())
    return { retryable, ...(wait ? { retryAfterMs: wait.ms, retryAfterExact: wait.exact } : {}), rateLimited: status === 429, reason: `HTTP ${status}: ${message}` }
  }
  // The SDKs' error classes do not all set `name`; their constructor names are reliable.
  // Both, once each: "TypeError TypeError: terminated" said nothing twice.
  const name = [...new Set([e?.name, (error as object | undefined)?.constructor?.name].filter((n): n is string => typeof n === 'string' && n !== '' && n !== 'Error'))].join(' ')
  // A 200 whose body is not JSON surfaces as a bare SyntaxError: a broken response, worth retrying.
  if (/\bSyntaxError\b/.test(name) || /could not parse|unexpected (token|end of json)/i.test(message)) {
    return { retryable: true, rateLimited: false, reason: `malformed response: ${message}` }
  }
  // A dropped connection surfaces as `TypeError: terminated` (cause "other side closed"), not an APIError.
  if (/ConnectionError|ConnectionTimeoutError|TimeoutError|FetchError/.test(name) || /ECONNRESET|ECONNREFUSED|socket hang up|terminated|other side closed/i.test(`${message} ${String((e?.cause as Error)?.message ?? '')}`)) {
    return { retryable: true, rateLimited: false, reason: `${name || 'connection error'}: ${message}` }
  }
  return { retryable: false, rateLimited: false, reason: message }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** The wait before retry number `retry` (1-based): the server's request if any, else jittered backoff. */
export function retryDelay(retry: number, failure: FailureClass, options: RetryOptions = {}, random: () => number = Math.random): number {
  const base = options.baseDelayMs ?? 500
  const cap = options.maxDelayMs ?? 30_000
  if (failure.retryAfterMs !== undefined) return Math.min(failure.retryAfterMs, options.maxRetryAfterMs ?? 60_000)
  // Full jitter (AWS architecture blog): spreads clients that failed together.
  return Math.floor(random() * Math.min(cap, base * 2 ** (retry - 1)))
}

/** The call failed after every retry, or with a failure that is not worth retrying. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly attempts: number,
    readonly failure: FailureClass,
  ) {
    // Error bodies can echo the request's credentials (a gateway's 401 page).
    super(redactText(message))
    this.name = 'ProviderError'
  }
}

/** What one call's retries need besides the policy. */
export interface RetryCall {
  signal?: AbortSignal
  /** Names the call in errors; a function so the text is only built on failure. */
  label: string | (() => string)
  onFailure?: (failure: FailureClass) => void
  random?: () => number
}

/**
 * Runs `call` until it succeeds, retrying retryable failures with backoff. An abort stops at once
 * (including mid-wait) and rethrows the abort reason; anything else ends as a ProviderError whose
 * message says what failed and how many tries were made. The policy is separate from the call so a
 * model builds it once, not on every call.
 *
 * @example
 * const text = await withRetries(() => sdkCall(), { maxRetries: 3 }, { label: 'gpt-4o (actor)', signal })
 */
export async function withRetries<T>(call: () => Promise<T>, policy: RetryOptions, context: RetryCall): Promise<T>
/** The one-object form: policy and call together. */
export async function withRetries<T>(call: () => Promise<T>, options: RetryOptions & RetryCall): Promise<T>
export async function withRetries<T>(call: () => Promise<T>, policy: RetryOptions | (RetryOptions & RetryCall), context: RetryCall = policy as RetryCall): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await call()
    } catch (error) {
      await sleep(retryAfterFailure(error, tries, policy, context), context.signal)
    }
  }
}

/**
 * The decision after try number `tries` (1-based) of a call failed with `error`: the wait in ms
 * before the next try. Throws instead when there is none: the signal's reason after an abort, else
 * a ProviderError saying what failed and how many tries were made (not retryable, or retries used
 * up). The one rule behind {@link withRetries}, for loops that cannot wrap their call in a closure.
 *
 * @example
 * for (let tries = 1; ; tries++) {
 *   try { return await send() } catch (error) { await sleep(retryAfterFailure(error, tries, policy, { label: 'gpt-4o', signal }), signal) }
 * }
 */
export function retryAfterFailure(error: unknown, tries: number, policy: RetryOptions, context: RetryCall): number {
  if (context.signal?.aborted) throw context.signal.reason
  const failure = classifyFailure(error)
  context.onFailure?.(failure)
  const labelOf = () => (typeof context.label === 'function' ? context.label() : context.label)
  // Retries made so far (tries - 1) against the allowance, as a count of retries.
  if (!failure.retryable || tries - 1 >= (policy.maxRetries ?? 5)) {
    throw new ProviderError(`${labelOf()}: ${failure.reason}${failure.retryable ? ` (gave up after ${tries} tries)` : ''}`, tries, failure)
  }
  const delayMs = retryDelay(tries, failure, policy, context.random)
  if (retryListeners.size > 0) {
    const notice: RetryNotice = { label: redactText(labelOf()), retry: tries, delayMs, rateLimited: failure.rateLimited === true, reason: redactText(failure.reason) }
    for (const listener of retryListeners) listener(notice)
  }
  return delayMs
}

/** A retry about to wait: what is retried, which retry it is, how long it waits and why. */
export interface RetryNotice {
  label: string
  /** 1 for the first retry. */
  retry: number
  delayMs: number
  /** The endpoint said 429 (a rate limit), not a failure. */
  rateLimited: boolean
  reason: string
}

const retryListeners = new Set<(notice: RetryNotice) => void>()

/**
 * Hears every retry of this process before its wait (live progress: a cell stuck on retries says
 * so). Returns the function that stops listening. A listener must not throw.
 *
 * @example
 * const stop = onRetry((n) => console.log(`retrying ${n.label}: ${n.reason}, waiting ${n.delayMs} ms`))
 */
export function onRetry(listener: (notice: RetryNotice) => void): () => void {
  retryListeners.add(listener)
  return () => retryListeners.delete(listener)
}

/** One short line for a retry notice: "retrying gpt-4o (actor), rate limited (HTTP 429 …), waiting 4 s". */
export function retryNoticeText(notice: RetryNotice): string {
  const reason = notice.reason.length > 60 ? `${notice.reason.slice(0, 59)}…` : notice.reason
  const wait = notice.delayMs >= 1000 ? `${Math.round(notice.delayMs / 1000)} s` : `${Math.round(notice.delayMs)} ms`
  return `${notice.rateLimited ? 'waiting on a rate limit' : 'retrying'} ${notice.label} (retry ${notice.retry}: ${reason}), next try in ${wait}`
}

/**
 * A failure of the transport that we diagnosed ourselves (a timeout of the whole call, a connection
 * that could not be made, a body that is not the API's): retryable, and its message is already the
 * reason a person reads.
 */
export class TransportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'TransportError'
  }
}
