/**
 * The cell table's columns as data, shared by the terminal table, the Markdown summary and the
 * HTML report: each column's header, its text for a cell, whether it is a number, and which
 * outputs show it. A column is added or changed here once, and every output follows.
 */
import { columnStatistics, readStatistic, statisticText, type Statistic } from '../protocol/statistics/index.js'
import type { CellSummary } from '../core/schemas.js'
import { sumUsage } from '../core/contract.js'
import { cellVerdict, STATUS_TEXT, type CellVerdict } from '../protocol/verdict.js'
import { headlineCurve, readMetric } from '../protocol/cell-metrics.js'
import { intervalText, money, percent, plural, tokensText } from '../metrics/format.js'
import { DEFAULT_G_PASS_TAUS } from '../metrics/g-pass-at-k.js'

/** The rate curve a row shows: Seq@k for feedback cells, unbiased Pass@k for independent ones (the registry's headline). */
export const curveOf = headlineCurve

/** How a value should look where an output can show it (colour in the terminal, a class in HTML). */
export type Tone = 'pass' | 'fail' | 'muted' | 'warn' | undefined

/** One cell's value in one column. */
export interface ColumnValue {
  text: string
  tone?: Tone
}

/** Where a column is shown. The narrow terminal view also drops `optional` columns that do not fit. */
export type Output = 'terminal' | 'markdown' | 'html'

export interface CellColumn {
  /** A stable name (`k3` for the rate at k = 3). */
  id: string
  header: string
  /** Right-aligned (numbers). */
  numeric: boolean
  outputs: readonly Output[]
  /**
   * For the narrow terminal view: the order in which optional columns are kept while they fit
   * (lower first); absent for a column that is always shown. Columns sharing a group go together.
   */
  optional?: { priority: number; group: string }
  /** Shown by the terminal only in the wide view (`wide`, SEQK_WIDE=1), so the default view keeps its columns. */
  wideOnly?: boolean
  value(cell: CellSummary, verdict: CellVerdict): ColumnValue
}

/** The verdict as a table cell: `fail (n)` with its failed checks counted once, `pass`, `no thresholds`, `shard i/N`. */
export function verdictValue(cell: CellSummary, verdict: CellVerdict = cellVerdict(cell)): ColumnValue {
  if (verdict.status === 'shard' && cell.shard)
    return { text: `shard ${cell.shard.index}/${cell.shard.count}`, tone: 'muted' }
  if (verdict.status === 'fail') return { text: `fail (${verdict.failed.length})`, tone: 'fail' }
  return { text: STATUS_TEXT[verdict.status], tone: verdict.status === 'pass' ? 'pass' : 'muted' }
}

/** A cell's tokens (input + output, helpers included): `unknown` or `≥…` where calls reported no usage. */
export function tokensValue(cell: Pick<CellSummary, 'usage' | 'usageUnknownCalls'>): ColumnValue {
  const total = cell.usage === null ? null : cell.usage.inputTokens + cell.usage.outputTokens
  return {
    text: tokensText(total, cell.usageUnknownCalls ?? 0),
    ...(cell.usageUnknownCalls ? { tone: 'warn' as const } : {}),
  }
}

/** A cell's cost: `unknown` when calls reported no usage (so no price applies), `?` when a model is unpriced. */
export function costValue(cell: Pick<CellSummary, 'costUsd' | 'usageUnknownCalls'>): ColumnValue {
  if (cell.costUsd === null && cell.usageUnknownCalls) return { text: 'unknown', tone: 'warn' }
  return { text: money(cell.costUsd) }
}

/**
 * The columns of a benchmark's cell table with budget `K`, rates shown at `ks` (default every k),
 * in the order every output lays them out.
 *
 * @example
 * cellColumns(5).filter((c) => c.outputs.includes('markdown')).map((c) => c.header)
 * // => ['cell', 'metric', '@1', …, '@5', '95% CI @5', 'Δ@5', 'errors', 'tokens', 'cost', 'feedback', 'fingerprint', 'verdict']
 */
export function cellColumns(
  K: number,
  ks: readonly number[] = Array.from({ length: K }, (_, i) => i + 1),
): CellColumn[] {
  const all: readonly Output[] = ['terminal', 'markdown', 'html']
  const rate = (k: number): CellColumn => ({
    id: `k${k}`,
    header: `@${k}`,
    numeric: true,
    outputs: all,
    value: (cell) => ({ text: percent(curveOf(cell).curve[k - 1]) }),
  })
  return [
    { id: 'cell', header: 'cell', numeric: false, outputs: all, value: (cell) => ({ text: cell.cellId }) },
    { id: 'metric', header: 'metric', numeric: false, outputs: all, value: (cell) => ({ text: curveOf(cell).label }) },
    ...ks.map(rate),
    {
      id: 'ci',
      header: `95% CI @${K}`,
      numeric: true,
      outputs: all,
      value: (cell) => ({ text: intervalText(curveOf(cell).interval?.lo, curveOf(cell).interval?.hi) }),
    },
    // The registered statistics that have a column (protocol/statistics/), in their order.
    ...columnStatistics().map((st) => statisticColumn(st, K)),
    ...reliabilityColumns(K),
    {
      id: 'errors',
      header: 'errors',
      numeric: true,
      outputs: all,
      value: (cell) => (cell.errors.count === 0 ? { text: '0' } : { text: String(cell.errors.count), tone: 'warn' }),
    },
    {
      id: 'tokens',
      header: 'tokens',
      numeric: true,
      outputs: all,
      optional: { priority: 4, group: 'tokens' },
      value: (cell) => tokensValue(cell),
    },
    {
      id: 'cost',
      header: 'cost',
      numeric: true,
      outputs: all,
      optional: { priority: 1, group: 'cost' },
      value: (cell) => costValue(cell),
    },
    {
      id: 'feedback',
      header: 'feedback',
      numeric: false,
      outputs: ['markdown'],
      value: (cell) => ({ text: cell.protocol.feedback ? cell.protocol.feedback.kind : 'none (independent)' }),
    },
    {
      id: 'fingerprint',
      header: 'fingerprint',
      numeric: false,
      outputs: ['markdown'],
      value: (cell) => ({ text: cell.fingerprint }),
    },
    {
      id: 'verdict',
      header: 'verdict',
      numeric: false,
      outputs: all,
      value: (cell, verdict) => verdictValue(cell, verdict),
    },
  ]
}

