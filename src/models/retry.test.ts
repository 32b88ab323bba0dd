import { describe, expect, it } from 'vitest'
import {
  beyondCap,
  classifyFailure,
  failureKindOf,
  onRetry,
  ProviderError,
  quotaText,
  requestsResetMs,
  retryAfterFailure,
  retryAfterMs,
  retryDelay,
  retryNoticeText,
  sleep,
  statedRequestsPerMinute,
  TransportError,
  withRetries,
} from './retry.js'
import { EndpointDownError } from './endpoint-health.js'
import { registerSecret } from './redact.js'

const httpError = (status: number, headers: Record<string, string> = {}) =>
  Object.assign(new Error(`status ${status}`), { status, headers: new Headers(headers) })

describe('classifyFailure', () => {
  it('retries 408, 409, 429, 5xx and 529, not other client errors', () => {
    for (const status of [408, 409, 429, 500, 502, 503, 504, 529])
      expect(classifyFailure(httpError(status)).retryable, String(status)).toBe(true)
    for (const status of [400, 401, 403, 404, 422])
      expect(classifyFailure(httpError(status)).retryable, String(status)).toBe(false)
    expect(classifyFailure(httpError(429)).rateLimited).toBe(true)
  })

  it('retries connection errors and timeouts by name or message', () => {
    expect(
      classifyFailure(Object.assign(new Error('Connection error.'), { name: 'APIConnectionError' })).retryable,
    ).toBe(true)
    expect(
      classifyFailure(Object.assign(new Error('Request timed out.'), { name: 'APIConnectionTimeoutError' })).retryable,
    ).toBe(true)
    expect(classifyFailure(new Error('read ECONNRESET')).retryable).toBe(true)
    expect(classifyFailure(new Error('model does not exist')).retryable).toBe(false)
  })
})

describe('failure kinds (the advice a person gets depends on them)', () => {
  it('says each kind once, without repeating the status the SDK put first', () => {
    const sdk = (status: number, message: string, extra: object = {}) =>
      Object.assign(new Error(message), { status, headers: new Headers(), ...extra })
    expect(classifyFailure(sdk(401, '401 Incorrect API key provided'))).toMatchObject({
      kind: 'authentication',
      retryable: false,
      reason: 'HTTP 401: Incorrect API key provided',
      status: 401,
    })
    expect(classifyFailure(sdk(403, '403 status code (no body)')).reason).toBe('HTTP 403: no body')
    expect(classifyFailure(sdk(404, '404 The model `gpt-x` does not exist')).kind).toBe('request')
    expect(classifyFailure(sdk(503, '503 unavailable'))).toMatchObject({ kind: 'server', retryable: true })
    expect(classifyFailure(sdk(429, '429 Too many requests'))).toMatchObject({
      kind: 'rate-limit',
      retryable: true,
      rateLimited: true,
    })
    // A spent quota is a 429 that no retry fixes.
    expect(
      classifyFailure(sdk(429, '429 You exceeded your current quota', { code: 'insufficient_quota' })),
    ).toMatchObject({ kind: 'quota', retryable: false, rateLimited: false })
    expect(
      classifyFailure(
        new TransportError('http://x/v1: no complete response within 5 ms (timeoutMs)', { kind: 'timeout' }),
      ),
    ).toMatchObject({ kind: 'timeout', retryable: true })
    expect(classifyFailure(new TransportError('malformed response: HTML page')).kind).toBe('model-output')
    expect(classifyFailure(new EndpointDownError('http://x/v1: connection refused', 'connection'))).toMatchObject({
      kind: 'connection',
      retryable: false,
    })
    expect(classifyFailure(new SyntaxError('Unexpected token < in JSON')).kind).toBe('model-output')
    expect(classifyFailure(new Error('something else')).kind).toBe('other')
    expect(failureKindOf(new ProviderError('x', 1, classifyFailure(sdk(401, 'no'))))).toBe('authentication')
    expect(failureKindOf(new Error('a verifier crashed'))).toBeUndefined()
  })

  it('a retry-after beyond the cap is a quota: not retried, and the message says what the server asked and what to do', () => {
    const failure = classifyFailure(httpError(429, { 'retry-after': '3600' }))
    expect(beyondCap(failure, {})).toMatchObject({ kind: 'quota', retryable: false })
    expect(beyondCap(failure, { maxRetryAfterMs: 3_600_000 })).toBeUndefined()
    expect(quotaText(3_600_000, 60_000)).toBe(
      'the server asked to wait 3600 s, more than the 60 s cap (retry.maxRetryAfterMs): a quota? Raise retry.maxRetryAfterMs or wait',
    )
    const error = (() => {
      try {
        retryAfterFailure(httpError(429, { 'retry-after': '3600' }), 1, {}, { label: 'gpt-x (actor)' })
      } catch (e) {
        return e as ProviderError
      }
    })()
    expect(error?.message).toBe(
      'gpt-x (actor): HTTP 429: status 429; the server asked to wait 3600 s, more than the 60 s cap (retry.maxRetryAfterMs): a quota? Raise retry.maxRetryAfterMs or wait',
    )
    expect(error?.attempts).toBe(1)
  })

  it("a ProviderError holds no secret in any field: its message and its failure's reason are redacted", () => {
    const key = ['sk', 'proj', 'field', 'x'.repeat(24)].join('-')
    registerSecret(key)
    const error = new ProviderError(
      `m (actor): HTTP 401: you sent ${key}`,
      1,
      classifyFailure(Object.assign(new Error(`401 you sent Bearer ${key}`), { status: 401 })),
    )
    expect(JSON.stringify({ ...error, message: error.message, failure: error.failure })).not.toContain(key)
    expect(error.failure.reason).toContain('[REDACTED]')
  })
})

