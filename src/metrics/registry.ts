/**
 * The metrics as data: each one's id, its label, how a task's value is read from its summary row,
 * its interval, whether a baseline gate and an `expect` threshold can hold a cell to it, and how it
 * prints. The table, the summary, the report, thresholds, the gate, `seqk power`, history and
 * `seqk analyze` ask this registry which metric a cell reports and how to read it, so a metric is
 * added here once rather than decided again in every output.
 */
import { percent } from './format.js'
import { passAtCurve, passAtK } from './pass-at-k.js'
import { passHatCurve, passHatK } from './pass-hat-k.js'
import { seqAtCurve } from './seq-at-k.js'
import { seqHatCurve } from './seq-hat-k.js'
import type { TaskRow } from './task-rates.js'
import { RATE_METRICS } from '../core/kinds.js'

/** The metrics a threshold or a baseline gate can name: the contract's `RATE_METRICS`, not a copy of it. */
export const METRIC_IDS = RATE_METRICS
/** A metric's id: its `CellSummary` field and its `expect` key. */
export type MetricId = (typeof METRIC_IDS)[number]

/** Which protocol measures a metric. */
export type MetricProtocol = 'sequential' | 'independent'

/**
 * What a metric is to the cells that measure it: the `headline` rate a row shows first and a gate
 * judges by default (Seq@k, Pass@k), or the `reliability` ("every time") rate of the wide view
 * (Seq^k, pass^k). Each protocol has one of each; the rest have no role.
 */
export type MetricRole = 'headline' | 'reliability'

/** One metric, as every output reads it. */
export interface MetricDefinition {
  readonly id: MetricId
  /** The family a table's `metric` column shows: `Seq`, `Pass`, `Seq^`, `pass^`, `Cover`, `Score`. */
  readonly family: string
  /** Its value's name at an index: `Seq@3`, `pass^3`, `Cover@0.5`. */
  label(at: number | string): string
  /** What a threshold's key is: an attempt count k, or a share τ (Cover@τ, read at the budget). */
  readonly index: 'k' | 'tau'
  /** The protocols whose cells measure it. */
  readonly protocols: readonly MetricProtocol[]
  /** Whether a baseline gate compares it task by task (paired over tasks, as Seq@K is). */
  readonly gateable: boolean
  /** Whether `expect` can hold a cell to a minimum of it. */
  readonly thresholdable: boolean
  /**
   * A task's value at `at` from its summary row (NaN: not measured there). Cover@τ reads it at the
   * budget `K`; the rest ignore `K`.
   */
  taskValue(row: TaskRow, at: number, K: number): number
  /** The independent trials a task's value rests on, for paired intervals and power. */
  trials(row: TaskRow, at: number): number
  /** How its values print (a share, in %, as every rate). */
  format(value: number | null | undefined): string
  /** Its role for the protocols that measure it, if it has one. */
  readonly role?: MetricRole
  /**
   * Its curve over k = 1..K from a cell's task rows (NaN where undefined), for the metrics read at
   * k: the same function the summary's own curve comes from.
   */
  curve?(rows: readonly TaskRow[], K: number): number[]
}

function solvedWithin(row: TaskRow, k: number): number {
  let solved = 0
  for (const f of row.firstSuccess) if (f !== null && f <= k) solved++
  return solved
}

/** A task's tries at k: its samples and passes (independent), or its repeats and those solved by k. */
function triesOf(row: TaskRow, k: number): { n: number; c: number } {
  return row.samples === undefined
    ? { n: row.firstSuccess.length, c: solvedWithin(row, k) }
    : { n: row.samples, c: row.passes ?? 0 }
}

const repeatsTrials = (row: TaskRow): number =>
  Math.max(1, row.firstSuccess.length + (row.censoredAt ?? []).filter((c) => c > 1).length)
const groupTrials = (row: TaskRow, k: number): number => Math.max(1, Math.floor((row.samples ?? 0) / k))
const format = (value: number | null | undefined): string => percent(value)
const outcomesOf = (rows: readonly TaskRow[]) =>
  rows.map((r) => ({ taskId: r.taskId, firstSuccess: [...r.firstSuccess] }))
const samplesOf = (rows: readonly TaskRow[]) =>
  rows.map((r) => ({ taskId: r.taskId, n: r.samples ?? 0, c: r.passes ?? 0 }))
/** c ≥ τ·n with slack, so 0.7 · 10 = 7.000000000000001 never decides (as `coverAt`). */
const reaches = (n: number, c: number, tau: number): boolean => c >= tau * n - 1e-9

