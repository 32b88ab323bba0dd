/**
 * A cache of model-judged results (a grader's grading, an annotator's annotation) keyed by the
 * request's content: identical requests, in flight or done, are served once. What it serves again
 * keeps its calls at their nominal cost, marked `replayed`; a failure is served to the callers
 * already waiting, then forgotten (never served again).
 */
import { canonicalJson, sha256 } from '../core/fingerprint.js'
import { copyWithSpentCalls, spentCalls, type ModelCall } from './chat-model.js'

/** The largest number of results kept: the cache stays bounded however long the run. */
const MAX_ENTRIES = 20_000

/**
 * A cached runner: `cached(key, run)` runs `run` once per distinct `key` (canonical JSON) and
 * serves the rest from it. `enabled: false` runs every request. `onRun`/`onHit` count both.
 *
 * @example
 * const cached = callCache<{ verdicts: V[]; calls: ModelCall[] }>({ enabled: true, onRun: () => stats.calls++, onHit: () => stats.hits++ })
 * const graded = await cached({ prompt, answer }, () => grade(prompt, answer))
 */
export function callCache<R extends { calls: readonly ModelCall[] }>(options: {
  enabled: boolean
  onRun: () => void
  onHit: () => void
}): (key: unknown, run: () => Promise<R>) => Promise<R> {
  const cache = new Map<string, Promise<R>>()
  const replayed = (calls: readonly ModelCall[]) => calls.map((c) => ({ ...c, replayed: true }))
  return (key, run) => {
    if (!options.enabled) {
      options.onRun()
      return run()
    }
    const k = sha256(canonicalJson(key))
    const hit = cache.get(k)
    if (hit) {
      options.onHit()
      return hit.then(
        (r) => ({ ...r, calls: replayed(r.calls) }),
        (error: unknown) => {
          throw copyWithSpentCalls(error, replayed(spentCalls(error)))
        },
      )
    }
    options.onRun()
    const promise = run()
    cache.set(k, promise)
    promise.catch(() => cache.delete(k))
    if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!)
    return promise
  }
}
