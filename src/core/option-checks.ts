/**
 * Option checks every component's constructor uses (a verifier, a feedback mode, an actor, a
 * loader): typos must not pass silently (`actors.openai({ model, temprature: 0.7 })` used to drop
 * the temperature and record a protocol without it), so an unknown option is named with the
 * nearest valid one, and a number outside its range is named with the range and why.
 */
import { editDistance } from './edit-distance.js'

/** Edit distance between two short option names, case ignored. */
const distance = (a: string, b: string): number => editDistance(a, b, (x, y) => x.toLowerCase() === y.toLowerCase())

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
    const contains = (name: string) =>
      Math.min(key.length, name.length) >= 4 &&
      (name.toLowerCase().includes(key.toLowerCase()) || key.toLowerCase().includes(name.toLowerCase()))
    const near = (name: string) => distance(key, name) - (contains(name) ? 100 : 0)
    const [best] = [...known].sort((x, y) => near(x) - near(y))
    const close = best !== undefined && near(best) <= Math.max(2, Math.floor(key.length / 3))
    return `"${key}"${close ? ` (did you mean "${best}"?)` : ''}`
  })
  throw new TypeError(
    `${where}: unknown option${unknown.length > 1 ? 's' : ''} ${named.join(', ')}; valid options: ${[...known].sort().join(', ')}`,
  )
}

/** A numeric option's range: `[min, max]`, and whether it must be a whole number. */
export interface NumberBound {
  min: number
  max: number
  integer?: boolean
  /** Why the upper bound is where it is, said in the error. */
  why: string
}

/**
 * Throws a RangeError naming every numeric option of `options` outside its bound, with the range
 * and why. Options that are absent (undefined) are fine.
 *
 * @example
 * checkNumberOptions('actors.openai({ model: "gpt-4o" })', { timeoutMs: 1e12 }, REMOTE_BOUNDS)
 * // RangeError: actors.openai({ model: "gpt-4o" }): timeoutMs must be a number from 1 to 3600000 (one hour per try; ...), got 1000000000000
 */
export function checkNumberOptions(
  where: string,
  options: object,
  bounds: Readonly<Record<string, NumberBound>>,
): void {
  const problems: string[] = []
  for (const [name, bound] of Object.entries(bounds)) {
    const value = (options as Record<string, unknown>)[name]
    if (value === undefined) continue
    const ok =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      value >= bound.min &&
      value <= bound.max &&
      (!bound.integer || Number.isInteger(value))
    if (!ok)
      problems.push(
        `${name} must be ${bound.integer ? 'a whole number' : 'a number'} from ${bound.min} to ${bound.max} (${bound.why}), got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
      )
  }
  if (problems.length > 0) throw new RangeError(`${where}: ${problems.join('; ')}`)
}
