// What the three wire protocols have in common: the parsed request the server works with, the
// completion it renders, and the interface each wire module implements.
import type { z } from 'zod'
import type { SseEvent } from '../sse.js'
import type { TestServerApi, TestServerRequest } from '../types.js'
import type { PromptBlock } from '../usage.js'

/** A validated request body, reduced to what the server needs. */
export interface ParsedBody {
  model: string
  /** The prompt's text parts in wire order (system field first where the wire has one). */
  blocks: PromptBlock[]
  stream: boolean
  /** `max_tokens` / `max_completion_tokens` / `max_output_tokens`, when given. */
  maxOutputTokens?: number
  /** Chat: `stream_options.include_usage`; the other wires always report usage. */
  includeUsage: boolean
  /** The tools offered (absent: none). */
  tools?: NonNullable<TestServerRequest['tools']>
  /** The tool results in the conversation (absent: none). */
  toolResults?: NonNullable<TestServerRequest['toolResults']>
}

/** Token usage as the server computed it (`inputTokens` includes cached tokens). */
export interface CompletionUsage {
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  /** Anthropic: the part of `cacheWriteTokens` written with a 1-hour TTL. */
  cacheWrite1hTokens: number
}

/** Everything a wire module needs to render one answer. */
export interface Completion {
  id: string
  /** Id of the output message item (Responses). */
  itemId: string
  model: string
  /** Unix seconds. */
  created: number
  text: string
  finishReason: 'stop' | 'length' | 'refusal'
  usage: CompletionUsage
  includeUsage: boolean
  /** `empty-choices`: no choices / output items / content blocks. */
  empty: boolean
  /** The request body, for fields a response echoes (Responses `instructions`, `max_output_tokens`). */
  body: Record<string, unknown>
  /** The tool calls to answer with, ids and JSON arguments filled in (empty: none). */
  toolCalls: { id: string; name: string; arguments: string }[]
}

export type ParseResult = { ok: true; value: ParsedBody } | { ok: false; message: string; param?: string }

/** One wire protocol: where it listens, how it validates, how it answers and fails. */
export interface WireProtocol {
  api: TestServerApi
  /** The request path, e.g. `/v1/chat/completions`. */
  path: string
  parse(body: unknown): ParseResult
  /** The provider's error JSON for `status`. */
  errorBody(status: number, message: string, options?: { param?: string; requestId?: string }): unknown
  /** The non-streaming success body. */
  responseBody(completion: Completion): unknown
  /** Every event of the streaming answer, in order (the last ones close the stream: `[DONE]`, `message_stop`, ...). */
  streamEvents(completion: Completion): SseEvent[]
  /** The first event of a stream, with data that is not JSON (`malformed-json` on a stream). */
  malformedEvent(): SseEvent
}

/** One validation problem: where, and what. */
interface Problem {
  path: PropertyKey[]
  message: string
}

/**
 * Zod issues as plain problems. A union (`content: string | block[]`) is resolved to the branch
 * the value was meant for, so the message names the nested field (`messages[0].content[1].text`)
 * instead of zod's bare "Invalid input" on the union.
 */
function problemsOf(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): Problem[] {
  return issues.flatMap((issue): Problem[] => {
    const path = [...prefix, ...issue.path]
    if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [{ path, message: issue.message }]
    const typeMismatch = (branch: readonly z.core.$ZodIssue[]) =>
      branch.length === 1 && branch[0]!.code === 'invalid_type' && branch[0]!.path.length === 0
    const meant = issue.errors.filter((branch) => !typeMismatch(branch))
    if (meant.length === 1) return problemsOf(meant[0]!, path)
    if (meant.length === 0) {
      const expected = issue.errors.map((branch) => (branch[0] as { expected?: string }).expected).filter(Boolean)
      return [{ path, message: `Invalid input: expected ${expected.join(' or ')}` }]
    }
    return [{ path, message: issue.message }]
  })
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('')
}

/** A failed parse: every problem as `field.path: message`, and the first problem's path for OpenAI's `param`. */
export function zodFailure(error: z.ZodError): { ok: false; message: string; param?: string } {
  const problems = problemsOf(error.issues)
  const described = problems.map((problem) => `${formatPath(problem.path) || '(root)'}: ${problem.message}`).join('; ')
  return {
    ok: false,
    message: `Invalid request body: ${described}`,
    param: formatPath(problems[0]?.path ?? []) || undefined,
  }
}

/** The normalised conversation of `TestServerRequest.messages`: system prompts first, parts joined with `\n`. */
export function normaliseMessages(blocks: readonly PromptBlock[]): TestServerRequest['messages'] {
  const messages: { role: 'system' | 'user' | 'assistant'; message: number; parts: string[] }[] = []
  for (const block of blocks) {
    if (block.tool) continue
    const last = messages.at(-1)
    if (last && last.message === block.message && last.role === block.role) last.parts.push(block.text)
    else messages.push({ role: block.role, message: block.message, parts: [block.text] })
  }
  const system = messages.filter((m) => m.role === 'system')
  const turns = messages.filter((m) => m.role !== 'system')
  return [...system, ...turns].map((m) => ({ role: m.role, content: m.parts.join('\n') }))
}

/** Splits `text` into up to `pieces` non-empty pieces of similar length (whole code points). */
export function splitText(text: string, pieces = 4): string[] {
  const chars = Array.from(text)
  if (chars.length === 0) return []
  const size = Math.ceil(chars.length / Math.min(pieces, chars.length))
  const out: string[] = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''))
  return out
}

/** Content parts: a string, or an array of `{ text }` parts. */
export function textBlocks(
  role: PromptBlock['role'],
  message: number,
  content: string | null | undefined | readonly { text: string; cacheControl?: PromptBlock['cacheControl'] }[],
): PromptBlock[] {
  if (content === null || content === undefined) return [{ role, message, text: '' }]
  if (typeof content === 'string') return [{ role, message, text: content }]
  return content.map((part) => ({
    role,
    message,
    text: part.text,
    ...(part.cacheControl ? { cacheControl: part.cacheControl } : {}),
  }))
}

/** OpenAI's error `type` and `code` for a status, as the real API sends them. */
function openaiErrorKind(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' }
  if (status === 404) return { type: 'invalid_request_error', code: 'unknown_url' }
  if (status === 408) return { type: 'timeout', code: 'request_timeout' }
  if (status === 409) return { type: 'invalid_request_error', code: 'conflict' }
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' }
  if (status >= 500)
    return { type: 'server_error', code: status === 503 || status === 529 ? 'service_unavailable' : null }
  return { type: 'invalid_request_error', code: null }
}

/** OpenAI's error JSON: `{ error: { message, type, param, code } }`. */
export function openaiErrorBody(status: number, message: string, options: { param?: string } = {}): unknown {
  return { error: { message, ...openaiErrorKind(status), param: options.param ?? null } }
}

/** The tool fields of a parsed body: present only when the request has them. */
export function toolFields(
  tools: NonNullable<ParsedBody['tools']>,
  toolResults: NonNullable<ParsedBody['toolResults']>,
): Pick<ParsedBody, 'tools' | 'toolResults'> {
  return { ...(tools.length ? { tools } : {}), ...(toolResults.length ? { toolResults } : {}) }
}

/** The JSON Schema a wire sent for a tool, or `{}` when it sent none. */
export const parametersOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
