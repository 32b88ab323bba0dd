// Anthropic Messages: `POST /v1/messages`, streaming as named events `message_start`,
// `content_block_start|delta|stop`, `message_delta`, `message_stop`. The Anthropic SDK ignores
// SSE events without an `event:` line, so every event is named.
import { z } from 'zod'
import { jsonEvent, type SseEvent } from '../sse.js'
import type { PromptBlock } from '../usage.js'
import { argumentsObject } from '../../models/tools.js'
import {
  parametersOf,
  splitText,
  toolFields,
  zodFailure,
  type Completion,
  type CompletionUsage,
  type ParsedBody,
  type ParseResult,
  type WireProtocol,
} from './shared.js'

const CacheControl = z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() })
const TextBlock = z.object({ type: z.literal('text'), text: z.string(), cache_control: CacheControl.nullish() })
const ToolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
  cache_control: CacheControl.nullish(),
})
const ToolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(TextBlock)]).nullish(),
  is_error: z.boolean().nullish(),
  cache_control: CacheControl.nullish(),
})
const Content = z.union([z.string(), z.array(z.discriminatedUnion('type', [TextBlock, ToolUseBlock, ToolResultBlock]))])
const SystemContent = z.union([z.string(), z.array(TextBlock)])

const MessagesBody = z.object({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  system: SystemContent.nullish(),
  // SDK 1.x also types `{ role: 'system' }` messages; they are read as system prompts in place.
  messages: z.array(z.object({ role: z.enum(['user', 'assistant', 'system']), content: Content })).min(1),
  stream: z.boolean().nullish(),
  tools: z
    .array(z.object({ name: z.string().min(1), description: z.string().nullish(), input_schema: z.unknown() }))
    .nullish(),
})

const STOP_REASON = { stop: 'end_turn', length: 'max_tokens', refusal: 'refusal' } as const

function errorType(status: number): string {
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 408 || status === 504) return 'timeout_error'
  if (status === 409) return 'conflict_error'
  if (status === 413) return 'request_too_large'
  if (status === 429) return 'rate_limit_error'
  if (status === 503 || status === 529) return 'overloaded_error'
  if (status >= 500) return 'api_error'
  return 'invalid_request_error'
}

/** The prompt blocks of one message; its tool results are gathered into `results`. */
function blocksOf(
  role: PromptBlock['role'],
  message: number,
  content: z.infer<typeof Content>,
  results: NonNullable<ParsedBody['toolResults']> = [],
): PromptBlock[] {
  if (typeof content === 'string') return [{ role, message, text: content }]
  return content.map((block) => {
    const cache = block.cache_control ? { cacheControl: { ttl: block.cache_control.ttl ?? '5m' } } : {}
    if (block.type === 'text') return { role, message, text: block.text, ...cache }
    if (block.type === 'tool_use')
      return { role, message, text: `${block.name}(${JSON.stringify(block.input)})`, tool: true as const, ...cache }
    const text = typeof block.content === 'string' ? block.content : (block.content ?? []).map((b) => b.text).join('\n')
    results.push({ callId: block.tool_use_id, content: text, isError: block.is_error === true })
    return { role, message, text, tool: true as const, ...cache }
  })
}

function messagesUsage(usage: CompletionUsage) {
  return {
    // Anthropic's input_tokens are the tokens after the last cache breakpoint only.
    input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: usage.cacheWriteTokens - usage.cacheWrite1hTokens,
      ephemeral_1h_input_tokens: usage.cacheWrite1hTokens,
    },
    server_tool_use: null,
    service_tier: 'standard',
  }
}

/** `tool_use` when the answer calls tools and was not cut. */
const stopReason = (c: Completion): string =>
  c.toolCalls.length && c.finishReason === 'stop' ? 'tool_use' : STOP_REASON[c.finishReason]

/** The response's content blocks: the text (when there is any, or no call), then one `tool_use` per call. */
function contentBlocks(c: Completion): unknown[] {
  if (c.empty) return []
  const text = c.text !== '' || c.toolCalls.length === 0 ? [{ type: 'text', text: c.text, citations: null }] : []
  return [
    ...text,
    ...c.toolCalls.map((t) => ({ type: 'tool_use', id: t.id, name: t.name, input: argumentsObject(t.arguments) })),
  ]
}

