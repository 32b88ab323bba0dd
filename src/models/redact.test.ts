import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  looksLikeKey,
  redactName,
  redactSecrets,
  redactText,
  redactUrl,
  refuseKeyAsModel,
  registerSecret,
  registerUrlSecrets,
} from './redact.js'
import { actorFromSpec } from './actors-from-env.js'

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
  it('removes a secret whole when a shorter registered one is part of it (registered first)', () => {
    registerSecret('nested-secret-0')
    registerSecret('nested-secret-0-and-more')
    expect(redactSecrets('x nested-secret-0-and-more y')).toBe('x [REDACTED] y')
  })

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

// Keys by shape, built at run time from a seeded generator: no literal a secret scanner would take
// for a key. Each provider's prefix with a body of its alphabet.
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
// Unbiased and unshrunk: a key is uniformly random, and a shrunk 'AAAA…' is no key's shape.
const body = (alphabet: string, min: number, max: number) =>
  fc
    .noShrink(fc.noBias(fc.array(fc.integer({ min: 0, max: alphabet.length - 1 }), { minLength: min, maxLength: max })))
    .map((c) => c.map((i) => alphabet[i]).join(''))
const PROVIDER_KEYS = fc.oneof(
  body(`${BASE62}-_`, 40, 120).map((b) => `sk-proj-${b}`),
  body(`${BASE62}-_`, 80, 100).map((b) => `sk-ant-api03-${b}`),
  body(BASE62, 48, 48).map((b) => `sk-${b}`),
  body(`${BASE62}-_`, 35, 35).map((b) => `AIza${b}`),
  body(BASE62, 80, 80).map((b) => `xai-${b}`),
  body(BASE62, 52, 52).map((b) => `gsk_${b}`),
  body(BASE62, 34, 34).map((b) => `hf_${b}`),
)
/** A key with no prefix we know: 32 to 64 random letters and digits (most providers' own shape). */
const OPAQUE_KEYS = body(BASE62, 32, 64).filter((k) => /[0-9]/.test(k) && /[A-Z]/.test(k) && /[a-z]/.test(k))

/** Real model names, and names built the way providers and hubs build them. */
const REAL_NAMES = [
  'gpt-4.1-mini',
  'gpt-4o-2024-08-06',
  'o3-mini',
  'claude-sonnet-4-5-20250929',
  'claude-3-5-haiku-latest',
  'qwen2.5-7b-instruct',
  'qwen2.5-coder:7b',
  'meta-llama/Llama-3.1-8B-Instruct',
  'meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo',
  'deepseek-ai/DeepSeek-R1-Distill-Qwen-32B',
  'mistralai/Mixtral-8x7B-Instruct-v0.1',
  'Qwen/Qwen2.5-Coder-32B-Instruct-GGUF:Q4_K_M',
  'accounts/fireworks/models/llama-v3p1-70b-instruct',
  'us.anthropic.claude-3-7-sonnet-20250219-v1:0',
  'claude-3-5-sonnet@20240620',
  'ft:gpt-4o-mini-2024-07-18:my-org:custom-suffix:9fZkzXyA',
  'gemini-2.5-pro-preview-05-06',
  'models/gemini-1.5-pro-002',
  'hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q8_0',
  'llama3.1:8b-instruct-q4_K_M',
  'sha256:6a0746a1ec1aef3e7ec53868f220ff6e389f6f8ef87a01d77c96807de94ca2aa',
  'Helsinki-NLP/opus-mt-en-sk',
  'Llama31Nemotron70BInstructHF',
  'nvidia/Llama-3.1-Nemotron-70B-Instruct-HF',
  'microsoft/Phi-3.5-mini-instruct',
  'google/gemma-2-27b-it',
  'gpt-oss-120b',
  'grok-4-0709',
  'simulated-agent:solver (seeded local simulation, seed 7)',
]
const WORDS = ['llama', 'Llama', 'qwen', 'Qwen', 'mistral', 'Mixtral', 'gemma', 'phi', 'DeepSeek', 'coder', 'Coder']
const TAILS = ['instruct', 'Instruct', 'chat', 'it', 'base', 'preview', 'latest', 'turbo', 'mini', 'GGUF', 'AWQ', 'HF']
const BUILT_NAMES = fc
  .tuple(
    fc.option(fc.constantFrom('meta-llama/', 'Qwen/', 'mistralai/', 'google/', 'accounts/x/models/', 'hf.co/u/')),
    fc.constantFrom(...WORDS),
    fc.constantFrom('', '2', '2.5', '3', '3.1', '-3.1', '-4', 'v3p1'),
    fc.array(
      fc.oneof(
        fc.constantFrom(...TAILS),
        fc.integer({ min: 1, max: 405 }).map((n) => `${n}${['b', 'B', 'k', ''][n % 4]}`),
        fc
          .date({ min: new Date(2023, 0, 1), max: new Date(2026, 11, 31), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10).replaceAll('-', '')),
        fc.constantFrom('Q4_K_M', 'q8_0', 'v0.1', 'v1:0', 'fp16', '8x7B', '0709'),
      ),
      { maxLength: 5 },
    ),
    fc.option(fc.constantFrom(':latest', ':7b', '@20240620', ':beta')),
  )
  .map(
    ([org, word, version, tails, tag]) =>
      `${org ?? ''}${word}${version}${tails.map((t) => `-${t}`).join('')}${tag ?? ''}`,
  )

