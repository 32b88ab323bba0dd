/**
 * The closed lists of the contract, each declared once as an `as const` array: the types, the zod
 * enums (core/schemas.ts) and the sets that check membership all derive from these, so adding a
 * feedback kind or a threshold metric is one edit. Imports nothing, so the report's browser
 * script reads the same lists.
 */

/** The kinds of feedback a failed attempt can get: only "failed", the verifier's diagnostics, or an LLM's critique. */
export const FEEDBACK_KINDS = ['binary', 'verifier', 'critic'] as const
/** A kind of feedback: `binary`, `verifier` or `critic`. */
export type FeedbackKind = (typeof FEEDBACK_KINDS)[number]

/** How a cell spends its budget: attempts that see feedback (Seq@k), or independent samples (Pass@k). */
export const PROTOCOL_KINDS = ['sequential', 'independent'] as const
/** How a cell spends its budget: `sequential` or `independent`. */
export type ProtocolKind = (typeof PROTOCOL_KINDS)[number]

/**
 * How a trajectory ended: solved within K, failed every attempt, an infrastructure error, or
 * stopped at a cost cap (unfinished: neither a pass nor a failure).
 */
export const TRAJECTORY_STATUSES = ['solved', 'failed', 'error', 'capped'] as const
/** How a trajectory ended: `solved`, `failed`, `error` or `capped`. */
export type TrajectoryStatus = (typeof TRAJECTORY_STATUSES)[number]

/**
 * The rates a threshold or a baseline gate can hold a cell to (the metric registry's ids: Seq@k,
 * Pass@k, Seq^k, pass^k, Cover@τ, and Score@k, the score curve).
 */
export const RATE_METRICS = ['seqAt', 'passAt', 'seqHat', 'passHat', 'coverAt', 'scoreAt'] as const
/** A rate a threshold or gate holds a cell to: `seqAt`, `passAt`, `seqHat`, `passHat`, `coverAt` or `scoreAt`. */
export type RateMetric = (typeof RATE_METRICS)[number]

/**
 * What a threshold checks: a rate at k, the tolerated error rate, that something was measured,
 * and that the cell ran to its end.
 */
export const THRESHOLD_METRICS = [...RATE_METRICS, 'maxErrorRate', 'measured', 'finished'] as const
/** What one threshold checks. */
export type ThresholdMetric = (typeof THRESHOLD_METRICS)[number]

/**
 * Whether `value` is one of `list`'s members (and, for TypeScript, that it has their type).
 *
 * @example
 * isOneOf(FEEDBACK_KINDS, 'critic') // => true
 */
export function isOneOf<const T extends readonly string[]>(list: T, value: unknown): value is T[number] {
  return typeof value === 'string' && (list as readonly string[]).includes(value)
}

/**
 * Every status a cell can have, in the order outputs count them. `fail`: a check failed; `pass`:
 * something was checked and every check held; `no-thresholds`: it ran and checked nothing;
 * `not-run`: declared but skipped; `shard`: one machine's share of a task-sharded run, checked
 * once the shards are merged.
 */
export const CELL_STATUSES = ['fail', 'pass', 'no-thresholds', 'not-run', 'shard'] as const
export type CellStatus = (typeof CELL_STATUSES)[number]

/** The words every output shows for a status (the terminal upper-cases FAIL). */
export const STATUS_TEXT: Readonly<Record<CellStatus, string>> = {
  fail: 'fail',
  pass: 'pass',
  'no-thresholds': 'no thresholds',
  'not-run': 'not run',
  shard: 'shard',
}

/** The statuses a cell summary stores as its `verdict` (a summary is of a cell that ran). */
export const CELL_VERDICTS = ['pass', 'fail', 'no-thresholds', 'shard'] as const
export type CellVerdictStatus = (typeof CELL_VERDICTS)[number]
