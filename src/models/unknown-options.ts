/**
 * Typos must not pass silently: `actors.openai({ model, temprature: 0.7 })` used to drop the
 * temperature and record a protocol without it. Constructors name an unknown option and the
 * nearest valid one.
 */

/** Edit distance (Levenshtein) between two short option names. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]!
}

/**
 * Throws a TypeError naming every key of `options` that is not in `known`, with the nearest valid
 * name when one is close, and the valid names.
 *
 * @example
 * rejectUnknownOptions('actors.openai({ model: "gpt-4o" })', { model: 'gpt-4o', temprature: 0.7 }, ['model', 'temperature'])
 * // TypeError: actors.openai({ model: "gpt-4o" }): unknown option "temprature" (did you mean "temperature"?); valid options: model, temperature
 */
export function rejectUnknownOptions(where: string, options: object, known: readonly string[]): void {
  const unknown = Object.keys(options).filter((key) => !known.includes(key))
  if (unknown.length === 0) return
  const named = unknown.map((key) => {
    // A near spelling, or a name one contains (retries ~ maxRetries).
    const contains = (name: string) => Math.min(key.length, name.length) >= 4 && (name.toLowerCase().includes(key.toLowerCase()) || key.toLowerCase().includes(name.toLowerCase()))
    const near = (name: string) => distance(key, name) - (contains(name) ? 100 : 0)
    const [best] = [...known].sort((x, y) => near(x) - near(y))
    const close = best !== undefined && near(best) <= Math.max(2, Math.floor(key.length / 3))
    return `"${key}"${close ? ` (did you mean "${best}"?)` : ''}`
  })
  throw new TypeError(`${where}: unknown option${unknown.length > 1 ? 's' : ''} ${named.join(', ')}; valid options: ${[...known].sort().join(', ')}`)
}

/** The options every remote model shares (RemoteOptions). */
export const REMOTE_OPTIONS = ['id', 'timeoutMs', 'callTimeoutMs', 'retry', 'concurrency', 'prices', 'stream', 'cassette'] as const
/** The keys of BatchOptions (the OpenAI and Anthropic models' `batch`). */
export const BATCH_OPTIONS = ['pollMs', 'gatherMs', 'maxBatch', 'deadlineMs', 'resubmit'] as const
/** The keys of RetryOptions. */
export const RETRY_OPTIONS = ['maxRetries', 'baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const

/** A numeric option's range: `[min, max]`, and whether it must be a whole number. */
export interface NumberBound {
  min: number
  max: number
  integer?: boolean
  /** Why the upper bound is where it is, said in the error. */
  why: string
}

/**
 * The bounds of the remote models' numeric options (documented in the README's option table).
 * Beyond them a value is a mistake (a timeout in seconds given as ms × 1000, a retry count that
 * would spend an hour on one call), not a setting.
 */
export const REMOTE_BOUNDS: Readonly<Record<string, NumberBound>> = {
  timeoutMs: { min: 1, max: 3_600_000, why: 'one hour per try; the cell has its own timeout' },
  callTimeoutMs: { min: 1, max: 86_400_000, why: 'a day for one call, every try and wait included' },
  concurrency: { min: 1, max: 1000, integer: true, why: "more calls at once than any provider's rate limit allows" },
  temperature: { min: 0, max: 2, why: 'the providers accept 0 to 2 (Anthropic 0 to 1)' },
  maxTokens: { min: 1, max: 1_000_000, integer: true, why: 'no model answers more' },
  seed: { min: -(2 ** 53 - 1), max: 2 ** 53 - 1, integer: true, why: 'a safe integer' },
}

/** The bounds of `retry`'s options. */
export const RETRY_BOUNDS: Readonly<Record<string, NumberBound>> = {
  maxRetries: { min: 0, max: 20, integer: true, why: 'twenty failed tries are an outage, not noise' },
  baseDelayMs: { min: 0, max: 60_000, why: 'a minute before the first retry' },
  maxDelayMs: { min: 0, max: 600_000, why: 'ten minutes between tries' },
  maxRetryAfterMs: { min: 0, max: 3_600_000, why: "an hour of a server's retry-after" },
}

/**
 * Throws a RangeError naming every numeric option of `options` outside its bound, with the range
 * and why. Options that are absent (undefined) are fine.
 *
 * @example
 * checkNumberOptions('actors.openai({ model: "gpt-4o" })', { timeoutMs: 1e12 }, REMOTE_BOUNDS)
 * // RangeError: actors.openai({ model: "gpt-4o" }): timeoutMs must be a number from 1 to 3600000 (one hour per try; ...), got 1000000000000
 */
export function checkNumberOptions(where: string, options: object, bounds: Readonly<Record<string, NumberBound>>): void {
  const problems: string[] = []
  for (const [name, bound] of Object.entries(bounds)) {
    const value = (options as Record<string, unknown>)[name]
    if (value === undefined) continue
    const ok = typeof value === 'number' && Number.isFinite(value) && value >= bound.min && value <= bound.max && (!bound.integer || Number.isInteger(value))
    if (!ok) problems.push(`${name} must be ${bound.integer ? 'a whole number' : 'a number'} from ${bound.min} to ${bound.max} (${bound.why}), got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`)
  }
  if (problems.length > 0) throw new RangeError(`${where}: ${problems.join('; ')}`)
}
