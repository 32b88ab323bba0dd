/**
 * The `predicate` verifier: your own rule, `(answer, task) => boolean | { pass, reason }`, as a
 * verifier with a checked result and diagnostics.
 */
import { z } from 'zod'
import { checkReturned, shown } from '../core/component-error.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import { isPromiseLike, type Awaitable } from '../core/awaitable.js'
import type { AnyTask } from '../core/task.js'
import type { Diagnostics, Verdict, Verifier } from './verifier.js'

/** What a predicate returns: whether the answer passes, and optionally why (the feedback's words). */
export type PredicateResult = boolean | { pass: boolean; reason?: string }

/** A rule over an answer and its task; sync or async. */
export type PredicateRule = (answer: string, task: AnyTask) => Awaitable<PredicateResult>

/** The options of `verifiers.predicate(fn)`. */
export interface PredicateOptions {
  /**
   * The rule's name, recorded in the protocol as the verifier's `settings.rule`. Default: the
   * function's own name (`const isEven = …` gives `isEven`), else `anonymous`.
   */
  name?: string
  /**
   * The rule's version, recorded as `settings.ruleVersion` (default `'1'`). The function's body is
   * not part of the fingerprint (a closure's captured values cannot be seen, and reformatting
   * would change a hash of its source): when the rule changes what it accepts, change its name or
   * bump this version, or a baseline will compare numbers of two different rules.
   */
  version?: string
  /** Values the rule depends on (a threshold, a pattern's source), recorded in the fingerprint. Keys `rule` and `ruleVersion` are taken. */
  settings?: Record<string, string | number | boolean | null>
  /**
   * What a rule that throws means. `'error'` (default): an infrastructure error of the trajectory,
   * as for any verifier that throws (the cell fails unless errors are tolerated). `'fail'`: a
   * failed verdict with outcome `load-error` and the error's message as the diagnostics, for rules
   * that parse the answer (`JSON.parse(answer)`) and may throw on a malformed one. Part of the fingerprint.
   */
  onThrow?: 'error' | 'fail'
}

const OPTIONS = ['name', 'version', 'settings', 'onThrow'] as const
const NAME = /^[\w.:/@+-]{1,100}$/

const ObjectResultSchema = z.object({ pass: z.boolean(), reason: z.string().optional() })
// An object is checked field by field (so the error names `pass` or `reason`); anything else must be a boolean.
const resultSchema = (value: unknown): z.ZodType<PredicateResult> =>
  typeof value === 'object' && value !== null ? ObjectResultSchema : z.boolean()

const RESULT_HINTS: Readonly<Record<string, string>> = {
  '(root)':
    'return true, false or { pass: boolean, reason?: string } (a string such as "yes", a number or undefined is never counted; did the rule forget to return?)',
  pass: 'set `pass` to the boolean true or false (rubric predicates say `met`; here it is `pass`)',
  reason: 'make `reason` a string (the one line the actor reads as feedback), or leave it out',
}

/** The verdict of a rule's result: the reason, else a plain sentence, is the feedback's text. */
function verdictOf(result: PredicateResult, answer: string, rule: string): Verdict {
  const pass = typeof result === 'boolean' ? result : result.pass
  const reason = typeof result === 'boolean' ? undefined : result.reason?.trim() || undefined
  let diagnostics: Diagnostics
  if (pass) diagnostics = { outcome: 'passed', summary: reason ?? `the answer satisfies ${rule}` }
  else if (answer.trim() === '') diagnostics = { outcome: 'no-answer', summary: reason ?? 'the answer is empty' }
  else diagnostics = { outcome: 'failed', summary: reason ?? `the answer does not satisfy ${rule}` }
  return { pass, score: pass ? 1 : 0, diagnostics }
}

