// The test server's rate limit: the token bucket's law (never more than burst + rate × t accepted
// in any window of t seconds), its exact waits, and the server's 429s over real sockets, in each
// provider's error shape.
import OpenAI from 'openai'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './index.js'
import { limitHeaders, rateLimitHeaders, TokenBucket } from './rate-limit.js'

/** A fake key, built at runtime (no key-shaped literal in the sources). */
const KEY = ['sk', 'test', 'x'.repeat(20)].join('-')

/**
 * Arrival times in ms, non-decreasing, on the bucket's own scale: each gap is 0 (concurrent calls)
 * or up to three token intervals (1000 / requestsPerSecond ms), so every rate sees bursts, idle
 * refills and arrivals just before and after a token is due.
 */
const scenario = fc
  .record({
    requestsPerSecond: fc.oneof(fc.integer({ min: 1, max: 500 }), fc.double({ min: 0.5, max: 500, noNaN: true })),
    burst: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 20 })),
    gaps: fc.array(
      fc.oneof(
        fc.constant(0),
        fc.constant(0),
        fc.double({ min: 0, max: 3, noNaN: true }),
        fc.constantFrom(0.5, 1, 1.5),
      ),
      { minLength: 1, maxLength: 150 },
    ),
  })
  .map(({ gaps, ...limit }) => {
    let t = 0
    return { limit, times: gaps.map((gap) => (t += (gap * 1000) / limit.requestsPerSecond)) }
  })

describe('TokenBucket', () => {
  it('takes its burst at once, then refuses with the exact wait until the next token', () => {
    const bucket = new TokenBucket({ requestsPerSecond: 10, burst: 2 }, 1000)
    expect(bucket.take(1000)).toEqual({ ok: true, remaining: 1 })
    expect(bucket.take(1000)).toEqual({ ok: true, remaining: 0 })
    expect(bucket.take(1000)).toEqual({ ok: false, waitMs: 100 })
    expect(bucket.take(1040)).toEqual({ ok: false, waitMs: 60 })
    expect(bucket.take(1100)).toEqual({ ok: true, remaining: 0 })
    // Idle for ten seconds: full again, never above its capacity.
    expect(bucket.take(11_100)).toEqual({ ok: true, remaining: 1 })
    expect(bucket.take(11_100).ok).toBe(true)
    expect(bucket.take(11_100).ok).toBe(false)
  })

  it('holds one second of requests by default', () => {
    expect(new TokenBucket({ requestsPerSecond: 20 }, 0).burst).toBe(20)
    expect(new TokenBucket({ requestsPerSecond: 0.2 }, 0).burst).toBe(1)
  })

  it('law: in any window of t seconds it accepts at most burst + rate × t requests (fast-check, seed 15)', () => {
    fc.assert(
      fc.property(scenario, ({ limit, times }) => {
        const bucket = new TokenBucket(limit, 0)
        const accepted = times.filter((t) => bucket.take(t).ok)
        for (let i = 0; i < accepted.length; i++) {
          for (let j = i; j < accepted.length; j++) {
            const window = (accepted[j]! - accepted[i]!) / 1000
            if (j - i + 1 > limit.burst + limit.requestsPerSecond * window + 1e-6) return false
          }
        }
        return true
      }),
      { seed: 15, numRuns: 1000 },
    )
  })

  it('law: a refusal says exactly when to come back; a request then is accepted, and the wait is at most one token interval (fast-check, seed 15)', () => {
    fc.assert(
      fc.property(scenario, ({ limit, times }) => {
        const bucket = new TokenBucket(limit, 0)
        let last = 0
        for (const arrival of times) {
          // The clock goes on from the last retry: arrivals shift after it.
          const t = Math.max(arrival, last)
          const verdict = bucket.take(t)
          last = t
          if (!verdict.ok) {
            if (verdict.waitMs <= 0 || verdict.waitMs > 1000 / limit.requestsPerSecond + 1e-6) return false
            last = t + verdict.waitMs
            if (!bucket.take(last).ok) return false
          }
        }
        // Requests one interval apart are all accepted, whatever came before.
        for (let k = 1; k <= 20; k++) if (!bucket.take(last + (k * 1000) / limit.requestsPerSecond).ok) return false
        return true
      }),
      { seed: 15, numRuns: 1000 },
    )
  })

  it('rejects options it cannot honour, naming the field', () => {
    expect(() => new TokenBucket({ requestsPerSecond: 0 }, 0)).toThrow(/requestsPerSecond/)
    expect(() => new TokenBucket({ requestsPerSecond: 5, burst: 0.5 }, 0)).toThrow(/burst/)
  })

  it('rounds its headers up, so a client that honours them never comes back early', () => {
    expect(rateLimitHeaders(37.2)).toEqual({ 'retry-after': '1', 'retry-after-ms': '38' })
    expect(rateLimitHeaders(1500, false)).toEqual({ 'retry-after': '2' })
  })
})

