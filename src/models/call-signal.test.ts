import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { callSignal, scopeSignal, SharedScopes } from './call-signal.js'

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

describe('SharedScopes', () => {
  it('hands the same signal to up to n trajectories, then a new one', () => {
    const scopes = new SharedScopes(undefined, 2)
    const [a, b, c] = [scopes.acquire(), scopes.acquire(), scopes.acquire()]
    expect(a.signal).toBe(b.signal)
    expect(c.signal).not.toBe(a.signal)
    expect(callSignal(c.signal).signal).toBe(c.signal)
  })

  it('unlinks a retired scope once its last trajectory ends, and the rest on close', () => {
    const parent = new AbortController()
    const scopes = new SharedScopes(parent.signal, 2)
    const first = [scopes.acquire(), scopes.acquire()]
    const later = scopes.acquire()
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(2)
    first[0]!.close()
    first[0]!.close() // twice is harmless
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(2)
    first[1]!.close()
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1)
    later.close()
    // The current scope stays linked for the next trajectory until the cell closes them all.
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1)
    scopes.close()
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0)
  })

  it('unlinks a full scope whose trajectories all ended as soon as the next one is made', () => {
    const parent = new AbortController()
    const scopes = new SharedScopes(parent.signal, 2)
    // One trajectory at a time (concurrency 1): every scope is idle when it is replaced.
    for (let i = 0; i < 40; i++) scopes.acquire().close()
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1)
    scopes.close()
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0)
  })

  it('links many scopes at once to one parent without a MaxListenersExceededWarning', async () => {
    const warnings: Error[] = []
    const onWarning = (w: Error) => warnings.push(w)
    process.on('warning', onWarning)
    const parent = new AbortController()
    try {
      const scopes = new SharedScopes(parent.signal, 1)
      // Twenty long trajectories, each holding its own retired scope open.
      for (let i = 0; i < 20; i++) scopes.acquire()
      expect(getEventListeners(parent.signal, 'abort')).toHaveLength(20)
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })

  it('aborts every scope in use with the parent, with its reason', () => {
    const parent = new AbortController()
    const scopes = new SharedScopes(parent.signal, 1)
    const a = scopes.acquire()
    const b = scopes.acquire()
    parent.abort(new Error('cell failed'))
    expect([a.signal.aborted, b.signal.aborted]).toEqual([true, true])
    expect((b.signal.reason as Error).message).toBe('cell failed')
    expect(scopes.acquire().signal.aborted).toBe(true)
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
