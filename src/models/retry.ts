/**
 * Our own retry loop: openai 6.49 sleeps through a whole `retry-after` before it
 * notices an abort and neither SDK caps it, so clients run with `maxRetries: 0` and every wait
 * here is capped and abortable.
 */

import type { FailureKind } from '../core/failure-kind.js'
import { redactText } from './redact.js'

export interface RetryOptions {
  /** Retries after the first try (default 5). */
  maxRetries?: number
  /** First backoff, doubled each retry, with full jitter (default 500 ms). */
  baseDelayMs?: number
  /** Cap of one computed backoff (default 30 s). */
  maxDelayMs?: number
  /**
   * Cap of a server-requested `retry-after` wait (default 60 s). A server that asks for more (a
   * quota's wait, not a rate's) fails the call at once, and every call to that endpoint until the
   * wait has passed, saying what it asked.
   */
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
  /**
   * The request rate the server says it allows, per minute (`x-ratelimit-limit-requests`, as
   * OpenAI sends it, or `anthropic-ratelimit-requests-limit`): the endpoint never paces faster.
   */
  requestsPerMinute?: number
  /**
   * When the server says its request allowance is full again, in ms from now
   * (`x-ratelimit-reset-requests`, a duration such as `20ms` or `6m0s`, or
   * `anthropic-ratelimit-requests-reset`, an RFC 3339 time): finer than a whole-second `retry-after`.
   */
  requestsResetMs?: number
  rateLimited: boolean
  reason: string
  /** What kind of failure it is, for the advice a person gets (see FAILURE_FIXES). */
  kind: FailureKind
  /** The HTTP status, when the server answered with one. */
  status?: number
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

/** Both providers state their request limit per minute on every response, a 429 included. */
const REQUEST_LIMIT_HEADERS = ['x-ratelimit-limit-requests', 'anthropic-ratelimit-requests-limit']

/** The request rate a server states (see {@link FailureClass.requestsPerMinute}); a value that is not a positive number is ignored. */
export function statedRequestsPerMinute(headers: unknown): number | undefined {
  for (const name of REQUEST_LIMIT_HEADERS) {
    const raw = header(headers, name)
    if (raw === undefined || raw.trim() === '') continue
    const value = Number(raw)
    if (Number.isFinite(value) && value > 0) return value
  }
  return undefined
}

/** A Go-style duration as OpenAI writes its resets (`20ms`, `1.5s`, `6m0s`, `1h2m3s`), in ms. */
function durationMs(text: string): number | undefined {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 }
  let total = 0
  let rest = text.trim()
  if (rest === '') return undefined
  while (rest !== '') {
    const part = /^(\d+(?:\.\d+)?)(ms|h|m|s)/.exec(rest)
    if (!part) return undefined
    total += Number(part[1]) * (units[part[2]!] as number)
    rest = rest.slice(part[0].length)
  }
  return total
}

/** When the server's request allowance is full again (see {@link FailureClass.requestsResetMs}). */
export function requestsResetMs(headers: unknown, now = Date.now()): number | undefined {
  const relative = header(headers, 'x-ratelimit-reset-requests')
  if (relative !== undefined) return durationMs(relative)
  const absolute = header(headers, 'anthropic-ratelimit-requests-reset')
  const at = absolute === undefined ? NaN : Date.parse(absolute)
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined
}

/** The kind of a failure with an HTTP status. */
function kindOfStatus(status: number, code: string | undefined): FailureKind {
  if (status === 401 || status === 403) return 'authentication'
  // OpenAI answers a spent quota with a 429 whose code says so; Anthropic and others with 402.
  if (status === 402 || code === 'insufficient_quota' || code === 'billing_hard_limit_reached') return 'quota'
  if (status === 429) return 'rate-limit'
  if (status === 408) return 'timeout'
  if (status >= 500 || status === 409) return 'server'
  return 'request'
}

/**
 * The SDK's message without the status it starts with: the openai SDK writes "401 Incorrect API
 * key…", which we print after "HTTP 401: " (and "401 status code (no body)" says only "no body").
 */
function withoutStatus(message: string, status: number): string {
  const rest = message.startsWith(`${status} `) ? message.slice(String(status).length + 1) : message
  return rest === 'status code (no body)' ? 'no body' : rest
}

/**
 * Classifies an SDK error by duck typing (both SDKs share the shape): HTTP 408, 409, 429, 5xx and
 * 529, connection errors, dropped streams, malformed bodies and timeouts are retryable; other
 * statuses (400, 401, 404…) are not, nor is a spent quota.
 */
