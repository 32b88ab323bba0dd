import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { callSignal, scopeSignal } from './call-signal.js'

describe('scopeSignal', () => {
  it('aborts with its parent, with the same reason, and unlinks on close', () => {
    const parent = new AbortController()
    const scope = scopeSignal(parent.signal)
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1)
    parent.abort(new Error('test timed out'))
    expect(scope.signal.aborted).toBe(true)
    expect((scope.signal.reason as Error).message).toBe('test timed out')

    const other = new AbortController()
    const closed = scopeSignal(other.signal)
    closed.close()
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0)
    other.abort()
    expect(closed.signal.aborted).toBe(false)
  })

  it('starts aborted under an aborted parent, and works with no parent', () => {
    const parent = new AbortController()
    parent.abort(new Error('gone'))
    expect(scopeSignal(parent.signal).signal.aborted).toBe(true)
    expect(scopeSignal(undefined).signal.aborted).toBe(false)
  })

  it('takes a listener per call without a MaxListenersExceededWarning (the SDKs leave one per request)', async () => {
    const warnings: Error[] = []
    const onWarning = (w: Error) => warnings.push(w)
    process.on('warning', onWarning)
    try {
      const scope = scopeSignal(undefined)
      for (let i = 0; i < 50; i++) scope.signal.addEventListener('abort', () => {}, { once: true })
      // Node emits the warning on a later tick.
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })
})

describe('callSignal', () => {
  it("passes a trajectory scope's signal (or none) through as it is", () => {
    const scope = scopeSignal(undefined)
    expect(callSignal(scope.signal).signal).toBe(scope.signal)
    expect(callSignal(undefined).signal).toBeUndefined()
  })

  it('links any other signal through a fresh one per call and unlinks it on release', () => {
    const test = new AbortController()
    const call = callSignal(test.signal)
    expect(call.signal).not.toBe(test.signal)
    expect(getEventListeners(test.signal, 'abort')).toHaveLength(1)
    call.release()
    expect(getEventListeners(test.signal, 'abort')).toHaveLength(0)

    const live = callSignal(test.signal)
    test.abort(new Error('cancelled'))
    expect(live.signal?.aborted).toBe(true)
    expect((live.signal?.reason as Error).message).toBe('cancelled')
    expect(callSignal(test.signal).signal?.aborted).toBe(true)
  })
})
