/** Intervals as summary.json keeps them: NaN as null, and a note when too wide to be useful. */
import type { Interval } from '../metrics/index.js'
import type { IntervalJson } from '../core/schemas.js'

/**
 * NaN becomes null on disk: Vitest's blob reports would do it anyway, and null says "no value".
 *
 * @example
 * finiteOrNull(Number.NaN) // => null
 */
export function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null
}

/** Wider than this (30 points) an interval cannot tell a strong model from a mediocre one. */
const USEFUL_WIDTH = 0.3

/**
 * An interval on disk, with a note when it is too wide to be useful.
 *
 * @example
 * intervalJson(rateInterval([1, 0.5], [2, 2])).method // => 'korn-graubard/2'
 */
export function intervalJson(interval: Interval): IntervalJson {
  const width = interval.hi - interval.lo
  const note =
    width > USEFUL_WIDTH
      ? `too wide to be useful: ${interval.tasks} ${interval.tasks === 1 ? 'task gives' : 'tasks give'} a ${Math.round(interval.level * 100)}% interval ${(width * 100).toFixed(0)} points wide; more tasks narrow it (about √2 narrower per doubling), more repeats much less`
      : undefined
  return {
    point: finiteOrNull(interval.point),
    lo: finiteOrNull(interval.lo),
    hi: finiteOrNull(interval.hi),
    level: interval.level,
    method: interval.method,
    tasks: interval.tasks,
    ...(note ? { note } : {}),
  }
}
