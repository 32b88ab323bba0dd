// OpenAI Chat Completions: `POST /v1/chat/completions`, streaming as `chat.completion.chunk`
// events ended by `data: [DONE]`.
import { z } from 'zod'
import { jsonEvent, type SseEvent } from '../sse.js'
import type { PromptBlock } from '../usage.js'
import {
  openaiErrorBody,
  parametersOf,
  splitText,
  textBlocks,
  toolFields,
  zodFailure,
  type Completion,
  type CompletionUsage,
  type ParsedBody,
  type ParseResult,
  type WireProtocol,
} from './shared.js'

const ContentPart = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('refusal'), refusal: z.string() }),
])

const ChatBody = z.object({
  model: z.string().min(1),
  messages: z
    .array(
      z.object({
        role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
        // `null` is what an assistant turn with only tool calls sends; it reads as ''.
        content: z.union([z.string(), z.array(ContentPart)]).nullish(),
        tool_calls: z
          .array(
            z.object({
              id: z.string(),
              type: z.literal('function'),
              function: z.object({ name: z.string(), arguments: z.string() }),
            }),
          )
          .nullish(),
        tool_call_id: z.string().nullish(),
      }),
    )
    .min(1),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  tools: z
    .array(
      z.object({
        type: z.literal('function'),
        function: z.object({ name: z.string().min(1), description: z.string().nullish(), parameters: z.unknown() }),
      }),
    )
    .nullish(),
})

const FINISH = { stop: 'stop', length: 'length', refusal: 'content_filter' } as const

/** `tool_calls` when the answer calls tools and was not cut. */
const finishOf = (c: Completion): string =>
  c.toolCalls.length && c.finishReason === 'stop' ? 'tool_calls' : FINISH[c.finishReason]

function chatUsage(usage: CompletionUsage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
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
    const toolResults: NonNullable<ParsedBody['toolResults']> = []
    const blocks: PromptBlock[] = data.messages.flatMap((message, i) => {
      const content = Array.isArray(message.content)
        ? message.content.map((part) => ({ text: part.type === 'text' ? part.text : part.refusal }))
        : message.content
      if (message.role === 'tool') {
        const text = Array.isArray(content) ? content.map((p) => p.text).join('\n') : (content ?? '')
        toolResults.push({ callId: message.tool_call_id ?? '', content: text, isError: false })
        return [{ role: 'user' as const, message: i, text, tool: true as const }]
      }
      const calls = (message.tool_calls ?? []).map((c) => ({
        role: 'assistant' as const,
        message: i,
        text: `${c.function.name}(${c.function.arguments})`,
        tool: true as const,
      }))
      // A turn of only tool calls has no text: no empty assistant message in the conversation.
      const text =
        content == null && calls.length
          ? []
          : textBlocks(message.role === 'developer' ? 'system' : message.role, i, content)
      return [...text, ...calls]
    })
    const tools = (data.tools ?? []).map((t) => ({
      name: t.function.name,
      description: t.function.description ?? '',
      parameters: parametersOf(t.function.parameters),
    }))
    return {
      ok: true,
      value: {
        model: data.model,
        blocks,
        stream: data.stream === true,
        maxOutputTokens: data.max_completion_tokens ?? data.max_tokens ?? undefined,
        includeUsage: data.stream_options?.include_usage === true,
        ...toolFields(tools, toolResults),
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
              message: {
                role: 'assistant',
                content: refusal || (c.text === '' && c.toolCalls.length) ? null : c.text,
                refusal: refusal ? c.text : null,
                annotations: [],
                ...(c.toolCalls.length
                  ? {
                      tool_calls: c.toolCalls.map((t) => ({
                        id: t.id,
                        type: 'function',
                        function: { name: t.name, arguments: t.arguments },
                      })),
                    }
                  : {}),
              },
              logprobs: null,
              finish_reason: finishOf(c),
            },
          ],
      usage: chatUsage(c.usage),
      service_tier: 'default',
      system_fingerprint: null,
    }
  },

  streamEvents(c: Completion): SseEvent[] {
    const base = {
      id: c.id,
      object: 'chat.completion.chunk',
      created: c.created,
      model: c.model,
      service_tier: 'default',
      system_fingerprint: null,
    }
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
      // As the API streams a call: its id and name first, then its arguments in pieces.
      c.toolCalls.forEach((t, index) => {
        events.push(
          jsonEvent(
            chunk({ tool_calls: [{ index, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }] }),
          ),
        )
        for (const piece of splitText(t.arguments, 3))
          events.push(jsonEvent(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }), { delta: true }))
      })
      events.push(jsonEvent(chunk({}, finishOf(c))))
    }
    if (c.includeUsage) events.push(jsonEvent({ ...base, choices: [], usage: chatUsage(c.usage) }))
    events.push({ data: '[DONE]' })
    return events
  },

  malformedEvent: () => ({ data: '{"id":"chatcmpl-broken","object":"chat.completion.chunk","choices":[' }),
}
