import { describe, expect, it } from 'vitest'
import { BUNDLED_PRICES, costOf, findPrice, PriceSchema, uncachedCostOf } from './pricing.js'

describe('pricing', () => {
  it('every bundled price is valid and the table is dated', () => {
    expect(BUNDLED_PRICES.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    for (const [key, price] of Object.entries(BUNDLED_PRICES.models))
      expect(PriceSchema.safeParse(price).success, key).toBe(true)
  })

  it('prices dated snapshots of a listed model, and nothing else; user overrides first', () => {
    expect(findPrice('anthropic', 'claude-sonnet-4-5-20250929')?.input).toBe(3)
    expect(findPrice('openai', 'gpt-4o-mini-2024-07-18')?.input).toBe(0.15)
    expect(findPrice('openai', 'gpt-4o-2024-08-06')?.input).toBe(2.5)
    expect(findPrice('openai', 'gpt-4o', { 'openai:gpt-4o': { input: 1, output: 2 } })?.input).toBe(1)
    expect(findPrice('openai', 'my-finetune')).toBeUndefined()
    expect(findPrice('openai', 'o3-pro')).toBeUndefined()
    expect(findPrice('anthropic', 'claude-3-5-haiku-latest')?.input).toBe(0.8)
  })

  it('bills cache reads and writes at their own prices and the rest at the input price', () => {
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }
    const usage = { inputTokens: 10_000, outputTokens: 1000, cacheReadTokens: 6000, cacheWriteTokens: 2000 }
    expect(costOf(usage, price)).toBeCloseTo((2000 * 3 + 6000 * 0.3 + 2000 * 3.75 + 1000 * 15) / 1e6, 12)
    expect(uncachedCostOf(usage, price)).toBeCloseTo((10_000 * 3 + 1000 * 15) / 1e6, 12)
    expect(costOf({ ...usage, cacheReadTokens: 0, cacheWriteTokens: 0 }, { input: 1, output: 1 })).toBeCloseTo(
      0.011,
      12,
    )
  })
})
