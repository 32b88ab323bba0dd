/**
 * Dead endpoints fail fast and by name. A connection that cannot be made (refused, no such host,
 * a TLS failure) says nothing about the model, and retrying every call of a cell against it with
 * backoff took two minutes for 52 trajectories. A port that accepts and never answers is as dead:
 * every call spent all its tries × `timeoutMs` on it (135 s for 50 trajectories at 2 s a try).
 * After a few such failures in a row (connection failures and timeouts alike) an endpoint's
 * breaker opens: its calls fail at once, naming the endpoint and the cause, until a cool-down
 * passes and one probe call may try again (success closes the breaker, failure reopens it for
 * twice as long, up to a minute). A server that asked to wait beyond the retry cap (a quota) holds
 * the endpoint closed until then, the same way. A server that answers but fails every request is
 * as dead: an always-500 server took 267 s for a 12-trajectory cell (107 requests), each call
 * spending its whole retry schedule. Once three requests in a row have each failed for good on
 * server errors (the same answer twice, or their retries spent), with no request answered in
 * between, the breaker opens the same way.
 */

import type { FailureKind } from '../core/failure-kind.js'
import { redactUrl } from './redact.js'

/** Why a connection could not be made, in words and with the system's code. */
export interface ConnectionCause {
  code: string
  text: string
}

const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host (DNS)',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  ETIMEDOUT: 'connect timed out',
}

/**
 * The connection-level cause of an SDK error, found along its `cause` chain (the SDKs wrap fetch's
 * `TypeError: fetch failed`, which wraps the system error), or undefined when the connection was
 * made (an HTTP status, a dropped stream, a malformed body).
 *
 * @example
 * connectionCause(new APIConnectionError({ cause: fetchFailed })) // => { code: 'ECONNREFUSED', text: 'connection refused' }
 */
export function connectionCause(error: unknown): ConnectionCause | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 6 && current !== null && typeof current === 'object'; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown }
    if (typeof code === 'string') {
      if (CAUSES[code]) return { code, text: CAUSES[code] }
      if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_CERT)/.test(code))
        return { code, text: `TLS failure${typeof message === 'string' ? `: ${message}` : ''}` }
    }
    // AggregateError (happy eyeballs over IPv4 and IPv6) keeps the system errors in `errors`.
    const errors = (current as { errors?: unknown }).errors
    if (Array.isArray(errors))
      for (const inner of errors) {
        const found = connectionCause(inner)
        if (found) return found
      }
    current = cause
  }
  return undefined
}

/** Thrown instead of calling an endpoint whose breaker is open: not retryable, it names the cause. */
export class EndpointDownError extends Error {
  constructor(
    message: string,
    /** `connection`, `timeout`, `server` or `quota`: what closed the endpoint. */
    readonly failureKind: FailureKind = 'connection',
  ) {
    super(message)
    this.name = 'EndpointDownError'
  }
}

export interface BreakerOptions {
  /** Connection failures in a row that open the breaker (default 3). */
  threshold?: number
  /** First cool-down in ms (default 2000), doubled on each failed probe up to 60 s. */
  coolDownMs?: number
}

/** One endpoint's breaker (see the module comment). */
export class EndpointBreaker {
  #failures = 0
  #openUntil = 0
  #coolDown: number
  #probing = false
  #last: { cause: ConnectionCause; kind: FailureKind } | undefined
  /** A quota's wait: every call fails with `message` until `until` (ms since the epoch). */
  #held: { until: number; message: string } | undefined
  /** Calls answered with a complete response, ever: a call compares it with its count at its first failure. */
  #answers = 0
  /** Requests that each failed for good on server errors since the last answered call. */
  #repeated = 0
  /** Set while server errors hold the endpoint open: the last one, and why it opened. */
  #serverDown: { reason: string; why: string } | undefined

  constructor(
    readonly endpoint: string,
    private readonly options: BreakerOptions = {},
  ) {
    this.#coolDown = options.coolDownMs ?? 2000
  }

