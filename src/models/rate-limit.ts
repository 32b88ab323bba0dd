
/** What a 429 said about when to come back; a {@link FailureClass} is one. */
export interface RateLimitHint {
  /** The server's wait (`retry-after-ms` / `retry-after`). */
  retryAfterMs?: number
  /** True when the wait is exact, not rounded up to whole seconds. */
  retryAfterExact?: boolean
}

/**
 * Longest wait a 429 shares with the endpoint's other calls, and longest spacing it teaches: a
 * rate's wait (the next token is due within a second). A longer one is a quota's, or one call's
 * own; the call that got it honours it alone, as the others do theirs when they get one.
 */
const MAX_SHARED_WAIT_MS = 1000
/** A new rate-limit event widens the spacing of starts by this factor (or to the server's exact wait, if longer)... */
const SPACING_UP = 1.1
/** ...and each success narrows it by this one, so the spacing settles where 429s are rare (about one per 10 successes). */
const SPACING_DOWN = 0.99
/** Below this spacing pacing is off again. */
const MIN_SPACING_MS = 0.5

/**
 * A per-endpoint limit on calls in flight and on how fast they start, adapted to 429s.
 *
 * Concurrency backs off and recovers (AIMD, as TCP does): each rate-limit event halves the number
 * of calls allowed in flight (down to 1); each success adds back a fraction of one slot, so the
 * limit climbs back to its maximum over about `max` successes per slot.
 *
 * Starts are paced, so that calls sharing an endpoint do not stampede: a 429's `retry-after` of
 * up to a second (a rate limit's: the next request is allowed soon) closes the endpoint to every
 * call (new ones and retries) until that time, not only to the call that got it, and waiting
 * calls then start in order of arrival. When the server's wait is exact (`retry-after-ms`) it also
 * teaches a spacing between starts, about the server's interval between requests: starts are at
 * least that far apart, each success narrows the spacing a little and each new rate-limit event
 * widens it, so a cell runs at about the allowed rate with few 429s.
 * A 429 that comes back while the pause it belongs to is still running (calls that were in flight
 * together) is the same event: it neither halves nor widens again.
 */
export class AdaptiveLimiter {
  private limit: number
  private inFlight = 0
  private credit = 0
  private readonly waiters: (() => void)[] = []
  /** No call starts before this time (ms on the limiter's clock), once a short 429 has set it. */
  #notBefore = -Infinity
  /** Least time between two starts, in ms; 0 when not pacing. */
  #spacingMs = 0
  /** Until this time a 429 belongs to the last rate-limit event. */
  #eventUntil = -Infinity
  #timer: ReturnType<typeof setTimeout> | undefined
  readonly #now: () => number

  /** `now`: the clock in ms (default `performance.now`), for tests. */
  constructor(
    private maxInFlight: number,
    options: { now?: () => number } = {},
  ) {
    checkConcurrency(maxInFlight)
    this.limit = maxInFlight
    this.#now = options.now ?? (() => performance.now())
  }

  /** The limit it recovers to. */
  get max(): number {
    return this.maxInFlight
  }

  /**
   * Changes the maximum. Lowering it takes effect at once (calls in flight finish); raising it
   * raises the current limit too unless a 429 has it backed off, in which case it recovers to the new
   * maximum as usual.
   */
  setMax(max: number): void {
    checkConcurrency(max)
    const backedOff = this.limit < this.maxInFlight
    this.maxInFlight = max
    this.limit = backedOff ? Math.min(this.limit, max) : max
    this.pump()
  }

  get current(): number {
    return this.limit
  }

  /** The least time between two starts the limiter keeps now, in ms (0: not pacing). */
  get spacingMs(): number {
    return this.#spacingMs
  }

