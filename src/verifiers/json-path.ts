/**
 * A field of a JSON answer, for the short-answer verifiers' `path` option: `total`,
 * `items[0].sku`, `$.meta["created at"]`. An extraction task answers with one JSON object and each
 * check reads its own field, instead of a verifier reading the whole text (where
 * `{"total": 1234.5, "date": "2025-03-14"}` has 14 as its last number).
 */
import { shown } from '../core/component-error.js'
import { jsonAnswer } from './json.js'
import type { Verdict } from './verifier.js'

/** A parsed path: object keys and array indices, in order. */
export type JsonPath = readonly (string | number)[]

// A bare key runs to the next `.` or `[`; a bracket holds an index or a JSON string ("a.b").
const BARE = /^[^.[\]"\s][^.[\]"]*/
const INDEX = /^\[(\d+)\]/
const QUOTED = /^\[("(?:[^"\\]|\\.)*")\]/

/**
 * Parses a path written as the JSON verifier prints one: keys joined by dots, indices in brackets,
 * a key with dots or brackets as a JSON string in brackets; an optional leading `$`. Throws a
 * TypeError naming `where` and the fix for anything else (an empty path, `items[-1]`, `a..b`).
 *
 * @example
 * parseJsonPath('items[0].sku', 'verifiers.exactMatch()') // ['items', 0, 'sku']
 * parseJsonPath('$["unit price"]', 'verifiers.numeric()') // ['unit price']
 */
export function parseJsonPath(text: unknown, where: string): JsonPath {
  const bad = (why: string) =>
    new TypeError(
      `${where}: path ${shown(text)} ${why}; write keys joined by dots and indices in brackets, e.g. 'total' or 'items[0].sku' (a key with a dot or a bracket as a JSON string: '["unit.price"]')`,
    )
  if (typeof text !== 'string' || text.trim() === '') throw bad('must be a non-empty string')
  let rest = text.startsWith('$') ? text.slice(1) : text
  const out: (string | number)[] = []
  while (rest !== '') {
    const first = out.length === 0 && !text.startsWith('$')
    if (rest.startsWith('.') || (first && !rest.startsWith('['))) {
      const body = rest.startsWith('.') ? rest.slice(1) : rest
      const key = BARE.exec(body)
      if (key === null) throw bad(`has no key at ${JSON.stringify(body.slice(0, 20)) || 'its end'}`)
      out.push(key[0])
      rest = body.slice(key[0].length)
      continue
    }
    const index = INDEX.exec(rest)
    if (index !== null) {
      const n = Number(index[1])
      if (!Number.isSafeInteger(n)) throw bad(`has an index too large to be one (${index[1]})`)
      out.push(n)
      rest = rest.slice(index[0].length)
      continue
    }
    const quoted = QUOTED.exec(rest)
    if (quoted !== null) {
      out.push(JSON.parse(quoted[1]!) as string)
      rest = rest.slice(quoted[0].length)
      continue
    }
    throw bad(`cannot be read at ${JSON.stringify(rest.slice(0, 20))}`)
  }
  if (out.length === 0) throw bad('names no field')
  return out
}

/**
 * A path as diagnostics and settings show it: `items[0].sku`, `["unit.price"]`. Parsing it gives
 * the same path back (a property test holds it).
 *
 * @example
 * formatJsonPath(['items', 0, 'sku']) // 'items[0].sku'
 */
export function formatJsonPath(path: JsonPath): string {
  return path
    .map((part, i) => {
      if (typeof part === 'number') return `[${part}]`
      const bare = BARE.exec(part)
      // A first key starting with `$` would read as the root: it is quoted.
      if (bare?.[0] === part && part.trim() === part && !(i === 0 && part.startsWith('$')))
        return i === 0 ? part : `.${part}`
      return `[${JSON.stringify(part)}]`
    })
    .join('')
}

const kindOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'object'
        ? 'an object'
        : `a ${typeof value}`

/**
 * The value at `path` in a JSON value, or why there is none, naming the first step that is missing
 * (`items has 1 element`, `total is a number, not an object`).
 *
 * @example
 * readJsonPath({ items: [{ sku: 'A-1' }] }, ['items', 0, 'sku']) // { found: true, value: 'A-1' }
 */
export function readJsonPath(
  value: unknown,
  path: JsonPath,
): { found: true; value: unknown } | { found: false; why: string } {
  let here = value
  for (let i = 0; i < path.length; i++) {
    const part = path[i]!
    const at = i === 0 ? 'the JSON' : formatJsonPath(path.slice(0, i))
    if (typeof part === 'number') {
      if (!Array.isArray(here)) return { found: false, why: `${at} is ${kindOf(here)}, not an array` }
      if (part >= here.length)
        return { found: false, why: `${at} has ${here.length} element${here.length === 1 ? '' : 's'}` }
      here = here[part] as unknown
    } else {
      if (typeof here !== 'object' || here === null || Array.isArray(here))
        return { found: false, why: `${at} is ${kindOf(here)}, not an object` }
      if (!Object.hasOwn(here, part)) return { found: false, why: `${at} has no field ${JSON.stringify(part)}` }
      here = (here as Record<string, unknown>)[part]
    }
  }
  return { found: true, value: here }
}

/**
 * A field's value as a text verifier compares it: a string as it is, anything else as its JSON
 * text (`1234.5`, `true`, `null`, `["a","b"]`).
 *
 * @example
 * fieldText(1234.5) // '1234.5'
 */
export function fieldText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/**
 * The field a `path` option names in an answer, or the failed verdict to return instead: the
 * answer is not JSON (the parse error, with its line and column), or the field is missing (which
 * step is). The answer may be in one ```json fence, as `verifiers.json()` reads it.
 *
 * @example
 * const field = answerField('{"total": 12}', ['total'])
 * if ('verdict' in field) return field.verdict // else field.value === 12
 */
export function answerField(answer: string, path: JsonPath): { value: unknown } | { verdict: Verdict } {
  const named = `field ${formatJsonPath(path)}`
  const read = jsonAnswer(answer, true)
  if ('problem' in read) {
    const summary =
      read.problem === 'empty'
        ? 'the answer is empty'
        : `${read.problem}, so its ${named} cannot be read; reply with the JSON alone`
    return {
      verdict: {
        pass: false,
        score: 0,
        diagnostics: { outcome: read.problem === 'empty' ? 'no-answer' : 'failed', summary },
      },
    }
  }
  const found = readJsonPath(read.value, path)
  if (!found.found)
    return {
      verdict: {
        pass: false,
        score: 0,
        extracted: read.text,
        diagnostics: { outcome: 'failed', summary: `the JSON has no ${named}: ${found.why}` },
      },
    }
  return { value: found.value }
}