/** A statistic's column: its header and text from the module, shown where the module says. */
function statisticColumn(statistic: Statistic, K: number): CellColumn {
  const c = statistic.column!
  const wideOnly = c.wideOnly ?? c.optional === undefined
  return {
    id: statistic.id,
    header: c.header(K),
    numeric: true,
    outputs: c.outputs ?? ['terminal'],
    ...(c.optional ? { optional: c.optional } : {}),
    ...(wideOnly ? { wideOnly } : {}),
    value: (cell) => ({ text: statisticText(statistic, readStatistic(cell, statistic.id)) }),
  }
}

/**
 * The reliability columns of the wide view: Cover@1 (tasks solved every time), Seq^K (every repeat
 * within K) and pass^K (all K samples passing), each in its own column, G-Pass@K_τ (at least a
 * share τ of K samples passing, from the summary's `gPass`), and the mean outcome consistency.
 */
function reliabilityColumns(K: number): CellColumn[] {
  const wideOnly = { numeric: true, outputs: ['terminal'] as const, wideOnly: true }
  return [
    {
      id: 'cover1',
      header: 'Cover@1',
      ...wideOnly,
      value: (cell) => ({ text: percent(readMetric(cell, 'coverAt', 1).value) }),
    },
    // Seq^K (every one of r repeats within K) and pass^K (all K samples) apart: their exponents differ.
    {
      id: 'seqHat',
      header: `Seq^${K}`,
      ...wideOnly,
      value: (cell) => ({
        text: cell.protocol.kind === 'independent' ? '—' : percent(readMetric(cell, 'seqHat', K).value),
      }),
    },
    {
      id: 'passHat',
      header: `pass^${K}`,
      ...wideOnly,
      value: (cell) => ({
        text: cell.protocol.kind === 'independent' ? percent(readMetric(cell, 'passHat', K).value) : '—',
      }),
    },
    // G-Pass@K_τ (independent cells): at least ⌈τK⌉ of K samples pass, between Pass@K and pass^K.
    ...DEFAULT_G_PASS_TAUS.map((tau): CellColumn => ({
      id: `gPass${tau}`,
      header: `G-Pass@${K}_${tau}`,
      ...wideOnly,
      value: (cell) => ({ text: percent(cell.gPass?.find((g) => g.tau === tau)?.atK.point) }),
    })),
    {
      id: 'consistency',
      header: 'C_out',
      ...wideOnly,
      value: (cell) => ({ text: percent(cell.reliability?.outcome.mean.point) }),
    },
  ]
}

/**
 * The line every output prints under a table whose cells had calls that reported no usage: how
 * many, and what that means for the tokens and cost shown. Null when every call reported usage.
 *
 * @example
 * unknownUsageLine(cells) // => 'token usage unknown for 12 of 40 calls (their replies reported none): …'
 */
export function unknownUsageLine(
  cells: readonly Pick<CellSummary, 'usage' | 'usageUnknownCalls' | 'calls'>[],
): string | null {
  const unknown = cells.reduce((n, c) => n + (c.usageUnknownCalls ?? 0), 0)
  if (unknown === 0) return null
  const calls = cells.reduce((n, c) => n + c.calls, 0)
  const all = unknown === calls
  return `token usage unknown for ${unknown} of ${plural(calls, 'call')} (their replies reported none): ${
    all
      ? 'tokens and cost are unknown'
      : 'tokens marked ≥ count only the calls that reported usage, and cost is unknown'
  }, never zero`
}

/**
 * The usage of several cells added: what they reported, and how many calls reported none.
 *
 * @example
 * tokensValue(usageOfCells(cells)).text // => '≥12.4k'
 */
export function usageOfCells(
  cells: readonly Pick<CellSummary, 'usage' | 'usageUnknownCalls'>[],
): Pick<CellSummary, 'usage' | 'usageUnknownCalls'> {
  const { usage } = sumUsage(cells.map((c) => c.usage))
  const unknown = cells.reduce((n, c) => n + (c.usageUnknownCalls ?? 0), 0)
  return { usage, ...(unknown > 0 ? { usageUnknownCalls: unknown } : {}) }
}