  /** Takes a free slot at once if there is one and the endpoint is open (no waiting, no promise). */
  tryAcquire(): boolean {
    if (this.inFlight >= this.limit || this.waiters.length > 0) return false
    // An endpoint that never sent a short 429 costs no clock read.
    if (this.#notBefore === -Infinity) {
      this.inFlight++
      return true
    }
    const now = this.#now()
    if (now < this.#notBefore) return false
    this.#start(now)
    return true
  }

  /** Waits for a slot and the endpoint's next start; rejects with the abort reason if `signal` aborts first. */
  async acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason
    if (this.tryAcquire()) return
    await new Promise<void>((resolve, reject) => {
      // The slot is taken by pump() before it calls grant.
      const grant = () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      const onAbort = () => {
        const i = this.waiters.indexOf(grant)
        if (i >= 0) this.waiters.splice(i, 1)
        if (this.waiters.length === 0) this.#disarm()
        reject(signal!.reason)
      }
      this.waiters.push(grant)
      signal?.addEventListener('abort', onAbort, { once: true })
      this.pump()
    })
  }

  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1)
    this.pump()
  }

  /**
   * A call got a 429. Pass what the server said (a {@link FailureClass} will do): a wait of up to
   * a second then closes the endpoint to every call until it has passed, and an exact one teaches
   * the spacing. A longer wait (a quota's) is left to the call that got it.
   */
  rateLimited(hint: RateLimitHint = {}): void {
    const now = this.#now()
    const ms = hint.retryAfterMs
    const wait = ms !== undefined && Number.isFinite(ms) && ms > 0 && ms <= MAX_SHARED_WAIT_MS ? ms : undefined
    const newEvent = now >= this.#eventUntil
    if (newEvent) {
      this.limit = Math.max(1, Math.floor(this.limit / 2))
      this.credit = 0
      if (wait !== undefined && hint.retryAfterExact) this.#spacingMs = Math.min(MAX_SHARED_WAIT_MS, Math.max(wait, this.#spacingMs * SPACING_UP))
    }
    if (wait !== undefined) this.#notBefore = Math.max(this.#notBefore, now + wait)
    if (newEvent) this.#eventUntil = Math.max(now, now + (wait ?? 0))
  }

  succeeded(): void {
    if (this.#spacingMs > 0) {
      this.#spacingMs *= SPACING_DOWN
      if (this.#spacingMs < MIN_SPACING_MS) this.#spacingMs = 0
    }
    if (this.limit >= this.maxInFlight) return
    this.credit += 1 / this.limit
    if (this.credit >= 1) {
      this.credit -= 1
      this.limit++
      this.pump()
    }
  }

  /** A call starts now: it takes a slot, and the next one may start a spacing later. */
  #start(now: number): void {
    this.inFlight++
    if (this.#spacingMs > 0) this.#notBefore = Math.max(this.#notBefore, now + this.#spacingMs)
  }

  private pump(): void {
    while (this.inFlight < this.limit && this.waiters.length > 0) {
      const now = this.#now()
      if (now < this.#notBefore) return this.#arm(this.#notBefore - now)
      this.#start(now)
      this.waiters.shift()!()
    }
  }

  /** Wakes the queue when the endpoint opens (a timer that fires early is re-armed by pump). */
  #arm(ms: number): void {
    if (this.#timer !== undefined) return
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      this.pump()
    }, Math.max(1, Math.ceil(ms)))
  }

  #disarm(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
  }

  /** Runs `fn` inside a slot. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw signal.reason
    // The common case (a free slot) skips a promise and a microtask per call.
    if (!this.tryAcquire()) await this.acquire(signal)
    try {
      return await fn()
    } finally {
      this.release()
    }
  }
}

function checkConcurrency(max: number): void {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be an integer >= 1 (got ${max})`)
}

/** Calls in flight per endpoint when no model using it sets `concurrency`. */
export const DEFAULT_ENDPOINT_CONCURRENCY = 8

/** One limiter per provider endpoint within a process, and the smallest limit a model asked for. */
const limiters = new Map<string, { limiter: AdaptiveLimiter; requested: number | undefined }>()

/**
 * The limiter shared by every model calling `endpoint` in this process. A model's explicit
 * `concurrency` applies to the endpoint; when models disagree the smallest wins (the endpoint's
 * rate limit is shared, so the most careful setting is the safe one); with none, the default.
 */
export function limiterFor(endpoint: string, requested: number | undefined): AdaptiveLimiter {
  if (requested !== undefined) checkConcurrency(requested)
  const entry = limiters.get(endpoint)
  if (!entry) {
    const limiter = new AdaptiveLimiter(requested ?? DEFAULT_ENDPOINT_CONCURRENCY)
    limiters.set(endpoint, { limiter, requested })
    return limiter
  }
  if (requested !== undefined && (entry.requested === undefined || requested < entry.requested)) {
    entry.requested = requested
    entry.limiter.setMax(requested)
  }
  return entry.limiter
}