describe('retryAfterMs', () => {
  it('prefers retry-after-ms, then seconds, then an HTTP date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250)
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000)
    const now = Date.parse('2026-11-30T00:00:00Z')
    expect(retryAfterMs(new Headers({ 'retry-after': 'Mon, 30 Nov 2026 00:00:03 GMT' }), now)).toBe(3000)
    expect(retryAfterMs(new Headers({}))).toBeUndefined()
    expect(retryAfterMs({ 'retry-after': '1' })).toBe(1000)
  })

  it('says whether the wait is exact: retry-after-ms or fractional seconds are, whole seconds and dates are rounded', () => {
    const exact = (headers: Record<string, string>) => {
      const failure = classifyFailure(httpError(429, headers))
      return [failure.retryAfterMs, failure.retryAfterExact]
    }
    expect(exact({ 'retry-after-ms': '37', 'retry-after': '1' })).toEqual([37, true])
    expect(exact({ 'retry-after': '0.25' })).toEqual([250, true])
    expect(exact({ 'retry-after': '1' })).toEqual([1000, false])
    expect(exact({ 'retry-after': new Date(Date.now() + 5000).toUTCString() })[1]).toBe(false)
    expect(exact({})).toEqual([undefined, undefined])
  })
})

describe('request-limit headers (the rate and reset a 429 states, OpenAI- and Anthropic-style)', () => {
  it('reads the stated rate per minute from either provider, ignoring what is not a positive number', () => {
    expect(statedRequestsPerMinute(new Headers({ 'x-ratelimit-limit-requests': '1200' }))).toBe(1200)
    expect(statedRequestsPerMinute(new Headers({ 'anthropic-ratelimit-requests-limit': '50' }))).toBe(50)
    for (const bad of ['', '0', '-5', 'lots', 'Infinity'])
      expect(statedRequestsPerMinute(new Headers({ 'x-ratelimit-limit-requests': bad })), bad).toBeUndefined()
    expect(statedRequestsPerMinute(new Headers({}))).toBeUndefined()
  })

  it("reads OpenAI's reset durations and Anthropic's reset times as ms from now", () => {
    const reset = (value: string) => requestsResetMs(new Headers({ 'x-ratelimit-reset-requests': value }))
    expect([reset('20ms'), reset('1s'), reset('1.5s'), reset('6m0s'), reset('1h2m3s'), reset('2m500ms')]).toEqual([
      20, 1000, 1500, 360_000, 3_723_000, 120_500,
    ])
    for (const bad of ['', 'soon', '5', '1d', '3s garbage']) expect(reset(bad), bad).toBeUndefined()
    const now = Date.parse('2026-12-01T00:00:00.000Z')
    expect(
      requestsResetMs(new Headers({ 'anthropic-ratelimit-requests-reset': '2026-12-01T00:00:00.075Z' }), now),
    ).toBe(75)
    // A reset already past (a skewed clock) is no wait, never a negative one.
    expect(requestsResetMs(new Headers({ 'anthropic-ratelimit-requests-reset': '2026-11-30T23:59:59Z' }), now)).toBe(0)
    expect(requestsResetMs(new Headers({ 'anthropic-ratelimit-requests-reset': 'tomorrow' }), now)).toBeUndefined()
  })

  it('a 429 carries them to the endpoint; other statuses do not', () => {
    const headers = { 'retry-after': '1', 'x-ratelimit-limit-requests': '300', 'x-ratelimit-reset-requests': '180ms' }
    expect(classifyFailure(httpError(429, headers))).toMatchObject({
      rateLimited: true,
      retryAfterMs: 1000,
      retryAfterExact: false,
      requestsPerMinute: 300,
      requestsResetMs: 180,
    })
    const server = classifyFailure(httpError(503, headers))
    expect([server.requestsPerMinute, server.requestsResetMs]).toEqual([undefined, undefined])
  })
})

