// Anthropic Messages: `POST /v1/messages`, streaming as named events `message_start`,
// `content_block_start|delta|stop`, `message_delta`, `message_stop`. The Anthropic SDK ignores
// SSE events without an `event:` line, so every event is named.
import { z } from 'zod'
import { jsonEvent, type SseEvent } from '../sse.js'
import type { PromptBlock } from '../usage.js'
import { splitText, zodFailure, type Completion, type CompletionUsage, type ParseResult, type WireProtocol } from './shared.js'

const CacheControl = z.object({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() })
const TextBlock = z.object({ type: z.literal('text'), text: z.string(), cache_control: CacheControl.nullish() })
const Content = z.union([z.string(), z.array(TextBlock)])

const MessagesBody = z.object({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  system: Content.nullish(),
  // SDK 1.x also types `{ role: 'system' }` messages; they are read as system prompts in place.
  messages: z.array(z.object({ role: z.enum(['user', 'assistant', 'system']), content: Content })).min(1),
  stream: z.boolean().nullish(),
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

function blocksOf(role: PromptBlock['role'], message: number, content: z.infer<typeof Content>): PromptBlock[] {
  if (typeof content === 'string') return [{ role, message, text: content }]
  return content.map((block) => ({ role, message, text: block.text, ...(block.cache_control ? { cacheControl: { ttl: block.cache_control.ttl ?? '5m' } } : {}) }))
}

function messagesUsage(usage: CompletionUsage) {
  return {
    // Anthropic's input_tokens are the tokens after the last cache breakpoint only.
    input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: usage.cacheWriteTokens - usage.cacheWrite1hTokens, ephemeral_1h_input_tokens: usage.cacheWrite1hTokens },
    server_tool_use: null,
    service_tier: 'standard',
  }
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
    stop_reason: final ? STOP_REASON[c.finishReason] : null,
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
    data.messages.forEach((m, i) => blocks.push(...blocksOf(m.role, i, m.content)))
    return { ok: true, value: { model: data.model, blocks, stream: data.stream === true, maxOutputTokens: data.max_tokens, includeUsage: true } }
  },

  errorBody(status, message, options = {}) {
    return { type: 'error', error: { type: errorType(status), message }, request_id: options.requestId ?? null }
  },

  responseBody(c: Completion) {
    return message(c, c.empty ? [] : [{ type: 'text', text: c.text, citations: null }], true, messagesUsage(c.usage))
  },

  streamEvents(c: Completion): SseEvent[] {
    const usage = messagesUsage(c.usage)
    const named = { named: true }
    const events: SseEvent[] = [
      // As the real API does: message_start carries the input side and a provisional output count.
      jsonEvent({ type: 'message_start', message: message(c, [], false, { ...usage, output_tokens: Math.min(1, usage.output_tokens) }) }, named),
      jsonEvent({ type: 'ping' }, named),
    ]
    if (!c.empty) {
      events.push(jsonEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } }, named))
      for (const piece of splitText(c.text)) {
        events.push(jsonEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }, { named: true, delta: true }))
      }
      events.push(jsonEvent({ type: 'content_block_stop', index: 0 }, named))
    }
    events.push(
      jsonEvent(
        {
          type: 'message_delta',
          delta: { stop_reason: STOP_REASON[c.finishReason], stop_sequence: null, stop_details: stopDetails(c) },
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
