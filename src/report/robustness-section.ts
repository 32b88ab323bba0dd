/**
 * The robustness table (summary.json's `robustness`): each rewording of the prompt (`perturb`) and
 * each agent with injected tool faults against its original, as the terminal, Markdown (the PR
 * comment and step summary) and the HTML report print it, from the same values.
 */
import type { RobustnessRow } from '../core/schemas.js'
import { TEXT_WIDTH, wrapLine } from '../core/text-layout.js'
import { percent, ratio } from '../metrics/format.js'
import { METRICS } from '../metrics/registry.js'
import { fitRows, TABLE_WIDTH } from './table.js'

/** The table's columns, the same in every output (Markdown and the report add the flipped tasks). */
export const ROBUSTNESS_HEADERS = [
  'benchmark › mode',
  'subject',
  'condition',
  'rate',
  'orig',
  'pert',
  'ratio',
  '95% CI',
  'tasks',
  'lost',
  'gained',
]
/** Which of {@link ROBUSTNESS_HEADERS} are right-aligned numbers. */
export const ROBUSTNESS_NUMERIC: ReadonlySet<number> = new Set([4, 5, 6, 7, 8, 9, 10])

/** The ratio's interval as text: `0.46–0.84`, `0.46–∞` when unbounded, `—` when undefined. */
export function ratioIntervalText(row: RobustnessRow): string {
  if (!row.ratio) return '—'
  return `${ratio(row.ratio.lo)}\u2013${row.ratio.bounded && row.ratio.hi !== null ? ratio(row.ratio.hi) : '∞'}`
}

/**
 * One row's values under {@link ROBUSTNESS_HEADERS}.
 *
 * @example
 * robustnessValues(row) // => ['bench › verifier', 'simulated:literal', 'distractor/1', 'Seq@3', '85.0', '51.7', '0.61', '0.46–0.84', '30', '8', '0']
 */
export function robustnessValues(row: RobustnessRow): string[] {
  return [
    `${row.benchmark} › ${row.mode}`,
    row.subject,
    row.condition,
    METRICS[row.metric].label(row.k),
    percent(row.original),
    percent(row.perturbed),
    ratio(row.ratio?.point),
    ratioIntervalText(row),
    String(row.tasks),
    String(row.lost.length),
    String(row.gained.length),
  ]
}

/** The tasks a row flipped, or why it has no ratio, in one line. */
export function robustnessDetail(row: RobustnessRow): string {
  if (row.note) return row.note
  const list = (ids: readonly string[]) =>
    ids.length > 6 ? `${ids.slice(0, 6).join(', ')}, … (${ids.length})` : ids.join(', ')
  const parts = [
    ...(row.lost.length > 0 ? [`lost: ${list(row.lost)}`] : []),
    ...(row.gained.length > 0 ? [`gained: ${list(row.gained)}`] : []),
  ]
  return parts.length > 0 ? parts.join('; ') : 'no task flipped'
}

/** What the table says, the same words everywhere. */
export const ROBUSTNESS_TITLE =
  'robustness: perturbed over original, paired over the same tasks (rates in %, ratio with 95% CI; a task passes at rate ≥ 50%):'

/**
 * The rows as a plain-text table within `width` (null: as wide as it is), each row's flipped tasks under it.
 *
 * @example
 * robustnessLines(summary.robustness ?? [])
 */
export function robustnessLines(rows: readonly RobustnessRow[], width: number | null = TABLE_WIDTH): string[] {
  if (rows.length === 0) return []
  const wrap = (line: string) => (width === null ? [line] : wrapLine(line, width ?? TEXT_WIDTH, 4))
  const values = rows.map(robustnessValues)
  const columns = ROBUSTNESS_HEADERS.map((header, i) => ({
    header,
    values: values.map((v) => v[i]!),
    numeric: ROBUSTNESS_NUMERIC.has(i),
  }))
  return [...wrap(` ${ROBUSTNESS_TITLE}`), ...fitRows(columns, width, (i) => wrap(`   ${robustnessDetail(rows[i]!)}`))]
}

/**
 * The rows as a Markdown table, the flipped tasks in a last column; `escape` makes text safe for Markdown.
 *
 * @example
 * robustnessMarkdown(summary.robustness ?? [], markdownText).join('\n')
 */
export function robustnessMarkdown(rows: readonly RobustnessRow[], escape: (text: string) => string): string[] {
  if (rows.length === 0) return []
  const headers = [...ROBUSTNESS_HEADERS, 'flipped']
  return [
    `| ${headers.join(' | ')} |`,
    `|${headers.map((_, i) => (ROBUSTNESS_NUMERIC.has(i) ? ' --: ' : ' --- ')).join('|')}|`,
    ...rows.map((r) => `| ${[...robustnessValues(r), robustnessDetail(r)].map(escape).join(' | ')} |`),
  ]
}
