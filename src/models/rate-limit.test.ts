import { describe, expect, it } from 'vitest'
import { AdaptiveLimiter } from './rate-limit.js'

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
