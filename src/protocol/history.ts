import { z } from 'zod'
import {
  ChatMessageSchema,
  checkChatResponse,
  ModelCallSchema,
  recordCall,
  type ChatMessage,
  type ChatModel,
  type ModelCall,
} from '../models/chat-model.js'
import { ComponentError, zodProblems } from '../core/component-error.js'
import type { Awaitable } from '../core/awaitable.js'
import { canonicalJson } from '../core/fingerprint.js'

/** One finished, failed attempt as the history keeps it. */
export interface Turn {
  answer: string
  /** The whole user turn that followed it (feedback plus revision request). */
  reply: string
}

export interface HistoryBuild {
  messages: ChatMessage[]
  /** Helper calls made to build it (a summariser's), counted toward the attempt. */
  calls: ModelCall[]
}

/** What a history policy's `build` must return (or resolve to); unknown fields are ignored. */
export const HistoryBuildSchema = z.object({
  messages: z.array(ChatMessageSchema).min(1),
  calls: z.array(ModelCallSchema),
})

const HISTORY_CONTRACT =
  "{ messages: { role: 'system' | 'user' | 'assistant', content: string }[] (at least one), calls: ModelCall[] ([] when no model was called) } (HistoryBuildSchema)"

const HISTORY_HINTS: Readonly<Record<string, string>> = {
  '(root)': 'build() must return (or resolve to) { messages, calls }, not a bare array; did it forget to return it?',
  messages:
    "return the chat the actor sees as `messages`, at least one, each { role: 'system' | 'user' | 'assistant', content: string } (start from the `prompt` it was given)",
  calls: "return `calls: []` when the policy called no model, else recordCall('summariser', response) for each call",
}

/**
 * The hot path of {@link checkHistoryBuild}: a hand-written test that accepts only builds
 * HistoryBuildSchema accepts, with no calls (a property test holds it to that), so the growing
 * message list is checked with a loop of typeof tests rather than a zod parse per attempt.
 * Anything else (a summariser's calls, a malformed value) goes to zod, which decides.
 */
export function isPlainHistoryBuild(value: unknown): value is HistoryBuild {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const { messages, calls } = value as Record<string, unknown>
  return Array.isArray(calls) && calls.length === 0 && isPlainMessages(messages)
}

/** A non-empty list of well-formed chat messages (the fast path of the message checks; ChatMessageSchema decides otherwise). */
export function isPlainMessages(messages: unknown): messages is ChatMessage[] {
  if (!Array.isArray(messages) || messages.length === 0) return false
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Record<string, unknown> | null | undefined
    if (typeof m !== 'object' || m === null || Array.isArray(m) || typeof m.content !== 'string') return false
    const role = m.role
    if (role !== 'user' && role !== 'assistant' && role !== 'system') return false
  }
  return true
}

/**
 * Checks what `policy.build()` returned and returns it as HistoryBuildSchema reads it, or throws a
 * ComponentError naming the policy, the field and the fix (see ComponentError for why that fails
 * the cell rather than one trajectory). The bundled `full` and `last` policies are not checked:
 * they only rearrange what the protocol already checked (the prompt builder's messages and
 * replies, the actor's answers), so they cannot return a malformed history.
 *
 * @example
 * const built = checkHistoryBuild(policy, await policy.build(input), { taskId: 't1', attempt: 2 })
 */
export function checkHistoryBuild(
  policy: Pick<HistoryPolicy, 'name'>,
  value: unknown,
  at?: { taskId: string; attempt: number },
): HistoryBuild {
  // `full` and `last` only rearrange the checked prompt, answers and replies: nothing to check.
  if (policy === fullHistory || policy === lastHistory || isPlainHistoryBuild(value)) return value as HistoryBuild
  const parsed = HistoryBuildSchema.safeParse(value)
  if (parsed.success) return parsed.data
  throw new ComponentError(
    {
      component: `history policy ${JSON.stringify(policy.name)}`,
      returned: 'history',
      where: at ? `for task ${JSON.stringify(at.taskId)}, attempt ${at.attempt}` : undefined,
      contract: HISTORY_CONTRACT,
      hints: HISTORY_HINTS,
    },
    zodProblems(HistoryBuildSchema, value),
  )
}

/**
 * How H_{t-1} is shown to the actor at attempt t. It changes results, so its name and
 * settings are part of the protocol. What `build` returns is checked by the protocol
 * ({@link checkHistoryBuild}): anything but `{ messages: ChatMessage[] (one or more), calls }` is
 * a ComponentError that fails the cell.
 */
