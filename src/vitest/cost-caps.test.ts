import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { capsFromEnv, CostCapError, SHARDS_CAP_ENV, shardsCostCap } from './cost-caps.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-caps-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('the cap over every shard', () => {
  it('without a shared directory each shard holds its declared share, so the shares add up to at most the cap', () => {
    for (const count of [1, 2, 3, 7]) {
      const shares = Array.from({ length: count }, (_, i) =>
        shardsCostCap(
          { SEQK_SHARDS_MAX_COST_USD: '5', SEQK_SHARDS_MAX_TOKENS: '1000', SEQK_SHARD: `${i + 1}/${count}` },
          join(dir, `share-${count}-${i}`),
        ),
      )
      const usd = shares.reduce((s, c) => s + c!.limits.maxCostUsd!, 0)
      const tokens = shares.reduce((s, c) => s + c!.limits.maxTokens!, 0)
      expect(usd).toBeCloseTo(5, 12)
      expect(tokens).toBeLessThanOrEqual(1000)
      expect(tokens).toBeGreaterThan(1000 - count)
      expect(shares[0]!.share).toEqual(count > 1 ? { of: { maxCostUsd: 5, maxTokens: 1000 }, count } : undefined)
    }
  })

  it('with a shared directory every shard holds the whole cap against what all of them spent', () => {
    const env = (i: number) => ({
      SEQK_SHARDS_MAX_TOKENS: '500',
      SEQK_SHARDS_SPEND_DIR: join(dir, 'spend'),
      CLOUD_RUN_TASK_INDEX: String(i),
      CLOUD_RUN_TASK_COUNT: '3',
    })
    const caps = [0, 1, 2].map((i) => shardsCostCap(env(i), join(dir, `run-${i}`))!)
    for (const c of caps) expect(c.limits).toEqual({ maxTokens: 500 })
    caps[0]!.ledger.add({ costUsd: 0.01, tokens: 300 })
    caps[2]!.ledger.add({ costUsd: 0.01, tokens: 250 })
    expect(caps[1]!.ledger.spent().tokens).toBe(550)
  })

  it('no variable, no cap; a bad value names the variable', () => {
    expect(shardsCostCap({ SEQK_SHARD: '1/3' }, dir)).toBeUndefined()
    expect(() => capsFromEnv({ SEQK_SHARDS_MAX_COST_USD: '-1' }, SHARDS_CAP_ENV)).toThrow(CostCapError)
    expect(() => capsFromEnv({ SEQK_SHARDS_MAX_COST_USD: '-1' }, SHARDS_CAP_ENV)).toThrow(
      /^SEQK_SHARDS_MAX_COST_USD="-1"/,
    )
  })
})
