import type { ChatMessage } from '../models/chat-model.js'
import type { Feedback } from '../feedback/feedback-mode.js'
import { taskMessages, type Task } from './task.js'

/**
 * Builds what the actor sees. Its `version` is part of the protocol fingerprint: change the
 * wording, change the version.
 */
export interface PromptBuilder {
  version: string
  /** The first attempt's messages (also every independent sample's). */
  initial(task: Task, options: { budget: number; discloseBudget: boolean }): ChatMessage[]
  /** The user turn after a failed attempt: the feedback plus the request to revise. */
  revision(feedback: Feedback, options: { attempt: number; budget: number; discloseBudget: boolean }): string
}

/**
 * The default prompt builder. The actor is not told its budget unless `discloseBudget` is set,
 * so Seq@k for every k <= K can be read from one K-run by truncation (DESIGN §1).
 */
export const defaultPromptBuilder: PromptBuilder = {
  version: 'seqk-prompt/1',
  initial(task, { budget, discloseBudget }) {
    const messages = taskMessages(task).map((m) => ({ ...m }))
    if (discloseBudget) {
      const last = messages.at(-1)
      const note = `\n\nYou have up to ${budget} attempts; after each failed attempt you will get feedback.`
      if (last?.role === 'user') last.content += note
      else messages.push({ role: 'user', content: note.trim() })
    }
    return messages
  },
  revision(feedback, { attempt, budget, discloseBudget }) {
    const left = discloseBudget ? ` You have ${budget - attempt} attempts left.` : ''
    return `${feedback.text}\n\nPlease revise your answer and reply with the complete corrected solution.${left}`
  },
}
