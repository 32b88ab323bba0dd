import type { ChatMessage, ChatModel, ModelCall } from '../models/chat-model.js'
import type { Task } from '../protocol/task.js'
import type { Awaitable } from '../protocol/awaitable.js'
import type { Verdict } from '../verifiers/verifier.js'

/** The kinds of feedback of DESIGN §1. The text and its kind are kept apart in artifacts. */
export type FeedbackKind = 'binary' | 'verifier' | 'critic'

export interface Feedback {
  kind: FeedbackKind
  text: string
  /** Calls an LLM critic made to write it, counted toward the trajectory. */
  calls?: ModelCall[]
}

export interface FeedbackInput {
  task: Task
  /** 1-based index of the failed attempt. */
  attempt: number
  repeat: number
  answer: string
  verdict: Verdict
  /** Why the actor stopped writing this answer: `length` means it was cut off by the token limit. */
  finishReason?: 'stop' | 'length' | 'refusal' | 'other'
  /**
   * The messages the actor saw for this attempt, as the history policy built them (cut down under
   * `last`, summarised under `summary`), followed by this answer; a fresh array for each call.
   */
  history: ChatMessage[]
  /** The actor under test: a critic with no model of its own critiques with it. */
  actor?: ChatModel
  signal?: AbortSignal
}

/**
 * Turns a failed attempt into the message the actor sees next.
 *
 * @example
 * const terse: FeedbackMode = {
 *   kind: 'binary', name: 'terse', version: '1', settings: {},
 *   render: () => ({ kind: 'binary', text: 'Wrong.' }),
 * }
 */
export interface FeedbackMode {
  kind: FeedbackKind
  /** Stable name and version: part of the protocol fingerprint. */
  name: string
  version: string
  settings: Record<string, string | number | boolean | null>
  /** The feedback; a promise only when something must be waited for (a critic's model call). */
  render(input: FeedbackInput): Awaitable<Feedback>
}

/** A feedback mode whose feedback always comes as a promise (an LLM critic). */
export interface AsyncFeedbackMode extends FeedbackMode {
  render(input: FeedbackInput): Promise<Feedback>
}
