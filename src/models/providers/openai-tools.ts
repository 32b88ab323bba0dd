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
  // Every turn of the episode is mapped again on each call: assigned, not spread (a spread of a
  // conditional object costs a runtime call on Node 20).
  for (const turn of exchange.turns) {
    if (turn.role === 'tool') out.push({ role: 'tool', tool_call_id: turn.callId, content: turn.content })
    else {
      // An assistant turn with only tool calls sends null content, as the API documents.
      const message: OpenAI.ChatCompletionAssistantMessageParam = {
        role: 'assistant',
        content: turn.text === '' ? null : turn.text,
      }
      if (turn.toolCalls.length)
        message.tool_calls = turn.toolCalls.map((c) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: c.arguments },
        }))
      out.push(message)
    }
  }
  const tools = exchange.tools.map((t) => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }))
  return tools.length ? { messages: out, tools } : { messages: out }
}

/** The function calls of a Chat Completions message. */
export function chatToolCalls(message: OpenAI.ChatCompletionMessage | undefined): ToolCall[] {
  const calls: ToolCall[] = []
  // A loop, not flatMap: this runs on every turn, and V8's flatMap allocates an array per element.
  for (const c of message?.tool_calls ?? [])
    if (c.type === 'function') calls.push({ id: c.id, name: c.function.name, arguments: c.function.arguments })
  return calls
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
