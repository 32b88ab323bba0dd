import { binary } from './binary.js'
import { verifierFeedback } from './verifier-feedback.js'
import { critic } from './critic.js'

/**
 * The feedback modes: binary, verifier and critic. `critic` (an LLM writes the critique) arrives with rubric tasks.
 *
 * @example
 * modes: { binary: { feedback: feedback.binary() }, verifier: { feedback: feedback.verifier() } }
 */
export const feedback = { binary, verifier: verifierFeedback, critic }
export { renderDiagnostics } from './verifier-feedback.js'
export type { VerifierFeedbackOptions } from './verifier-feedback.js'
export type { AsyncFeedbackMode, Feedback, FeedbackInput, FeedbackKind, FeedbackMode } from './feedback-mode.js'
export { FeedbackSchema, checkFeedback } from './feedback-mode.js'
export type { BinaryFeedbackOptions } from './binary.js'
export { criticPrompt, type CriticOptions } from './critic.js'
