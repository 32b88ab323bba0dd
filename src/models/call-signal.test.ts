import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { callSignal, scopeSignal, SharedScopes, TimeLimit } from './call-signal.js'

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

describe('TimeLimit', () => {
  const late = (ms: number) => new Error(`past ${ms} ms`)
  const never = new Promise<string>(() => {})

  it('stops at its time: the race rejects with the time reason, passed says so, its signal (made on read) is aborted', async () => {
    const limit = new TimeLimit(undefined, 20, late)
    await expect(limit.race(never)).rejects.toThrow('past 20 ms')
    expect(limit.passed).toBe(true)
    expect(limit.stopped).toBe(true)
    expect(limit.signal.aborted).toBe(true)
    expect((limit.signal.reason as Error).message).toBe('past 20 ms')
    limit.dispose()
  })

  it("stops when its parent aborts, with the parent's reason, not passed; and unlinks on dispose", async () => {
    const parent = new AbortController()
    const limit = new TimeLimit(parent.signal, 60_000, late)
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1)
    const raced = limit.race(never)
    parent.abort(new Error('cancelled'))
    await expect(raced).rejects.toThrow('cancelled')
    expect(limit.passed).toBe(false)
    limit.dispose()
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0)

    const other = new AbortController()
    const done = new TimeLimit(other.signal, 60_000, late)
    expect(await done.race(Promise.resolve('answer'))).toBe('answer')
    done.dispose()
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0)
    other.abort()
    expect(done.stopped).toBe(false)
  })

  it('under an aborted parent it is stopped at once, and races reject without waiting for the work', async () => {
    const parent = new AbortController()
    parent.abort(new Error('gone'))
    const limit = new TimeLimit(parent.signal, 60_000, late)
    expect(limit.stopped).toBe(true)
    await expect(limit.race(never)).rejects.toThrow('gone')
    expect(limit.signal.aborted).toBe(true)
    limit.dispose()
  })

  it("aborts a given controller when it stops (a provider's try hands that signal to the SDK); a disposed limit never fires", async () => {
    const controller = new AbortController()
    const limit = new TimeLimit(undefined, 10, late, controller)
    expect(limit.signal).toBe(controller.signal)
    await expect(limit.race(never)).rejects.toThrow('past 10 ms')
    expect(controller.signal.aborted).toBe(true)

    const kept = new AbortController()
    const quiet = new TimeLimit(undefined, 10, late, kept)
    quiet.dispose()
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(kept.signal.aborted).toBe(false)
    expect(quiet.passed).toBe(false)
  })

  it('an abandoned race drops the late error of the work it raced (no unhandled rejection)', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const limit = new TimeLimit(undefined, 5, late)
      const work = new Promise<string>((_resolve, reject) => setTimeout(() => reject(new Error('late failure')), 20))
      await expect(limit.race(work)).rejects.toThrow('past 5 ms')
      limit.dispose()
      await new Promise((resolve) => setTimeout(resolve, 40))
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
    expect(unhandled).toEqual([])
  })
})
