import { describe, expect, it } from 'vitest'
import { FaultQueue, retryHeaders } from './faults.js'
import type { TestServerRequest } from './types.js'

const request = (api: TestServerRequest['api'], index = 0): TestServerRequest => ({
  api,
  model: 'm',
  messages: [],
  stream: false,
  body: {},
  headers: {},
  index,
})

describe('FaultQueue', () => {
  it('hands out faults in injection order, each `times` times, to matching requests only', () => {
    const queue = new FaultQueue()
    queue.add({ kind: 'status', status: 429, times: 2, match: (r) => r.api === 'messages' }, { kind: 'reset' })
    expect(queue.take(request('chat'))).toEqual({ kind: 'reset' })
    expect(queue.take(request('chat'))).toBeUndefined()
    expect(queue.take(request('messages'))).toEqual({ kind: 'status', status: 429 })
    expect(queue.pending).toBe(1)
    expect(queue.take(request('messages'))).toEqual({ kind: 'status', status: 429 })
    expect(queue.pending).toBe(0)
    expect(queue.take(request('messages'))).toBeUndefined()
  })

  it('clear() drops every queued fault', () => {
    const queue = new FaultQueue()
    queue.add({ kind: 'hang', times: 5 })
    queue.clear()
    expect(queue.take(request('chat'))).toBeUndefined()
  })

  it('rejects malformed faults with a TypeError naming the field', () => {
    const queue = new FaultQueue()
    expect(() => queue.add({ kind: 'status', status: 404 as 429 })).toThrow(TypeError)
    expect(() => queue.add({ kind: 'slow' } as never)).toThrow(/delayMs/)
    expect(() => queue.add({ kind: 'explode' } as never)).toThrow(/kind/)
    expect(() => queue.add({ kind: 'reset', times: 1.5 })).toThrow(/times/)
    expect(() => queue.add({ kind: 'reset', match: 'chat' as never })).toThrow(/match/)
    expect(queue.pending).toBe(0)
  })
})

describe('retryHeaders', () => {
  it('sets retry-after (seconds) and retry-after-ms only when given', () => {
    expect(retryHeaders({ kind: 'status', status: 429 })).toEqual({})
    expect(retryHeaders({ kind: 'status', status: 529, retryAfterSeconds: 3, retryAfterMs: 250 })).toEqual({
      'retry-after': '3',
      'retry-after-ms': '250',
    })
  })
})
