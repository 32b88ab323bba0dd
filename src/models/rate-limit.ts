import { afterRefusal, afterSuccess, FEW_SUCCESSES, refusalHoldMs, type LearnedSpacing } from './learned-spacing.js'

/** What a 429 said about when to come back; a {@link FailureClass} is one. */
export interface RateLimitHint {
  /** The server's wait (`retry-after-ms` / `retry-after`). */
  retryAfterMs?: number
  /** True when the wait is exact, not rounded up to whole seconds. */
  retryAfterExact?: boolean
  /** The request rate the server states, per minute (its request-limit header): starts are never spaced closer. */
  requestsPerMinute?: number
  /** When the server says its request allowance is full again, in ms from now (its reset header). */
  requestsResetMs?: number
}

/** When the call that was pushed back had started (the limiter's clock; see {@link AdaptiveLimiter.clock}). */
export interface PushBackCall {
  startedAt?: number
}

/**
 * What the endpoint made of one push-back (a 429 or a 5xx): whether it was a new event (the call
 * started after the endpoint's last reaction, so it uses up one of the call's retries) or part of
 * one already answered (a call that was in flight together with the first: it does not), and
 * whether the endpoint holds the wait for every call (then the call waits for a slot, not on its
 * own as well).
 */
export interface PushBack {
  newEvent: boolean
  shared: boolean
}

/**
 * Longest wait a 429 shares with the endpoint's other calls, and longest spacing it teaches: a
 * rate's wait (the next token is due within a second). A longer one is a quota's, or one call's
 * own; the call that got it honours it alone, as the others do theirs when they get one.
 */
const MAX_SHARED_WAIT_MS = 1000
/** A new rate-limit event widens the spacing of starts by this factor (or to the server's exact wait, if longer)... */
const SPACING_UP = 1.1
/**
 * ...and each success narrows it: by SPACING_DOWN while it is far from the spacing that last got
 * a 429, by SPACING_PROBE near it (from 5% above to 10% below), so the spacing comes back quickly
 * after a widening and then probes slowly where the limit is: about one 429 per 30 successes. At
 * a burst of 1 every 429 costs a slot the bucket could not keep, so they must be rare.
 */
const SPACING_DOWN = 0.98
const SPACING_PROBE = 0.998
const NEAR_ABOVE = 1.05
const NEAR_BELOW = 0.9
/**
 * With a stated rate the spacing is known from below, so a 429 above it is timing noise (a start
 * or a request delayed on a busy machine), not a rate to learn: it widens by STATED_UP and each
 * success narrows by STATED_DOWN, back towards the stated spacing, about one 429 per ten
 * successes at most. Widening by SPACING_UP there left the spacing 50% above the rate under load.
 */
const STATED_UP = 1.05
const STATED_DOWN = 0.995
/**
 * With the server's reset as well the pacing takes the server's bucket state from each 429 (see
 * AdaptiveLimiter's #sync), so a 429 costs a round trip, not a slot: a smaller margin pays.
 * Measured at 20 and 5 requests a second with a burst of 1 (the rate-limit bench): 1.02 and 0.99
 * kept the spacing within 1-4% of the rate; 1.05 and 0.995 let it climb 20-35% above it under load.
 */
const SYNCED_UP = 1.02
const SYNCED_DOWN = 0.99
/** Below this spacing pacing is off again. */
const MIN_SPACING_MS = 0.5
/** See AdaptiveLimiter's #sync: a reset this fraction of a token short of a whole one counts one token less. */
const CAPACITY_SLACK = 0.1
/**
 * A timer fires on a whole millisecond, at or after the one asked for: a queued call whose start
 * is due within this much is let in now, and the wake-up timer is set this much early. Rounding
 * the wait up and then waiting for the next tick cost about a millisecond a start, which at a
 * burst of 1 the server's bucket never gives back (2% of 20 requests a second); a start this
 * early still reaches the server after its token, the request's own way there being longer.
 */
const TIMER_SLACK_MS = 0.999
/** Starts remembered to tell which came after a refused call's (see AdaptiveLimiter's #sync). */
const RECENT_STARTS = 16