describe('redaction by shape (names: served models, tool names, specs)', () => {
  it('a provider-shaped key is redacted in free text and in a name, wherever it sits', () => {
    fc.assert(
      fc.property(PROVIDER_KEYS, fc.constantFrom('', 'model ', 'Bearer ', '"', '@', '/', ':'), (key, before) => {
        const text = `${before}${key} served`
        expect(redactText(text)).not.toContain(key.slice(0, 24))
        expect(redactName(text)).not.toContain(key.slice(-16))
        expect(looksLikeKey(text)).toBe(true)
      }),
      { seed: 47, numRuns: 300 },
    )
  })

  it('a long opaque key with no known prefix is redacted where a name goes, 99% of them by shape alone (a seeded sample of 2000)', () => {
    const keys = fc.sample(OPAQUE_KEYS, { seed: 47, numRuns: 2000 })
    const caught = keys.filter((key) => redactName(`gpt-4o ${key}`) === 'gpt-4o [REDACTED]' && looksLikeKey(`@${key}`))
    expect(caught.length / keys.length).toBeGreaterThanOrEqual(0.99)
    // Not in free text, where such a run may be data (a request id, base64): only prefixes, tokens and registered keys.
    expect(redactText(`request ${keys[0]!} failed`)).toBe(`request ${keys[0]!} failed`)
  })

  it('a legitimate model name is never redacted, real or built the way hubs build them', () => {
    for (const name of REAL_NAMES) {
      expect(redactName(name), name).toBe(name)
      expect(looksLikeKey(name), name).toBe(false)
    }
    fc.assert(
      fc.property(BUILT_NAMES, (name) => {
        expect(redactName(name)).toBe(name)
        expect(looksLikeKey(name)).toBe(false)
        expect(redactText(name)).toBe(name)
      }),
      { seed: 47, numRuns: 1000 },
    )
  })

  it('a key given as a model name is refused with a message that names the fix and not the key', () => {
    fc.assert(
      fc.property(fc.oneof(PROVIDER_KEYS, OPAQUE_KEYS.filter(looksLikeKey)), fc.constantFrom('', '@'), (key, at) => {
        let message = ''
        try {
          refuseKeyAsModel('actors.openai({ model: [REDACTED] })', `${at}${key}`)
        } catch (error) {
          message = (error as Error).message
        }
        expect(message).toMatch(/the model name looks like an API key.*apiKey/)
        expect(message).not.toContain(key.slice(-12))
      }),
      { seed: 47, numRuns: 200 },
    )
    for (const name of REAL_NAMES) expect(() => refuseKeyAsModel('x', name)).not.toThrow()
  })
})

describe('a key where the model goes (SEQK_ACTORS)', () => {
  it('is refused for every provider, naming the spec by its provider only and never the key', () => {
    // Built at run time: no key-shaped literal in the sources.
    const keys = [['sk', 'proj', 'Zx9'.repeat(12)].join('-'), `${'aZ3kQ9xLm2'.repeat(2)}Pq7tY0bWc5`]
    for (const key of keys)
      for (const spec of [
        `openai:@${key}`,
        `openai:${key}`,
        `anthropic:${key}`,
        `compat:${key}@http://localhost:1/v1`,
      ]) {
        let message = ''
        try {
          actorFromSpec(spec)
        } catch (error) {
          message = (error as Error).message
        }
        expect(message).toMatch(/^actor spec "(openai|anthropic|compat):…": the model name looks like an API key/)
        expect(message).not.toContain(key.slice(-10))
      }
    expect(() =>
      actorFromSpec('compat:qwen2.5-coder:7b@http://localhost:11434/v1?api-key=abcdefghijklmnop'),
    ).not.toThrow()
  })

  it('is refused by the constructors too, naming the option and not the key', async () => {
    const { actors } = await import('./index.js')
    const key = ['sk', 'ant', 'api03', 'Qw3'.repeat(12)].join('-')
    for (const make of [
      () => actors.openai({ model: key, apiKey: 'unused-key-0003' }),
      () => actors.anthropic({ model: `@${key}`, apiKey: 'unused-key-0004' }),
      () => actors.openaiCompatible({ model: key, baseURL: 'http://127.0.0.1:9/v1' }),
    ]) {
      expect(make).toThrow(/^actors\.\w+\(\{ model: \[REDACTED\] \}\): the model name looks like an API key/)
      expect(make).not.toThrow(key.slice(-10))
    }
  })
})
