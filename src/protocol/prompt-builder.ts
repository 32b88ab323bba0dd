import { z } from 'zod'
import { ChatMessageSchema, type ChatMessage } from '../models/chat-model.js'
import { ComponentError, shown, zodProblems, type ContractBreach } from '../core/component-error.js'
import type { Feedback } from '../feedback/feedback-mode.js'
import { isPlainMessages } from './history.js'
import { taskMessages, type Task } from './task.js'

/**
 * Builds what the actor sees. Its `version` is part of the protocol fingerprint: change the
 * wording, change the version. What it returns is checked by the protocol ({@link checkPrompt},
 * {@link checkRevision}): a malformed value is a ComponentError that fails the cell.
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
 * so Seq@k for every k <= K can be read from one K-run by truncation.
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

/**
 * The first prompt with the eval's instructions before it, as a system message of their own. They
 * are put there by the protocol, not by the prompt builder, so a custom builder cannot drop them:
 * the instructions are the subject's, the task's messages the instrument's.
 *
 * @example
 * withInstructions([{ role: 'user', content: 'Total of invoice 7?' }], 'Answer with JSON.')
 * // => [{ role: 'system', content: 'Answer with JSON.' }, { role: 'user', content: 'Total of invoice 7?' }]
 */
export function withInstructions(prompt: ChatMessage[], instructions: string | undefined): ChatMessage[] {
  return instructions === undefined ? prompt : [{ role: 'system', content: instructions }, ...prompt]
}

const PromptSchema = z.array(ChatMessageSchema).min(1)

const breach = (
  builder: Pick<PromptBuilder, 'version'>,
  returned: string,
  contract: string,
  at: { taskId: string; attempt: number } | undefined,
  hints: Record<string, string>,
): ContractBreach => ({
  component: `prompt builder ${JSON.stringify(builder.version)}`,
  returned,
  where: at ? `for task ${JSON.stringify(at.taskId)}, attempt ${at.attempt}` : undefined,
  contract,
  hints,
})

/**
 * Checks what `builder.initial()` returned: one or more chat messages. Returns it, or throws a
 * ComponentError naming the builder, the field and the fix.
 *
 * @example
 * const prompt = checkPrompt(builder, builder.initial(task, { budget, discloseBudget }), { taskId: task.id, attempt: 1 })
 */
export function checkPrompt(
  builder: Pick<PromptBuilder, 'version'>,
  value: unknown,
  at?: { taskId: string; attempt: number },
): ChatMessage[] {
  if (isPlainMessages(value)) return value
  const parsed = PromptSchema.safeParse(value)
  if (parsed.success) return parsed.data
  throw new ComponentError(
    breach(builder, 'prompt', "{ role: 'system' | 'user' | 'assistant', content: string }[] (at least one)", at, {
      '(root)':
        'initial() must return the chat messages the actor sees first, at least one (taskMessages(task) is a start)',
    }),
    zodProblems(PromptSchema, value),
  )
}

/**
 * Checks what `builder.revision()` returned: the user turn's text. Returns it, or throws a
 * ComponentError naming the builder and the fix.
 */
export function checkRevision(
  builder: Pick<PromptBuilder, 'version'>,
  value: unknown,
  at?: { taskId: string; attempt: number },
): string {
  if (typeof value === 'string') return value
  throw new ComponentError(
    breach(
      builder,
      'revision request',
      'a string: the user turn after a failed attempt (the feedback text plus the request to revise)',
      at,
      {
        '(root)': 'revision() must return the text of the next user turn as a string',
      },
    ),
    [{ field: '(root)', message: `got ${shown(value)}` }],
  )
}