function stopDetails(c: Completion) {
  return c.finishReason === 'refusal' ? { type: 'refusal', category: null, explanation: null } : null
}

function message(c: Completion, content: unknown[], final: boolean, usage: Record<string, unknown>) {
  return {
    id: c.id,
    type: 'message',
    role: 'assistant',
    model: c.model,
    content,
    stop_reason: final ? stopReason(c) : null,
    stop_sequence: null,
    stop_details: final ? stopDetails(c) : null,
    container: null,
    usage,
  }
}

/** The Messages wire. */
export const anthropicMessages: WireProtocol = {
  api: 'messages',
  path: '/v1/messages',

  parse(body: unknown): ParseResult {
    const parsed = MessagesBody.safeParse(body)
    if (!parsed.success) return zodFailure(parsed.error)
    const { data } = parsed
    const blocks: PromptBlock[] = []
    if (data.system !== undefined && data.system !== null) blocks.push(...blocksOf('system', -1, data.system))
    const results: NonNullable<ParsedBody['toolResults']> = []
    data.messages.forEach((m, i) => blocks.push(...blocksOf(m.role, i, m.content, results)))
    const tools = (data.tools ?? []).map((t) => ({
      name: t.name,
      description: t.description ?? '',
      parameters: parametersOf(t.input_schema),
    }))
    return {
      ok: true,
      value: {
        model: data.model,
        blocks,
        stream: data.stream === true,
        maxOutputTokens: data.max_tokens,
        includeUsage: true,
        ...toolFields(tools, results),
      },
    }
  },

  errorBody(status, message, options = {}) {
    return { type: 'error', error: { type: errorType(status), message }, request_id: options.requestId ?? null }
  },

  responseBody(c: Completion) {
    return message(c, contentBlocks(c), true, messagesUsage(c.usage))
  },

  streamEvents(c: Completion): SseEvent[] {
    const usage = messagesUsage(c.usage)
    const named = { named: true }
    const events: SseEvent[] = [
      // As the real API does: message_start carries the input side and a provisional output count.
      jsonEvent(
        {
          type: 'message_start',
          message: message(c, [], false, { ...usage, output_tokens: Math.min(1, usage.output_tokens) }),
        },
        named,
      ),
      jsonEvent({ type: 'ping' }, named),
    ]
    const hasText = c.text !== '' || c.toolCalls.length === 0
    if (!c.empty && hasText) {
      events.push(
        jsonEvent(
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } },
          named,
        ),
      )
      for (const piece of splitText(c.text)) {
        events.push(
          jsonEvent(
            { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } },
            { named: true, delta: true },
          ),
        )
      }
      events.push(jsonEvent({ type: 'content_block_stop', index: 0 }, named))
    }
    if (!c.empty)
      c.toolCalls.forEach((t, i) => {
        const index = i + (hasText ? 1 : 0)
        // As the API streams a tool_use block: empty input first, then its JSON in pieces.
        events.push(
          jsonEvent(
            {
              type: 'content_block_start',
              index,
              content_block: { type: 'tool_use', id: t.id, name: t.name, input: {} },
            },
            named,
          ),
        )
        for (const piece of splitText(JSON.stringify(argumentsObject(t.arguments)), 3)) {
          events.push(
            jsonEvent(
              { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } },
              { named: true, delta: true },
            ),
          )
        }
        events.push(jsonEvent({ type: 'content_block_stop', index }, named))
      })
    events.push(
      jsonEvent(
        {
          type: 'message_delta',
          delta: { stop_reason: stopReason(c), stop_sequence: null, stop_details: stopDetails(c) },
          usage: {
            output_tokens: usage.output_tokens,
            input_tokens: usage.input_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
          },
        },
        named,
      ),
      jsonEvent({ type: 'message_stop' }, named),
    )
    return events
  },

  malformedEvent: () => ({ event: 'message_start', data: '{"type":"message_start","message":{' }),
}
