/**
 * The `contains` verifier: the answer holds every one (or any one) of some phrases, given once for
 * every task or taken from each task's `expected`.
 */
import type { AnyTask } from '../core/task.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import { checkedText, expectedOf, pathOption } from './exact-match.js'
import { formatJsonPath } from './json-path.js'
import { booleanOption, choiceOption, emptyAnswer, quote, stringList } from './reference.js'
import type { Verdict, Verifier } from './verifier.js'

/** The options of `verifiers.contains()`. */
export interface ContainsOptions {
  /** `'all'` (default): every phrase must appear in the answer; `'any'`: at least one. */
  match?: 'all' | 'any'
  /** Compare case-insensitively (both sides lower-cased, no locale). Default false. */
  ignoreCase?: boolean
  /**
   * Name the missing phrases in the diagnostics, which `feedback.verifier()` passes on. Default:
   * true for phrases given to `contains()` (a rule the prompt states, such as "end with `Final
   * answer:`"), false for phrases taken from the task's `expected` (there they are the answer).
   */
  revealExpected?: boolean
  /**
   * Look in one field of a JSON answer instead of the whole answer (`'notes'`, `'items[0].name'`);
   * a field that is not a string is searched as its JSON text. Part of the settings when set.
   */
  path?: string
}

const OPTIONS = ['match', 'ignoreCase', 'revealExpected', 'path'] as const
const WHERE = 'verifiers.contains()'

/** "1 phrase", "3 phrases". */
const phrases = (n: number, adjective: string) => `${n} ${adjective} phrase${n === 1 ? '' : 's'}`

/**
 * A verifier that passes an answer holding every phrase of `text` (or, with `match: 'any'`, one of
 * them). Without `text`, each task's `expected` (a string or a list) gives the phrases. A failed
 * verdict says how many phrases are missing, which ones when they may be shown, and when one is
 * there in other letter case, so a revision knows what to add.
 *
 * The phrases, `match` and `ignoreCase` are its settings, so they are part of the protocol
 * fingerprint; phrases from tasks are part of the benchmark's content hash.
 *
 * @example
 * seqEval('steps', { tasks, verifier: verifiers.contains(['Step 1', 'Final answer:']), ... })
 * seqEval('facts', { tasks, verifier: verifiers.contains({ match: 'any', ignoreCase: true }), ... }) // tasks' `expected`
 * seqEval('notes', { tasks, verifier: verifiers.contains(['net 30'], { path: 'terms', ignoreCase: true }), ... })
 */
export function contains(text?: string | readonly string[] | ContainsOptions, options: ContainsOptions = {}): Verifier {
  // contains({ ignoreCase: true }): the options alone, phrases from the tasks.
  if (typeof text === 'object' && text !== null && !Array.isArray(text))
    [text, options] = [undefined, text as ContainsOptions]
  rejectUnknownOptions(WHERE, options, OPTIONS)
  const given = text === undefined ? undefined : stringList('verifiers.contains(text)', 'text', text)
  const match = choiceOption(WHERE, 'match', options.match, ['all', 'any'] as const, 'all')
  const ignoreCase = booleanOption(WHERE, 'ignoreCase', options.ignoreCase, false)
  const reveal = booleanOption(WHERE, 'revealExpected', options.revealExpected, given !== undefined)
  const fold = (s: string) => (ignoreCase ? s.toLowerCase() : s)
  const { path, settings: pathSettings } = pathOption(WHERE, options.path)
  const subject = path === undefined ? 'the answer' : `the field ${formatJsonPath(path)}`
  const needlesOf = (task: AnyTask): string[] => {
    if (given !== undefined) return given
    const expected = expectedOf(task)
    if (typeof expected === 'string') throw new Error(`${WHERE}: task ${JSON.stringify(task.id)} ${expected}`)
    return expected
  }
  return {
    name: 'contains',
    version: '1',
    settings: {
      match,
      ignoreCase,
      revealExpected: reveal,
      text: given === undefined ? null : JSON.stringify(given),
      ...pathSettings,
    },
    checkTask(task) {
      if (given !== undefined) return []
      const expected = expectedOf(task)
      return typeof expected === 'string' ? [`task ${task.id}: contains ${expected}`] : []
    },
    normalise: (answer) => {
      const read = checkedText(answer, path)
      return fold(('text' in read ? read.text : answer).trim())
    },
    verify(task, answer): Verdict {
      const needles = needlesOf(task)
      if (answer.trim() === '') return emptyAnswer()
      const read = checkedText(answer, path)
      if ('verdict' in read) return read.verdict
      answer = read.text
      const haystack = fold(answer)
      const missing = needles.filter((n) => !haystack.includes(fold(n)))
      const found = needles.length - missing.length
      const pass = match === 'all' ? missing.length === 0 : found > 0
      const score = match === 'all' ? found / needles.length : pass ? 1 : 0
      const adjective = given !== undefined ? 'required' : match === 'all' ? 'expected' : 'accepted'
      if (pass) {
        const all = needles.length === 1 ? `the ${adjective} phrase` : `all ${phrases(needles.length, adjective)}`
        const summary = `${subject} contains ${match === 'all' ? all : `${found} of ${phrases(needles.length, adjective)}`}`
        return { pass, score, diagnostics: { outcome: 'passed', summary } }
      }
      const named = reveal ? `: ${missing.map(quote).join(', ')}` : ''
      let summary =
        needles.length === 1
          ? `${subject} lacks the ${adjective} phrase${named}`
          : match === 'all'
            ? `${subject} lacks ${missing.length} of ${phrases(needles.length, adjective)}${named}`
            : `${subject} contains none of the ${phrases(needles.length, adjective)}${named}`
      // What differed, when the phrase is there but in other letter case.
      const cased = ignoreCase ? [] : missing.filter((n) => answer.toLowerCase().includes(n.toLowerCase()))
      if (cased.length > 0) {
        const which = reveal
          ? cased.map(quote).join(', ')
          : `${cased.length} of ${missing.length === 1 ? 'it' : 'them'}`
        summary += `; ${which} ${cased.length === 1 ? 'appears' : 'appear'} in other letter case (the comparison is case-sensitive)`
      }
      return { pass, score, diagnostics: { outcome: 'failed', summary } }
    },
  }
}
