import { describe, expect, it } from 'vitest'
import { redactSecrets, redactText, redactUrl, registerSecret, registerUrlSecrets } from './redact.js'

describe('redactText', () => {
  it('removes credential shapes whoever they belong to', () => {
    expect(redactText('{"authorization":"Bearer abcdefgh12345678"}')).toBe('{"authorization":"Bearer [REDACTED]"}')
    // Key-shaped values built at runtime: no literal that a secret scanner would take for a key.
    const anthropicShaped = ['sk', 'ant', 'api03', 'A'.repeat(16)].join('-')
    const openaiShaped = ['sk', 'proj', 'B'.repeat(20)].join('-')
    expect(redactText(`key ${anthropicShaped} and ${openaiShaped}`)).toBe('key [REDACTED] and [REDACTED]')
    expect(redactText('x-api-key: hunter2hunter2, region: eu')).toBe('x-api-key: [REDACTED], region: eu')
    expect(redactText("{'api_key': 'abcdef123456'}")).toBe("{'api_key': '[REDACTED]'}")
  })

  it('removes a registered secret in any shape, and leaves ordinary text alone', () => {
    registerSecret('plain-secret-value-42')
    expect(redactText('gateway said: token=plain-secret-value-42; user plain-secret-value-42')).toBe(
      'gateway said: token=[REDACTED]; user [REDACTED]',
    )
    registerSecret('abc')
    expect(redactText('abc is fine, and so is HTTP 401: Unauthorized')).toBe(
      'abc is fine, and so is HTTP 401: Unauthorized',
    )
  })
})

describe('a registered secret in its encoded forms', () => {
  it('is redacted URL-encoded, and base64-encoded inside any longer base64 text, at every alignment', () => {
    const key = ['sk', 'enc', 'K+/y'.repeat(6)].join('-')
    registerSecret(key)
    const shapes = [`Bearer ${key}`, `xBearer ${key}`, `xyBearer ${key}!`, `{"authorization":"Bearer ${key}"}`]
    for (const text of shapes) {
      for (const encoded of [Buffer.from(text).toString('base64'), Buffer.from(text).toString('base64url')]) {
        const redacted = redactSecrets(`echo: ${encoded}`)
        expect(redacted, text).toContain('[REDACTED]')
        // What is left of the encoding decodes to no part of the key longer than a few characters.
        expect(
          Buffer.from(redacted.replace('echo: ', '').replaceAll('[REDACTED]', ''), 'base64').toString('latin1'),
        ).not.toContain(key.slice(4, 12))
      }
    }
    expect(redactSecrets(`q=${encodeURIComponent(key)}`)).toBe('q=[REDACTED]')
  })

  it("a URL's user and password are registered as a pair too, so a Basic header's base64 is redacted", () => {
    const password = ['pw', 'z'.repeat(12)].join('-')
    registerUrlSecrets(`https://carol:${password}@gw.example/v1`)
    const basic = Buffer.from(`carol:${password}`).toString('base64')
    expect(redactSecrets(`Authorization: Basic ${basic}`)).not.toContain(basic.slice(4, 16))
  })
})

describe('redactUrl', () => {
  it('drops user info and credential-like query values, keeping the rest', () => {
    expect(redactUrl('https://user:pass@gw.example/v1?api-key=abc&region=eu')).toBe(
      'https://gw.example/v1?api-key=%5BREDACTED%5D&region=eu',
    )
    expect(redactUrl('http://localhost:11434/v1')).toBe('http://localhost:11434/v1')
    expect(redactUrl('https://x.example/v1?sig=abc&token=def')).toBe(
      'https://x.example/v1?sig=%5BREDACTED%5D&token=%5BREDACTED%5D',
    )
    expect(redactUrl('not a url Bearer abcdefgh12345678')).toBe('not a url Bearer [REDACTED]')
  })
})

describe('redactSecrets', () => {
  it('removes registered secrets and nothing else, so an answer keeps every other character', () => {
    registerSecret('answer-secret-0042')
    const code = 'api_key = os.environ["KEY"]\nheaders = {"Authorization": "Bearer " + token}'
    expect(redactSecrets(code)).toBe(code)
    expect(redactText(code)).not.toBe(code)
    expect(redactSecrets(`${code} # answer-secret-0042`)).toBe(`${code} # [REDACTED]`)
  })
})

describe('registerUrlSecrets', () => {
  it("registers a URL's password and credential-like query values, as written and decoded; redactUrl does it too", () => {
    const password = ['pw', 'a'.repeat(12)].join('-')
    registerUrlSecrets(`https://bob:${password}@gw.example/v1?sig=ab%2Bcdefgh12&region=europe-west`)
    expect(redactSecrets(`echo ${password} and ab+cdefgh12 and ab%2Bcdefgh12, region europe-west`)).toBe(
      'echo [REDACTED] and [REDACTED] and [REDACTED], region europe-west',
    )
    const queryKey = ['qk', 'b'.repeat(12)].join('-')
    expect(redactSecrets(queryKey)).toBe(queryKey)
    redactUrl(`https://gw.example/v1?api-key=${queryKey}`)
    expect(redactSecrets(`the gateway said ${queryKey}`)).toBe('the gateway said [REDACTED]')
    registerUrlSecrets('not a url')
  })
})

describe('where credentials enter', () => {
  it("the actor constructors register a base URL's credentials, so an echo anywhere is redacted (also with `served`)", async () => {
    const { actors } = await import('./index.js')
    const [a, b, c] = ['ga', 'gb', 'gc'].map((p) => [p, 'x'.repeat(14)].join('-'))
    actors.openai({ model: 'gpt-x', apiKey: 'unused-key-0001', baseURL: `https://gw.example/v1?api-key=${a}` })
    actors.anthropic({ model: 'claude-x', apiKey: 'unused-key-0002', baseURL: `https://gw.example/?token=${b}` })
    actors.openaiCompatible({ model: 'm', baseURL: `http://127.0.0.1:9/v1?key=${c}`, served: 'weights-q4' })
    expect(redactSecrets(`${a} ${b} ${c}`)).toBe('[REDACTED] [REDACTED] [REDACTED]')
  })

  it("a custom model's credentialed parameters are stored without them in the protocol", async () => {
    const { cellProtocol } = await import('../protocol/cell.js')
    const { cellSpec } = await import('../protocol/test-helpers.js')
    const secret = ['pk', 'y'.repeat(14)].join('-')
    const model = {
      id: 'custom',
      descriptor: {
        provider: 'custom',
        model: 'm',
        params: { endpoint: `https://gw.example/v1?api-key=${secret}`, temperature: 0.2, note: 'plain' },
      },
      chat: async () => ({
        text: '',
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        latencyMs: 0,
        finishReason: 'stop' as const,
      }),
    }
    const protocol = cellProtocol(cellSpec([], model))
    expect(JSON.stringify(protocol)).not.toContain(secret)
    expect(protocol.actor.params).toEqual({
      endpoint: 'https://gw.example/v1?api-key=%5BREDACTED%5D',
      temperature: 0.2,
      note: 'plain',
    })
  })
})
