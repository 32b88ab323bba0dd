import { createHash } from 'node:crypto'

/** One of `count` machines a benchmark's tasks are split over: `index` is 1-based, as in `SEQK_SHARD=2/4`. */
export interface Shard {
  index: number
  count: number
}

/** The most shards a run may be split into. */
export const MAX_SHARDS = 1000

/**
 * Parses `SEQK_SHARD` (`i/N`, 1 <= i <= N <= 1000); undefined or empty is no sharding. A bad value
 * throws an error that names the variable, the value and the fix.
 *
 * @example
 * parseShard('2/4') // => { index: 2, count: 4 }
 */
export function parseShard(text: string | undefined, name = 'SEQK_SHARD'): Shard | null {
  if (text === undefined || text.trim() === '') return null
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text)
  const index = Number(match?.[1])
  const count = Number(match?.[2])
  if (!match || count < 1 || count > MAX_SHARDS || index < 1 || index > count) {
    throw new RangeError(
      `${name}=${JSON.stringify(text)}: expected i/N with 1 <= i <= N <= ${MAX_SHARDS}, e.g. ${name}=1/4 on the first of four machines`,
    )
  }
  return { index, count }
}

/**
 * The shard (1-based) a task belongs to among `count`: a stable hash of its id, so every task is
 * in exactly one shard, the same one on every machine and in every run, whatever the order or
 * number of the other tasks.
 */
export function shardOfTask(taskId: string, count: number): number {
  const digest = createHash('sha256').update(taskId).digest()
  return (digest.readUInt32BE(0) % count) + 1
}