export function classifyFailure(error: unknown): FailureClass {
  if (error instanceof TransportError)
    return { retryable: true, rateLimited: false, reason: error.message, kind: error.kind }
  // Our own refusals (an endpoint whose breaker is open, a quota's wait, a body over its cap), also
  // wrapped by an SDK: not retried, and already said.
  const own = ownRefusal(error)
  if (own) return { retryable: false, rateLimited: false, reason: own.message, kind: own.failureKind }
  const e = error as {
    status?: unknown
    headers?: unknown
    name?: string
    message?: string
    apiMessage?: string
    cause?: unknown
    code?: unknown
    error?: { code?: unknown; error?: { type?: unknown } }
  }
  const status = typeof e?.status === 'number' ? e.status : undefined
  // Anthropic's `message` is the whole JSON body; `apiMessage` (SDK 1.14) is the readable part.
  const message = e?.apiMessage ?? e?.message ?? String(error)
  if (status !== undefined) {
    const code = typeof e.code === 'string' ? e.code : typeof e.error?.code === 'string' ? e.error.code : undefined
    const kind = kindOfStatus(status, code)
    const retryable = kind !== 'quota' && (RETRYABLE_STATUS.has(status) || status >= 500)
    const wait = retryAfter(e.headers, Date.now())
    const stated = status === 429 ? statedRequestsPerMinute(e.headers) : undefined
    const reset = status === 429 ? requestsResetMs(e.headers) : undefined
    return {
      retryable,
      ...(wait ? { retryAfterMs: wait.ms, retryAfterExact: wait.exact } : {}),
      ...(stated ? { requestsPerMinute: stated } : {}),
      ...(reset !== undefined ? { requestsResetMs: reset } : {}),
      rateLimited: status === 429 && kind !== 'quota',
      reason: `HTTP ${status}: ${withoutStatus(message, status)}`,
      kind,
      status,
    }
  }
  // The SDKs' error classes do not all set `name`; their constructor names are reliable.
  // Both, once each: "TypeError TypeError: terminated" said nothing twice.
  const name = [
    ...new Set(
      [e?.name, (error as object | undefined)?.constructor?.name].filter(
        (n): n is string => typeof n === 'string' && n !== '' && n !== 'Error',
      ),
    ),
  ].join(' ')
  // A 200 whose body is not JSON surfaces as a bare SyntaxError: a broken response, worth retrying.
  if (/\bSyntaxError\b/.test(name) || /could not parse|unexpected (token|end of json)/i.test(message)) {
    return {
      retryable: true,
      rateLimited: false,
      reason: `malformed response: the body or a stream event is not JSON (${message})`,
      kind: 'model-output',
    }
  }
  // A dropped connection surfaces as `TypeError: terminated` (cause "other side closed"), not an APIError.
  if (
    /ConnectionError|ConnectionTimeoutError|TimeoutError|FetchError/.test(name) ||
    /ECONNRESET|ECONNREFUSED|socket hang up|terminated|other side closed/i.test(
      `${message} ${String((e?.cause as Error)?.message ?? '')}`,
    )
  ) {
    return {
      retryable: true,
      rateLimited: false,
      reason: `${name || 'connection error'}: ${message}`,
      kind: /Timeout/.test(name) ? 'timeout' : 'connection',
    }
  }
  return { retryable: false, rateLimited: false, reason: message, kind: 'other' }
}

/**
 * The first error along `error`'s cause chain that carries our own `failureKind` (a refusal of
 * ours: an open breaker, a quota's wait, a body over its cap), also when an SDK wrapped it.
 */
export function ownRefusal(error: unknown): (Error & { failureKind: FailureKind }) | undefined {
  let current = error
  for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
    if (typeof (current as { failureKind?: unknown }).failureKind === 'string')
      return current as Error & { failureKind: FailureKind }
    current = current.cause
  }
  return undefined
}

/** A wait in words: "3600 s", "1.5 s", "250 ms". */
export function waitText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  const s = ms / 1000
  return `${Number.isInteger(s) || s >= 100 ? Math.round(s) : s.toFixed(1)} s`
}

/**
 * What a server that asks to wait beyond the cap is told: not a rate's wait but a quota's (or a
 * bug's), which no retry should sit through.
 *
 * @example
 * quotaText(3_600_000, 60_000) // 'the server asked to wait 3600 s, more than the 60 s cap (retry.maxRetryAfterMs): a quota? Raise retry.maxRetryAfterMs or wait'
 */
export function quotaText(askedMs: number, capMs: number): string {
  return `the server asked to wait ${waitText(askedMs)}, more than the ${waitText(capMs)} cap (retry.maxRetryAfterMs): a quota? Raise retry.maxRetryAfterMs or wait`
}

