/**
 * The `numeric` verifier: the number in the answer is within a tolerance of the expected value,
 * given once or taken from each task's `expected`.
 */
import type { AnyTask } from '../core/task.js'
import { shown } from '../core/component-error.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import { expectedOf } from './exact-match.js'
import { booleanOption, choiceOption, emptyAnswer, quote } from './reference.js'
import type { Verdict, Verifier } from './verifier.js'

/** The options of `verifiers.numeric()`. */
export interface NumericOptions {
  /** The expected value for every task. Default: each task's `expected` (a number written as a string, or a list of them). */
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
}

const OPTIONS = ['expected', 'tolerance', 'relativeTolerance', 'pick', 'revealExpected'] as const
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
  const expected = expectedOf(task)
  if (typeof expected === 'string') return expected
  const values = expected.map((e) => numbersIn(e))
  const bad = expected.filter((_, i) => values[i]!.length !== 1)
  if (bad.length > 0) return `has an \`expected\` that is not one number: ${bad.map(quote).join(', ')}`
  return values.map((v) => v[0]!)
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
 * @example
 * seqEval('arithmetic', { tasks, verifier: verifiers.numeric({ tolerance: 0.01 }), ... }) // tasks: [{ …, expected: '3.14' }]
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
  const allowed = (e: number) => Math.max(tolerance, relative * Math.abs(e))
  const within = (x: number, e: number) => Math.abs(x - e) <= allowed(e)
  const band = (e: number) => (allowed(e) === 0 ? String(e) : `${e} ± ${allowed(e)}`)
  return {
    name: 'numeric',
    version: '1',
    settings: { expected: given ?? null, tolerance, relativeTolerance: relative, pick, revealExpected: reveal },
    checkTask(task) {
      if (given !== undefined) return []
      const values = expectedValues(task)
      return typeof values === 'string' ? [`task ${task.id}: numeric ${values}`] : []
    },
    normalise: (answer) => {
      const numbers = numbersIn(answer)
      return numbers.length === 0 ? answer.trim() : String(numbers.at(-1))
    },
    verify(task, answer): Verdict {
      const values = given === undefined ? expectedValues(task) : [given]
      if (typeof values === 'string') throw new Error(`${WHERE}: task ${JSON.stringify(task.id)} ${values}`)
      if (answer.trim() === '') return emptyAnswer()
      const numbers = numbersIn(answer)
      if (numbers.length === 0)
        return {
          pass: false,
          score: 0,
          diagnostics: { outcome: 'no-answer', summary: 'the answer holds no number; reply with the number' },
        }
      if (pick === 'only' && numbers.length > 1) {
        const listed = numbers.length <= 5 ? ` (${numbers.join(', ')})` : ''
        return {
          pass: false,
          score: 0,
          diagnostics: {
            outcome: 'failed',
            summary: `the answer holds ${numbers.length} numbers${listed}; reply with one number`,
          },
        }
      }
      const read = numbers.at(-1)!
      const from =
        numbers.length === 1 ? `read ${read} from the answer` : `read ${read} from the answer (its last number)`
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
