// Every trajectory records when it started. `Date.prototype.toISOString` is a runtime call that
// costs several microseconds between model calls; timestamps taken in the same second share all
// but their milliseconds, so the formatted second is kept and only the milliseconds are appended.
let cachedSecond = Number.NaN
let cachedPrefix = ''

/**
 * `new Date(ms).toISOString()` for an integer epoch time in milliseconds, equal character for
 * character (extended years and times before 1970 included).
 *
 * @example
 * isoTimestamp(Date.now()) // e.g. '2026-11-30T09:20:41.357Z'
 */
export function isoTimestamp(ms: number): string {
  if (!Number.isInteger(ms)) return new Date(ms).toISOString()
  const second = Math.floor(ms / 1000)
  if (second !== cachedSecond) {
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, -4)
    cachedSecond = second
  }
  const milli = ms - second * 1000
  return `${cachedPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`
}
