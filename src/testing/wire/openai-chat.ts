// OpenAI Chat Completions: `POST /v1/chat/completions`, streaming as `chat.completion.chunk`
// events ended by `data: [DONE]`.
import { z } from 'zod'
import { jsonEvent, type SseEvent } from '../sse.js'
import type { PromptBlock } from '../usage.js'
import { openaiErrorBody, splitText, textBlocks, zodFailure, type Completion, type CompletionUsage, type ParseResult, type WireProtocol } from './shared.js'

const ContentPart = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('refusal'), refusal: z.string() }),
])

const ChatBody = z.object({
  model: z.string().min(1),
  messages: z
    .array(
      z.object({
        role: z.enum(['system', 'developer', 'user', 'assistant']),
        // `null` is what an assistant turn with only tool calls sends; it reads as ''.
        content: z.union([z.string(), z.array(ContentPart)]).nullable(),
      }),
    )
    .min(1),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
})

const FINISH = { stop: 'stop', length: 'length', refusal: 'content_filter' } as const

function chatUsage(usage: CompletionUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  }
}

/** The Chat Completions wire. */
export const openaiChat: WireProtocol = {
  api: 'chat',
  path: '/v1/chat/completions',

  parse(body: unknown): ParseResult {
    const parsed = ChatBody.safeParse(body)
    if (!parsed.success) return zodFailure(parsed.error)
    const { data } = parsed
    const blocks: PromptBlock[] = data.messages.flatMap((message, i) =>
      textBlocks(
        message.role === 'developer' ? 'system' : message.role,
        i,
        Array.isArray(message.content) ? message.content.map((part) => ({ text: part.type === 'text' ? part.text : part.refusal })) : message.content,
      ),
    )
    return {
      ok: true,
      value: {
        model: data.model,
        blocks,
        stream: data.stream === true,
        maxOutputTokens: data.max_completion_tokens ?? data.max_tokens ?? undefined,
        includeUsage: data.stream_options?.include_usage === true,
      },
    }
  },

  errorBody: (status, message, options) => openaiErrorBody(status, message, options),

  responseBody(c: Completion) {
    const refusal = c.finishReason === 'refusal'
    return {
      id: c.id,
      object: 'chat.completion',
      created: c.created,
      model: c.model,
      choices: c.empty
        ? []
        : [
            {
              index: 0,
              message: { role: 'assistant', content: refusal ? null : c.text, refusal: refusal ? c.text : null, annotations: [] },
              logprobs: null,
              finish_reason: FINISH[c.finishReason],
            },
          ],
      usage: chatUsage(c.usage),
      service_tier: 'default',
      system_fingerprint: null,
    }
  },

  streamEvents(c: Completion): SseEvent[] {
    const base = { id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, service_tier: 'default', system_fingerprint: null }
    // With include_usage, every chunk carries `usage: null` and one last chunk carries the usage.
    const usageNull = c.includeUsage ? { usage: null } : {}
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...usageNull,
    })
    const events: SseEvent[] = []
    if (c.empty) {
      events.push(jsonEvent({ ...base, choices: [], ...usageNull }))
    } else {
      const field = c.finishReason === 'refusal' ? 'refusal' : 'content'
      events.push(jsonEvent(chunk({ role: 'assistant', [field]: '' })))
      for (const piece of splitText(c.text)) events.push(jsonEvent(chunk({ [field]: piece }), { delta: true }))
      events.push(jsonEvent(chunk({}, FINISH[c.finishReason])))
    }
    if (c.includeUsage) events.push(jsonEvent({ ...base, choices: [], usage: chatUsage(c.usage) }))
    events.push({ data: '[DONE]' })
    return events
  },

  malformedEvent: () => ({ data: '{"id":"chatcmpl-broken","object":"chat.completion.chunk","choices":[' }),
}
