/**
 * What the short-answer verifiers (contains, regex, JSON, numeric, one-of) share: how an answer is
 * quoted in feedback, and how their options are checked, so each error names the verifier, the
 * option and the fix in the same words.
 */
import { shown } from '../core/component-error.js'
import type { Verdict } from './verifier.js'

/** An answer or a reference value is quoted in diagnostics up to this many characters. */
const QUOTE_CHARS = 200

/**
 * A string as diagnostics show it: JSON-quoted (so whitespace and quotes are visible), cut to 200
 * characters.
 *
 * @example
 * quote('Paris\n') // '"Paris\\n"'
 */
export function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS - 1)}…` : text)
}

/**
 * A boolean option, or its default; anything else is a TypeError naming the option.
 *
 * @example
 * booleanOption('verifiers.contains()', 'ignoreCase', undefined, false) // false
 */
export function booleanOption(where: string, name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback
  if (typeof value !== 'boolean') throw new TypeError(`${where}: ${name} must be true or false, got ${shown(value)}`)
  return value
}

/**
 * One of a closed list of string values, or its default; anything else is a TypeError that lists them.
 *
 * @example
 * choiceOption('verifiers.contains()', 'match', 'any', ['all', 'any'], 'all') // 'any'
 */
export function choiceOption<T extends string>(
  where: string,
  name: string,
  value: unknown,
  choices: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    throw new TypeError(`${where}: ${name} must be ${choices.map((c) => `'${c}'`).join(' or ')}, got ${shown(value)}`)
  }
  return value as T
}

/**
 * A non-empty list of non-empty strings (one string is a list of one), or a TypeError naming the
 * argument and the fix.
 *
 * @example
 * stringList('verifiers.contains(text)', 'text', 'Final answer:') // ['Final answer:']
 */
export function stringList(where: string, name: string, value: unknown): string[] {
  const list = typeof value === 'string' ? [value] : value
  if (!Array.isArray(list) || list.length === 0 || !list.every((v) => typeof v === 'string' && v !== '')) {
    throw new TypeError(
      `${where}: ${name} must be a non-empty string or a non-empty list of non-empty strings, got ${shown(value)}`,
    )
  }
  return list as string[]
}

/**
 * The verdict of an empty answer: nothing to check. A fresh object each time (the loop may add to it).
 *
 * @example
 * emptyAnswer().diagnostics.outcome // 'no-answer'
 */
export function emptyAnswer(): Verdict {
  return { pass: false, score: 0, diagnostics: { outcome: 'no-answer', summary: 'the answer is empty' } }
}
