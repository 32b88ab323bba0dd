/**
 * The tool protocol every provider speaks, in one shape: what a model is offered (a tool's
 * definition), what it asks for (a tool call) and the exchange of an episode after its first
 * messages (the model's turns with their calls, and the results sent back). Each provider maps
 * these to its wire (Chat Completions `tool_calls`, Responses `function_call` items, Messages
 * `tool_use` blocks) and back.
 */
import { z } from 'zod'

/** A tool as the model is offered it: its name, what it does, and its parameters as JSON Schema. */
export interface ToolDefinition {
  /** 1 to 64 letters, digits, `_` or `-` (what every provider accepts). */
  name: string
  description: string
  /** A JSON Schema object describing the arguments. */
  parameters: Record<string, unknown>
}

/** A call the model asked for: the provider's call id, the tool's name, and its arguments as the model wrote them (JSON text). */
export interface ToolCall {
  id: string
  name: string
  /** JSON text as the model sent it; it may be malformed (the agent says so to the model). */
  arguments: string
}

/**
 * One step of an episode after its first messages: the model's turn (its text and the calls it
 * asked for) or the result of one of those calls sent back (`isError`: the tool failed or its
 * arguments were invalid; the model reads why in `content`).
 */
export type ToolTurn =
  | { role: 'assistant'; text: string; toolCalls: readonly ToolCall[] }
  | { role: 'tool'; callId: string; name: string; content: string; isError: boolean }

/** What a tool's name may be: every provider accepts `^[a-zA-Z0-9_-]{1,64}$`. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

/** The JSON form of a tool definition, as cassettes key on it. */
export const ToolDefinitionSchema = z.object({
  name: z.string().regex(TOOL_NAME),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
})

/** A tool call as records and cassettes keep it. */
export const ToolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() })

/** A tool turn as cassettes key on it. */
export const ToolTurnSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('assistant'), text: z.string(), toolCalls: z.array(ToolCallSchema) }),
  z.object({
    role: z.literal('tool'),
    callId: z.string(),
    name: z.string(),
    content: z.string(),
    isError: z.boolean(),
  }),
])

/**
 * A tool's parameters as JSON Schema: a zod schema is converted (`z.toJSONSchema`, without its
 * `$schema` line, which providers do not want), a JSON Schema object is taken as it is.
 *
 * @example
 * toolParameters(z.object({ path: z.string() }))
 * // => { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false }
 */
export function toolParameters(schema: z.ZodType | Record<string, unknown>): Record<string, unknown> {
  if (schema instanceof z.ZodType) {
    const { $schema: _drop, ...json } = z.toJSONSchema(schema) as Record<string, unknown>
    return json
  }
  return schema
}

/** The arguments a wire sent as an object (Anthropic's `input`), as JSON text. */
export function argumentsText(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input ?? {})
}

/**
 * Arguments as an object for a wire that wants one (Anthropic's `tool_use.input`): malformed JSON
 * the model wrote is sent back as `{}`, since the wire cannot carry it (the tool result that
 * follows already told the model its arguments were invalid).
 */
export function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

/**
 * Tool calls gathered from a stream's deltas by index (Chat Completions sends a call's id and
 * name first, then its arguments in pieces; Messages sends a `tool_use` block, then
 * `input_json_delta` pieces).
 */
export class StreamedToolCalls {
  readonly #calls = new Map<number, { id: string; name: string; arguments: string }>()
  add(index: number, part: { id?: string | null; name?: string | null; arguments?: string | null }): void {
    const call = this.#calls.get(index) ?? { id: '', name: '', arguments: '' }
    if (part.id) call.id = part.id
    if (part.name) call.name += part.name
    if (part.arguments) call.arguments += part.arguments
    this.#calls.set(index, call)
  }
  /** The calls in index order (an empty argument list reads as `{}`). */
  list(): ToolCall[] {
    return [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ ...c, arguments: c.arguments === '' ? '{}' : c.arguments }))
  }
}
