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

/** A batch engine that gives each of its tasks a 0-based index, and where the count of tasks is read. */
export interface BatchEngine {
  /** What the engine is called, for messages. */
  readonly name: string
  /** The variable the engine sets to this task's 0-based index. */
  readonly index: string
  /** The variable holding how many tasks there are (set by the engine, or by the manifest where it sets none). */
  readonly count: string
}

/**
 * The batch engines whose own variables name a shard. Kubernetes sets the Indexed Job's index but
 * not its `spec.completions`, so the manifest sets `SEQK_SHARD_COUNT` to that number; Cloud Run
 * Jobs and AWS Batch array jobs set both.
 */
export const BATCH_ENGINES: readonly BatchEngine[] = [
  { name: 'a Kubernetes Indexed Job', index: 'JOB_COMPLETION_INDEX', count: 'SEQK_SHARD_COUNT' },
  { name: 'a Cloud Run job', index: 'CLOUD_RUN_TASK_INDEX', count: 'CLOUD_RUN_TASK_COUNT' },
  { name: 'an AWS Batch array job', index: 'AWS_BATCH_JOB_ARRAY_INDEX', count: 'AWS_BATCH_JOB_ARRAY_SIZE' },
]

/** `SEQK_SHARD=off`: run every task here whatever an engine's index says (an array job used for something else). */
export const SHARDING_OFF = 'off'

/** Where this machine's shard came from: the shard, and the variables that named it. */
export interface ShardSource {
  shard: Shard
  /** The variables as they were set, e.g. `CLOUD_RUN_TASK_INDEX=1, CLOUD_RUN_TASK_COUNT=3`. */
  from: string
}

const set = (env: NodeJS.ProcessEnv, name: string) => env[name] !== undefined && env[name]!.trim() !== ''

/** The shard an engine's variables name, null when it names none (no index, or a single task). */
function engineShard(env: NodeJS.ProcessEnv, engine: BatchEngine): ShardSource | null {
  if (!set(env, engine.index)) {
    if (engine.count === 'SEQK_SHARD_COUNT' && set(env, engine.count))
      throw new RangeError(
        `SEQK_SHARD_COUNT=${JSON.stringify(env[engine.count])} is set but ${engine.index} is not: SEQK_SHARD_COUNT counts the pods of a Kubernetes Indexed Job; elsewhere use SEQK_SHARD=i/N`,
      )
    return null
  }
  const rawIndex = env[engine.index]!
  const rawCount = env[engine.count]
  if (rawCount === undefined || rawCount.trim() === '')
    throw new RangeError(
      `${engine.index}=${rawIndex} (${engine.name}) names this machine's shard but not how many there are: set ${engine.count} to the number of tasks${engine.count === 'SEQK_SHARD_COUNT' ? " (the Job's spec.completions)" : ''}, or SEQK_SHARD=${SHARDING_OFF} to run every task here`,
    )
  const index = /^\s*\d+\s*$/.test(rawIndex) ? Number(rawIndex) : NaN
  const count = /^\s*\d+\s*$/.test(rawCount) ? Number(rawCount) : NaN
  const from = `${engine.index}=${rawIndex.trim()}, ${engine.count}=${rawCount.trim()}`
  if (!(count >= 1 && count <= MAX_SHARDS && index >= 0 && index < count))
    throw new RangeError(
      `${from} (${engine.name}): expected a 0-based index below a count of 1..${MAX_SHARDS}, e.g. ${engine.index}=0 with ${engine.count}=4 on the first of four`,
    )
  // One task is the whole run: not a shard waiting for a merge.
  return count === 1 ? null : { shard: { index: index + 1, count }, from }
}

/**
 * This machine's shard and the variables that named it: `SEQK_SHARD=i/N`, or a batch engine's own
 * index and count (`BATCH_ENGINES`; their indices are 0-based, shards 1-based). Null when none
 * names a shard, or `SEQK_SHARD=off`. Sources that name different shards are an error naming both.
 *
 * @throws RangeError naming the variables and the fix: a bad value, an index without its count,
 *   or two sources that disagree.
 * @example
 * shardSource({ CLOUD_RUN_TASK_INDEX: '1', CLOUD_RUN_TASK_COUNT: '3' })
 * // => { shard: { index: 2, count: 3 }, from: 'CLOUD_RUN_TASK_INDEX=1, CLOUD_RUN_TASK_COUNT=3' }
 */
export function shardSource(env: NodeJS.ProcessEnv): ShardSource | null {
  if (env.SEQK_SHARD?.trim().toLowerCase() === SHARDING_OFF) return null
  const explicit = parseShard(env.SEQK_SHARD)
  const sources = [
    ...(explicit ? [{ shard: explicit, from: `SEQK_SHARD=${env.SEQK_SHARD!.trim()}` }] : []),
    ...BATCH_ENGINES.map((e) => engineShard(env, e)).filter((s): s is ShardSource => s !== null),
  ]
  const [first, ...rest] = sources
  for (const other of rest)
    if (other.shard.index !== first!.shard.index || other.shard.count !== first!.shard.count)
      throw new RangeError(
        `two sources name different shards: ${first!.from} (shard ${first!.shard.index}/${first!.shard.count}) and ${other.from} (shard ${other.shard.index}/${other.shard.count}); unset one of them, or set SEQK_SHARD=${SHARDING_OFF} to run every task here`,
      )
  return first ?? null
}

/**
 * This machine's shard (see `shardSource`), or null when it runs every task.
 *
 * @example
 * shardFromEnv({ JOB_COMPLETION_INDEX: '0', SEQK_SHARD_COUNT: '3' }) // => { index: 1, count: 3 }
 */
export function shardFromEnv(env: NodeJS.ProcessEnv): Shard | null {
  return shardSource(env)?.shard ?? null
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