export interface HistoryPolicy {
  name: string
  settings: Record<string, string | number | boolean | null>
  /** The messages for the next attempt; a promise only when something must be waited for (a summariser). */
  build(input: {
    prompt: ChatMessage[]
    turns: readonly Turn[]
    context: { taskId: string; attempt: number; repeat: number }
    signal?: AbortSignal
  }): Awaitable<HistoryBuild>
}

/** A fresh copy of the prompt's messages (builders append to the last one). */
function copyOf(prompt: readonly ChatMessage[]): ChatMessage[] {
  return prompt.map((m) => ({ role: m.role, content: m.content }))
}

function conversation(prompt: ChatMessage[], turns: readonly Turn[]): ChatMessage[] {
  const out = copyOf(prompt)
  for (const turn of turns) out.push({ role: 'assistant', content: turn.answer }, { role: 'user', content: turn.reply })
  return out
}

/** Every earlier attempt and its feedback, verbatim. */
export const fullHistory: HistoryPolicy = {
  name: 'full',
  settings: {},
  build({ prompt, turns }) {
    return { messages: conversation(prompt, turns), calls: [] }
  },
}

/** Only the latest attempt and its feedback. */
export const lastHistory: HistoryPolicy = {
  name: 'last',
  settings: {},
  build({ prompt, turns }) {
    return { messages: conversation(prompt, turns.slice(-1)), calls: [] }
  },
}

/** A history policy whose build always comes as a promise (it calls a summariser). */
export interface AsyncHistoryPolicy extends HistoryPolicy {
  build(input: Parameters<HistoryPolicy['build']>[0]): Promise<HistoryBuild>
}

export const SUMMARY_PROMPT_VERSION = 'seqk-summary/1'

function summaryRequest(turns: readonly Turn[]): ChatMessage[] {
  const body = turns
    .map((t, i) => `### Attempt ${i + 1}\n${t.answer}\n\n### Feedback on attempt ${i + 1}\n${t.reply}`)
    .join('\n\n')
  return [
    {
      role: 'system',
      content:
        'You summarise earlier attempts at a task for the model that will try again. Keep what was tried, what failed and why, and every concrete detail of the feedback. Be brief.',
    },
    { role: 'user', content: `Summarise these earlier attempts and the feedback they received:\n\n${body}` },
  ]
}

/**
 * Earlier attempts replaced by a summary written by `summariser`; the latest attempt and its
 * feedback stay verbatim. The paper found this can cost up to 14 points, so it is its own protocol.
 */
export function summaryHistory(summariser: ChatModel): AsyncHistoryPolicy {
  const model = summariser as Partial<ChatModel> | null | undefined
  if (
    typeof model !== 'object' ||
    model === null ||
    typeof model.chat !== 'function' ||
    typeof model.descriptor !== 'object' ||
    model.descriptor === null
  ) {
    throw new TypeError(
      `summaryHistory(summariser): expected a chat model such as actors.openai({ model: "gpt-4.1-mini" }) (an object with id, descriptor and chat()), got ${model === null ? 'null' : typeof model}`,
    )
  }
  return {
    name: 'summary',
    settings: {
      summariser: `${summariser.descriptor.provider}:${summariser.descriptor.model}`,
      summariserParams: canonicalJson(summariser.descriptor.params),
      prompt: SUMMARY_PROMPT_VERSION,
    },
    async build({ prompt, turns, context, signal }) {
      if (turns.length <= 1) return { messages: conversation(prompt, turns), calls: [] }
      const earlier = turns.slice(0, -1)
      const response = checkChatResponse(
        summariser,
        'summariser',
        await summariser.chat({
          messages: summaryRequest(earlier),
          context: {
            role: 'summariser',
            taskId: context.taskId,
            attempt: context.attempt,
            repeat: context.repeat,
            protocol: 'sequential',
          },
          signal,
        }),
        context,
      )
      const messages = copyOf(prompt)
      const note = `\n\nSummary of your earlier attempts and the feedback on them:\n${response.text}`
      const last = messages.at(-1)
      // Appended to the prompt's user turn so roles keep alternating (some APIs require it).
      if (last?.role === 'user') last.content += note
      else messages.push({ role: 'user', content: note.trim() })
      const latest = turns.at(-1)!
      messages.push({ role: 'assistant', content: latest.answer }, { role: 'user', content: latest.reply })
      return { messages, calls: [recordCall('summariser', response)] }
    },
  }
}
