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
export const REMOTE_OPTIONS = ['id', 'timeoutMs', 'retry', 'concurrency', 'prices', 'stream', 'cassette'] as const
/** The keys of RetryOptions. */
export const RETRY_OPTIONS = ['maxRetries', 'baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const
