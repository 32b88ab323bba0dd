import { setMaxListeners } from 'node:events'

/**
 * Abort signals for model calls.
 *
 * Both SDKs add one abort listener per request to the signal they are given and never remove it.
 * Handing them a long-lived signal (the test's, or a cell's) piles listeners up on it
 * (MaxListenersExceededWarning, and memory held until the test ends). Two ways out:
 *
 * - a **trajectory scope**: one signal linked to the cell's, created when a trajectory starts and
 *   dropped when it ends. Listeners on it are bounded by that trajectory's calls and die with it,
 *   so providers pass it to the SDK as it is;
 * - any other signal gets a **per-call** linked signal, unlinked when the call ends.
 *
 * The scope is the common path: one AbortController per trajectory instead of one per call (Node
 * makes each one transferable, which is not free), and no link/unlink per call.
 */
// A mark on the signal itself: cheaper than a WeakSet, whose entries the garbage collector must trace.
const SCOPED = Symbol('vitest-seqk.trajectoryScope')
type Marked = AbortSignal & { [SCOPED]?: true }

/** A signal that lives as long as one trajectory; `close()` unlinks it from its parent. */
export interface SignalScope {
  readonly signal: AbortSignal
  close(): void
}

/** Links a new trajectory-lived signal to `parent` (aborts when it aborts). */
export function scopeSignal(parent: AbortSignal | undefined): SignalScope {
  const controller = new AbortController()
  // A trajectory's calls (attempts, retries, helpers) each leave one SDK listener behind.
  setMaxListeners(0, controller.signal)
  ;(controller.signal as Marked)[SCOPED] = true
  const forward = () => controller.abort(parent?.reason)
  if (parent?.aborted) forward()
  else parent?.addEventListener('abort', forward, { once: true })
  return { signal: controller.signal, close: () => parent?.removeEventListener('abort', forward) }
}

/** The signal to hand an SDK for one call, and what to do when the call ends. */
export interface CallSignal {
  readonly signal: AbortSignal | undefined
  release(): void
}

const noRelease = () => {}

/**
 * The signal for one SDK call: a trajectory scope's (or no) signal as it is; any other signal
 * through a fresh linked one, released (unlinked) when the call ends.
 */
export function callSignal(signal: AbortSignal | undefined): CallSignal {
  if (signal === undefined || (signal as Marked)[SCOPED]) return { signal, release: noRelease }
  const own = new AbortController()
  const forward = () => own.abort(signal.reason)
  if (signal.aborted) forward()
  else signal.addEventListener('abort', forward, { once: true })
  return { signal: own.signal, release: () => signal.removeEventListener('abort', forward) }
}
