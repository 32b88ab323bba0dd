import { describe, expect, it } from 'vitest'

describe('checkNumberOptions (the actor constructors)', () => {
  it('refuses a numeric option beyond its bound, naming it, the range and why', async () => {
    const { actors } = await import('./index.js')
    const key = ['unused', 'key', '0003'].join('-')
    expect(() => actors.openai({ model: 'gpt-x', apiKey: key, timeoutMs: 1e12 })).toThrow(
      'actors.openai({ model: "gpt-x" }): timeoutMs must be a number from 1 to 3600000 (one hour per try; the cell has its own timeout), got 1000000000000',
    )
    expect(() => actors.anthropic({ model: 'claude-x', apiKey: key, temperature: 1.5 })).toThrow(
      /temperature must be a number from 0 to 1 \(Anthropic accepts 0 to 1\), got 1.5/,
    )
    expect(() =>
      actors.openaiCompatible({ model: 'm', baseURL: 'http://127.0.0.1:9/v1', maxTokens: 2.5, concurrency: 0 }),
    ).toThrow(
      /concurrency must be a whole number from 1 to 1000 .*, got 0; .*maxTokens must be a whole number from 1 to 1000000 .*, got 2.5/,
    )
    expect(() => actors.openai({ model: 'gpt-x', apiKey: key, retry: { maxRetries: 1000 } })).toThrow(
      /retry: maxRetries must be a whole number from 0 to 20/,
    )
    expect(() => actors.openai({ model: 'gpt-x', apiKey: key, temperature: '0.7' as never })).toThrow(
      /temperature must be a number from 0 to 2 .*, got "0.7"/,
    )
    expect(() =>
      actors.openai({
        model: 'gpt-x',
        apiKey: key,
        temperature: 2,
        maxTokens: 1_000_000,
        timeoutMs: 3_600_000,
        retry: { maxRetries: 0 },
      }),
    ).not.toThrow()
  })
})