/**
 * A per-endpoint limit on calls in flight and on how fast they start, adapted to 429s and 5xx.
 *
 * Concurrency backs off and recovers (AIMD, as TCP does): each rate-limit event that says no
 * short wait (none, or a quota's long one) halves the number of calls allowed in flight (down to
 * 1); each success adds back a fraction of one slot, so the limit climbs back to its maximum over
 * about `max` successes per slot.
 *
 * Starts are paced, so that calls sharing an endpoint do not stampede. A 429 whose `retry-after`
 * is up to a second (a rate limit's: the next request is allowed soon) closes the endpoint to
 * every call (new ones and retries) and sets a spacing between starts, about the server's
 * interval between requests; waiting calls then start one at a time, in order of arrival. An
 * exact wait (`retry-after-ms`) is kept as it is and sets the spacing to at least itself; a
 * whole-second one (`retry-after: 1`, an upper bound only) is not waited in full (at 20 requests
 * a second with a burst of 1 that threw away 19 of every 20 slots): the endpoint waits one
 * spacing learned from the 429s, once learned a tenth of one after a success, and the next start
 * comes then (see learned-spacing.ts). Each success narrows the
 * spacing a little and each new rate-limit event widens it, so a cell runs at about the allowed
 * rate with few 429s.
 *
 * A 5xx is the endpoint's too: a new one closes the endpoint for a backoff that doubles with
 * each 5xx in a row (with jitter, capped) and resets on a success, instead of every call backing
 * off on its own and running out of retries in a storm.
 *
 * A push-back on a call that started before the endpoint's last reaction to that kind (calls
 * that were in flight together) is the same event: it neither halves nor widens again, and the
 * call does not spend a retry on it (see {@link PushBack}).
 */
export class AdaptiveLimiter {
  private limit: number
  private inFlight = 0
  private credit = 0
  /** Waiting calls, each told the time its slot was granted (its start: what a push-back is judged by). */
  private readonly waiters: ((at: number) => void)[] = []
  /** No call starts before this time (ms on the limiter's clock), once a push-back has set it. */
  #notBefore = -Infinity
  /**
   * The pacing, as the server's token bucket (GCRA): the time at which the endpoint's bucket, as
   * far as this limiter knows, is full again. A start is allowed from `#tat - (#capacity - 1) ×
   * spacing` on, and moves it to `max(#tat, start) + spacing`: a start that comes late banks the
   * lost time only up to the bucket's capacity, as the server does (at a burst of 1, not at all).
   */
  #tat = -Infinity
  /** The server's bucket capacity (its burst) as a 429's reset showed it; 1 until one has. */
  #capacity = 1
  /** The times of the last RECENT_STARTS starts (a ring), and how many there have been. */
  readonly #recentStarts: number[] = []
  #startCount = 0
  /** The last 429 carried the server's reset: the pacing follows the server's bucket (#sync). */
  #synced = false
  /** Least time between two starts, in ms; 0 when not pacing. */
  #spacingMs = 0
  /** The spacing of the rate the server last stated (0: none stated): the spacing never goes below it. */
  #statedMs = 0
  /** The spacing that last got a 429 (too narrow, then). */
  #tooNarrowMs = 0
  /** Until this time a 429 of a call whose start is unknown belongs to the last rate-limit event. */
  #eventUntil = -Infinity
  /** When the endpoint last reacted to a 429, and to a 5xx. */
  #rateReactedAt = -Infinity
  #serverReactedAt = -Infinity
  /** Successes since the last rate-limit event. */
  #sinceEvent = 0
  /** The spacing has held for FEW_SUCCESSES successes in a row at least once: it is tuned, no longer learned. */
  #learned = false
  /** The last rate-limit event said whole seconds and no rate: the spacing is learned-spacing.ts's. */
  #unstated = false
  /** How long that event's 429 holds the endpoint (refusalHoldMs). */
  #unstatedHoldMs = 0
  /** 5xx events in a row (no success between). */
  #serverStreak = 0
  #timer: ReturnType<typeof setTimeout> | undefined
  /** When the armed timer fires (the limiter's clock). */
  #timerAt = Infinity
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

