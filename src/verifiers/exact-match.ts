/**
 * The `exact-match` verifier: the answer, normalised as its options say, equals the task's
 * expected answer (or one of them).
 */
import { z } from 'zod'
import type { AnyTask } from '../core/task.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import { answerField, fieldText, formatJsonPath, parseJsonPath, type JsonPath } from './json-path.js'
import { quote } from './reference.js'
import type { Diagnostics, Verdict, Verifier } from './verifier.js'

/** The options of `verifiers.exactMatch()`. */
export interface ExactMatchOptions {
  /** Ignore whitespace at the start and end of the answer and of the expected answer. Default true. */
  trim?: boolean
  /** Compare case-insensitively (both sides lower-cased with `toLowerCase()`, no locale). Default false. */
  ignoreCase?: boolean
  /** Treat every run of whitespace (spaces, tabs, newlines) as one space. Default false. */
  collapseWhitespace?: boolean
  /**
   * Show the expected answer in the diagnostics (so `feedback.verifier()` tells the actor), as a
   * test `answer` with expected and actual values. Default false: for an exact-match task the
   * expected answer *is* the solution, and feedback that shows it makes every revision a copy.
   */
  revealExpected?: boolean
  /**
   * Compare one field of a JSON answer instead of the whole answer: `'total'`, `'items[0].sku'`
   * (keys joined by dots, indices in brackets). The answer must then be JSON (alone, or in one
   * ```json fence); a field that is not a string is compared as its JSON text (`1234.5`, `true`).
   * Part of the settings (the fingerprint) when set.
   */
  path?: string
}

/** The normalisations and feedback choice of an exact-match verifier, as its settings record them. */
export interface ExactMatchSettings {
  trim: boolean
  ignoreCase: boolean
  collapseWhitespace: boolean
  revealExpected: boolean
  [key: string]: boolean
}

const FLAGS = ['trim', 'ignoreCase', 'collapseWhitespace', 'revealExpected'] as const
const WHERE = 'verifiers.exactMatch()'

/**
 * The answer as exact-match compares it: collapsed (every whitespace run to one space), trimmed
 * and lower-cased as the settings say, in that order.
 *
 * @example
 * normaliseExact('  Paris\n', { trim: true, ignoreCase: true, collapseWhitespace: false, revealExpected: false }) // 'paris'
 */
export function normaliseExact(
  text: string,
  settings: Pick<ExactMatchSettings, 'trim' | 'ignoreCase' | 'collapseWhitespace'>,
): string {
  let out = settings.collapseWhitespace ? text.replace(/\s+/g, ' ') : text
  if (settings.trim) out = out.trim()
  return settings.ignoreCase ? out.toLowerCase() : out
}

/** One expected value: text, a finite number or a boolean. */
const ExpectedValueSchema = z.union([z.string(), z.number().refine(Number.isFinite, 'must be finite'), z.boolean()])

/**
 * The task field the exact-match verifier owns; `protocol/task.ts` adds it to TaskSchema.
 *
 * @example
 * ExactMatchTaskFieldsSchema.parse({ expected: ['Paris', 'paris, France'] })
 */
export const ExactMatchTaskFieldsSchema = z.object({
  /**
   * The expected answer, for short-answer tasks (`verifiers.exactMatch()`, `numeric`, `contains`,
   * `oneOf`): a string, a number or a boolean (as a JSON Lines task file writes them), or a list of
   * accepted answers (aliases). Text verifiers compare a number or a boolean as its text (`1234.5`,
   * `true`). Part of the benchmark's content hash when set.
   */
  expected: z.union([ExpectedValueSchema, z.array(ExpectedValueSchema).min(1)]).optional(),
})

const ExpectedSchema = ExactMatchTaskFieldsSchema.shape.expected.unwrap()

/** The expected values of a task as written (strings, numbers, booleans), or a reason it has none. */
export function expectedValuesOf(task: AnyTask): (string | number | boolean)[] | string {
  if (task.expected === undefined)
    return 'needs `expected` (the expected answer, or a list of accepted answers), but the task has none'
  const parsed = ExpectedSchema.safeParse(task.expected)
  if (!parsed.success)
    return 'has an `expected` that is neither a string, a finite number or a boolean, nor a non-empty list of them'
  return Array.isArray(parsed.data) ? parsed.data : [parsed.data]
}

/** The expected answers of a task as text (a number or a boolean as its text), or a reason it has none. */
export function expectedOf(task: AnyTask): string[] | string {
  const values = expectedValuesOf(task)
  return typeof values === 'string' ? values : values.map((v) => (typeof v === 'string' ? v : String(v)))
}

/**
 * A `path` option checked at declaration: the parsed path and the settings entry it adds (none
 * when unset, so a verifier without one keeps its fingerprint).
 */
export function pathOption(where: string, value: unknown): { path?: JsonPath; settings: { path?: string } } {
  if (value === undefined) return { settings: {} }
  const path = parseJsonPath(value, where)
  return { path, settings: { path: formatJsonPath(path) } }
}

/**
 * The text a text verifier checks: the answer, or with a `path` the field's text; or the failed
 * verdict when the field cannot be read.
 */
