/**
 * The paper's reference harness's prompt layout, reproduced exactly so its numbers can be: every
 * sequential attempt is one user message holding the task prompt, the note "This is attempt t of
 * K." with its continuation, then each earlier attempt and its feedback in numbered tags, the parts
 * joined by blank lines. The budget is disclosed from the first attempt on, so Seq@1 differs from
 * Pass@1 by design (the actor knows feedback will follow). Independent samples see the bare task.
 * Selected by `protocol: 'seq_k-reference'`; the default builder is untouched.
 */
import type { ChatMessage } from '../../core/contract.js'
import { taskMessages, type AnyTask } from '../../core/task.js'
import type { PromptBuilder } from '../prompt-builder.js'

/** One earlier attempt as the layout shows it: the answer, and the feedback it got (null: none). */
export interface PastAttempt {
  answer: string
  feedback: string | null
}

/**
 * A prompt builder that lays out each sequential attempt's whole prompt itself, earlier attempts
 * included, instead of a history policy appending turns (the loop calls `layout` when it is
 * there; the history policy must then be `full`, every attempt shown).
 */
export interface LayoutPromptBuilder extends PromptBuilder {
  /** The messages of sequential attempt `attempt` (1-based), after the attempts `past`. */
  layout(task: AnyTask, options: { attempt: number; budget: number; past: readonly PastAttempt[] }): ChatMessage[]
}

/** Whether a prompt builder lays out whole prompts (see {@link LayoutPromptBuilder}). */
export function isLayoutBuilder(builder: PromptBuilder): builder is LayoutPromptBuilder {
  return typeof (builder as Partial<LayoutPromptBuilder>).layout === 'function'
}

/** The reference's note on the first attempt, after "This is attempt 1 of K.". */
export const FIRST_ATTEMPT_NOTE =
  ' If this attempt does not pass, you will receive feedback and can revise it on the remaining attempts.'
/** The reference's note on every later attempt. */
export const LATER_ATTEMPT_NOTE =
  ' Review your previous attempt(s) and the feedback below, then provide an improved answer.'

/**
 * The text the reference appends to the task prompt for attempt t of K (pure): the note, then
 * `<PreviousAttempt i>` and `<Feedback i>` blocks (a feedback block only where there was feedback),
 * joined by blank lines.
 *
 * @example
 * referenceSuffix(2, 5, [{ answer: 'A', feedback: 'F' }])
 * // => 'This is attempt 2 of 5. Review your previous attempt(s) and the feedback below, then provide an improved answer.\n\n<PreviousAttempt 1>\nA\n</PreviousAttempt 1>\n\n<Feedback 1>\nF\n</Feedback 1>'
 */
export function referenceSuffix(attempt: number, budget: number, past: readonly PastAttempt[]): string {
  const parts = [
    `This is attempt ${attempt} of ${budget}.${past.length === 0 ? FIRST_ATTEMPT_NOTE : LATER_ATTEMPT_NOTE}`,
  ]
  past.forEach((p, i) => {
    const n = i + 1
    parts.push(`<PreviousAttempt ${n}>\n${p.answer}\n</PreviousAttempt ${n}>`)
    if (p.feedback) parts.push(`<Feedback ${n}>\n${p.feedback}\n</Feedback ${n}>`)
  })
  return parts.join('\n\n')
}

/** The task's messages with `suffix` joined to its last user message by a blank line (a copy). */
function withSuffix(task: AnyTask, suffix: string): ChatMessage[] {
  const messages = taskMessages(task).map((m) => ({ ...m }))
  const last = messages.at(-1)
  // A chat prompt keeps its earlier turns (a system prompt stays one); the note joins its last user turn.
  if (last?.role === 'user') last.content = `${last.content}\n\n${suffix}`
  else messages.push({ role: 'user', content: suffix })
  return messages
}

/**
 * The reference harness's layout (`seq_k-reference/1`). A task whose prompt is a string becomes
 * exactly the reference's one user message; a chat prompt keeps its earlier messages and takes the
 * note and tags on its last user message. `revision` is the feedback text alone (the layout, not a
 * reply turn, carries it).
 *
 * @example
 * seqEval('HealthBench (reference protocol)', { protocol: 'seq_k-reference', tasks, ... })
 */
export const referencePromptBuilder: LayoutPromptBuilder = {
  version: 'seq_k-reference/1',
  initial(task) {
    // An independent sample (and the loop's first prompt record): the bare task, no note.
    return taskMessages(task).map((m) => ({ ...m }))
  },
  revision(feedback) {
    return feedback.text
  },
  layout(task, { attempt, budget, past }) {
    return withSuffix(task, referenceSuffix(attempt, budget, past))
  },
}