  /** The limiter's clock (ms): what a call's `startedAt` is measured on. */
  clock(): number {
    return this.#now()
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

  /** 5xx events in a row on this endpoint. */
  get serverStreak(): number {
    return this.#serverStreak
  }

  /** The server's bucket capacity the pacing assumes (1 until a 429's reset showed more). */
  get capacity(): number {
    return this.#capacity
  }

  /** Takes a free slot at once if there is one and the endpoint is open (no waiting, no promise). */
  tryAcquire(): boolean {
    if (this.inFlight >= this.limit || this.waiters.length > 0) return false
    // An endpoint that never pushed back costs no clock read.
    if (this.#notBefore === -Infinity && this.#spacingMs === 0) {
      this.inFlight++
      return true
    }
    const now = this.#now()
    if (now < this.#opensAt()) return false
    this.#start(now)
    return true
  }

  /**
   * Waits for a slot and the endpoint's next start, and resolves with the time it was granted
   * (the call's start, on the limiter's clock: the caller's own reading would come a microtask
   * later, possibly after a push-back it had no part in). Rejects with the abort reason if
   * `signal` aborts first, or with `onTimeout()` when `maxWaitMs` passes first (a call's
   * whole-time bound).
   */
  async acquire(signal?: AbortSignal, maxWaitMs?: number, onTimeout?: () => unknown): Promise<number> {
    if (signal?.aborted) throw signal.reason
    if (this.tryAcquire()) return this.#now()
    return new Promise<number>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      // The slot is taken by pump() before it calls grant.
      const grant = (at: number) => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        resolve(at)
      }
      const leave = (reason: unknown) => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        const i = this.waiters.indexOf(grant)
        if (i >= 0) this.waiters.splice(i, 1)
        if (this.waiters.length === 0) this.#disarm()
        reject(reason)
      }
      const onAbort = () => leave(signal!.reason)
      this.waiters.push(grant)
      signal?.addEventListener('abort', onAbort, { once: true })
      if (maxWaitMs !== undefined)
        timer = setTimeout(
          () => leave(onTimeout ? onTimeout() : new Error(`no slot within ${maxWaitMs} ms`)),
          Math.max(0, maxWaitMs),
        )
      this.pump()
    })
  }

  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1)
    this.pump()
  }

  /**
   * A call got a 429. Pass what the server said (a {@link FailureClass} will do) and when the
   * call started: a wait of up to a second then closes the endpoint to every call and teaches the
   * spacing; a longer wait (a quota's, or one call's own) is left to the call that got it.
   */
  rateLimited(hint: RateLimitHint & PushBackCall = {}): PushBack {
    const now = this.#now()
    const ms = hint.retryAfterMs
    const wait = ms !== undefined && Number.isFinite(ms) && ms > 0 && ms <= MAX_SHARED_WAIT_MS ? ms : undefined
    const newEvent = hint.startedAt === undefined ? now >= this.#eventUntil : hint.startedAt > this.#rateReactedAt
    const exact = hint.retryAfterExact === true
    if (newEvent) {
      // Paced starts bound the rate on their own; halving the calls in flight as well left one
      // call at a time, bound by its latency (13 of 20 allowed requests a second).
      if (wait === undefined) {
        this.limit = Math.max(1, Math.floor(this.limit / 2))
        this.credit = 0
      }
      if (wait !== undefined) {
        this.#tooNarrowMs = this.#spacingMs
        const stated = statedSpacing(hint.requestsPerMinute)
        if (stated > 0) {
          // The rate is told, not guessed: nothing to learn by doubling, and no probing below it.
          this.#statedMs = stated
          this.#learned = true
          this.#spacingMs = Math.min(
            MAX_SHARED_WAIT_MS,
            Math.max(exact ? wait : 0, stated, this.#spacingMs * (hasReset(hint) ? SYNCED_UP : STATED_UP)),
          )
        } else if (exact) this.#spacingMs = Math.min(MAX_SHARED_WAIT_MS, Math.max(wait, this.#spacingMs * SPACING_UP))
        else {
          // Whole seconds and no rate stated: learned from the 429s (see learned-spacing.ts).
          const before = this.#learnedState()
          const after = afterRefusal(before, wait)
          this.#unstatedHoldMs = this.#unstated ? refusalHoldMs(before, after) : after.spacingMs
          this.#spacingMs = after.spacingMs
        }
        this.#unstated = !exact && stated === 0 && this.#statedMs === 0
      }
      this.#sinceEvent = 0
      this.#rateReactedAt = now
    }
    // With a stated rate and the server's reset (when its bucket is full again) the pacing takes
    // the server's own state: its capacity and when it is full, even if that is sooner than this
    // limiter's schedule (a start that came a few ms early then costs those ms, not a slot).
    const synced = wait !== undefined && this.#statedMs > 0 ? this.#sync(now, hint) : false
    // The endpoint holds the wait for every call: an exact one in full, a whole-second one for one
    // learned spacing (a tenth of one after a success, once learned) or until the synced pacing's
    // next start.
    const held =
      wait === undefined
        ? undefined
        : exact
          ? wait
          : synced
            ? Math.max(0, this.#opensAt() - now)
            : heldFor(this.#unstated ? this.#unstatedHoldMs : this.#spacingMs, hint.requestsResetMs)
    if (held !== undefined && !(synced && !exact)) this.#notBefore = Math.max(this.#notBefore, now + held)
    // Learned, a 429 moves the pacing's next start to the hold's end (a tenth of a spacing after a
    // success: the token is most likely due within a few ms), not a spacing after the refused
    // start: at a burst of 1 that cost the server's bucket a whole slot per 429. A call started
    // since takes its token first.
    if (held !== undefined && newEvent && this.#unstated && !exact) {
      const later = hint.startedAt === undefined ? undefined : this.#lastStartSince(hint.startedAt)
      this.#tat = Math.max(now + held, later === undefined ? -Infinity : later + this.#spacingMs)
    }
    if (newEvent) this.#eventUntil = Math.max(now, now + (held ?? 0))
    this.pump()
    // A call whose 429 carried no wait, or a long one, keeps its own (a per-call backoff, or the server's wait).
    return { newEvent, shared: held !== undefined }
  }

  /**
   * A call got a 5xx. A new event (the call started after the endpoint's last reaction to one)
   * closes the endpoint for `backoffMs(streak)`, streak being the 5xx events in a row, or for the
   * server's `retry-after` if that is longer.
   */
  serverFailed(call: PushBackCall & { retryAfterMs?: number }, backoffMs: (streak: number) => number): PushBack {
    const now = this.#now()
    const newEvent = call.startedAt === undefined || call.startedAt > this.#serverReactedAt
    if (newEvent) {
      this.#serverStreak++
      this.#serverReactedAt = now
      this.#notBefore = Math.max(this.#notBefore, now + Math.max(backoffMs(this.#serverStreak), call.retryAfterMs ?? 0))
      this.pump()
    }
    return { newEvent, shared: true }
  }

  succeeded(): void {
    this.#serverStreak = 0
    if (this.#unstated && this.#spacingMs > 0) {
      const next = afterSuccess(this.#learnedState())
      this.#spacingMs = next.spacingMs
      this.#sinceEvent = next.sinceRefusal
      this.#learned = next.learned
      this.#tooNarrowMs = next.tooNarrowMs
      if (next.spacingMs === 0) {
        this.#capacity = 1
        this.#unstated = false
      }
    } else if (++this.#sinceEvent >= FEW_SUCCESSES && this.#spacingMs > 0) this.#learned = true
    if (this.#spacingMs > 0 && !this.#unstated) {
      const near =
        this.#spacingMs <= this.#tooNarrowMs * NEAR_ABOVE && this.#spacingMs >= this.#tooNarrowMs * NEAR_BELOW
      const down = this.#statedMs > 0 ? (this.#synced ? SYNCED_DOWN : STATED_DOWN) : near ? SPACING_PROBE : SPACING_DOWN
      this.#spacingMs = Math.max(this.#statedMs, this.#spacingMs * down)
      if (this.#spacingMs < MIN_SPACING_MS) {
        this.#spacingMs = 0
        this.#capacity = 1
        this.#learned = false
      }
    }
    if (this.limit >= this.maxInFlight) return
    this.credit += 1 / this.limit
    if (this.credit >= 1) {
      this.credit -= 1
      this.limit++
      this.pump()
    }
  }

  /**
   * Takes the server's bucket state from a 429's reset (`resetMs`: when it is full again): the
   * capacity is the whole tokens that reset refills at the stated rate, and the bucket is full at
   * `now + resetMs` (a tenth of a spacing at least, so that a reset read on a skewed clock cannot
   * turn into a stream of immediate retries). False when there is no reset to read.
   */
  #sync(now: number, hint: RateLimitHint & PushBackCall): boolean {
    if (!hasReset(hint)) {
      this.#capacity = 1
      return (this.#synced = false)
    }
    const resetMs = hint.requestsResetMs
    // On a 429 the bucket holds less than one token: the reset refills between burst - 1 and
    // burst tokens. The small allowance rounds a reset a ms short of a whole token down, never up.
    this.#synced = true
    this.#capacity = Math.max(1, Math.ceil(resetMs / this.#statedMs - CAPACITY_SLACK))
    // Calls started after the one refused reached the server after it, most likely: the reset
    // does not count them yet, so each takes its token after it.
    const later = hint.startedAt === undefined ? 0 : this.#startsSince(hint.startedAt)
    this.#tat = now + Math.max(resetMs, this.#spacingMs / 10) + later * this.#spacingMs
    return true
  }

  /** The learned spacing's state, as learned-spacing.ts sees it. */
  #learnedState(): LearnedSpacing {
    return {
      spacingMs: this.#spacingMs,
      tooNarrowMs: this.#tooNarrowMs,
      sinceRefusal: this.#sinceEvent,
      learned: this.#learned,
    }
  }

  /** The latest start after `at` among the last RECENT_STARTS, if any. */
  #lastStartSince(at: number): number | undefined {
    let last: number | undefined
    for (const t of this.#recentStarts) if (t > at && (last === undefined || t > last)) last = t
    return last
  }

  /** Starts after `at` among the last RECENT_STARTS. */
  #startsSince(at: number): number {
    let n = 0
    for (const t of this.#recentStarts) if (t > at) n++
    return n
  }

  /** When the next call may start: the endpoint open and the pacing's bucket holding a token. */
  #opensAt(): number {
    if (this.#spacingMs === 0) return this.#notBefore
    return Math.max(this.#notBefore, this.#tat - (this.#capacity - 1) * this.#spacingMs)
  }

  /**
   * A call starts now: it takes a slot and a token of the pacing's bucket. Synced with the
   * server's, a start that comes late (a timer that fires a few ms late on a busy machine) banks
   * the lost time up to the bucket's capacity, as the server does: with a capacity of 1 none,
   * since the server's bucket, which cannot hold more than one token, lost that time too.
   */
  #start(now: number): void {
    this.inFlight++
    this.#recentStarts[this.#startCount++ % RECENT_STARTS] = now
    if (this.#spacingMs === 0) return
    if (this.#synced) this.#tat = Math.max(this.#tat, now) + this.#spacingMs
    // Learned from whole-second 429s (the server's burst unknown), a start that came late banks
    // nothing: at a burst of 1 the next start a spacing after the due time came early to a bucket
    // that had lost that time too, and its 429 widened the spacing for nothing. A larger bucket
    // banks the lateness itself.
    else if (this.#unstated) this.#tat = now + this.#spacingMs
    // Not synced, the spacing is exact (or stated without a reset) and no 429 corrects the
    // phase: the next start is a spacing after this one was due, so that a timer firing late does
    // not make the rate lower than the spacing says and the learning narrow it below the server's.
    else {
      // Due when the endpoint opened (after a hold, not before it: the next start a spacing after that).
      const due = Math.max(this.#tat, this.#notBefore)
      this.#tat = (now - due < this.#spacingMs ? due : now) + this.#spacingMs
    }
  }

  private pump(): void {
    while (this.inFlight < this.limit && this.waiters.length > 0) {
      const now = this.#now()
      const opensAt = this.#opensAt()
      if (opensAt - now > TIMER_SLACK_MS) return this.#arm(opensAt - now - TIMER_SLACK_MS)
      this.#start(now)
      this.waiters.shift()!(now)
    }
  }

  /**
   * Wakes the queue when the endpoint opens (a timer that fires early is re-armed by pump). A
   * timer set for later is moved up when the endpoint opens sooner (a 429's reset that says the
   * server's bucket refills before the pacing's schedule): left as it was, it kept the queue
   * waiting for the old schedule, and every such 429 cost a whole slot.
   */
  #arm(ms: number): void {
    const at = this.#now() + ms
    if (this.#timer !== undefined) {
      if (at >= this.#timerAt - 1) return
      clearTimeout(this.#timer)
    }
    this.#timerAt = at
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined
        this.pump()
      },
      Math.max(1, Math.ceil(ms)),
    )
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

/**
 * How long a whole-second 429 holds the endpoint: one spacing, or less when the server's reset
 * says its allowance is back sooner. At a burst of 1 a 429 of a start that came a few ms early
 * (timing noise) then costs those ms, not a whole spacing; a tenth of a spacing at least, so
 * a reset read on a skewed clock cannot turn into a stream of immediate retries.
 */
function heldFor(spacingMs: number, resetMs: number | undefined): number {
  if (resetMs === undefined || !Number.isFinite(resetMs)) return spacingMs
  return Math.min(spacingMs, Math.max(spacingMs / 10, resetMs))
}

/** The 429 said when the server's request allowance is full again. */
function hasReset<H extends RateLimitHint>(hint: H): hint is H & { requestsResetMs: number } {
  return hint.requestsResetMs !== undefined && Number.isFinite(hint.requestsResetMs) && hint.requestsResetMs >= 0
}

/** The spacing of a stated rate per minute, in ms (0 when none is stated or it is too slow to be a rate's). */
function statedSpacing(requestsPerMinute: number | undefined): number {
  if (requestsPerMinute === undefined || !Number.isFinite(requestsPerMinute) || requestsPerMinute <= 0) return 0
  const ms = 60_000 / requestsPerMinute
  return ms <= MAX_SHARED_WAIT_MS ? ms : 0
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
