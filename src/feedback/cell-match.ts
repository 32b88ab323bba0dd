import { rejectUnknownOptions } from '../core/option-checks.js'
import type { Verdict } from '../verifiers/verifier.js'
import type { FeedbackMode } from './feedback-mode.js'

/** The options of `feedback.cellMatch()`. */
export interface CellMatchFeedbackOptions {
  /** At most this many per-grid lines (default 8, as the paper's reference harness): an integer from 1 to 100. */
  maxLines?: number
}

/**
 * The cell-match text of an ARC grid verdict (pure): on a malformed answer its format hint; else
 * `incorrect_output` and one line per test grid (its size match and the share of its cells that
 * match), at most `maxLines`, then a line saying the rest were cut. It reads the verdict's
 * per-grid status only: the target never reaches it, so it cannot leak.
 *
 * @example
 * cellMatchText(verdict, 8) // => 'incorrect_output\nOutput grid: size correct: True; content match accuracy: 87.50% (21 of 24 cells match).'
 */
export function cellMatchText(verdict: Verdict, maxLines: number): string {
  const d = verdict.diagnostics
  if (d.outcome === 'no-answer') return d.error ?? d.summary
  if (d.outcome === 'passed') return 'correct_output'
  const tests = d.tests ?? []
  if (tests.length === 0) return d.summary
  const lines = ['incorrect_output']
  for (const [used, t] of tests.entries()) {
    if (used >= maxLines) {
      lines.push(`...truncated remaining grid status (cap=${maxLines}).`)
      break
    }
    lines.push(`${t.source}: ${t.actual ?? (t.pass ? 'correct.' : 'wrong.')}`)
  }
  return lines.join('\n')
}

/**
 * Cell-match feedback (the reference harness's `cell_match` mode for ARC-AGI-2): per test grid,
 * whether its size is right and what share of its cells match, at most `maxLines` lines, never the
 * target; a malformed answer gets the format hint. Reads the verdicts of `arcGridVerifier()`.
 *
 * @example
 * seqEval('ARC-AGI-2', { ..., verifier: arcGridVerifier(), modes: { cell_match: { feedback: feedback.cellMatch() } } })
 */
export function cellMatch(options: CellMatchFeedbackOptions = {}): FeedbackMode {
  rejectUnknownOptions('feedback.cellMatch()', options, ['maxLines'])
  const maxLines = options.maxLines ?? 8
  if (!(Number.isInteger(maxLines) && maxLines >= 1 && maxLines <= 100))
    throw new RangeError(`feedback.cellMatch(): maxLines must be an integer from 1 to 100, got ${String(maxLines)}`)
  return {
    kind: 'verifier',
    name: 'cell_match',
    version: '1',
    settings: { maxLines },
    render({ verdict }) {
      // Each grid line names a request: the derived annotator checks whether the revision fixed it.
      const requests = (verdict.diagnostics.tests ?? [])
        .filter((t) => !t.pass)
        .slice(0, maxLines)
        .map((t) => `test:${t.index}`)
      return { kind: 'verifier', text: cellMatchText(verdict, maxLines), requests }
    },
  }
}
