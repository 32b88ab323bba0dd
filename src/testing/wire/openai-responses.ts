// OpenAI Responses: `POST /v1/responses`, streaming as named `response.*` events, each with
// `type` and `sequence_number`, ended by `response.completed` (or `response.incomplete`).
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

const InputPart = z.discriminatedUnion('type', [
  z.object({ type: z.literal('input_text'), text: z.string() }),
  z.object({ type: z.literal('output_text'), text: z.string() }),
  z.object({ type: z.literal('refusal'), refusal: z.string() }),
])

const ResponsesBody = z.object({
  model: z.string().min(1),
  input: z.union([
    z.string(),
    z
      .array(
        z.union([
          z.object({
            type: z.literal('message').optional(),
            role: z.enum(['user', 'assistant', 'system', 'developer']),
            content: z.union([z.string(), z.array(InputPart)]),
          }),
          z.object({
            type: z.literal('function_call'),
            call_id: z.string(),
            name: z.string(),
            arguments: z.string(),
            id: z.string().nullish(),
            status: z.string().nullish(),
          }),
          z.object({
            type: z.literal('function_call_output'),
            call_id: z.string(),
            output: z.string(),
            id: z.string().nullish(),
            status: z.string().nullish(),
          }),
        ]),
      )
      .min(1),
  ]),
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  tools: z
    .array(
      z.object({
        type: z.literal('function'),
        name: z.string().min(1),
        description: z.string().nullish(),
        parameters: z.unknown(),
        strict: z.boolean().nullish(),
      }),
    )
    .nullish(),
})

function responsesUsage(usage: CompletionUsage) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  }
}

type Status = 'in_progress' | 'completed' | 'incomplete'

function responseObject(
  c: Completion,
  status: Status,
  output: unknown[],
  usage: ReturnType<typeof responsesUsage> | null,
) {
  return {
    id: c.id,
    object: 'response',
    created_at: c.created,
    status,
    background: false,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: typeof c.body['instructions'] === 'string' ? c.body['instructions'] : null,
    max_output_tokens: typeof c.body['max_output_tokens'] === 'number' ? c.body['max_output_tokens'] : null,
    metadata: {},
    model: c.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage,
    user: null,
  }
}

function finalStatus(c: Completion): Status {
  return c.finishReason === 'length' ? 'incomplete' : 'completed'
}

function contentPart(c: Completion, text: string) {
  return c.finishReason === 'refusal'
    ? { type: 'refusal', refusal: text }
    : { type: 'output_text', text, annotations: [], logprobs: [] }
}

function messageItem(c: Completion, status: Status, content: unknown[]) {
  return { id: c.itemId, type: 'message', status, role: 'assistant', content }
}

function callItem(c: Completion, index: number, status: Status, args: string) {
  const call = c.toolCalls[index]!
  return {
    id: `fc_test_${c.id}_${index}`,
    type: 'function_call',
    status,
    call_id: call.id,
    name: call.name,
    arguments: args,
  }
}

/** The output items: the message (when there is text, or no call), then one `function_call` per call. */
function outputItems(c: Completion, status: Status): unknown[] {
  if (c.empty) return []
  const message = c.text !== '' || c.toolCalls.length === 0 ? [messageItem(c, status, [contentPart(c, c.text)])] : []
  return [...message, ...c.toolCalls.map((call, i) => callItem(c, i, 'completed', call.arguments))]
}

