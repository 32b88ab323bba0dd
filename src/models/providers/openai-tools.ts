// The tool protocol on OpenAI's two wires: Chat Completions (`tools: [{ type: 'function' }]`,
// assistant `tool_calls`, `role: 'tool'` results) and Responses (`function_call` and
// `function_call_output` input items). Pure mappings, no I/O.
import type OpenAI from 'openai'
import type { ChatMessage } from '../chat-model.js'
import type { StreamedToolCalls, ToolCall } from '../tools.js'
import type { ToolExchange } from './remote.js'

/** The Chat Completions request fields of an exchange: the messages with the episode's turns after them, and the tools. */
export function chatToolFields(
  messages: readonly ChatMessage[],
  exchange: ToolExchange,
): { messages: OpenAI.ChatCompletionMessageParam[]; tools?: OpenAI.ChatCompletionTool[] } {
  const out: OpenAI.ChatCompletionMessageParam[] = messages.map((m) => ({ role: m.role, content: m.content }))
  for (const turn of exchange.turns) {
    if (turn.role === 'tool') out.push({ role: 'tool', tool_call_id: turn.callId, content: turn.content })
    else
      out.push({
        role: 'assistant',
        // An assistant turn with only tool calls sends null content, as the API documents.
        content: turn.text === '' ? null : turn.text,
        ...(turn.toolCalls.length
          ? {
              tool_calls: turn.toolCalls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : {}),
      })
  }
  const tools = exchange.tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }))
  return { messages: out, ...(tools.length ? { tools } : {}) }
}

/** The function calls of a Chat Completions message. */
export function chatToolCalls(message: OpenAI.ChatCompletionMessage | undefined): ToolCall[] {
  return (message?.tool_calls ?? []).flatMap((c) =>
    c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
  )
}

/** Adds one streamed chunk's tool-call deltas. */
export function addChatToolDeltas(
  calls: StreamedToolCalls,
  deltas: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall[] | undefined,
): void {
  for (const d of deltas ?? [])
    calls.add(d.index, { id: d.id, name: d.function?.name, arguments: d.function?.arguments })
}

/** The Responses input items of an exchange's turns (after the messages' own items) and its tools. */
export function responsesToolFields(exchange: ToolExchange): {
  items: OpenAI.Responses.ResponseInputItem[]
  tools?: OpenAI.Responses.FunctionTool[]
} {
  const items: OpenAI.Responses.ResponseInputItem[] = []
  for (const turn of exchange.turns) {
    if (turn.role === 'tool') items.push({ type: 'function_call_output', call_id: turn.callId, output: turn.content })
    else {
      if (turn.text !== '') items.push({ role: 'assistant', content: turn.text })
      for (const c of turn.toolCalls)
        items.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments })
    }
  }
  // strict off: a strict schema would reject the user's JSON Schema unless it is written for it.
  const tools = exchange.tools.map((t) => ({
    type: 'function' as const,
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: false,
  }))
  return { items, ...(tools.length ? { tools } : {}) }
}

/** The function calls of a Responses response, in output order. */
export function responsesToolCalls(response: OpenAI.Responses.Response): ToolCall[] {
  return (response.output ?? []).flatMap((item) =>
    item.type === 'function_call' ? [{ id: item.call_id, name: item.name, arguments: item.arguments }] : [],
  )
}
