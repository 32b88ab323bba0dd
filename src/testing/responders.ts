// Built-in responders: a script of replies in order, pattern rules, and an echo.
import type { Responder, TestServerReply, TestServerRequest } from './types.js'

/** The last user message of a request ('' when there is none). */
export function lastUserMessage(request: TestServerRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!
    if (message.role === 'user') return message.content
  }
  return ''
}

/** A reply in its long form; throws a TypeError when the responder returned something else. */
export function normaliseReply(reply: unknown): TestServerReply {
  if (typeof reply === 'string') return { text: reply }
  if (reply !== null && typeof reply === 'object' && typeof (reply as { text?: unknown }).text === 'string')
    return reply as TestServerReply
  // A reply that only calls tools may leave its text out.
  if (
    reply !== null &&
    typeof reply === 'object' &&
    (reply as { text?: unknown }).text === undefined &&
    Array.isArray((reply as { toolCalls?: unknown }).toolCalls)
  )
    return { ...(reply as TestServerReply), text: '' }
  throw new TypeError(`the responder must return a string or { text: string, ... }; got ${describe(reply)}`)
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined'
  try {
    const json = JSON.stringify(value)
    return json.length > 120 ? `${json.slice(0, 117)}...` : json
  } catch {
    return String(value)
  }
}

/**
 * Answers with `replies` in order, one per request (whatever the API). When they run out it
 * throws, which the server turns into a 500 whose message says so.
 *
 * @example
 * const server = await startTestServer({ responder: scripted(['def f(): return 1', { text: 'sorry', finishReason: 'refusal' }]) })
 */
export function scripted(replies: readonly (TestServerReply | string)[]): Responder {
  const script = [...replies]
  let next = 0
  return (request) => {
    if (next >= script.length) {
      throw new Error(
        `scripted responder: no reply left for request #${request.index} (${request.api}, model ${request.model}): all ${script.length} scripted replies were used`,
      )
    }
    return script[next++]!
  }
}

/**
 * One rule of `rules()`.
 *
 * @example
 * const rule: ResponderRule = { match: /tests? failed/i, reply: { text: 'def f(): return 2' } }
 */
export interface ResponderRule {
  /** A RegExp is tested on the last user message; a function sees the whole request. */
  match: RegExp | ((request: TestServerRequest) => boolean)
  reply: TestServerReply | string | ((request: TestServerRequest) => TestServerReply | string)
}

/**
 * Answers with the first rule that matches; otherwise with `fallback`, or (without one) throws,
 * which the server turns into a 500 naming the unmatched message.
 *
 * @example
 * const responder = rules(
 *   [
 *     { match: /capital of France/i, reply: 'Paris' },
 *     { match: (r) => r.messages[0]?.role === 'system', reply: (r) => `system said: ${r.messages[0]!.content}` },
 *   ],
 *   "I don't know",
 * )
 */
export function rules(list: readonly ResponderRule[], fallback?: TestServerReply | string): Responder {
  return (request) => {
    const last = lastUserMessage(request)
    for (const rule of list) {
      let hit: boolean
      if (rule.match instanceof RegExp) {
        rule.match.lastIndex = 0 // a /g or /y pattern keeps state between calls
        hit = rule.match.test(last)
      } else {
        hit = rule.match(request)
      }
      if (hit) return typeof rule.reply === 'function' ? rule.reply(request) : rule.reply
    }
    if (fallback !== undefined) return fallback
    throw new Error(
      `rules responder: no rule matched request #${request.index} (last user message ${describe(last)}) and there is no fallback`,
    )
  }
}

/**
 * Replies with the last user message, unchanged. The default responder of `startTestServer()`.
 *
 * @example
 * const server = await startTestServer({ responder: echo })
 */
export const echo: Responder = (request) => lastUserMessage(request)
