/**
 * The `numeric` verifier: the number in the answer is within a tolerance of the expected value,
 * given once or taken from each task's `expected`.
 */
import type { AnyTask } from '../core/task.js'
import { shown } from '../core/component-error.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import { expectedValuesOf, pathOption } from './exact-match.js'
import { jsonAnswer } from './json.js'
import { answerField, formatJsonPath, type JsonPath } from './json-path.js'
import { booleanOption, choiceOption, emptyAnswer, quote } from './reference.js'
import type { Verdict, Verifier } from './verifier.js'

/** The options of `verifiers.numeric()`. */
export interface NumericOptions {
  /** The expected value for every task. Default: each task's `expected` (a number, a number written as a string, or a list of them). */
  expected?: number
  /** The largest absolute difference that still passes (default 0: equal). */
  tolerance?: number
  /** The largest difference as a share of the expected value's size (0.01 is 1%); the larger of the two tolerances applies. Default 0. */
  relativeTolerance?: number
  /**
   * Which number of the answer is compared: `'last'` (default: "… so the total is 42") or `'only'`
   * (an answer holding several numbers fails, saying so).
   */
  pick?: 'last' | 'only'
  /** Show the expected value in the diagnostics, which `feedback.verifier()` passes on. Default false: it is the answer. */
  revealExpected?: boolean
  /**
   * Read one field of a JSON answer (`'total'`, `'items[0].price'`): a JSON number as it is, a
   * string field as text (`"1,234.50"`, with `pick`). Without it, an answer that is a JSON object
   * or array (or braces that do not parse) fails, saying so: its last number is whatever field came last
   * (`{"total": 1234.5, "date": "2025-03-14"}` ends in 14), never the one meant.
   */
  path?: string
}

const OPTIONS = ['expected', 'tolerance', 'relativeTolerance', 'pick', 'revealExpected', 'path'] as const
const WHERE = 'verifiers.numeric()'

