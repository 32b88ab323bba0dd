/**
 * The statistics registry: every module of this folder (`all.ts`, generated), how a cell summary
 * computes them, and how outputs read a cell's entry of one. Outputs never name a statistic's
 * field: they loop over {@link STATISTICS} and read the cell's `statistics` map.
 */
import type { CellSummary, StatisticValue } from '../../core/schemas.js'
import { intervalText } from '../../metrics/format.js'
import { ALL_STATISTICS } from './all.js'
import { statisticText, type Statistic, type StatisticInput } from './statistic.js'

export { defineStatistic, statisticText } from './statistic.js'
export type { Statistic, StatisticColumn, StatisticInput } from './statistic.js'

/** Every statistic, in file-name order. */
export const STATISTICS: readonly Statistic[] = ALL_STATISTICS

/**
 * A statistic by id; throws naming the known ids when there is none.
 *
 * @example
 * statistic('gain').label // => 'gain'
 */
export function statistic(id: string): Statistic {
  const found = STATISTICS.find((s) => s.id === id)
  if (!found) throw new Error(`no statistic '${id}'; the registry has ${STATISTICS.map((s) => s.id).join(', ')}`)
  return found
}

/**
 * Every statistic that applies to the cell, computed (the summary's `statistics` map): a module
 * whose protocols exclude the cell's, or that returns null, has no entry.
 *
 * @example
 * computeStatistics(input).gain // => { value: 0.25 }
 */
export function computeStatistics(input: StatisticInput): Record<string, StatisticValue> {
  const out: Record<string, StatisticValue> = {}
  for (const s of STATISTICS) {
    if (!s.protocols.includes(input.protocol.kind)) continue
    const entry = s.compute(input)
    if (entry) out[s.id] = entry
  }
  return out
}

/**
 * A cell's entry of a statistic (undefined: it does not apply to the cell, or the file predates it).
 *
 * @example
 * readStatistic(cell, 'gain')?.value // => 0.25
 */
export function readStatistic(cell: Pick<CellSummary, 'statistics'>, id: string): StatisticValue | undefined {
  return cell.statistics[id]
}

/**
 * A cell's detail of a statistic, checked by the module's detail schema (undefined without an
 * entry). A detail the schema rejects throws naming the statistic and the cell: fail closed.
 *
 * @example
 * statisticDetail<{ unmodified: number }>(cell, 'unmodifiedRevisions')?.unmodified // => 3
 */
export function statisticDetail<Detail>(
  cell: Pick<CellSummary, 'statistics' | 'cellId'>,
  id: string,
): Detail | undefined {
  const entry = cell.statistics[id]
  const schema = statistic(id).detail
  if (entry === undefined || schema === undefined) return undefined
  const parsed = schema.safeParse(entry.detail)
  if (!parsed.success)
    throw new Error(
      `cell ${cell.cellId}: statistics.${id}.detail is not what the '${id}' module writes: ${parsed.error.message}`,
    )
  return parsed.data as Detail
}

/** The statistics that have a column in the cell table, in column order. */
export function columnStatistics(): Statistic[] {
  return STATISTICS.filter((s) => s.column).sort((a, b) => a.column!.order - b.column!.order)
}

/** The statistics some of the cells have, in registry order. */
export function presentStatistics(cells: readonly Pick<CellSummary, 'cellId' | 'statistics'>[]): Statistic[] {
  return STATISTICS.filter((s) => cells.some((c) => readStatistic(c, s.id) !== undefined))
}

/**
 * One entry as text: the value as its module prints it, `[lo–hi]` when it has an interval, and
 * `n=…` when it says what it is over; `—` when the cell has no entry.
 *
 * @example
 * statisticValueText(gain, { value: 0.25 }) // => '+25.0'
 */
export function statisticValueText(statistic: Statistic, entry: StatisticValue | undefined): string {
  if (entry === undefined) return '—'
  const ci = entry.interval ? ` [${intervalText(entry.interval.lo, entry.interval.hi)}]` : ''
  const n = entry.n === undefined ? '' : ` n=${entry.n}`
  return `${statisticText(statistic, entry)}${ci}${n}`
}

/** The statistics as rows of text: a header, then one row per cell (for Markdown and the terminal). */
export function statisticsRows(
  cells: readonly Pick<CellSummary, 'cellId' | 'statistics'>[],
): { header: string[]; rows: string[][] } | null {
  const present = presentStatistics(cells)
  if (present.length === 0) return null
  return {
    header: ['cell', ...present.map((s) => s.label)],
    rows: cells.map((c) => [c.cellId, ...present.map((s) => statisticValueText(s, readStatistic(c, s.id)))]),
  }
}
