
/**
 * A concurrency limit that backs off on 429 and recovers (AIMD, as TCP does): each rate-limit
 * halves the number of calls allowed in flight (down to 1); each success adds back a fraction of
 * one slot, so the limit climbs back to its maximum over about `max` successes per slot.
 */
export class AdaptiveLimiter {
  private limit: number
  private inFlight = 0
  private credit = 0
  private readonly waiters: (() => void)[] = []

  constructor(private maxInFlight: number) {
    checkConcurrency(maxInFlight)
    this.limit = maxInFlight
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

  /** Takes a free slot at once if there is one (no waiting, no promise). */
  tryAcquire(): boolean {
    if (this.inFlight >= this.limit) return false
    this.inFlight++
    return true
  }

  /** Waits for a slot; rejects with the abort reason if `signal` aborts first. */
  async acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason
    if (this.tryAcquire()) return
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort)
        this.inFlight++
        resolve()
      }
      const onAbort = () => {
        const i = this.waiters.indexOf(grant)
        if (i >= 0) this.waiters.splice(i, 1)
        reject(signal!.reason)
      }
      this.waiters.push(grant)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1)
    this.pump()
  }

  rateLimited(): void {
    this.limit = Math.max(1, Math.floor(this.limit / 2))
    this.credit = 0
  }

  succeeded(): void {
    if (this.limit >= this.maxInFlight) return
    this.credit += 1 / this.limit
    if (this.credit >= 1) {
      this.credit -= 1
      this.limit++
      this.pump()
    }
  }

  private pump(): void {
    while (this.inFlight < this.limit && this.waiters.length > 0) this.waiters.shift()!()
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
