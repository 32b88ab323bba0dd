import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BATCH_ENGINES, MAX_SHARDS, parseShard, shardFromEnv, shardOfTask, shardSource } from './shard.js'

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

describe('shardSource: SEQK_SHARD and the batch engines', () => {
  it("reads each engine's 0-based index and its count as a 1-based shard, saying which variables", () => {
    expect(shardSource({ JOB_COMPLETION_INDEX: '0', SEQK_SHARD_COUNT: '3' })).toEqual({
      shard: { index: 1, count: 3 },
      from: 'JOB_COMPLETION_INDEX=0, SEQK_SHARD_COUNT=3',
    })
    expect(shardFromEnv({ CLOUD_RUN_TASK_INDEX: '1', CLOUD_RUN_TASK_COUNT: '3' })).toEqual({ index: 2, count: 3 })
    expect(shardFromEnv({ AWS_BATCH_JOB_ARRAY_INDEX: '2', AWS_BATCH_JOB_ARRAY_SIZE: '3' })).toEqual({
      index: 3,
      count: 3,
    })
    expect(shardFromEnv({ SEQK_SHARD: '2/4' })).toEqual({ index: 2, count: 4 })
    expect(shardFromEnv({})).toBeNull()
  })

  it('every engine index 0..N-1 is a distinct shard 1..N (seeded property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: MAX_SHARDS }), fc.nat(), fc.constantFrom(...BATCH_ENGINES), (n, i, e) => {
        const index = i % n
        expect(shardFromEnv({ [e.index]: String(index), [e.count]: String(n) })).toEqual({ index: index + 1, count: n })
        // The same shard said twice, by SEQK_SHARD and by the engine, is no conflict.
        expect(
          shardFromEnv({ SEQK_SHARD: `${index + 1}/${n}`, [e.index]: String(index), [e.count]: String(n) }),
        ).toEqual({ index: index + 1, count: n })
      }),
      { seed: 49, numRuns: 300 },
    )
  })

  it('a single task is the whole run, not a shard; SEQK_SHARD=off runs every task whatever the engine says', () => {
    expect(shardFromEnv({ CLOUD_RUN_TASK_INDEX: '0', CLOUD_RUN_TASK_COUNT: '1' })).toBeNull()
    expect(
      shardFromEnv({ SEQK_SHARD: 'off', AWS_BATCH_JOB_ARRAY_INDEX: '3', AWS_BATCH_JOB_ARRAY_SIZE: '8' }),
    ).toBeNull()
  })

  it('sources that name different shards are an error naming both, and the fix', () => {
    expect(() => shardFromEnv({ SEQK_SHARD: '2/3', JOB_COMPLETION_INDEX: '0', SEQK_SHARD_COUNT: '3' })).toThrow(
      'two sources name different shards: SEQK_SHARD=2/3 (shard 2/3) and JOB_COMPLETION_INDEX=0, SEQK_SHARD_COUNT=3 (shard 1/3); unset one of them, or set SEQK_SHARD=off to run every task here',
    )
    expect(() =>
      shardFromEnv({
        CLOUD_RUN_TASK_INDEX: '1',
        CLOUD_RUN_TASK_COUNT: '3',
        AWS_BATCH_JOB_ARRAY_INDEX: '1',
        AWS_BATCH_JOB_ARRAY_SIZE: '4',
      }),
    ).toThrow(
      /CLOUD_RUN_TASK_INDEX=1, CLOUD_RUN_TASK_COUNT=3 \(shard 2\/3\) and AWS_BATCH_JOB_ARRAY_INDEX=1, AWS_BATCH_JOB_ARRAY_SIZE=4 \(shard 2\/4\)/,
    )
  })

  it('an index without its count, a count without its index and bad values are errors naming the variable and the fix', () => {
    expect(() => shardFromEnv({ JOB_COMPLETION_INDEX: '2' })).toThrow(
      "JOB_COMPLETION_INDEX=2 (a Kubernetes Indexed Job) names this machine's shard but not how many there are: set SEQK_SHARD_COUNT to the number of tasks (the Job's spec.completions), or SEQK_SHARD=off to run every task here",
    )
    expect(() => shardFromEnv({ SEQK_SHARD_COUNT: '3' })).toThrow(
      'SEQK_SHARD_COUNT="3" is set but JOB_COMPLETION_INDEX is not: SEQK_SHARD_COUNT counts the pods of a Kubernetes Indexed Job; elsewhere use SEQK_SHARD=i/N',
    )
    for (const [index, count] of [
      ['3', '3'],
      ['-1', '3'],
      ['a', '3'],
      ['0', '0'],
      ['0', '1001'],
      ['1.5', '3'],
    ])
      expect(() => shardFromEnv({ CLOUD_RUN_TASK_INDEX: index, CLOUD_RUN_TASK_COUNT: count })).toThrow(
        `CLOUD_RUN_TASK_INDEX=${index}, CLOUD_RUN_TASK_COUNT=${count} (a Cloud Run job): expected a 0-based index below a count of 1..1000, e.g. CLOUD_RUN_TASK_INDEX=0 with CLOUD_RUN_TASK_COUNT=4 on the first of four`,
      )
  })
})
