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
 * The scope is the common path: no AbortController and no link/unlink per call. A cell shares each
 * scope among several trajectories ({@link SharedScopes}): creating and linking an AbortController
 * costs more than the harness's whole per-attempt work, and a cell only ever aborts as a whole.
 */
// A mark on the signal itself: cheaper than a WeakSet, whose entries the garbage collector must trace.
const SCOPED = Symbol('vitest-seqk.trajectoryScope')
type Marked = AbortSignal & { [SCOPED]?: CallSignal }

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
  // The mark is the call signal every call in this scope gets: no object per call.
  ;(controller.signal as Marked)[SCOPED] = { signal: controller.signal, release: noRelease }
  const forward = () => controller.abort(parent?.reason)
  if (parent?.aborted) forward()
  else parent?.addEventListener('abort', forward, { once: true })
  return { signal: controller.signal, close: () => parent?.removeEventListener('abort', forward) }
}

/** Below Node's default of 10 listeners per signal before it warns. */
const MANY_SCOPES = 8

/**
 * Trajectory scopes for one cell, each shared by up to `trajectoriesPerScope` trajectories (so the
 * SDK listeners left on one stay bounded by that many trajectories' calls). A scope unlinks from
 * the parent once every trajectory that got it has ended and a newer one has taken its place;
 * `close()` unlinks the rest.
 *
 * @example
 * const scopes = new SharedScopes(cellSignal)
 * const scope = scopes.acquire() // per trajectory
 * try { await runTrajectory(scope.signal) } finally { scope.close() }
 * scopes.close() // when the cell ends
 */
export class SharedScopes {
  #current: { scope: SignalScope; handedOut: number; open: number } | undefined
  readonly #all = new Set<SignalScope>()

  constructor(
    private readonly parent: AbortSignal | undefined,
    private readonly trajectoriesPerScope = 16,
  ) {}

  /** The signal for one trajectory; `close()` it when the trajectory ends. */
  acquire(): SignalScope {
    if (this.#current === undefined || this.#current.handedOut >= this.trajectoriesPerScope) {
      // A full scope whose trajectories have all ended is done: unlink it now, not at the cell's end.
      if (this.#current !== undefined && this.#current.open === 0) {
        this.#current.scope.close()
        this.#all.delete(this.#current.scope)
      }
      const scope = scopeSignal(this.parent)
      this.#all.add(scope)
      // Each linked scope is one listener on the parent. Raising the parent's limit costs about as
      // much as a whole attempt of harness work, so it happens only once many scopes are linked
      // (long trajectories keep retired scopes linked at high concurrency).
      if (this.#all.size === MANY_SCOPES && this.parent) setMaxListeners(0, this.parent)
      this.#current = { scope, handedOut: 0, open: 0 }
    }
    const entry = this.#current
    entry.handedOut++
    entry.open++
    let closed = false
    return {
      signal: entry.scope.signal,
      close: () => {
        if (closed) return
        closed = true
        entry.open--
        if (entry.open === 0 && entry !== this.#current) {
          entry.scope.close()
          this.#all.delete(entry.scope)
        }
      },
    }
  }

  /** Unlinks every scope from the parent. */
  close(): void {
    for (const scope of this.#all) scope.close()
    this.#all.clear()
    this.#current = undefined
  }
}

/** The signal to hand an SDK for one call, and what to do when the call ends. */
export interface CallSignal {
  readonly signal: AbortSignal | undefined
  release(): void
}

const noRelease = () => {}
const UNSIGNALLED: CallSignal = { signal: undefined, release: noRelease }

/**
 * The signal for one SDK call: a trajectory scope's (or no) signal as it is; any other signal
 * through a fresh linked one, released (unlinked) when the call ends.
 */
export function callSignal(signal: AbortSignal | undefined): CallSignal {
  if (signal === undefined) return UNSIGNALLED
  const scoped = (signal as Marked)[SCOPED]
  if (scoped) return scoped
  const own = new AbortController()
  const forward = () => own.abort(signal.reason)
  if (signal.aborted) forward()
  else signal.addEventListener('abort', forward, { once: true })
  return { signal: own.signal, release: () => signal.removeEventListener('abort', forward) }
}

/**
 * One call's time limit under a parent signal: it stops the call when `ms` pass (`passed` then
 * says it was the limit) or when the parent aborts, whichever is first. The timer and the parent's
 * abort reject {@link TimeLimit.race} directly, with no listener on the limit's own signal; the
 * signal itself is `controller`'s when one is given (a provider's try hands it to the SDK, so it
 * takes a pooled one), else made only when read: a fresh AbortSignal and its first listener cost
 * about 13 µs on Node 20, a tenth of the agent harness's budget per tool call (test/agent.bench.ts).
 * One primitive for a provider's try (its Deadline), an agent's tool call and an episode's wall time.
 *
 * @example
 * const limit = new TimeLimit(request.signal, 5_000, (ms) => new Error(`timed out after ${ms} ms`))
 * try { return await limit.race(work(limit.signal)) } finally { limit.dispose() }
 */
export class TimeLimit {
  #controller: AbortController | undefined
  readonly #timer: ReturnType<typeof setTimeout>
  readonly #forward: (() => void) | undefined
  /** Rejects the race of {@link TimeLimit.race}, once one runs. */
  #reject: ((reason: unknown) => void) | undefined
  /** Why the call was stopped, once it was. */
  #stopped: { reason: unknown } | undefined
  passed = false

  /**
   * @param timeout the reason a stop by the time limit gives, from `ms` (a module-level
   *   function: no closure per call)
   * @param controller aborted on a stop; the limit's `signal` is its signal
   */
  constructor(
    private readonly parent: AbortSignal | undefined,
    ms: number,
    timeout: (ms: number) => unknown,
    controller?: AbortController,
  ) {
    this.#controller = controller
    this.#timer = setTimeout(() => {
      this.passed = true
      this.#stop(timeout(ms))
    }, ms)
    if (parent?.aborted) this.#stop(parent.reason)
    else if (parent) {
      this.#forward = () => this.#stop(parent.reason)
      parent.addEventListener('abort', this.#forward, { once: true })
    }
  }

  #stop(reason: unknown): void {
    if (this.#stopped) return
    this.#stopped = { reason }
    this.#controller?.abort(reason)
    this.#reject?.(reason)
  }

  /** Whether the call was stopped (the time limit passed or the parent aborted). */
  get stopped(): boolean {
    return this.#stopped !== undefined
  }

  /** Aborted when the call is stopped (at once if it already was). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController()
      if (this.#stopped) this.#controller.abort(this.#stopped.reason)
    }
    return this.#controller.signal
  }

  /**
   * `promise`, or a rejection with the stop's reason as soon as the call is stopped: work that
   * ignores its signal (a tool, an SDK whose retry of a broken gzip stream kept reading for 55 s)
   * cannot hold the caller past the limit.
   */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.#stopped) {
      promise.catch(() => {})
      return Promise.reject(this.#stopped.reason)
    }
    return new Promise<T>((resolve, reject) => {
      this.#reject = (reason) => {
        // The abandoned work may still settle; its result is dropped, its error must not go unhandled.
        promise.catch(() => {})
        reject(reason)
      }
      promise.then(resolve, reject)
    })
  }

  /** Ends the limit: the timer cleared, the parent unlinked. */
  dispose(): void {
    clearTimeout(this.#timer)
    this.#reject = undefined
    if (this.#forward) this.parent?.removeEventListener('abort', this.#forward)
  }
}
