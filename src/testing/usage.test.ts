import { describe, expect, it } from 'vitest'
import { approxTokens, PromptCacheSimulator, promptChars, type PromptBlock } from './usage.js'

const block = (text: string, extra: Partial<PromptBlock> = {}): PromptBlock => ({
  role: 'user',
  message: 0,
  text,
  ...extra,
})
const cached = (text: string, ttl: '5m' | '1h' = '5m', extra: Partial<PromptBlock> = {}) =>
  block(text, { cacheControl: { ttl }, ...extra })

describe('approxTokens / promptChars', () => {
  it('counts 4 characters a token, rounding up, and sums text parts', () => {
    expect([0, 1, 4, 5, 8].map(approxTokens)).toEqual([0, 1, 1, 2, 2])
    expect(promptChars([block('abc'), block('de', { message: 1 })])).toBe(5)
  })
})

describe('Anthropic cache simulation', () => {
  const system = cached('s'.repeat(400), '5m', { role: 'system', message: -1 })

  it('writes every breakpoint prefix on a miss, reads the longest seen prefix on a hit', () => {
    const cache = new PromptCacheSimulator()
    // 400 system chars (100 tokens) cached, 40 chars after the breakpoint are plain input.
    expect(cache.anthropic('m', [system, block('u'.repeat(40))])).toEqual({
      cacheReadTokens: 0,
      cacheWriteTokens: 100,
      cacheWrite1hTokens: 0,
    })
    // The next turn adds a breakpoint further on: 100 read, 10 + 10 + 20 = 40 chars... = 110 - 100 written.
    const turn = [
      system,
      block('u'.repeat(40)),
      block('a'.repeat(40), { role: 'assistant', message: 1 }),
      cached('f'.repeat(80), '1h', { message: 2 }),
    ]
    expect(cache.anthropic('m', turn)).toEqual({ cacheReadTokens: 100, cacheWriteTokens: 40, cacheWrite1hTokens: 40 })
    expect(cache.anthropic('m', turn)).toEqual({ cacheReadTokens: 140, cacheWriteTokens: 0, cacheWrite1hTokens: 0 })
  })

  it('keys on model, roles and message boundaries, not on cache_control itself', () => {
    const cache = new PromptCacheSimulator()
    cache.anthropic('m', [system])
    expect(cache.anthropic('other', [system]).cacheReadTokens).toBe(0)
    expect(cache.anthropic('m', [{ ...system, role: 'user', message: 0 }]).cacheReadTokens).toBe(0)
    // Same prefix, breakpoint moved later: the earlier prefix is not a breakpoint any more, so it misses.
    expect(cache.anthropic('m', [{ ...system, cacheControl: undefined }, cached('x'.repeat(4))])).toEqual({
      cacheReadTokens: 0,
      cacheWriteTokens: 101,
      cacheWrite1hTokens: 0,
    })
  })

  it('a hit on a later breakpoint covers earlier missed ones; no breakpoint, no caching; clear() forgets', () => {
    const cache = new PromptCacheSimulator()
    const prompt = [block('a'.repeat(40)), cached('b'.repeat(40), '5m', { message: 1 })]
    cache.anthropic('m', prompt)
    const withEarlierBreakpoint = [cached('a'.repeat(40)), cached('b'.repeat(40), '5m', { message: 1 })]
    expect(cache.anthropic('m', withEarlierBreakpoint)).toEqual({
      cacheReadTokens: 20,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
    })
    expect(cache.anthropic('m', [block('a'.repeat(40))])).toEqual({
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
    })
    cache.clear()
    expect(cache.anthropic('m', prompt).cacheReadTokens).toBe(0)
  })
})

describe('OpenAI automatic caching simulation', () => {
  it('reports a shared prefix of at least 1024 tokens, rounded down to a multiple of 128', () => {
    const cache = new PromptCacheSimulator()
    const long = block('p'.repeat(4 * 1300), { role: 'system', message: 0 })
    expect(cache.openai('chat:m', [long, block('first', { message: 1 })])).toBe(0)
    // 5200 + "f" = 5201 shared chars = 1300 tokens → 1280.
    expect(cache.openai('chat:m', [long, block('fresh', { message: 1 })])).toBe(1280)
    expect(cache.openai('chat:other', [long])).toBe(0)
    expect(cache.openai('responses:m', [long])).toBe(0)
  })

  it('stays at 0 below 1024 shared tokens and uses the longest match in the history', () => {
    const cache = new PromptCacheSimulator()
    cache.openai('k', [block('q'.repeat(4000))])
    expect(cache.openai('k', [block('q'.repeat(4095))])).toBe(0) // 1000 tokens shared
    cache.openai('k', [block('q'.repeat(6000))])
    expect(cache.openai('k', [block('q'.repeat(8000))])).toBe(1408) // 6000 chars = 1500 tokens → 1408
  })
})
