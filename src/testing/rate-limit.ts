// The test server's request rate limit: a token bucket, as providers meter requests (Anthropic
// documents its limits as a bucket refilled continuously up to its capacity). A request takes one
// token or is refused with the exact wait until the next one.
import { z } from 'zod'

/**
 * The `rateLimit` option of `startTestServer`: at most `burst` requests at once, refilled at
 * `requestsPerSecond`; in any window of t seconds the server accepts at most
 * `burst + requestsPerSecond × t` requests and answers the others with a 429.
 *
 * @example
 * const server = await startTestServer({ rateLimit: { requestsPerSecond: 20, burst: 5 } })
 */
export interface RateLimitOptions {
  /** Tokens added per second, continuously (> 0, at most 100 000). */
  requestsPerSecond: number
  /** The bucket's capacity, and its content at start (an integer >= 1; default `max(1, ceil(requestsPerSecond))`, one second's worth). */
  burst?: number
  /**
   * Send `retry-after-ms` (the exact wait, in whole milliseconds) beside the whole-second
   * `retry-after` on a 429 (default true, as OpenAI-style gateways do); false sends only
   * `retry-after`, as Anthropic does.
   */
  retryAfterMs?: boolean
  /**
   * Send the provider's request-limit headers on a 429 (default true, as both providers do):
   * `x-ratelimit-limit-requests`, `-remaining-requests` and `-reset-requests` on the OpenAI wires,
   * `anthropic-ratelimit-requests-limit`, `-remaining` and `-reset` on the Messages API. The limit
   * is the rate per minute (`requestsPerSecond × 60`, rounded), the reset when the bucket is full
   * again; false sends only the wait headers, as a gateway that strips them would.
   */
  limitHeaders?: boolean
}

export const RateLimitSchema = z.strictObject({
  requestsPerSecond: z.number().positive().max(100_000),
  burst: z.number().int().min(1).max(1_000_000).optional(),
  retryAfterMs: z.boolean().optional(),
  limitHeaders: z.boolean().optional(),
})

/** A float's rounding must not refuse a request that arrives exactly when its token is due. */
const EPSILON = 1e-9

/** The verdict on one request: taken, or refused with the wait in ms until a token is there. */
export type BucketVerdict = { ok: true; remaining: number } | { ok: false; waitMs: number }

/**
 * A token bucket over a caller-supplied clock in milliseconds (the server passes
 * `performance.now()`; tests pass their own times, which must not go backwards).
 *
 * @example
 * const bucket = new TokenBucket({ requestsPerSecond: 10, burst: 2 }, 0)
 * bucket.take(0) // { ok: true, remaining: 1 }
 * bucket.take(0) // { ok: true, remaining: 0 }
 * bucket.take(0) // { ok: false, waitMs: 100 }
 * bucket.take(100) // { ok: true, remaining: 0 }
 */
export class TokenBucket {
  readonly requestsPerSecond: number
  readonly burst: number
  #tokens: number
  #at: number

  constructor(options: RateLimitOptions, now: number) {
    const parsed = RateLimitSchema.parse(options)
    this.requestsPerSecond = parsed.requestsPerSecond
    this.burst = parsed.burst ?? Math.max(1, Math.ceil(parsed.requestsPerSecond))
    this.#tokens = this.burst
    this.#at = now
  }

  /** Takes a token at `now` if there is one. */
  take(now: number): BucketVerdict {
    this.#refill(now)
    if (this.#tokens >= 1 - EPSILON) {
      // Not clamped at 0: a token taken EPSILON early is owed, so the count law holds over any run.
      this.#tokens -= 1
      return { ok: true, remaining: Math.floor(this.#tokens + EPSILON) }
    }
    return { ok: false, waitMs: Math.max(0, ((1 - this.#tokens) * 1000) / this.requestsPerSecond) }
  }

  /** Ms from `now` until the bucket is full again (0 when it is). */
  fullInMs(now: number): number {
    this.#refill(now)
    return Math.max(0, ((this.burst - this.#tokens) * 1000) / this.requestsPerSecond)
  }

  #refill(now: number): void {
    // A clock that went backwards adds nothing (and takes nothing away).
    if (now > this.#at) {
      this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) * this.requestsPerSecond) / 1000)
      this.#at = now
    }
  }
}

/**
 * The headers of a 429 that waits `waitMs`: `retry-after` in whole seconds (rounded up, so a
 * client that honours it never comes back early), and `retry-after-ms` rounded up to a whole
 * millisecond unless `retryAfterMs` is false.
 */
export function rateLimitHeaders(waitMs: number, retryAfterMs = true): Record<string, string> {
  const headers: Record<string, string> = { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) }
  if (retryAfterMs) headers['retry-after-ms'] = String(Math.max(1, Math.ceil(waitMs)))
  return headers
}

/**
 * A 429's request-limit headers in the style of `api`'s provider (see
 * {@link RateLimitOptions.limitHeaders}): the rate per minute, nothing remaining, and when the
 * bucket is full again (OpenAI: a duration such as `150ms`; Anthropic: an RFC 3339 time).
 *
 * @example
 * limitHeaders('chat', { requestsPerSecond: 20, fullInMs: 50 }, Date.now())
 * // { 'x-ratelimit-limit-requests': '1200', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '50ms' }
 */
export function limitHeaders(
  api: 'chat' | 'responses' | 'messages',
  state: { requestsPerSecond: number; fullInMs: number },
  nowMs: number,
): Record<string, string> {
  const limit = String(Math.max(1, Math.round(state.requestsPerSecond * 60)))
  const fullIn = Math.max(1, Math.ceil(state.fullInMs))
  if (api === 'messages') {
    return {
      'anthropic-ratelimit-requests-limit': limit,
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': new Date(nowMs + fullIn).toISOString(),
    }
  }
  return {
    'x-ratelimit-limit-requests': limit,
    'x-ratelimit-remaining-requests': '0',
    'x-ratelimit-reset-requests': `${fullIn}ms`,
  }
}
