// The tool protocol on Anthropic's Messages wire: `tools` with `input_schema`, assistant
// `tool_use` blocks, and `tool_result` blocks in the user turn that follows. Pure mappings.
import type Anthropic from '@anthropic-ai/sdk'
import { argumentsObject, argumentsText, type ToolCall, type ToolDefinition, type ToolTurn } from '../tools.js'

/**
 * An episode's turns as Messages turns: the model's text and `tool_use` blocks, then the results
 * of one step gathered into one user turn (the API wants every result of a parallel step in the
 * turn right after it).
 */
export function anthropicToolTurns(turns: readonly ToolTurn[]): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = []
  for (const turn of turns) {
    if (turn.role === 'assistant') {
      const blocks: Anthropic.ContentBlockParam[] = turn.text === '' ? [] : [{ type: 'text', text: turn.text }]
      for (const c of turn.toolCalls)
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: argumentsObject(c.arguments) })
      out.push({ role: 'assistant', content: blocks })
      continue
    }
    const result: Anthropic.ToolResultBlockParam = {
      type: 'tool_result',
      tool_use_id: turn.callId,
      content: turn.content,
      ...(turn.isError ? { is_error: true } : {}),
    }
    const last = out.at(-1)
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push(result)
    else out.push({ role: 'user', content: [result] })
  }
  return out
}

/** The Messages `tools` of a request. */
export function anthropicTools(tools: readonly ToolDefinition[]): Anthropic.Tool[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters as Anthropic.Tool.InputSchema,
  }))
}

/** The `tool_use` blocks of a response, as calls. */
export function anthropicToolCalls(content: readonly Anthropic.ContentBlock[]): ToolCall[] {
  return content.flatMap((b) =>
    b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: argumentsText(b.input) }] : [],
  )
}
