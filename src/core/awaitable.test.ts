import { describe, expect, it } from 'vitest'
import { binary } from '../feedback/binary.js'
import { verifierFeedback } from '../feedback/verifier-feedback.js'
import { isPromiseLike } from './awaitable.js'
import { fullHistory, lastHistory } from '../protocol/history.js'
import { neverPasses } from '../protocol/test-helpers.js'

describe('isPromiseLike', () => {
  it('tells promises and thenables from plain values', () => {
    expect(isPromiseLike(Promise.resolve(1))).toBe(true)
    expect(isPromiseLike({ then: (resolve: (v: number) => void) => resolve(1) } as PromiseLike<number>)).toBe(true)
    expect(isPromiseLike({ pass: true })).toBe(false)
    expect(isPromiseLike({ then: 'not a function' })).toBe(false)
    expect(isPromiseLike(null)).toBe(false)
    expect(isPromiseLike(undefined)).toBe(false)
    expect(isPromiseLike(0)).toBe(false)
  })
})

describe('the bundled extension points with nothing to wait for answer without a promise', () => {
  const task = { id: 't', prompt: 'p' }
  const verdict = { pass: false, diagnostics: { outcome: 'failed' as const, summary: 'failed' } }
  const input = { task, attempt: 1, repeat: 0, answer: 'a', verdict, history: [] }
  const build = {
    prompt: [{ role: 'user' as const, content: 'p' }],
    turns: [{ answer: 'a', reply: 'no' }],
    context: { taskId: 't', attempt: 2, repeat: 0 },
  }

  it('binary and verifier feedback, full and last history, and the no-op test verifier', () => {
    // The loop skips an await (a promise and a queue turn per attempt) for each of these.
    expect(isPromiseLike(binary().render(input))).toBe(false)
    expect(isPromiseLike(verifierFeedback().render(input))).toBe(false)
    expect(isPromiseLike(fullHistory.build(build))).toBe(false)
    expect(isPromiseLike(lastHistory.build(build))).toBe(false)
    expect(isPromiseLike(neverPasses.verify(task, 'a'))).toBe(false)
  })
})