  /** Throws EndpointDownError while the breaker is open or a quota holds it; lets one probe through after the cool-down. */
  check(now = Date.now()): void {
    if (this.#held) {
      if (now < this.#held.until) throw new EndpointDownError(this.#held.message, 'quota')
      this.#held = undefined
    }
    const down = this.#serverDown
    if (!down && this.#failures < (this.options.threshold ?? 3)) return
    if (now >= this.#openUntil && !this.#probing) {
      this.#probing = true
      return
    }
    if (down) {
      const next = Math.max(0, Math.ceil((this.#openUntil - now) / 1000))
      throw new EndpointDownError(
        `${endpointName(this.endpoint)}: ${down.reason}; ${down.why}, so calls to it fail at once${next > 0 ? ` (next try in ${next} s)` : ' (a probe is under way)'}; the server fails every request, not one: check that it is up and serves this model`,
        'server',
      )
    }
    const last = this.#last
    const cause = last ? `${last.cause.text}${last.kind === 'timeout' ? '' : ` (${last.cause.code})`}` : 'no connection'
    const what = last?.kind === 'timeout' ? 'tries in a row timed out' : 'connection failures in a row'
    const wait = Math.max(0, Math.ceil((this.#openUntil - now) / 1000))
    const hint =
      last?.kind === 'timeout'
        ? '; it accepts connections but does not answer (raise timeoutMs if the model needs longer)'
        : ''
    throw new EndpointDownError(
      `${endpointName(this.endpoint)}: ${cause}; ${this.#failures} ${what}, so calls to it fail at once${wait > 0 ? ` (next try in ${wait} s)` : ' (a probe is under way)'}${hint}`,
      last?.kind ?? 'connection',
    )
  }

  /** A call that reached the server (any HTTP answer): the endpoint is up, if not necessarily answering. */
  reached(): void {
    this.#failures = 0
    // An HTTP error while server errors hold the endpoint open is no sign of health: the probe has not passed.
    if (this.#serverDown) return
    this.#probing = false
    this.#coolDown = this.options.coolDownMs ?? 2000
  }

  /** A call answered with a complete response: the server serves requests. */
  answered(): void {
    this.#answers++
    this.#repeated = 0
    if (this.#serverDown) {
      this.#serverDown = undefined
      this.#probing = false
      this.#coolDown = this.options.coolDownMs ?? 2000
    }
  }

  /** How many calls have been answered (see {@link answered}): unchanged since a call's first failure means none was. */
  get answers(): number {
    return this.#answers
  }

  /**
   * A server error (HTTP 5xx). While server errors hold the endpoint open, it is the probe's
   * failure: the endpoint closes again for twice as long.
   */
  serverFailed(reason: string, now = Date.now()): void {
    if (!this.#serverDown) return
    this.#serverDown.reason = reason
    if (!this.#probing) return
    this.#coolDown = Math.min(60_000, this.#coolDown * 2)
    this.#probing = false
    this.#openUntil = now + this.#coolDown
  }

  /**
   * A request that failed for good on server errors (the same answer twice, or its retries spent),
   * with no call answered since it started: tell once per request. The third in a row opens the
   * breaker (the server fails requests, not one request).
   */
  requestFailedOnServer(reason: string, now = Date.now()): void {
    this.#repeated++
    if (this.#serverDown || this.#repeated < (this.options.threshold ?? 3)) return
    this.#serverDown = {
      reason,
      why: `${this.#repeated} requests in a row failed on server errors and none was answered`,
    }
    this.#probing = false
    this.#openUntil = now + this.#coolDown
  }

  /** A call that ended without saying anything about the endpoint (aborted): a probe may be tried again. */
  settled(): void {
    this.#probing = false
  }

  /** A call whose connection could not be made. */
  failed(cause: ConnectionCause, now = Date.now()): void {
    this.#count({ cause, kind: 'connection' }, now)
  }

  /** A try that got no complete answer within its `timeoutMs`: as dead as a refused connection, once it happens in a row. */
  timedOut(timeoutMs: number, now = Date.now()): void {
    this.#count(
      { cause: { code: 'timeout', text: `no complete response within ${timeoutMs} ms (timeoutMs)` }, kind: 'timeout' },
      now,
    )
  }

  /** The server asked to wait beyond the retry cap: every call fails with `message` until `until` (ms since the epoch). */
  hold(until: number, message: string): void {
    if (!this.#held || until > this.#held.until) this.#held = { until, message }
  }

  #count(last: { cause: ConnectionCause; kind: FailureKind }, now: number): void {
    this.#last = last
    this.#failures++
    if (this.#failures < (this.options.threshold ?? 3)) return
    if (this.#probing) this.#coolDown = Math.min(60_000, this.#coolDown * 2)
    this.#probing = false
    this.#openUntil = now + this.#coolDown
  }
}

const breakers = new Map<string, EndpointBreaker>()

/** The breaker of an endpoint, shared by every model calling it in this process. */
export function breakerFor(endpoint: string): EndpointBreaker {
  let breaker = breakers.get(endpoint)
  if (!breaker) breakers.set(endpoint, (breaker = new EndpointBreaker(endpoint)))
  return breaker
}

const DEFAULT_URLS: Record<string, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
}

/**
 * An endpoint key (`<provider>|<base URL or 'default'>`, what limits and breakers are shared by)
 * as a person reads it: the URL the calls go to.
 *
 * @example
 * endpointName('compat|http://127.0.0.1:6599/v1') // => 'http://127.0.0.1:6599/v1'
 */
export function endpointName(endpoint: string): string {
  const bar = endpoint.indexOf('|')
  if (bar < 0) return endpoint
  const provider = endpoint.slice(0, bar)
  const url = endpoint.slice(bar + 1)
  return url === 'default' ? (DEFAULT_URLS[provider] ?? `${provider} (default URL)`) : redactUrl(url)
}
