/**
 * The `oneOf` verifier: the answer is one of a closed set of choices (the labels of a
 * multiple-choice question, a verdict word), and, where the task has an `expected` answer, the
 * right one.
 */
import { rejectUnknownOptions } from '../core/option-checks.js'
import { expectedOf, nearMiss, normaliseExact } from './exact-match.js'
import { booleanOption, emptyAnswer, quote, stringList } from './reference.js'
import type { Verdict, Verifier } from './verifier.js'

/** The options of `verifiers.oneOf(choices)`: how the answer and the choices are normalised before comparing. */
export interface OneOfOptions {
  /** Ignore whitespace at the start and end of the answer (default true). */
  trim?: boolean
  /** Compare case-insensitively (default false). */
  ignoreCase?: boolean
  /** Treat every run of whitespace as one space (default false). */
  collapseWhitespace?: boolean
}

const OPTIONS = ['trim', 'ignoreCase', 'collapseWhitespace'] as const
const WHERE = 'verifiers.oneOf(choices)'

/**
 * A verifier for answers from a closed set: the answer, normalised as the options say, must be
 * one of `choices`; when the task has an `expected` answer (one choice, or several accepted ones)
 * it must also be that one. A failed verdict names the choices when the answer is none of them
 * (they are the format the prompt asks for), with a near-miss hint ("holds the choice among other
 * text"), and says only "not the right choice" when it is another choice, so the expected answer
 * is never shown.
 *
 * For a task-by-task list of accepted answers with no closed set, use `verifiers.exactMatch()`,
 * whose `expected` may be a list. The choices and the normalisations are its settings (the
 * fingerprint); a task whose `expected` is not among the choices is refused at declaration.
 *
 * @example
 * seqEval('quiz', { tasks, verifier: verifiers.oneOf(['A', 'B', 'C', 'D'], { ignoreCase: true }), ... }) // tasks: [{ …, expected: 'C' }]
 */
export function oneOf(choices: readonly string[], options: OneOfOptions = {}): Verifier {
  const list = stringList(WHERE, 'choices', choices)
  rejectUnknownOptions(WHERE, options, OPTIONS)
  const settings = {
    trim: booleanOption(WHERE, 'trim', options.trim, true),
    ignoreCase: booleanOption(WHERE, 'ignoreCase', options.ignoreCase, false),
    collapseWhitespace: booleanOption(WHERE, 'collapseWhitespace', options.collapseWhitespace, false),
  }
  const norm = (text: string) => normaliseExact(text, settings)
  const normalised = list.map(norm)
  const duplicates = list.filter((_, i) => normalised.indexOf(normalised[i]!) !== i)
  if (duplicates.length > 0)
    throw new TypeError(
      `${WHERE}: choices ${duplicates.map(quote).join(', ')} repeat another choice once normalised; list each choice once`,
    )
  const choicesText = list.map(quote).join(', ')
  return {
    name: 'one-of',
    version: '1',
    settings: { ...settings, choices: JSON.stringify(list) },
    checkTask(task) {
      if (task.expected === undefined) return []
      const expected = expectedOf(task)
      if (typeof expected === 'string') return [`task ${task.id}: oneOf ${expected}`]
      const outside = expected.filter((e) => !normalised.includes(norm(e)))
      return outside.length === 0
        ? []
        : [
            `task ${task.id}: oneOf: expected ${outside.map(quote).join(', ')} is not one of the choices ${choicesText}; fix the task or add the choice`,
          ]
    },
    normalise: norm,
    verify(task, answer): Verdict {
      const given = norm(answer)
      if (given.trim() === '') return emptyAnswer()
      if (!normalised.includes(given)) {
        const why = nearMiss(answer, list, settings.ignoreCase, 'a choice')
        return {
          pass: false,
          score: 0,
          extracted: given,
          diagnostics: {
            outcome: 'failed',
            summary: `the answer ${quote(given)} is not one of the choices ${choicesText}${why ? `: ${why}` : ''}`,
          },
        }
      }
      if (task.expected === undefined)
        return {
          pass: true,
          score: 1,
          extracted: given,
          diagnostics: { outcome: 'passed', summary: `the answer is one of the choices` },
        }
      const expected = expectedOf(task)
      if (typeof expected === 'string') throw new Error(`${WHERE}: task ${JSON.stringify(task.id)} ${expected}`)
      const pass = expected.some((e) => norm(e) === given)
      const summary = pass
        ? 'the answer is the right choice'
        : `the answer ${quote(given)} is one of the choices, but not the right one`
      return {
        pass,
        score: pass ? 1 : 0,
        extracted: given,
        diagnostics: { outcome: pass ? 'passed' : 'failed', summary },
      }
    },
  }
}
