import { binary } from './binary.js'
import { verifierFeedback } from './verifier-feedback.js'
import { critic } from './critic.js'
import { cellMatch } from './cell-match.js'

/**
 * The feedback modes: binary, verifier, critic (an LLM writes the critique) and cellMatch (ARC-AGI-2's
 * per-grid size and cell accuracy, never the target).
 *
 * @example
 * modes: { binary: { feedback: feedback.binary() }, verifier: { feedback: feedback.verifier() } }
 */
export const feedback = { binary, verifier: verifierFeedback, critic, cellMatch }
export { renderDiagnostics } from './verifier-feedback.js'
export type { VerifierFeedbackOptions } from './verifier-feedback.js'
export type { AsyncFeedbackMode, Feedback, FeedbackInput, FeedbackKind, FeedbackMode } from './feedback-mode.js'
export { FeedbackSchema, checkFeedback } from './feedback-mode.js'
export type { BinaryFeedbackOptions } from './binary.js'
export { criticPrompt, type CriticOptions } from './critic.js'
export { cellMatchText, type CellMatchFeedbackOptions } from './cell-match.js'