describe('limitHeaders', () => {
  it("states the rate per minute, nothing left and the reset, in each provider's words", () => {
    const now = Date.parse('2026-12-01T00:00:00.000Z')
    expect(limitHeaders('chat', { requestsPerSecond: 20, fullInMs: 37.2 }, now)).toEqual({
      'x-ratelimit-limit-requests': '1200',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '38ms',
    })
    expect(limitHeaders('messages', { requestsPerSecond: 0.5, fullInMs: 0 }, now)).toEqual({
      'anthropic-ratelimit-requests-limit': '30',
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': '2026-12-01T00:00:00.001Z',
    })
  })

  it('the reset is when the bucket is full again', () => {
    const bucket = new TokenBucket({ requestsPerSecond: 10, burst: 3 }, 0)
    expect(bucket.fullInMs(0)).toBe(0)
    bucket.take(0)
    bucket.take(0)
    expect(bucket.fullInMs(50)).toBeCloseTo(150, 9)
    expect(bucket.fullInMs(500)).toBe(0)
  })
})

describe('startTestServer({ rateLimit })', () => {
  let server: TestServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })
  const post = (path: string, body: unknown) =>
    fetch(`${server!.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const chat = () => post('/v1/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
  const messages = () =>
    post('/v1/messages', { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })

  it("answers beyond the rate with a 429 in OpenAI's shape, with retry-after and retry-after-ms", async () => {
    server = await startTestServer({ rateLimit: { requestsPerSecond: 2, burst: 2 } })
    const started = performance.now()
    expect((await chat()).status).toBe(200)
    expect((await chat()).status).toBe(200)
    const refused = await chat()
    const elapsed = performance.now() - started
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    // The next token is due half a second after the bucket started, less what has passed since (however slow this machine is).
    const ms = Number(refused.headers.get('retry-after-ms'))
    expect(ms).toBeGreaterThanOrEqual(Math.max(1, 500 - elapsed - 50))
    expect(ms).toBeLessThanOrEqual(500)
    const body = (await refused.json()) as { error: { type: string; code: string; message: string } }
    expect(body.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' })
    expect(body.error.message).toMatch(
      /^Rate limit reached for requests: 2 per second, burst 2 .*Please try again in \d+ ms\.$/,
    )
    // Recorded, and marked, in order of arrival.
    expect(server.requests.map((r) => r.rateLimited ?? false)).toEqual([false, false, true])
  })

  it("in Anthropic's shape on /v1/messages, and with whole seconds only when retryAfterMs is false", async () => {
    server = await startTestServer({ rateLimit: { requestsPerSecond: 1, burst: 1, retryAfterMs: false } })
    expect((await messages()).status).toBe(200)
    const refused = await messages()
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(refused.headers.get('retry-after-ms')).toBeNull()
    expect(await refused.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } })
  })

  it('a 429 states the request limit as the provider would, unless limitHeaders is false', async () => {
    server = await startTestServer({ rateLimit: { requestsPerSecond: 1, burst: 1 } })
    await chat()
    const openai = await chat()
    expect(openai.status).toBe(429)
    expect(openai.headers.get('x-ratelimit-limit-requests')).toBe('60')
    expect(openai.headers.get('x-ratelimit-remaining-requests')).toBe('0')
    expect(Number(/^(\d+)ms$/.exec(openai.headers.get('x-ratelimit-reset-requests') ?? '')?.[1])).toBeLessThanOrEqual(
      1000,
    )
    const anthropic = await messages()
    expect(anthropic.status).toBe(429)
    expect(anthropic.headers.get('anthropic-ratelimit-requests-limit')).toBe('60')
    expect(Date.parse(anthropic.headers.get('anthropic-ratelimit-requests-reset') ?? '')).toBeLessThanOrEqual(
      Date.now() + 1000,
    )
    expect(anthropic.headers.get('x-ratelimit-limit-requests')).toBeNull()
    await server.close()
    server = await startTestServer({ rateLimit: { requestsPerSecond: 1, burst: 1, limitHeaders: false } })
    await chat()
    const plain = await chat()
    expect(plain.status).toBe(429)
    expect([plain.headers.get('retry-after'), plain.headers.get('x-ratelimit-limit-requests')]).toEqual(['1', null])
  })

  it('the real SDK sees a RateLimitError; a rate-limited request takes no fault; reset refills the bucket', async () => {
    // One a second: on a loaded machine two SDK calls may be more than 100 ms apart.
    server = await startTestServer({ responder: () => 'ok', rateLimit: { requestsPerSecond: 1, burst: 1 } })
    const client = new OpenAI({ apiKey: KEY, baseURL: server.openaiBaseURL, maxRetries: 0, timeout: 5000 })
    const ask = () => client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })
    expect((await ask()).choices[0]?.message.content).toBe('ok')
    server.injectFaults({ kind: 'truncated' })
    const error = await ask().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('1')
    // The fault waited for a request that is served: the next one, once the token is there (as long as the server said).
    const wait = Number((error as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after-ms'))
    await new Promise((resolve) => setTimeout(resolve, wait + 20))
    expect((await ask()).choices[0]).toMatchObject({ message: { content: 'o' }, finish_reason: 'length' })
    await expect(ask()).rejects.toBeInstanceOf(OpenAI.RateLimitError)
    server.reset()
    expect((await ask()).choices[0]?.message.content).toBe('ok')
  })

  it('over time it serves burst + rate × t requests, no more', async () => {
    server = await startTestServer({ rateLimit: { requestsPerSecond: 50, burst: 5 } })
    const started = performance.now()
    // At least 400 ms, and until the client has asked beyond the allowance (a loaded machine asks slower).
    while (
      (performance.now() - started < 400 || server.requests.every((r) => !r.rateLimited)) &&
      performance.now() - started < 20_000
    )
      await chat()
    const elapsed = (performance.now() - started) / 1000
    const accepted = server.requests.filter((r) => !r.rateLimited).length
    expect(accepted).toBeLessThanOrEqual(5 + 50 * elapsed + 1)
    // And it does not starve a client that keeps asking: most of the allowance is used (a loaded
    // machine's pauses between requests lose tokens a burst of 5 cannot keep, hence the margin).
    expect(accepted).toBeGreaterThanOrEqual(0.6 * Math.min(5 + 50 * elapsed, server.requests.length))
    expect(server.requests.length).toBeGreaterThan(accepted)
  })

  it('rejects a bad rateLimit option, or an unknown option, naming it', async () => {
    await expect(startTestServer({ rateLimit: { requestsPerSecond: -1 } })).rejects.toThrow(
      /^startTestServer: rateLimit\.requestsPerSecond: /,
    )
    await expect(startTestServer({ rateLimit: { requestsPerSecond: 5, burst: 0 } })).rejects.toThrow(/rateLimit\.burst/)
    await expect(startTestServer({ rateLimit: { requestsPerSecond: 5, perMinute: 3 } } as never)).rejects.toThrow(
      /perMinute/,
    )
    await expect(startTestServer({ ratelimit: { requestsPerSecond: 5 } } as never)).rejects.toThrow(/ratelimit/)
    await expect(startTestServer({ port: 70_000 })).rejects.toThrow(/port/)
  })
})
