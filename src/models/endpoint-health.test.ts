import { describe, expect, it } from 'vitest'
import { connectionCause, EndpointBreaker, EndpointDownError, endpointName } from './endpoint-health.js'

const refused = { code: 'ECONNREFUSED', text: 'connection refused' }

describe('connectionCause', () => {
  it('finds the system error along the cause chain the SDKs build', () => {
    const system = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })
    const fetchFailed = new TypeError('fetch failed', { cause: system })
    const sdk = Object.assign(new Error('Connection error.'), { cause: fetchFailed })
    expect(connectionCause(sdk)).toEqual(refused)
    expect(
      connectionCause(
        Object.assign(new Error('x'), { cause: Object.assign(new Error('getaddrinfo'), { code: 'ENOTFOUND' }) }),
      ),
    ).toEqual({ code: 'ENOTFOUND', text: 'no such host (DNS)' })
    expect(connectionCause(new AggregateError([Object.assign(new Error('v6'), { code: 'ECONNREFUSED' })]))).toEqual(
      refused,
    )
    expect(connectionCause(Object.assign(new Error('cert'), { code: 'CERT_HAS_EXPIRED' }))?.text).toBe(
      'TLS failure: cert',
    )
  })

  it('is undefined once the connection was made (a status, a dropped stream)', () => {
    expect(connectionCause(Object.assign(new Error('HTTP 500'), { status: 500 }))).toBeUndefined()
    expect(
      connectionCause(
        Object.assign(new Error('terminated'), {
          cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
        }),
      ),
    ).toBeUndefined()
    expect(connectionCause('a string')).toBeUndefined()
  })
})

describe('EndpointBreaker', () => {
  it('opens when three requests in a row fail for good on server errors with none answered; a probe that is answered closes it', () => {
    const breaker = new EndpointBreaker('compat|http://127.0.0.1:6600/v1', { threshold: 3, coolDownMs: 1000 })
    breaker.requestFailedOnServer('HTTP 500: boom', 0)
    breaker.requestFailedOnServer('HTTP 500: boom', 0)
    // An answer in between: the server serves, those were two requests' own errors.
    breaker.answered()
    breaker.requestFailedOnServer('HTTP 500: boom', 0)
    breaker.requestFailedOnServer('HTTP 500: boom', 0)
    expect(() => breaker.check(0)).not.toThrow()
    breaker.requestFailedOnServer('HTTP 500: boom', 0)
    let down: unknown
    try {
      breaker.check(10)
    } catch (error) {
      down = error
    }
    expect(down).toBeInstanceOf(EndpointDownError)
    expect((down as EndpointDownError).failureKind).toBe('server')
    expect((down as Error).message).toBe(
      'http://127.0.0.1:6600/v1: HTTP 500: boom; 3 requests in a row failed on server errors and none was answered, so calls to it fail at once (next try in 1 s); the server fails every request, not one: check that it is up and serves this model',
    )
    // The probe gets an HTTP answer that is an error again: reached() is no sign of health, it opens for twice as long.
    expect(() => breaker.check(1000)).not.toThrow()
    breaker.reached()
    breaker.serverFailed('HTTP 500: still', 1001)
    expect(() => breaker.check(2500)).toThrow('HTTP 500: still')
    expect(() => breaker.check(3001)).not.toThrow()
    // The next probe is answered: closed, and the count starts again.
    breaker.answered()
    expect(() => breaker.check(3002)).not.toThrow()
    expect(breaker.answers).toBe(2)
  })

  it('opens after three connection failures in a row, fails at once by name, probes after the cool-down', () => {
    const breaker = new EndpointBreaker('compat|http://127.0.0.1:6599/v1', { threshold: 3, coolDownMs: 1000 })
    breaker.failed(refused, 0)
    breaker.failed(refused, 0)
    expect(() => breaker.check(0)).not.toThrow()
    breaker.failed(refused, 0)
    expect(() => breaker.check(10)).toThrow(EndpointDownError)
    expect(() => breaker.check(10)).toThrow(
      'http://127.0.0.1:6599/v1: connection refused (ECONNREFUSED); 3 connection failures in a row, so calls to it fail at once (next try in 1 s)',
    )
    // After the cool-down one probe goes through; the others still fail while it runs.
    expect(() => breaker.check(1000)).not.toThrow()
    expect(() => breaker.check(1001)).toThrow('a probe is under way')
    // The probe fails: open again, for twice as long.
    breaker.failed(refused, 1002)
    expect(() => breaker.check(2500)).toThrow(EndpointDownError)
    expect(() => breaker.check(3002)).not.toThrow()
    // The probe reaches the server: closed.
    breaker.reached()
    expect(() => breaker.check(3003)).not.toThrow()
  })

  it('a success between failures resets the count; an abandoned probe lets the next call probe', () => {
    const breaker = new EndpointBreaker('openai|default', { threshold: 2, coolDownMs: 100 })
    breaker.failed(refused, 0)
    breaker.reached()
    breaker.failed(refused, 0)
    expect(() => breaker.check(0)).not.toThrow()
    breaker.failed(refused, 0)
    expect(() => breaker.check(50)).toThrow('https://api.openai.com/v1: connection refused')
    expect(() => breaker.check(100)).not.toThrow()
    breaker.settled()
    expect(() => breaker.check(101)).not.toThrow()
  })
})

describe('endpointName', () => {
  it('is the URL the calls go to', () => {
    expect(endpointName('compat|http://127.0.0.1:6599/v1')).toBe('http://127.0.0.1:6599/v1')
    expect(endpointName('anthropic|default')).toBe('https://api.anthropic.com')
    expect(endpointName('plain')).toBe('plain')
  })
})
