/**
 * A registry metric read from a cell summary: its value at k (τ for Cover@τ), its interval at the
 * budget, and whether the cell measures it at all. Thresholds, matchers, the table and the report
 * read a cell's metrics here, so none decides by hand which field holds which metric.
 */
import type { CellSummary, IntervalJson } from '../core/schemas.js'
import { headlineMetric, measures, METRICS, type MetricDefinition, type MetricId } from '../metrics/registry.js'

/** The fields of a summary the metrics live in. */
export type MeasuredCell = Pick<
  CellSummary,
  'protocol' | 'budget' | 'seqAt' | 'seqAtInterval' | 'passAt' | 'passAtInterval' | 'passHat' | 'reliability' | 'score'
>

/** What a cell says of one metric: null `curve` when the cell does not measure it. */
export interface MetricReading {
  metric: MetricDefinition
  /** Values at k = 1..K (Cover@τ: at the τ values the cell reports, see `at`); null: not measured. */
  curve: (number | null)[] | null
  /** The value at `at` (k, or τ), null when undefined or not reported. */
  value: number | null
  /** The interval at K (at τ for Cover@τ), when the cell keeps one. */
  interval: IntervalJson | null
}

const protocolOf = (cell: MeasuredCell) => (cell.protocol.kind === 'independent' ? 'independent' : 'sequential')

/**
 * A metric's reading on a cell at `at` (k for rates at k, τ for Cover@τ).
 *
 * @example
 * readMetric(summary, 'seqHat', 3).value // Seq^3, or null
 */
export function readMetric(cell: MeasuredCell, id: MetricId, at: number): MetricReading {
  const metric = METRICS[id]
  const none = { metric, curve: null, value: null, interval: null }
  if (!measures(metric, protocolOf(cell))) return none
  const r = cell.reliability
  if (id === 'coverAt') {
    if (!r) return none
    const entry = r.coverAt.find((c) => Math.abs(c.tau - at) < 1e-9)
    return {
      metric,
      curve: r.coverAt.map((c) => c.interval.point),
      value: entry?.interval.point ?? null,
      interval: entry?.interval ?? null,
    }
  }
  const curves: Record<
    Exclude<MetricId, 'coverAt'>,
    [(number | null)[] | null | undefined, IntervalJson | null | undefined]
  > = {
    seqAt: [cell.seqAt, cell.seqAtInterval],
    passAt: [cell.passAt, cell.passAtInterval],
    seqHat: [r?.seqHat, r?.hatInterval],
    passHat: [cell.passHat, r?.hatInterval],
    scoreAt: [cell.score?.at, cell.score?.interval],
  }
  const [curve, interval] = curves[id]
  if (!curve) return none
  return { metric, curve, value: curve[at - 1] ?? null, interval: at === cell.budget ? (interval ?? null) : null }
}

/**
 * The rate curve a row shows first: Seq@k for feedback cells, unbiased Pass@k for independent
 * ones, with its label and its interval at K.
 *
 * @example
 * headlineCurve(summary).label // => 'Seq'
 */
export function headlineCurve(cell: MeasuredCell): {
  label: 'Seq' | 'Pass'
  curve: (number | null)[]
  interval: CellSummary['seqAtInterval'] | null
} {
  const metric = headlineMetric(cell.protocol.kind === 'independent')
  const reading = readMetric(cell, metric.id, cell.budget)
  return { label: metric.family as 'Seq' | 'Pass', curve: reading.curve ?? [], interval: reading.interval }
}