/**
 * A verifier from your own rule: `fn(answer, task)` returns (or resolves to) `true`, `false` or
 * `{ pass, reason }`. The `reason` is the failed verdict's summary, which `feedback.verifier()`
 * shows the actor, so write it for the actor ("the list is not sorted: 3 comes before 2").
 *
 * What the rule returns is checked: anything but a boolean or `{ pass: boolean, reason?: string }`
 * (`'yes'`, `1`, `undefined`, `{ met: true }`) is a ComponentError naming the rule and the fix,
 * which fails the cell; it never counts as a pass or as a failure. A rule that throws is an
 * infrastructure error of the trajectory (default) or a failed verdict (`onThrow: 'fail'`).
 *
 * In the protocol it is verifier `predicate` with `settings.rule` = the name and
 * `settings.ruleVersion` = the version, plus your `settings`. The function's body is not
 * fingerprinted: change the name or the version when the rule changes.
 *
 * @example
 * const even = verifiers.predicate((answer) => Number(answer) % 2 === 0 || { pass: false, reason: `${answer.trim()} is not an even number` }, { name: 'even' })
 * seqEval('evens', { tasks, verifier: even, ... })
 */
export function predicate(fn: PredicateRule, options: PredicateOptions = {}): Verifier {
  if (typeof fn !== 'function')
    throw new TypeError(
      `verifiers.predicate(fn): fn must be a function (answer, task) => boolean | { pass, reason }, got ${shown(fn)}`,
    )
  rejectUnknownOptions('verifiers.predicate(fn)', options, OPTIONS)
  const rule = options.name ?? (NAME.test(fn.name) ? fn.name : 'anonymous')
  const where = `verifiers.predicate(fn, { name: ${JSON.stringify(rule)} })`
  if (typeof rule !== 'string' || !NAME.test(rule))
    throw new TypeError(`${where}: name must be 1 to 100 letters, digits or . _ : / @ + -, got ${shown(rule)}`)
  const version = options.version ?? '1'
  if (typeof version !== 'string' || version === '' || version.length > 100)
    throw new TypeError(`${where}: version must be a non-empty string of at most 100 characters, got ${shown(version)}`)
  const onThrow = options.onThrow ?? 'error'
  if (onThrow !== 'error' && onThrow !== 'fail')
    throw new TypeError(`${where}: onThrow must be 'error' or 'fail', got ${shown(onThrow)}`)
  const extra = options.settings ?? {}
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra))
    throw new TypeError(
      `${where}: settings must be an object of strings, numbers, booleans or nulls, got ${shown(extra)}`,
    )
  for (const [key, value] of Object.entries(extra)) {
    if (key === 'rule' || key === 'ruleVersion' || key === 'onThrow')
      throw new TypeError(
        `${where}: settings.${key} is taken (it is the ${key === 'onThrow' ? 'onThrow option' : `rule's ${key === 'rule' ? 'name' : 'version'}`}); choose another key`,
      )
    if (!(
      value === null ||
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value))
    )) {
      throw new TypeError(
        `${where}: settings.${key} must be a string, a finite number, a boolean or null (it is hashed into the fingerprint), got ${shown(value)}`,
      )
    }
  }
  const breach = (task: AnyTask) => () => ({
    component: `${where} rule`,
    returned: 'predicate result',
    where: `for task ${JSON.stringify(task.id)}`,
    contract: 'true, false or { pass: boolean, reason?: string }, or a promise of one',
    hints: RESULT_HINTS,
  })
  const judged = (task: AnyTask, answer: string, result: unknown): Verdict => {
    // The hot path: a boolean needs no parse.
    if (typeof result === 'boolean') return verdictOf(result, answer, rule)
    return verdictOf(checkReturned(resultSchema(result), result, breach(task)), answer, rule)
  }
  const thrown = (task: AnyTask, error: unknown): Verdict => {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    if (onThrow === 'fail')
      return {
        pass: false,
        score: 0,
        diagnostics: { outcome: 'load-error', summary: `the answer could not be checked: ${message}`, error: message },
      }
    throw new Error(
      `${where}: the rule threw for task ${JSON.stringify(task.id)}: ${message} (return { pass: false, reason } for an answer it cannot read, or pass onThrow: 'fail')`,
      { cause: error },
    )
  }
  return {
    name: 'predicate',
    version: '1',
    settings: { ...extra, rule, ruleVersion: version, onThrow },
    verify(task, answer): Awaitable<Verdict> {
      let result: Awaitable<unknown>
      try {
        result = fn(answer, task)
      } catch (error) {
        return thrown(task, error)
      }
      if (!isPromiseLike(result)) return judged(task, answer, result)
      return Promise.resolve(result).then(
        (value) => judged(task, answer, value),
        (error: unknown) => thrown(task, error),
      )
    },
  }
}
