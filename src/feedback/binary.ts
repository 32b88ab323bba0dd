import type { FeedbackMode } from './feedback-mode.js'

/**
 * Binary feedback: the actor only learns that its answer failed (DESIGN §1). Nothing about the
 * verifier's diagnostics leaks, so Seq@K under this mode measures revision from a bare signal.
 *
 * @example
 * seqEval('my bench', { ..., modes: { binary: { feedback: feedback.binary() } } })
 */
export function binary(options: { text?: string } = {}): FeedbackMode {
  const text = options.text ?? 'Your answer is incorrect.'
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