/** A retryable failure whose `retry-after` is beyond the cap: the same failure, not retryable, of kind `quota`. */
export function beyondCap(failure: FailureClass, policy: RetryOptions): FailureClass | undefined {
  const cap = policy.maxRetryAfterMs ?? 60_000
  if (!failure.retryable || failure.retryAfterMs === undefined || failure.retryAfterMs <= cap) return undefined
  return {
    ...failure,
    retryable: false,
    rateLimited: false,
    kind: 'quota',
    reason: `${failure.reason}; ${quotaText(failure.retryAfterMs, cap)}`,
  }
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
export function retryDelay(
  retry: number,
  failure: FailureClass,
  options: RetryOptions = {},
  random: () => number = Math.random,
): number {
  const base = options.baseDelayMs ?? 500
  const cap = options.maxDelayMs ?? 30_000
  if (failure.retryAfterMs !== undefined) return Math.min(failure.retryAfterMs, options.maxRetryAfterMs ?? 60_000)
  // Full jitter (AWS architecture blog): spreads clients that failed together.
  return Math.floor(random() * Math.min(cap, base * 2 ** (retry - 1)))
}

/**
 * The call failed after every retry, or with a failure that is not worth retrying. Every field
 * is redacted (error bodies can echo the request's credentials: a gateway's 401 page), and the
 * SDK's own error is not kept: `console.log(error)` shows nothing a log should not hold.
 */
export class ProviderError extends Error {
  readonly failure: FailureClass
  constructor(
    message: string,
    readonly attempts: number,
    failure: FailureClass,
  ) {
    super(redactText(message))
    this.name = 'ProviderError'
    this.failure = { ...failure, reason: redactText(failure.reason) }
  }

  /** What kind of failure ended the call (see FAILURE_FIXES). */
  get kind(): FailureKind {
    return this.failure.kind
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
export async function withRetries<T>(
  call: () => Promise<T>,
  policy: RetryOptions | (RetryOptions & RetryCall),
  context: RetryCall = policy as RetryCall,
): Promise<T> {
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
  const classified = classifyFailure(error)
  const failure = beyondCap(classified, policy) ?? classified
  context.onFailure?.(failure)
  const labelOf = () => (typeof context.label === 'function' ? context.label() : context.label)
  // Retries made so far (tries - 1) against the allowance, as a count of retries.
  if (!failure.retryable || tries - 1 >= (policy.maxRetries ?? 5)) {
    throw new ProviderError(
      `${labelOf()}: ${failure.reason}${failure.retryable ? ` (${gaveUpText(tries, policy.maxRetries ?? 5)})` : ''}`,
      tries,
      failure,
    )
  }
  const delayMs = retryDelay(tries, failure, policy, context.random)
  notifyRetry(() => ({
    label: labelOf(),
    retry: tries,
    delayMs,
    rateLimited: failure.rateLimited === true,
    reason: failure.reason,
  }))
  return delayMs
}

/**
 * How many tries a call made before it gave up, against the documented allowance: 1 + maxRetries
 * of its own, and any that failed in one event of the endpoint with other calls (a 429 or 5xx
 * storm), which spend none (see AdaptiveLimiter).
 *
 * @example
 * gaveUpText(6, 5) // => 'gave up after 6 tries: 1 + retry.maxRetries 5'
 */
export function gaveUpText(tries: number, maxRetries: number): string {
  const shared = tries - 1 - Math.ceil(maxRetries)
  return `gave up after ${tries} ${tries === 1 ? 'try' : 'tries'}: 1 + retry.maxRetries ${maxRetries}${shared > 0 ? `, and ${shared} that failed in one event with other calls, which spend none` : ''}`
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

/** Tells every retry listener of a retry about to wait (the notice is built, and redacted, only when someone listens). */
export function notifyRetry(notice: () => RetryNotice): void {
  if (retryListeners.size === 0) return
  const n = notice()
  const redacted = { ...n, label: redactText(n.label), reason: redactText(n.reason) }
  for (const listener of retryListeners) listener(redacted)
}

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

/**
 * One short line for a retry notice, the reason first: a progress line cut to fit its width loses
 * the call's label, not why it waits.
 *
 * @example
 * retryNoticeText({ label: 'gpt-4o (actor)', retry: 1, delayMs: 4000, rateLimited: true, reason: 'HTTP 429: slow down' })
 * // => 'rate limited, HTTP 429: slow down; retry 1 in 4 s (gpt-4o (actor))'
 */
export function retryNoticeText(notice: RetryNotice): string {
  const reason = notice.reason.length > 80 ? `${notice.reason.slice(0, 79)}…` : notice.reason
  const wait = notice.delayMs >= 1000 ? `${Math.round(notice.delayMs / 1000)} s` : `${Math.round(notice.delayMs)} ms`
  return `${notice.rateLimited ? 'rate limited, ' : ''}${reason}; retry ${notice.retry} in ${wait} (${notice.label})`
}

/**
 * A failure of the transport that we diagnosed ourselves (a timeout of the whole call, a connection
 * that could not be made, a body that is not the API's): retryable, and its message is already the
 * reason a person reads.
 */
export class TransportError extends Error {
  /** `model-output` (a body that is not the API's) unless said: `timeout`, `connection`. */
  readonly kind: FailureKind
  constructor(message: string, options?: { cause?: unknown; kind?: FailureKind }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'TransportError'
    this.kind = options?.kind ?? 'model-output'
  }
}

/**
 * The kind of any error a model call may end with (a ProviderError's, an endpoint's refusal, a
 * transport failure), or undefined when it is not a model call's (a verifier's crash).
 *
 * @example
 * failureKindOf(providerError) // => 'authentication'
 */
export function failureKindOf(error: unknown): FailureKind | undefined {
  if (error instanceof ProviderError) return error.kind
  if (error instanceof TransportError) return error.kind
  return ownRefusal(error)?.failureKind
}