describe('retryDelay', () => {
  it('uses the server wait capped by maxRetryAfterMs, else jittered exponential backoff capped by maxDelayMs', () => {
    const failure = { retryable: true, rateLimited: true, reason: '', kind: 'rate-limit' as const }
    expect(retryDelay(1, { ...failure, retryAfterMs: 120_000 }, { maxRetryAfterMs: 5000 })).toBe(5000)
    expect(retryDelay(3, failure, { baseDelayMs: 100 }, () => 0.999)).toBe(399)
    expect(retryDelay(20, failure, { baseDelayMs: 100, maxDelayMs: 1000 }, () => 0.5)).toBe(500)
    expect(retryDelay(1, failure, {}, () => 0)).toBe(0)
  })
})

describe('withRetries', () => {
  it('retries retryable failures and returns the first success', async () => {
    let calls = 0
    const value = await withRetries(
      async () => {
        if (++calls < 3) throw httpError(503)
        return 'ok'
      },
      { baseDelayMs: 1 },
      { label: 'test' },
    )
    expect(value).toBe('ok')
    expect(calls).toBe(3)
  })

  it('gives up after maxRetries with a ProviderError that says how many tries were made', async () => {
    let calls = 0
    const run = withRetries(
      async () => {
        calls++
        throw httpError(500)
      },
      { maxRetries: 2, baseDelayMs: 1 },
      { label: 'gpt (actor)' },
    )
    await expect(run).rejects.toThrow(
      /gpt \(actor\): HTTP 500: status 500 \(gave up after 3 tries: 1 \+ retry\.maxRetries 2\)$/,
    )
    await expect(run).rejects.toBeInstanceOf(ProviderError)
    expect(calls).toBe(3)
  })

  it('counts maxRetries as retries after the first try, a fractional allowance included', async () => {
    let calls = 0
    const failing = async () => {
      calls++
      throw httpError(503)
    }
    await expect(withRetries(failing, { maxRetries: 0 }, { label: 'none' })).rejects.toThrow(
      /gave up after 1 try: 1 \+ retry\.maxRetries 0\)$/,
    )
    expect(calls).toBe(1)
    calls = 0
    await expect(withRetries(failing, { maxRetries: 1.5, baseDelayMs: 1 }, { label: 'x' })).rejects.toThrow(
      /gave up after 3 tries: 1 \+ retry\.maxRetries 1\.5\)$/,
    )
    expect(calls).toBe(3)
  })

  it('also takes policy and call in one object', async () => {
    const run = withRetries(
      async () => {
        throw httpError(500)
      },
      { label: 'one object', maxRetries: 1, baseDelayMs: 1 },
    )
    await expect(run).rejects.toThrow(
      /one object: HTTP 500: status 500 \(gave up after 2 tries: 1 \+ retry\.maxRetries 1\)$/,
    )
  })

  it('does not retry a 400', async () => {
    let calls = 0
    await expect(
      withRetries(
        async () => {
          calls++
          throw httpError(400)
        },
        { baseDelayMs: 1 },
        { label: 'x' },
      ),
    ).rejects.toThrow(/HTTP 400/)
    expect(calls).toBe(1)
  })

  it('an abort in the middle of a long retry-after wait returns at once with the abort reason', async () => {
    const controller = new AbortController()
    const started = Date.now()
    const run = withRetries(
      async () => {
        throw httpError(429, { 'retry-after': '30' })
      },
      {},
      { label: 'x', signal: controller.signal },
    )
    setTimeout(() => controller.abort(new Error('test timed out')), 50)
    await expect(run).rejects.toThrow('test timed out')
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it('sleep resolves after the delay and rejects on abort', async () => {
    await expect(sleep(5)).resolves.toBeUndefined()
    const c = new AbortController()
    c.abort(new Error('gone'))
    await expect(sleep(10_000, c.signal)).rejects.toThrow('gone')
  })
})

describe('onRetry', () => {
  it('hears each retry before its wait, not the failure that gives up, and stops when asked', () => {
    const heard: string[] = []
    const stop = onRetry((n) => heard.push(retryNoticeText(n)))
    const policy = { maxRetries: 1, baseDelayMs: 1000 }
    const delay = retryAfterFailure(httpError(429, { 'retry-after-ms': '4000' }), 1, policy, {
      label: 'gpt-4o (actor)',
      random: () => 0.5,
    })
    expect(heard).toEqual([
      `rate limited, HTTP 429: status 429; retry 1 in ${Math.round(delay / 1000)} s (gpt-4o (actor))`,
    ])
    expect(() => retryAfterFailure(httpError(503), 2, policy, { label: 'gpt-4o (actor)' })).toThrow(ProviderError)
    expect(heard).toHaveLength(1)
    stop()
    retryAfterFailure(httpError(503), 1, policy, { label: 'x', random: () => 0.5 })
    expect(heard).toHaveLength(1)
  })
})