/** The Responses wire. */
export const openaiResponses: WireProtocol = {
  api: 'responses',
  path: '/v1/responses',

  parse(body: unknown): ParseResult {
    const parsed = ResponsesBody.safeParse(body)
    if (!parsed.success) return zodFailure(parsed.error)
    const { data } = parsed
    const blocks: PromptBlock[] = []
    if (data.instructions) blocks.push({ role: 'system', message: -1, text: data.instructions })
    const toolResults: NonNullable<ParsedBody['toolResults']> = []
    if (typeof data.input === 'string') blocks.push({ role: 'user', message: 0, text: data.input })
    else
      data.input.forEach((message, i) => {
        if (message.type === 'function_call')
          return blocks.push({
            role: 'assistant',
            message: i,
            text: `${message.name}(${message.arguments})`,
            tool: true,
          })
        if (message.type === 'function_call_output') {
          toolResults.push({ callId: message.call_id, content: message.output, isError: false })
          return blocks.push({ role: 'user', message: i, text: message.output, tool: true })
        }
        const role = message.role === 'developer' ? 'system' : message.role
        const content =
          typeof message.content === 'string'
            ? message.content
            : message.content.map((part) => ({ text: part.type === 'refusal' ? part.refusal : part.text }))
        return blocks.push(...textBlocks(role, i, content))
      })
    const tools = (data.tools ?? []).map((t) => ({
      name: t.name,
      description: t.description ?? '',
      parameters: parametersOf(t.parameters),
    }))
    return {
      ok: true,
      value: {
        model: data.model,
        blocks,
        stream: data.stream === true,
        maxOutputTokens: data.max_output_tokens ?? undefined,
        includeUsage: true,
        ...toolFields(tools, toolResults),
      },
    }
  },

  errorBody: (status, message, options) => openaiErrorBody(status, message, options),

  responseBody(c: Completion) {
    const status = finalStatus(c)
    return responseObject(c, status, outputItems(c, status), responsesUsage(c.usage))
  },

  streamEvents(c: Completion): SseEvent[] {
    let sequence = 0
    const events: SseEvent[] = []
    const push = (type: string, fields: Record<string, unknown>, delta = false) =>
      events.push(jsonEvent({ type, sequence_number: sequence++, ...fields }, { named: true, delta }))
    const status = finalStatus(c)
    push('response.created', { response: responseObject(c, 'in_progress', [], null) })
    push('response.in_progress', { response: responseObject(c, 'in_progress', [], null) })
    const hasMessage = c.text !== '' || c.toolCalls.length === 0
    if (!c.empty && hasMessage) {
      const at = { item_id: c.itemId, output_index: 0, content_index: 0 }
      const refusal = c.finishReason === 'refusal'
      push('response.output_item.added', { output_index: 0, item: messageItem(c, 'in_progress', []) })
      push('response.content_part.added', { ...at, part: contentPart(c, '') })
      for (const piece of splitText(c.text)) {
        push(
          refusal ? 'response.refusal.delta' : 'response.output_text.delta',
          { ...at, delta: piece, ...(refusal ? {} : { logprobs: [] }) },
          true,
        )
      }
      if (refusal) push('response.refusal.done', { ...at, refusal: c.text })
      else push('response.output_text.done', { ...at, text: c.text, logprobs: [] })
      push('response.content_part.done', { ...at, part: contentPart(c, c.text) })
      push('response.output_item.done', { output_index: 0, item: messageItem(c, status, [contentPart(c, c.text)]) })
    }
    if (!c.empty)
      c.toolCalls.forEach((call, i) => {
        const at = { item_id: callItem(c, i, 'completed', '').id, output_index: i + (hasMessage ? 1 : 0) }
        push('response.output_item.added', { output_index: at.output_index, item: callItem(c, i, 'in_progress', '') })
        for (const piece of splitText(call.arguments, 3))
          push('response.function_call_arguments.delta', { ...at, delta: piece }, true)
        push('response.function_call_arguments.done', { ...at, arguments: call.arguments })
        push('response.output_item.done', {
          output_index: at.output_index,
          item: callItem(c, i, 'completed', call.arguments),
        })
      })
    push(status === 'incomplete' ? 'response.incomplete' : 'response.completed', {
      response: responseObject(c, status, outputItems(c, status), responsesUsage(c.usage)),
    })
    return events
  },

  malformedEvent: () => ({
    event: 'response.created',
    data: '{"type":"response.created","sequence_number":0,"response":{',
  }),
}
