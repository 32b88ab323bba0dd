import { recordCall, type ChatMessage, type ChatModel, type ModelCall } from '../models/chat-model.js'
import type { Awaitable } from './awaitable.js'
import { canonicalJson } from './fingerprint.js'

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

/**
 * How H_{t-1} is shown to the actor at attempt t (DESIGN §1). It changes results, so its name and
 * settings are part of the protocol.
 */
export interface HistoryPolicy {
  name: string
  settings: Record<string, string | number | boolean | null>
  /** The messages for the next attempt; a promise only when something must be waited for (a summariser). */
  build(input: { prompt: ChatMessage[]; turns: readonly Turn[]; context: { taskId: string; attempt: number; repeat: number }; signal?: AbortSignal }): Awaitable<HistoryBuild>
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
  const body = turns.map((t, i) => `### Attempt ${i + 1}\n${t.answer}\n\n### Feedback on attempt ${i + 1}\n${t.reply}`).join('\n\n')
  return [
    {
      role: 'system',
      content: 'You summarise earlier attempts at a task for the model that will try again. Keep what was tried, what failed and why, and every concrete detail of the feedback. Be brief.',
    },
    { role: 'user', content: `Summarise these earlier attempts and the feedback they received:\n\n${body}` },
  ]
}

/**
 * Earlier attempts replaced by a summary written by `summariser`; the latest attempt and its
 * feedback stay verbatim. The paper found this can cost up to 14 points, so it is its own protocol.
 */
export function summaryHistory(summariser: ChatModel): AsyncHistoryPolicy {
  return {
    name: 'summary',
    settings: { summariser: `${summariser.descriptor.provider}:${summariser.descriptor.model}`, summariserParams: canonicalJson(summariser.descriptor.params), prompt: SUMMARY_PROMPT_VERSION },
    async build({ prompt, turns, context, signal }) {
      if (turns.length <= 1) return { messages: conversation(prompt, turns), calls: [] }
      const earlier = turns.slice(0, -1)
      const response = await summariser.chat({
        messages: summaryRequest(earlier),
        context: { role: 'summariser', taskId: context.taskId, attempt: context.attempt, repeat: context.repeat, protocol: 'sequential' },
        signal,
      })
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
