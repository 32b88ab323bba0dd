import { describe, expect, it } from 'vitest'
import { AdaptiveLimiter, DEFAULT_ENDPOINT_CONCURRENCY, limiterFor } from './rate-limit.js'

describe('AdaptiveLimiter', () => {
  it('never runs more than the limit at once', async () => {
    const limiter = new AdaptiveLimiter(3)
    let running = 0
    let peak = 0
    await Promise.all(
      Array.from({ length: 20 }, () =>
        limiter.run(async () => {
          peak = Math.max(peak, ++running)
          await new Promise((r) => setTimeout(r, 2))
          running--
        }),
      ),
    )
    expect(peak).toBe(3)
  })

  it('halves on a rate limit and climbs back after successes', () => {
    const limiter = new AdaptiveLimiter(8)
    limiter.rateLimited()
    expect(limiter.current).toBe(4)
    limiter.rateLimited()
    limiter.rateLimited()
    limiter.rateLimited()
    expect(limiter.current).toBe(1)
    let successes = 0
    while (limiter.current < 8) {
      limiter.succeeded()
      successes++
    }
    // Additive increase: about one slot per `limit` successes, 1+2+…+7 = 28.
    expect(successes).toBe(28)
    limiter.succeeded()
    expect(limiter.current).toBe(8)
  })

  it('a waiting acquire rejects when its signal aborts, and the queue moves on', async () => {
    const limiter = new AdaptiveLimiter(1)
    await limiter.acquire()
    const controller = new AbortController()
    const waiting = limiter.acquire(controller.signal)
    controller.abort(new Error('cancelled'))
    await expect(waiting).rejects.toThrow('cancelled')
    limiter.release()
    await expect(limiter.acquire()).resolves.toBeUndefined()
  })

  it('rejects a bad maximum', () => {
    expect(() => new AdaptiveLimiter(0)).toThrow('concurrency must be an integer >= 1 (got 0)')
  })
})

describe('limiterFor', () => {
  it('shares one limiter per endpoint; an explicit concurrency beats the default and the smallest explicit one wins', () => {
    const endpoint = `test|${Math.random()}`
    const first = limiterFor(endpoint, undefined)
    expect(first.max).toBe(DEFAULT_ENDPOINT_CONCURRENCY)
    expect(limiterFor(endpoint, 20)).toBe(first)
    expect(first.max).toBe(20)
    limiterFor(endpoint, 3)
    expect(first.max).toBe(3)
    // A larger request, or none, does not loosen what another model asked for.
    limiterFor(endpoint, 10)
    limiterFor(endpoint, undefined)
    expect(first.max).toBe(3)
    expect(limiterFor(`${endpoint}-other`, undefined).max).toBe(DEFAULT_ENDPOINT_CONCURRENCY)
  })

  it('rejects a concurrency that is not an integer >= 1, naming it', () => {
    expect(() => limiterFor(`test|${Math.random()}`, 0)).toThrow(/concurrency must be an integer >= 1 \(got 0\)/)
  })
})

describe('AdaptiveLimiter.setMax', () => {
  it('lowers at once, raises at once when not backed off, and stays backed off after a 429', async () => {
    const limiter = new AdaptiveLimiter(4)
    limiter.setMax(2)
    expect([limiter.max, limiter.current]).toEqual([2, 2])
    limiter.setMax(6)
    expect([limiter.max, limiter.current]).toEqual([6, 6])
    limiter.rateLimited()
    limiter.setMax(10)
    expect([limiter.max, limiter.current]).toEqual([10, 3])
  })

  it('lets waiting calls in when the maximum rises', async () => {
    const limiter = new AdaptiveLimiter(1)
    await limiter.acquire()
    let entered = false
    const waiting = limiter.acquire().then(() => (entered = true))
    await Promise.resolve()
    expect(entered).toBe(false)
    limiter.setMax(2)
    await waiting
    expect(entered).toBe(true)
  })
})
