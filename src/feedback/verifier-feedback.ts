import { criterionSatisfied } from '../core/contract.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import type { CheckVerdict, Diagnostics, TestOutcome, Verdict } from '../verifiers/verifier.js'
import type { FeedbackInput, FeedbackMode } from './feedback-mode.js'

/** The options of `feedback.verifier()`. */
export interface VerifierFeedbackOptions {
  /** At most this many failing tests are listed (default 5): an integer from 0 to 100. */
  maxTests?: number
  /** The whole text is cut to this many characters (default 2000), so a huge repr cannot flood the context: an integer from 40 to 100 000. */
  maxChars?: number
}

/** The bounds of VerifierFeedbackOptions. */
const BOUNDS = { maxTests: [0, 100], maxChars: [40, 100_000] } as const

/** The paper's closing line for test-detail feedback (its HumanEval Pro example). */
const NO_HARD_CODING = 'Use this feedback to fix the general logic. Do not hard-code these cases.'

/** Said first when the answer was cut off by the token limit: the failure may be the cut, not the logic. */
export const CUT_OFF =
  'Your answer was cut off by the output token limit before it ended, so the code is incomplete. Write a shorter answer.'

function describeTest(test: TestOutcome): string {
  const name = `test_${test.index + 1}`
  if (test.call !== undefined) {
    const got = test.actual ?? test.error ?? '(nothing)'
    return `- ${name} function call: ${test.call}\n  expected: ${test.expected ?? '?'}\n  got: ${got}`
  }
  return `- ${name}: ${test.source}\n  error: ${test.error ?? 'failed'}`
}

/** A criterion as verifier feedback reads it: a verdict's criterion (its `id` names the request). */
type FeedbackCriterion = {
  id?: string
  text: string
  met: boolean
  reason?: string
  points?: number
  satisfied?: boolean
}

/** Verifier feedback's text and the requests it names (see {@link renderVerifierFeedback}). */
export interface RenderedVerifierFeedback {
  text: string
  /** `test:<index>` (TestOutcome.index, shown as `test_<index + 1>`) and `criterion:<id>`, in the order shown. */
  requests: string[]
}

/**
 * Verifier feedback with the requests its text names: each failing test it lists (`test:<index>`)
 * and each unmet criterion (`criterion:<id>`), exactly those a reader sees. Tests beyond
 * `maxTests` are only counted ("… and 3 more"), so they are not requests; an entry cut off by
 * `maxChars` is one only if its name survives (a test's `- test_N`, a criterion's first line).
 * A load error, a timeout or no answer names no test or criterion: no requests.
 *
 * @example
 * renderVerifierFeedback({ outcome: 'failed', summary: '', tests: [{ index: 2, source: 'assert f(1) == 2', pass: false }] }, undefined).requests
 * // => ['test:2']
 */
export function renderVerifierFeedback(
  diagnostics: Diagnostics,
  criteria: readonly FeedbackCriterion[] | undefined,
  options: VerifierFeedbackOptions = {},
  finishReason?: FeedbackInput['finishReason'],
): RenderedVerifierFeedback {
  const maxTests = options.maxTests ?? 5
  const maxChars = options.maxChars ?? 2000
  const lines: string[] = finishReason === 'length' ? [CUT_OFF] : []
  const named: Named[] = []
  switch (diagnostics.outcome) {
    case 'load-error':
      lines.push('Your code failed to load:', diagnostics.error ?? diagnostics.summary)
      break
    case 'timeout': {
      lines.push(`Your code did not finish in time (${diagnostics.summary}).`)
      // The tests that ran before the time ran out, so the model sees what already works.
      const passed = (diagnostics.tests ?? []).filter((t) => t.pass).length
      if (passed > 0) lines.push(`${passed} of ${(diagnostics.tests ?? []).length} tests passed before that.`)
      break
    }
    case 'no-answer':
      lines.push('No answer could be extracted from your reply.', diagnostics.summary)
      break
    default: {
      const failing = (diagnostics.tests ?? []).filter((t) => !t.pass)
      if (failing.length > 0) {
        lines.push('Failed test details:')
        for (const test of failing.slice(0, maxTests)) {
          named.push({ id: `test:${test.index}`, line: lines.length, prefix: `- test_${test.index + 1}`.length })
          lines.push(describeTest(test))
        }
        if (failing.length > maxTests) lines.push(`- … and ${failing.length - maxTests} more failing tests`)
      }
      // A penalty (negative points) counts against the answer when it is met.
      const unmet = (criteria ?? []).filter((c) => !criterionSatisfied(c))
      if (unmet.length > 0) {
        lines.push('Unmet criteria:')
        for (const c of unmet) {
          const entry = `- ${(c.points ?? 0) < 0 ? `Violated: ${c.text}` : c.text}${c.reason ? ` (${c.reason})` : ''}`
          if (c.id !== undefined)
            named.push({ id: `criterion:${c.id}`, line: lines.length, prefix: entry.split('\n', 1)[0]!.length })
          lines.push(entry)
        }
      }
      if (lines.length === 0) lines.push(diagnostics.summary || 'Your answer failed verification.')
    }
  }
  // Only after failing tests were shown: a load error or a timeout shows no case to hard-code.
  if ((diagnostics.tests ?? []).some((t) => !t.pass) && diagnostics.outcome === 'failed') lines.push(NO_HARD_CODING)
  return cut(lines, named, maxChars)
}

