import { z } from 'zod'
import type { Usage } from './chat-model.js'

/** USD per million tokens. `cacheRead`/`cacheWrite` default to `input` when a provider has no cache price. */
export const PriceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
  /**
   * What a call sent through the provider's batch API costs, as a share of the prices above
   * (default 0.5: OpenAI's Batch API and Anthropic's Message Batches both bill half). Cache
   * prices apply within it where the provider allows.
   */
  batch: z.number().positive().max(1).optional(),
})
/** The price of one model: input, output, cache reads and writes, and its batch share. */
export type Price = z.infer<typeof PriceSchema>

/** The batch APIs' share of the list price when a price does not say (OpenAI and Anthropic: half). */
export const DEFAULT_BATCH_SHARE = 0.5

/**
 * The cost of a batched call: `costOf` at the price's batch share.
 *
 * @example
 * batchCostOf({ inputTokens: 1e6, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, { input: 2, output: 8 }) // => 1
 */
export function batchCostOf(usage: Usage, price: Price): number {
  return costOf(usage, price) * (price.batch ?? DEFAULT_BATCH_SHARE)
}

/**
 * The bundled price table: list prices per million tokens as published by the providers, dated.
 * Prices change; check them and override with `prices` (per model) where they matter. A listed
 * name also prices its dated snapshots, so `claude-sonnet-4-5-20250929` finds `claude-sonnet-4-5`.
 */
export const BUNDLED_PRICES = {
  asOf: '2025-11-01',
  models: {
    // OpenAI: cached input is billed at the cache-read price; there is no cache-write charge.
    'openai:gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
    'openai:gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
    'openai:gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
    'openai:gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
    'openai:gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
    'openai:gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
    'openai:gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
    'openai:gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
    'openai:o3': { input: 2, output: 8, cacheRead: 0.5 },
    'openai:o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
    // Anthropic: 5-minute cache writes cost 1.25× input, cache reads 0.1× input.
    'anthropic:claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    'anthropic:claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    'anthropic:claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    'anthropic:claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    'anthropic:claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    'anthropic:claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    'anthropic:claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    'anthropic:claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  } satisfies Record<string, Price>,
}

/** Model prices keyed `provider:model` (prefix match); user entries win over the bundled ones. */
export type PriceTable = Record<string, Price>

/**
 * The price of `provider:model`: the user's table first, then the bundled one; a listed name also
 * prices its dated snapshots (`-2024-08-06`, `-20250929`, `-latest`). Undefined when nothing
 * matches (cost is then reported as unknown, never as $0).
 *
 * @example
 * findPrice('anthropic', 'claude-sonnet-4-5-20250929') // { input: 3, output: 15, ... }
 */
export function findPrice(provider: string, model: string, overrides: PriceTable = {}): Price | undefined {
  const key = `${provider}:${model}`
  // Only a date or `-latest` may follow a listed name: `o3` must not price `o3-pro` or `o3-mini`.
  const sameModel = (k: string) =>
    key === k || (key.startsWith(k) && /^-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/.test(key.slice(k.length)))
  for (const table of [overrides, BUNDLED_PRICES.models as PriceTable]) {
    const match = Object.keys(table).find(sameModel)
    if (match) return table[match]
  }
  return undefined
}

/**
 * Cost in USD of one call. `usage.inputTokens` counts every input token, cached ones included;
 * cache reads and writes are billed at their own prices and the rest at the input price.
 */
export function costOf(usage: Usage, price: Price): number {
  const plain = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens)
  const perToken =
    plain * price.input +
    usage.cacheReadTokens * (price.cacheRead ?? price.input) +
    usage.cacheWriteTokens * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output
  return perToken / 1e6
}

/** What the call would have cost with no prompt caching at all (every input token at the input price). */
export function uncachedCostOf(usage: Usage, price: Price): number {
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1e6
}
