/**
 * Code checks of rubric criteria: judged with no model call. Pure functions, shared with the
 * rule-based test-server grader so that the two can never disagree on what a limit means.
 */
import type { CriterionCheck } from './criteria.js'

/** A criterion's judgement: whether it is met and why, in a few words. */
export interface CriterionJudgement {
  met: boolean
  reason: string
}

/**
 * Words in `text`: whitespace-separated tokens holding at least one letter or digit, so that
 * a dash or a bullet does not count as a word.
 *
 * @example
 * wordCount('Stay cool — drink water.') // 4
 */
export function wordCount(text: string): number {
  let n = 0
  for (const token of text.split(/\s+/)) if (/[\p{L}\p{N}]/u.test(token)) n++
  return n
}

/**
 * The JSON document an answer holds: the whole answer, or one fenced block (```json … ```) that is
 * the whole answer. Models often fence JSON even when asked not to; the fence is not content.
 *
 * @example
 * jsonBody('```json\n{"a": 1}\n```') // '{"a": 1}'
 */
export function jsonBody(answer: string): string {
  const trimmed = answer.trim()
  const fenced = /^```[\w-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(trimmed)
  return fenced ? fenced[1]!.trim() : trimmed
}

function quote(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ')
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max - 1)}…` : flat)
}

/**
 * Judges one code check against an answer.
 *
 * @example
 * runCheck({ kind: 'max-words', limit: 3 }, 'one two three four') // { met: false, reason: '4 words (limit 3)' }
 */
export function runCheck(check: CriterionCheck, answer: string): CriterionJudgement {
  switch (check.kind) {
    case 'max-words': {
      const n = wordCount(answer)
      return { met: n <= check.limit, reason: `${n} words (limit ${check.limit})` }
    }
    case 'min-words': {
      const n = wordCount(answer)
      return { met: n >= check.limit, reason: `${n} words (minimum ${check.limit})` }
    }
    case 'json': {
      try {
        JSON.parse(jsonBody(answer))
        return { met: true, reason: 'valid JSON' }
      } catch (error) {
        return { met: false, reason: `not valid JSON: ${(error as Error).message}` }
      }
    }
    case 'includes': {
      const found = check.caseSensitive
        ? answer.includes(check.text)
        : answer.toLowerCase().includes(check.text.toLowerCase())
      return { met: found, reason: found ? `contains ${quote(check.text)}` : `does not contain ${quote(check.text)}` }
    }
    case 'regex': {
      // A /g or /y flag would make test() stateful; a fresh RegExp per call keeps it pure.
      const matched = new RegExp(check.pattern, check.flags).test(answer)
      const mustMatch = check.mustMatch ?? true
      const shown = `/${check.pattern}/${check.flags ?? ''}`
      return { met: matched === mustMatch, reason: matched ? `matches ${shown}` : `does not match ${shown}` }
    }
  }
}