/** Each named request with the line its entry starts on and how much of it must survive the cut. */
type Named = { id: string; line: number; prefix: number }

/** The text of `lines` cut to `maxChars`, with the requests whose names survive the cut. */
function cut(lines: readonly string[], named: readonly Named[], maxChars: number): RenderedVerifierFeedback {
  const text = lines.join('\n')
  const marker = '\n… (feedback truncated)'
  if (text.length <= maxChars) return { text, requests: named.map((r) => r.id) }
  const kept = Math.max(0, maxChars - marker.length)
  const starts: number[] = []
  for (let i = 0, at = 0; i < lines.length; at += lines[i]!.length + 1, i++) starts.push(at)
  return {
    text: `${text.slice(0, kept)}${marker}`,
    requests: named.filter((r) => starts[r.line]! + r.prefix <= kept).map((r) => r.id),
  }
}

/** Whether a check's own diagnostics say more than its summary: failing tests, unmet criteria, a load error. */
function hasDetail(check: CheckVerdict): boolean {
  const d = check.diagnostics
  return (
    d.outcome === 'load-error' ||
    d.outcome === 'timeout' ||
    (d.tests ?? []).some((t) => !t.pass) ||
    (check.criteria ?? []).some((c) => !criterionSatisfied(c))
  )
}

/**
 * Verifier feedback for a whole verdict: a composed verdict (`verifiers.all`, `any`, `weighted`)
 * lists each failed check by name with its summary, and under it the check's own details (failing
 * tests, unmet criteria, a load error) as {@link renderVerifierFeedback} words them; its requests
 * are the failed checks it names (`check:<name>`). Any other verdict is rendered from its
 * diagnostics and criteria.
 *
 * @example
 * renderVerdictFeedback(verdict).text
 * // 'Failed checks (1 of 3):\n- numeric(total): read 14 from the field total: not within the tolerance …'
 */
export function renderVerdictFeedback(
  verdict: Pick<Verdict, 'diagnostics' | 'criteria' | 'checks'>,
  options: VerifierFeedbackOptions = {},
  finishReason?: FeedbackInput['finishReason'],
): RenderedVerifierFeedback {
  const checks = verdict.checks
  if (checks === undefined || checks.length === 0)
    return renderVerifierFeedback(verdict.diagnostics, verdict.criteria, options, finishReason)
  const lines: string[] = finishReason === 'length' ? [CUT_OFF] : []
  const named: Named[] = []
  const failed = checks.filter((c) => !c.pass)
  lines.push(`Failed checks (${failed.length} of ${checks.length}):`)
  for (const check of failed) {
    const entry = `- ${check.name}: ${check.diagnostics.summary}`
    named.push({ id: `check:${check.name}`, line: lines.length, prefix: `- ${check.name}`.length })
    lines.push(entry)
    if (hasDetail(check)) {
      // The check's own details, without the length note (said once above) and indented under it.
      const detail = renderVerifierFeedback(check.diagnostics, check.criteria, { ...options, maxChars: 100_000 })
      lines.push(...detail.text.split('\n').map((line) => `    ${line}`))
    }
  }
  return cut(lines, named, options.maxChars ?? 2000)
}

/**
 * Renders a verifier's diagnostics as the paper's raw verifier feedback: "Failed test details"
 * with call / expected / actual for code, the load error or timeout otherwise, and unmet criteria
 * for rubric verdicts. Pure, so it can be unit-tested and reused by critics.
 */
export function renderDiagnostics(
  diagnostics: Diagnostics,
  criteria: readonly FeedbackCriterion[] | undefined,
  options: VerifierFeedbackOptions = {},
  finishReason?: FeedbackInput['finishReason'],
): string {
  return renderVerifierFeedback(diagnostics, criteria, options, finishReason).text
}

/**
 * Raw verifier feedback (the `verifier` mode): the failing tests with their call, expected
 * and actual values, or the load error / timeout, or the unmet criteria; for a composed verifier,
 * each failed check by name with its own diagnostics.
 *
 * @example
 * seqEval('my bench', { ..., modes: { verifier: { feedback: feedback.verifier({ maxTests: 3 }) } } })
 */
export function verifierFeedback(options: VerifierFeedbackOptions = {}): FeedbackMode {
  rejectUnknownOptions('feedback.verifier()', options, Object.keys(BOUNDS))
  for (const [name, [min, max]] of Object.entries(BOUNDS)) {
    const value = (options as Record<string, unknown>)[name]
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= min && (value as number) <= max)) {
      throw new RangeError(
        `feedback.verifier(): ${name} must be an integer from ${min} to ${max}, got ${String(value)}`,
      )
    }
  }
  return {
    kind: 'verifier',
    name: 'verifier',
    version: '2',
    settings: { maxTests: options.maxTests ?? 5, maxChars: options.maxChars ?? 2000 },
    render({ verdict, finishReason }) {
      // The requests the text names, so the derived revision annotator can check the next verdict against them.
      return { kind: 'verifier', ...renderVerdictFeedback(verdict, options, finishReason) }
    },
  }
}