// Digits with optional thousands separators, a decimal part and an exponent; a sign (ASCII or the
// Unicode minus) only where it starts the number, so "3-4" is not read as 3 and -4.
const NUMBER = /(?<![\w.])[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|(?<![\w.])[-+−]?\.\d+/g

/**
 * The numbers written in a text, in order: `1,234.5` is 1234.5, `−3` (Unicode minus) is −3, `5%` is 5.
 *
 * @example
 * numbersIn('From 1,200 to 1,250: a rise of 4.2%.') // [1200, 1250, 4.2]
 */
export function numbersIn(text: string): number[] {
  return [...text.matchAll(NUMBER)].map((m) => Number(m[0].replace(/,/g, '').replace('−', '-'))).filter(Number.isFinite)
}

/** A task's expected values, or a reason it has none that can be compared. */
function expectedValues(task: AnyTask): number[] | string {
  const expected = expectedValuesOf(task)
  if (typeof expected === 'string') return expected
  const values = expected.map((e) => (typeof e === 'number' ? [e] : typeof e === 'string' ? numbersIn(e) : []))
  const bad = expected.filter((_, i) => values[i]!.length !== 1)
  if (bad.length > 0)
    return `has an \`expected\` that is not one number: ${bad.map((b) => (typeof b === 'string' ? quote(b) : String(b))).join(', ')}`
  return values.map((v) => v[0]!)
}

/** How a JSON object or array answer is described when no `path` says which of its numbers is meant. */
function jsonShape(answer: string): string | undefined {
  const trimmed = answer.trim()
  // Only what could be JSON is parsed: a sentence with a number in it never is.
  if (!/^[[{]|^```/.test(trimmed)) return undefined
  const read = jsonAnswer(answer, true)
  // Braces that do not parse are still an object's fields, whose last number is no more the one meant.
  if ('problem' in read)
    return /^(```[^\n]*\n\s*)?\{/.test(trimmed) ? 'an object ({…}) that is not valid JSON' : undefined
  if (typeof read.value !== 'object' || read.value === null) return undefined
  return Array.isArray(read.value) ? 'a JSON array' : 'a JSON object'
}

/** The numbers of a field: a JSON number, or those written in a string field; else why it has none. */
function fieldNumbers(value: unknown, path: JsonPath): number[] | string {
  if (typeof value === 'number') return [value]
  if (typeof value === 'string') return numbersIn(value)
  const kind =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value === 'object'
          ? 'an object'
          : `a ${typeof value}`
  return `the field ${formatJsonPath(path)} is ${kind}, not a number`
}

function checkedNumber(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new TypeError(`${WHERE}: ${name} must be a finite number >= 0, got ${shown(value)}`)
  return value
}

/**
 * A verifier that reads a number from the answer (its last one, or its only one with `pick:
 * 'only'`) and passes it when it is within `tolerance` (absolute) or `relativeTolerance` (a share
 * of the expected value) of the expected value: `expected` for every task, else the task's
 * `expected` (a string such as `'42'`, or a list of accepted values). A failed verdict says which
 * number it read and that it is outside the tolerance; the expected value itself only with
 * `revealExpected: true`. An answer with no number is `no-answer`.
 *
 * With `path` it reads one field of a JSON answer (`path: 'total'` reads 1234.5 from
 * `{"total": 1234.5, "date": "2025-03-14"}`). Without one, an answer that is a JSON object or array
 * fails, saying so, rather than being read for its last number (14 there).
 *
 * @example
 * seqEval('arithmetic', { tasks, verifier: verifiers.numeric({ tolerance: 0.01 }), ... }) // tasks: [{ …, expected: '3.14' }]
 * seqEval('invoices', { tasks, verifier: verifiers.numeric({ path: 'total', tolerance: 0.005 }), ... }) // tasks: [{ …, expected: 1234.5 }]
 */
export function numeric(options: NumericOptions = {}): Verifier {
  rejectUnknownOptions(WHERE, options, OPTIONS)
  if (options.expected !== undefined && (typeof options.expected !== 'number' || !Number.isFinite(options.expected))) {
    throw new TypeError(
      `${WHERE}: expected must be a finite number, got ${shown(options.expected)} (leave it out to use each task's \`expected\`)`,
    )
  }
  const given = options.expected
  const tolerance = checkedNumber('tolerance', options.tolerance, 0)
  const relative = checkedNumber('relativeTolerance', options.relativeTolerance, 0)
  const pick = choiceOption(WHERE, 'pick', options.pick, ['last', 'only'] as const, 'last')
  const reveal = booleanOption(WHERE, 'revealExpected', options.revealExpected, false)
  const { path, settings: pathSettings } = pathOption(WHERE, options.path)
  const source = path === undefined ? 'the answer' : `the field ${formatJsonPath(path)}`
  const allowed = (e: number) => Math.max(tolerance, relative * Math.abs(e))
  const within = (x: number, e: number) => Math.abs(x - e) <= allowed(e)
  const band = (e: number) => (allowed(e) === 0 ? String(e) : `${e} ± ${allowed(e)}`)
  /** The numbers to choose from: the field's, or the answer's; or why there are none to read. */
  const numbersOf = (answer: string): number[] | string | { verdict: Verdict } => {
    if (path !== undefined) {
      const field = answerField(answer, path)
      return 'verdict' in field ? field : fieldNumbers(field.value, path)
    }
    const shape = jsonShape(answer)
    if (shape !== undefined)
      return `the answer is ${shape}, not a number: which of its numbers is meant is not said; reply with the number alone`
    return numbersIn(answer)
  }
  return {
    name: 'numeric',
    // 2: a JSON object or array answer without `path` fails instead of being read for its last number.
    version: '2',
    settings: {
      expected: given ?? null,
      tolerance,
      relativeTolerance: relative,
      pick,
      revealExpected: reveal,
      ...pathSettings,
    },
    checkTask(task) {
      if (given !== undefined) return []
      const values = expectedValues(task)
      return typeof values === 'string' ? [`task ${task.id}: numeric ${values}`] : []
    },
    normalise: (answer) => {
      const numbers = numbersOf(answer)
      return Array.isArray(numbers) && numbers.length > 0 ? String(numbers.at(-1)) : answer.trim()
    },
    verify(task, answer): Verdict {
      const values = given === undefined ? expectedValues(task) : [given]
      if (typeof values === 'string') throw new Error(`${WHERE}: task ${JSON.stringify(task.id)} ${values}`)
      if (answer.trim() === '') return emptyAnswer()
      const numbers = numbersOf(answer)
      if (typeof numbers === 'string')
        return { pass: false, score: 0, diagnostics: { outcome: 'failed', summary: numbers } }
      if (!Array.isArray(numbers)) return numbers.verdict
      if (numbers.length === 0)
        return {
          pass: false,
          score: 0,
          diagnostics: {
            outcome: 'no-answer',
            summary: `${source} holds no number; ${path === undefined ? 'reply with the number' : 'give it as a number'}`,
          },
        }
      if (pick === 'only' && numbers.length > 1) {
        const listed = numbers.length <= 5 ? ` (${numbers.join(', ')})` : ''
        return {
          pass: false,
          score: 0,
          diagnostics: {
            outcome: 'failed',
            summary: `${source} holds ${numbers.length} numbers${listed}; ${path === undefined ? 'reply with one number' : 'give it as one number'}`,
          },
        }
      }
      const read = numbers.at(-1)!
      const from =
        numbers.length === 1 ? `read ${read} from ${source}` : `read ${read} from ${source} (its last number)`
      if (values.some((e) => within(read, e)))
        return {
          pass: true,
          score: 1,
          extracted: String(read),
          diagnostics: { outcome: 'passed', summary: `${from}: within the tolerance` },
        }
      const nearest = values.reduce((a, b) => (Math.abs(b - read) < Math.abs(a - read) ? b : a))
      const summary = reveal
        ? `${from}: the expected value is ${values.map(band).join(' or ')}, off by ${Number(Math.abs(read - nearest).toPrecision(12))}`
        : `${from}: not within the tolerance of the expected value${allowed(nearest) === 0 ? ' (it must be equal)' : ''}`
      return { pass: false, score: 0, extracted: String(read), diagnostics: { outcome: 'failed', summary } }
    },
  }
}
