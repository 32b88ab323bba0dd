/**
 * The `regex` verifier: the answer matches a regular expression, checked under a time limit so an
 * answer that makes the pattern backtrack for minutes is a failed verdict, not a hung run.
 */
import { Script, createContext } from 'node:vm'
import { shown } from '../core/component-error.js'
import { checkNumberOptions, rejectUnknownOptions } from '../core/option-checks.js'
import { checkedText, pathOption } from './exact-match.js'
import { formatJsonPath } from './json-path.js'
import { booleanOption, emptyAnswer } from './reference.js'
import type { Verdict, Verifier } from './verifier.js'

/** The options of `verifiers.regex()`. */
export interface RegexOptions {
  /** Flags for a pattern given as a string (`'i'`, `'m'`, `'s'`, `'u'`, `'v'`, `'d'`); a RegExp carries its own. */
  flags?: string
  /**
   * How long one match may take, in ms (default 1000, at most 60 000). A pattern with nested
   * quantifiers can backtrack for minutes on some answers; past the limit the answer fails, saying so.
   */
  timeoutMs?: number
  /** Show the pattern in the diagnostics (default true: it is a format the prompt asks for). */
  revealPattern?: boolean
  /**
   * Match one field of a JSON answer instead of the whole answer (`'date'`, `'items[0].sku'`); a
   * field that is not a string is matched as its JSON text. Part of the settings when set.
   */
  path?: string
}

const OPTIONS = ['flags', 'timeoutMs', 'revealPattern', 'path'] as const
const BOUNDS = { timeoutMs: { min: 1, max: 60_000, why: 'a minute for one match is a pattern to fix, not a setting' } }
const WHERE = 'verifiers.regex(pattern)'

// One context for every match: the pattern and the answer are handed in, the match handed out.
// Node's vm timeout interrupts a regular expression while it backtracks.
const context = createContext(Object.create(null) as object)
const MATCH = new Script('pattern.exec(answer)')

/** The pattern's match in the answer, null for none, or 'timeout'. */
function matchWithin(pattern: RegExp, answer: string, timeoutMs: number): RegExpExecArray | null | 'timeout' {
  const slots = context as { pattern?: RegExp; answer?: string }
  slots.pattern = pattern
  slots.answer = answer
  try {
    return MATCH.runInContext(context, { timeout: timeoutMs }) as RegExpExecArray | null
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout'
    throw error
  } finally {
    delete slots.pattern
    delete slots.answer
  }
}

function compile(pattern: unknown, flags: unknown): RegExp {
  if (pattern instanceof RegExp) {
    if (flags !== undefined)
      throw new TypeError(
        `${WHERE}: flags are for a string pattern; a RegExp carries its own (write /…/${String(flags)})`,
      )
    return pattern
  }
  if (typeof pattern !== 'string' || pattern === '')
    throw new TypeError(`${WHERE}: pattern must be a RegExp or a non-empty string, got ${shown(pattern)}`)
  if (flags !== undefined && typeof flags !== 'string')
    throw new TypeError(`${WHERE}: flags must be a string such as 'i' or 'ms', got ${shown(flags)}`)
  try {
    return new RegExp(pattern, flags)
  } catch (error) {
    throw new TypeError(
      `${WHERE}: ${JSON.stringify(pattern)} is not a valid regular expression (${(error as Error).message})`,
    )
  }
}

/**
 * A verifier that passes an answer the pattern matches (anywhere, unless the pattern is anchored
 * with `^…$`). The match is the verdict's `extracted` value. A failed verdict shows the pattern
 * (unless `revealPattern: false`) and says when the answer would match without the whitespace
 * around it or in other letter case, so a revision knows what to change.
 *
 * The `g` and `y` flags are refused: with them `RegExp.test` resumes from the last match, so the
 * same answer could pass and then fail. The pattern's source and flags are its settings (the
 * protocol fingerprint).
 *
 * @example
 * seqEval('dates', { tasks, verifier: verifiers.regex(/^\d{4}-\d{2}-\d{2}$/), ... })
 * seqEval('labels', { tasks, verifier: verifiers.regex('^(yes|no)$', { flags: 'i' }), ... })
 * seqEval('invoices', { tasks, verifier: verifiers.regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }), ... })
 */
export function regex(pattern: RegExp | string, options: RegexOptions = {}): Verifier {
  rejectUnknownOptions(WHERE, options, OPTIONS)
  const compiled = compile(pattern, options.flags)
  if (/[gy]/.test(compiled.flags)) {
    const flag = compiled.flags.includes('g') ? 'g' : 'y'
    throw new TypeError(
      `${WHERE}: drop the ${flag} flag: a global or sticky pattern resumes from its last match, so the same answer could pass and then fail`,
    )
  }
  checkNumberOptions(WHERE, options, BOUNDS)
  const timeoutMs = options.timeoutMs ?? 1000
  const reveal = booleanOption(WHERE, 'revealPattern', options.revealPattern, true)
  const { path, settings: pathSettings } = pathOption(WHERE, options.path)
  const subject = path === undefined ? 'the answer' : `the field ${formatJsonPath(path)}`
  const shownPattern = reveal ? `/${compiled.source}/${compiled.flags}` : 'the required pattern'
  const caseless = compiled.flags.includes('i') ? undefined : new RegExp(compiled.source, `${compiled.flags}i`)
  /** What differed, tried only after a miss: the whitespace around the answer, or its letter case. */
  const hint = (answer: string): string => {
    if (answer.trim() !== answer && Array.isArray(matchWithin(compiled, answer.trim(), timeoutMs)))
      return ': it would match without the whitespace around it'
    if (caseless && Array.isArray(matchWithin(caseless, answer, timeoutMs)))
      return ': it would match in other letter case (the pattern is case-sensitive)'
    return ''
  }
  return {
    name: 'regex',
    version: '1',
    settings: { pattern: compiled.source, flags: compiled.flags, timeoutMs, revealPattern: reveal, ...pathSettings },
    normalise: (answer) => {
      const read = checkedText(answer, path)
      return ('text' in read ? read.text : answer).trim()
    },
    verify(_task, answer): Verdict {
      const read = checkedText(answer, path)
      if ('verdict' in read) return read.verdict
      answer = read.text
      const found = matchWithin(compiled, answer, timeoutMs)
      if (found === 'timeout') {
        const summary = `matching ${subject} against ${shownPattern} took over ${timeoutMs} ms (the pattern backtracks too much on it), so it counts as a failure`
        return { pass: false, score: 0, diagnostics: { outcome: 'failed', summary } }
      }
      if (found !== null)
        return {
          pass: true,
          score: 1,
          extracted: found[0],
          diagnostics: { outcome: 'passed', summary: `${subject} matches ${shownPattern}` },
        }
      if (answer.trim() === '') return emptyAnswer()
      return {
        pass: false,
        score: 0,
        diagnostics: { outcome: 'failed', summary: `${subject} does not match ${shownPattern}${hint(answer)}` },
      }
    },
  }
}
