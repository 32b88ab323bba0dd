// The spacing of starts against an endpoint whose 429s say only "within a second" (a whole-second
// `retry-after`, no request rate stated): learned from the 429s and the calls accepted between
// them, as a pure function of the events (the endpoint's limiter holds the state and its clock).
//
// At a burst of 1 the server's bucket keeps no token it could not hand out: every millisecond a
// token waits is lost, and a start that comes early is refused. A 429 then says little (the token
// is due within a spacing, most often within a few ms: the spacing was a little too narrow, or a
// start came late and the next one early), so it holds the endpoint for a tenth of a spacing, not
// a whole one: a whole one cost a slot per 429 (0.85 of 20 requests a second in the rate-limit
// bench at load 9-10, each 429 followed by 46-53 ms of an idle token). Two 429s in a row (the short
// hold was not enough) hold a whole spacing.

/** What the endpoint learned so far. */
export interface LearnedSpacing {
  /** Least time between two starts, in ms (0: not pacing). */
  readonly spacingMs: number
  /** The spacing that last got a 429 (too narrow, then). */
  readonly tooNarrowMs: number
  /** Successes since the last 429. */
  readonly sinceRefusal: number
  /** The spacing has held for FEW_SUCCESSES successes in a row at least once: it is tuned, no longer learned. */
  readonly learned: boolean
}

/** Nothing learned yet: no pacing. */
export const UNPACED: LearnedSpacing = { spacingMs: 0, tooNarrowMs: 0, sinceRefusal: 0, learned: false }

/**
 * The first guess, doubled while 429s come with fewer than FEW_SUCCESSES successes between them
 * and the endpoint never yet had that many in a row (far too fast: learning); widened by
 * SPACING_UP once it has (doubling then, on two 429s in a row that were only timing noise,
 * halved the rate for seconds).
 */
export const FIRST_SPACING_MS = 4
export const FEW_SUCCESSES = 4
/**
 * Once learned, a new 429 after a success widens the spacing by NOISE_UP (it most likely came of
 * timing noise: a start that reached the server a few ms early), two in a row by SPACING_UP...
 * Held a tenth of a spacing, such a 429 costs the bucket about 15 ms at 20 requests a second
 * (RTT, the hold, a timer's lag); widened by SPACING_UP each time, as when a 429 cost a slot, the
 * spacing sat 10% above the server's (55 ms at 20 a second in the bench, load 7-10).
 */
export const NOISE_UP = 1.03
export const SPACING_UP = 1.1
/**
 * ...and each success narrows it: by SPACING_DOWN while it is far from the spacing that last got
 * a 429, by SPACING_PROBE near it (from 5% above to 10% below), so the spacing comes back quickly
 * after a widening and then probes slowly where the limit is: about one 429 per 10 successes
 * (ln NOISE_UP / -ln SPACING_PROBE), each costing a call one of its retries.
 */
export const SPACING_DOWN = 0.98
export const SPACING_PROBE = 0.997
const NEAR_ABOVE = 1.05
const NEAR_BELOW = 0.9
/** Below this spacing pacing is off again. */
export const MIN_SPACING_MS = 0.5
/** The share of a spacing a 429 after a success holds the endpoint for (see the head of this file). */
export const SHORT_HOLD = 0.1

/**
 * A new rate-limit event (a 429 of a call that started after the last one): the spacing doubles
 * while learning, widens by NOISE_UP once learned (by SPACING_UP on two 429s in a row), and never
 * goes beyond `maxMs` (the server's wait, an upper bound).
 *
 * @example
 * afterRefusal(UNPACED, 1000).spacingMs // 4
 * afterRefusal(afterRefusal(UNPACED, 1000), 1000).spacingMs // 8
 */
export function afterRefusal(state: LearnedSpacing, maxMs: number): LearnedSpacing {
  const up = state.sinceRefusal > 0 ? NOISE_UP : SPACING_UP
  const wider = state.learned ? state.spacingMs * up : Math.max(FIRST_SPACING_MS, state.spacingMs * 2)
  return {
    spacingMs: Math.max(state.spacingMs, Math.min(maxMs, wider)),
    tooNarrowMs: state.spacingMs,
    sinceRefusal: 0,
    learned: state.learned,
  }
}

/**
 * A call succeeded: the spacing narrows (quickly far from the spacing that last got a 429,
 * slowly near it), and pacing ends below MIN_SPACING_MS.
 *
 * @example
 * afterSuccess({ spacingMs: 100, tooNarrowMs: 50, sinceRefusal: 0, learned: true }).spacingMs // 98
 */
export function afterSuccess(state: LearnedSpacing): LearnedSpacing {
  const sinceRefusal = state.sinceRefusal + 1
  if (state.spacingMs === 0) return { ...state, sinceRefusal }
  const near = state.spacingMs <= state.tooNarrowMs * NEAR_ABOVE && state.spacingMs >= state.tooNarrowMs * NEAR_BELOW
  const spacingMs = state.spacingMs * (near ? SPACING_PROBE : SPACING_DOWN)
  if (spacingMs < MIN_SPACING_MS) return UNPACED
  return {
    spacingMs,
    tooNarrowMs: state.tooNarrowMs,
    sinceRefusal,
    learned: state.learned || sinceRefusal >= FEW_SUCCESSES,
  }
}

/**
 * How long a 429 holds the endpoint, given the state before it (`previous`) and after it
 * (`next`): a tenth of the spacing when the spacing is learned and a success came since the last
 * 429 (the token is most likely due within a few ms); otherwise a whole spacing.
 *
 * @example
 * const tuned = { spacingMs: 50, tooNarrowMs: 45, sinceRefusal: 12, learned: true }
 * refusalHoldMs(tuned, afterRefusal(tuned, 1000)) // 5.15 (a tenth of 50 × 1.03)
 */
export function refusalHoldMs(previous: LearnedSpacing, next: LearnedSpacing): number {
  return previous.learned && previous.sinceRefusal > 0 ? next.spacingMs * SHORT_HOLD : next.spacingMs
}
