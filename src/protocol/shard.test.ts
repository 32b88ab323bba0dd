import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseShard, shardOfTask } from './shard.js'

describe('parseShard', () => {
  it('reads i/N and refuses anything else, naming the variable and the fix', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 })
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 })
    expect(parseShard(undefined)).toBeNull()
    expect(parseShard('')).toBeNull()
    for (const bad of ['0/4', '5/4', '2', 'a/b', '1/0', '1/1001', '-1/2'])
      expect(() => parseShard(bad)).toThrow(
        `SEQK_SHARD=${JSON.stringify(bad)}: expected i/N with 1 <= i <= N <= 1000, e.g. SEQK_SHARD=1/4`,
      )
  })
})

describe('shardOfTask', () => {
  it('puts every task in exactly one shard in 1..N, the same on every call (seeded property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 64 }), (id, count) => {
        const shard = shardOfTask(id, count)
        expect(shard).toBeGreaterThanOrEqual(1)
        expect(shard).toBeLessThanOrEqual(count)
        expect(shardOfTask(id, count)).toBe(shard)
      }),
      { seed: 15, numRuns: 500 },
    )
  })

  it('spreads tasks evenly enough: 1000 ids over 4 shards, each within 20% of 250', () => {
    const counts = [0, 0, 0, 0]
    for (let i = 0; i < 1000; i++) counts[shardOfTask(`HumanEval/${i}`, 4) - 1]!++
    for (const c of counts) expect(Math.abs(c - 250)).toBeLessThan(50)
  })
})