/** Every metric, by id. */
export const METRICS: Readonly<Record<MetricId, MetricDefinition>> = {
  seqAt: {
    id: 'seqAt',
    family: 'Seq',
    label: (k) => `Seq@${k}`,
    index: 'k',
    protocols: ['sequential'],
    gateable: true,
    thresholdable: true,
    taskValue: (row, k) =>
      row.firstSuccess.length === 0 ? Number.NaN : solvedWithin(row, k) / row.firstSuccess.length,
    trials: repeatsTrials,
    format,
    role: 'headline',
    curve: (rows, K) => seqAtCurve(outcomesOf(rows), K),
  },
  passAt: {
    id: 'passAt',
    family: 'Pass',
    label: (k) => `Pass@${k}`,
    index: 'k',
    protocols: ['independent'],
    gateable: true,
    thresholdable: true,
    taskValue: (row, k) => (row.samples && row.samples >= k ? passAtK(row.samples, row.passes ?? 0, k) : Number.NaN),
    trials: groupTrials,
    format,
    role: 'headline',
    curve: (rows, K) => passAtCurve(samplesOf(rows), K),
  },
  seqHat: {
    id: 'seqHat',
    family: 'Seq^',
    label: (k) => `Seq^${k}`,
    index: 'k',
    protocols: ['sequential'],
    gateable: true,
    thresholdable: true,
    taskValue: (row, k) =>
      row.firstSuccess.length === 0 ? Number.NaN : solvedWithin(row, k) === row.firstSuccess.length ? 1 : 0,
    trials: () => 1,
    format,
    role: 'reliability',
    curve: (rows, K) => seqHatCurve(outcomesOf(rows), K),
  },
  passHat: {
    id: 'passHat',
    family: 'pass^',
    label: (k) => `pass^${k}`,
    index: 'k',
    protocols: ['independent'],
    gateable: true,
    thresholdable: true,
    taskValue: (row, k) => (row.samples && row.samples >= k ? passHatK(row.samples, row.passes ?? 0, k) : Number.NaN),
    trials: groupTrials,
    format,
    role: 'reliability',
    curve: (rows, K) => passHatCurve(samplesOf(rows), K),
  },
  coverAt: {
    id: 'coverAt',
    family: 'Cover',
    label: (tau) => `Cover@${tau}`,
    index: 'tau',
    protocols: ['sequential', 'independent'],
    gateable: true,
    thresholdable: true,
    taskValue: (row, tau, K) => {
      const { n, c } = triesOf(row, K)
      return n === 0 ? Number.NaN : reaches(n, c, tau) ? 1 : 0
    },
    trials: () => 1,
    format,
  },
  // The score curve (metrics/score-curve.ts): the reference harness's metric@k. Held by `expect`
  // thresholds; the baseline gate does not pair it yet (it reads solved rates per task).
  scoreAt: {
    id: 'scoreAt',
    family: 'Score',
    label: (k) => `Score@${k}`,
    index: 'k',
    protocols: ['sequential', 'independent'],
    gateable: false,
    thresholdable: true,
    taskValue: (row, k) => row.bestScore?.[k - 1] ?? Number.NaN,
    trials: repeatsTrials,
    format,
    curve: (rows, K) =>
      Array.from({ length: K }, (_, i) => {
        const values = rows.map((r) => r.bestScore?.[i] ?? Number.NaN).filter((v) => !Number.isNaN(v))
        return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length
      }),
  },
}

/** A protocol as the registry reads it: its kind, or `true` for independent sampling (as the cells' `independent` flag). */
export type ProtocolOf = MetricProtocol | boolean

const kindOf = (protocol: ProtocolOf): MetricProtocol =>
  typeof protocol === 'boolean' ? (protocol ? 'independent' : 'sequential') : protocol

/**
 * The metric that has `role` for cells of this protocol, read from the registry (each protocol has
 * exactly one per role; the registry's test holds it to that).
 *
 * @example
 * metricWithRole('reliability', 'sequential').id // => 'seqHat'
 */
export function metricWithRole(role: MetricRole, protocol: ProtocolOf): MetricDefinition {
  const kind = kindOf(protocol)
  const found = METRIC_IDS.map((id) => METRICS[id]).find((m) => m.role === role && m.protocols.includes(kind))
  if (!found) throw new Error(`metric registry: no ${role} metric for ${kind} cells`)
  return found
}

/**
 * The rate a cell reports first: Seq@k for a cell with feedback, Pass@k for independent sampling.
 *
 * @example
 * headlineMetric('independent').label(5) // => 'Pass@5'
 * headlineMetric(true).label(5) // => 'Pass@5'
 */
export function headlineMetric(protocol: ProtocolOf): MetricDefinition {
  return metricWithRole('headline', protocol)
}

/**
 * The cell's "every time" rate: Seq^k for a cell with feedback, pass^k for independent sampling.
 *
 * @example
 * reliabilityMetric('sequential').label(3) // => 'Seq^3'
 */
export function reliabilityMetric(protocol: ProtocolOf): MetricDefinition {
  return metricWithRole('reliability', protocol)
}

/**
 * Whether a cell of this protocol measures the metric.
 *
 * @example
 * measures(METRICS.passAt, 'sequential') // => false
 */
export function measures(metric: MetricDefinition, protocol: MetricProtocol): boolean {
  return metric.protocols.includes(protocol)
}
