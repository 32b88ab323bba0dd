
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

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be an integer >= 1 (got ${max})`)
    this.limit = max
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
    if (this.limit >= this.max) return
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

/** One limiter per provider endpoint within a process, shared by every model using it. */
const limiters = new Map<string, AdaptiveLimiter>()
export function limiterFor(key: string, max: number): AdaptiveLimiter {
  let limiter = limiters.get(key)
  if (!limiter) limiters.set(key, (limiter = new AdaptiveLimiter(max)))
  return limiter
}