export function checkedText(answer: string, path: JsonPath | undefined): { text: string } | { verdict: Verdict } {
  if (path === undefined) return { text: answer }
  const field = answerField(answer, path)
  return 'verdict' in field ? field : { text: fieldText(field.value) }
}

/**
 * Why a failed answer failed, without giving the expected answer away: it differs only in letter
 * case or only in whitespace, or holds an accepted answer among other text.
 */
export function nearMiss(
  answer: string,
  expected: readonly string[],
  ignoreCase: boolean,
  noun = 'the expected answer',
): string | undefined {
  const spacing = { trim: true, ignoreCase, collapseWhitespace: true }
  const loose = { ...spacing, ignoreCase: true }
  if (expected.some((e) => normaliseExact(e, spacing) === normaliseExact(answer, spacing)))
    return `it differs from ${noun} only in whitespace`
  const folded = normaliseExact(answer, loose)
  const foldedExpected = expected.map((e) => normaliseExact(e, loose)).filter((e) => e !== '')
  if (foldedExpected.includes(folded))
    return `it differs from ${noun} in letter case (the comparison is case-sensitive)`
  if (foldedExpected.some((e) => folded.includes(e)))
    return `it holds ${noun} among other text: reply with the answer alone`
  return undefined
}

/**
 * Exact-match verification: the answer passes when, normalised as the options say (see
 * {@link normaliseExact}), it equals the task's `expected` answer or one of them. For short-answer
 * tasks (a number, a name, a label); use `verifiers.predicate()` to extract an answer first or to
 * accept a range of answers.
 *
 * The normalisations and `revealExpected` are its settings, so they are part of the protocol
 * fingerprint; the expected answers are part of the benchmark's content hash. A failed verdict's
 * summary says how the answer missed when it was a near miss (only case, only whitespace, extra
 * text), which `feedback.verifier()` passes on, but never the expected answer itself unless
 * `revealExpected: true`. Tasks without `expected` are refused at declaration (`checkTask`).
 *
 * With `path`, one field of a JSON answer is compared instead (`{"sku": "A-1", …}` with `path:
 * 'sku'`); an answer that is not JSON, or lacks the field, fails saying so.
 *
 * @example
 * const tasks = [{ id: 'capital/fr', prompt: 'The capital of France? One word.', expected: 'Paris' }]
 * seqEval('capitals', { tasks, verifier: verifiers.exactMatch({ ignoreCase: true }), ... })
 * seqEval('invoices', { tasks, verifier: verifiers.exactMatch({ path: 'items[0].sku' }), ... }) // tasks: [{ …, expected: 'A-1' }]
 */
export function exactMatch(options: ExactMatchOptions = {}): Verifier {
  rejectUnknownOptions(WHERE, options, [...FLAGS, 'path'])
  const { path, settings: pathSettings } = pathOption(WHERE, options.path)
  const subject = path === undefined ? 'the answer' : `the field ${formatJsonPath(path)}`
  const settings: ExactMatchSettings = {
    trim: true,
    ignoreCase: false,
    collapseWhitespace: false,
    revealExpected: false,
  }
  for (const name of FLAGS) {
    const value = options[name]
    if (value === undefined) continue
    if (typeof value !== 'boolean')
      throw new TypeError(`${WHERE}: ${name} must be true or false, got ${JSON.stringify(value) ?? String(value)}`)
    settings[name] = value
  }
  return {
    name: 'exact-match',
    version: '1',
    settings: { ...settings, ...pathSettings },
    checkTask(task) {
      const expected = expectedOf(task)
      return typeof expected === 'string' ? [`task ${task.id}: exactMatch ${expected}`] : []
    },
    normalise: (answer) => {
      const read = checkedText(answer, path)
      return normaliseExact('text' in read ? read.text : answer, settings)
    },
    verify(task, answer): Verdict {
      const expected = expectedOf(task)
      // A task without an expected answer cannot be verified: a broken benchmark, not a wrong answer.
      if (typeof expected === 'string') throw new Error(`${WHERE}: task ${JSON.stringify(task.id)} ${expected}`)
      const read = checkedText(answer, path)
      if ('verdict' in read) return read.verdict
      answer = read.text
      const normalised = normaliseExact(answer, settings)
      const pass = expected.some((e) => normaliseExact(e, settings) === normalised)
      const reveal: Pick<Diagnostics, 'tests'> = settings.revealExpected
        ? {
            tests: [
              {
                index: 0,
                source: `${path === undefined ? 'answer' : formatJsonPath(path)} == expected`,
                pass,
                call: path === undefined ? 'answer' : formatJsonPath(path),
                expected: expected.map(quote).join(' or '),
                actual: quote(normalised),
              },
            ],
          }
        : {}
      let diagnostics: Diagnostics
      if (pass) {
        diagnostics = { outcome: 'passed', summary: `${subject} matches the expected answer`, ...reveal }
      } else if (normalised.trim() === '') {
        diagnostics = { outcome: 'no-answer', summary: `${subject} is empty`, ...reveal }
      } else {
        const why = nearMiss(answer, expected, settings.ignoreCase)
        diagnostics = {
          outcome: 'failed',
          summary: `${subject} does not match the expected answer${why ? `: ${why}` : ''}`,
          ...reveal,
        }
      }
      return { pass, score: pass ? 1 : 0, extracted: normalised, diagnostics }
    },
  }
}
