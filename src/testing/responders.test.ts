import { describe, expect, it } from 'vitest'
import { echo, lastUserMessage, normaliseReply, rules, scripted } from './responders.js'
import type { TestServerRequest } from './types.js'

const request = (messages: TestServerRequest['messages'], index = 0): TestServerRequest => ({
  api: 'chat',
  model: 'm',
  messages,
  stream: false,
  body: {},
  headers: {},
  index,
})
const asked = (text: string, index = 0) =>
  request(
    [
      { role: 'system', content: 'sys' },
      { role: 'user', content: text },
      { role: 'assistant', content: 'earlier answer' },
    ],
    index,
  )

describe('built-in responders', () => {
  it('echo and lastUserMessage read the last user turn, skipping later assistant turns', () => {
    expect(echo(asked('repeat me'))).toBe('repeat me')
    expect(lastUserMessage(request([{ role: 'system', content: 'only system' }]))).toBe('')
  })

  it('scripted replies in order, then throws naming the request', () => {
    const responder = scripted(['a', { text: 'b', finishReason: 'length' }])
    expect(responder(asked('x', 0))).toBe('a')
    expect(responder(asked('x', 1))).toEqual({ text: 'b', finishReason: 'length' })
    expect(() => responder(asked('x', 2))).toThrow(
      'scripted responder: no reply left for request #2 (chat, model m): all 2 scripted replies were used',
    )
  })

  it('rules: first match wins; /g patterns work on every call; fallback; a clear error without one', () => {
    const responder = rules(
      [
        { match: /fix/g, reply: 'fixed' },
        { match: (r) => r.index === 7, reply: (r) => `request ${r.index}` },
      ],
      { text: 'fallback' },
    )
    expect(responder(asked('please fix it'))).toBe('fixed')
    expect(responder(asked('please fix it'))).toBe('fixed')
    expect(responder(asked('other', 7))).toBe('request 7')
    expect(responder(asked('other'))).toEqual({ text: 'fallback' })
    expect(() => rules([])(asked('lost'))).toThrow(
      'rules responder: no rule matched request #0 (last user message "lost") and there is no fallback',
    )
  })

  it('normaliseReply accepts a string or { text } and rejects anything else', () => {
    expect(normaliseReply('hi')).toEqual({ text: 'hi' })
    expect(normaliseReply({ text: 'hi', delayMs: 3 })).toEqual({ text: 'hi', delayMs: 3 })
    expect(() => normaliseReply(undefined)).toThrow('got undefined')
    expect(() => normaliseReply({ content: 'hi' })).toThrow('got {"content":"hi"}')
  })
})
