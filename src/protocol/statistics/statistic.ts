/**
 * A statistic as a module: what it is called, which cells it applies to, how it is computed from
 * the cell's trajectories, how it prints, and whether the table shows it. `summariseCell` loops
 * over the registry (`all.ts`, generated from this folder) and stores each one in the cell's
 * `statistics` map; the terminal table, Markdown, the HTML report, JUnit, the inspect export and
 * `seqk analyze` read that map through the registry, so a new statistic is its module and its test.
 */
import type { z } from 'zod'
import type { ErrorPolicy, Protocol, StatisticValue, Trajectory } from '../../core/schemas.js'
import type { TaskOutcomes } from '../../metrics/index.js'
import { percent } from '../../metrics/format.js'

/** What a statistic is computed from: the cell's protocol and trajectories, and what the summary derived from them. */
export interface StatisticInput {
  protocol: Protocol
  /** The budget K. */
  K: number
  independent: boolean
  policy: ErrorPolicy
  /** Every trajectory of the cell, errored ones included. */
  trajectories: readonly Trajectory[]
  /** The trajectories the rates count under the error policy (`left-out` drops errored ones). */
  counted: readonly Trajectory[]
  /** Each task's first success per repeat (null: not within K), errored repeats as the policy says. */
  outcomes: readonly TaskOutcomes[]
  /** The headline curve the cell reports (Seq@k, or Pass@k for independent cells), k = 1..K; null where undefined. */
  headline: readonly (number | null)[]
}

/** Where a statistic's column goes in the cell table (`report/columns.ts` builds it). */
export interface StatisticColumn {
  /** Its place among the statistics' columns (ascending; they follow the rate columns). */
  order: number
  /** The column's header, given the budget K. */
  header(K: number): string
  /** Which outputs show it; default the terminal's wide view only. */
  outputs?: readonly ('terminal' | 'markdown' | 'html')[]
  /** For the narrow terminal view: kept while it fits, lower first, with its group (see `CellColumn.optional`). */
  optional?: { priority: number; group: string }
  /** Shown by the terminal only in the wide view (`SEQK_WIDE=1`); default true without `optional`. */
  wideOnly?: boolean
}

/** One statistic, as a module of `protocol/statistics/`. */
export interface Statistic<Detail = unknown> {
  /** Its key in the cell's `statistics` map (camelCase, stable: summaries store it). */
  readonly id: string
  /** Its name in prose and in the report (`first-revision repair rate`). */
  readonly label: string
  /** One sentence: what it measures, over what. */
  readonly description: string
  /** The protocols whose cells it applies to; a cell of another protocol has no entry. */
  readonly protocols: readonly Protocol['kind'][]
  /** Its value on a cell, or null when it does not apply to this cell (no entry is stored then). */
  compute(input: StatisticInput): StatisticValue | null
  /** How its value prints (default: a share in %, `—` when undefined). */
  format?(entry: StatisticValue): string
  /** Its column in the cell table, if it has one. */
  readonly column?: StatisticColumn
  /** The schema of its `detail`, if it stores one (it goes into schemas/ with the summary's). */
  readonly detail?: z.ZodType<Detail>
}

/**
 * A statistic's text for one entry: its own format, or the value as a share.
 *
 * @example
 * statisticText(meanAttempts, { value: 1.5 }) // => '1.50'
 */
export function statisticText(statistic: Statistic, entry: StatisticValue | undefined): string {
  if (entry === undefined) return '—'
  return statistic.format ? statistic.format(entry) : percent(entry.value)
}

/**
 * Declares a statistic (typed detail, checked at compile time).
 *
 * @example
 * export default defineStatistic({ id: 'meanAttempts', label: 'mean attempts', … })
 */
export function defineStatistic<Detail>(statistic: Statistic<Detail>): Statistic<Detail> {
  return statistic
}
