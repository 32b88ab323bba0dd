import { rejectUnknownOptions } from '../core/option-checks.js'
import type { FeedbackMode } from './feedback-mode.js'

/** The options of `feedback.binary()`. */
export interface BinaryFeedbackOptions {
  /** The message every failed attempt gets. Default `Your answer is incorrect.`; at most 10 000 characters. Part of the fingerprint. */
  text?: string
}

const MAX_TEXT = 10_000

/**
 * Binary feedback: the actor only learns that its answer failed. Nothing about the
 * verifier's diagnostics leaks, so Seq@K under this mode measures revision from a bare signal.
 *
 * @example
 * seqEval('my bench', { ..., modes: { binary: { feedback: feedback.binary() } } })
 */
export function binary(options: BinaryFeedbackOptions = {}): FeedbackMode {
  rejectUnknownOptions('feedback.binary()', options, ['text'])
  const text = options.text ?? 'Your answer is incorrect.'
  if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_TEXT) {
    throw new TypeError(
      `feedback.binary(): text must be a non-empty string of at most ${MAX_TEXT} characters (the message every failed attempt gets), got ${typeof text === 'string' ? `${text.length} characters` : String(text)}`,
    )
  }
  return {
    kind: 'binary',
    name: 'binary',
    version: '1',
    settings: { text },
    render() {
      return { kind: 'binary', text }
    },
  }
}
