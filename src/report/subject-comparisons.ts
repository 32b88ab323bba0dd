/**
 * The table of subjects compared paired by task (B − A): the variants of a run (summary.json's
 * `variantComparisons`) and `seqk compare <run A> <run B>` print it alike, in the terminal and in
 * Markdown; the HTML report shows the same rows. One row per pair, what changed under it.
 */
import type { SubjectComparison } from '../core/schemas.js'
import { TEXT_WIDTH, wrapLine } from '../core/text-layout.js'
import { intervalText, percent, signedPercent } from '../metrics/format.js'
import { METRICS } from '../metrics/registry.js'
import { fitRows, TABLE_WIDTH } from './table.js'

/** A row's verdict in words, the same in every output. */
export function comparisonVerdict(row: SubjectComparison): string {
  if (row.verdict === 'worse') return 'B worse'
  if (row.verdict === 'better') return 'B better'
  if (row.verdict === 'no-difference-seen') return 'no difference seen'
  return 'not compared'
}

/** What a row's pair of subjects changed, or why it was not compared, in one sentence. */
export function comparisonDetail(row: SubjectComparison): string {
  if (row.verdict === 'not-comparable')
    return row.instrumentChanges.length > 0
      ? `not comparable, another instrument: ${row.instrumentChanges.join('; ')}`
      : (row.note ?? 'not comparable')
  return row.subjectChanges.length > 0 ? `changed: ${row.subjectChanges.join('; ')}` : 'the same subject'
}

export const comparedRate = (row: SubjectComparison) => METRICS[row.metric].label(row.k)
/** Where a row's two cells are: the benchmark and the mode (each cell's id is its subject and that mode). */
export const comparedCells = (row: SubjectComparison) => `${row.benchmark} › ${row.mode}`

/**
 * The rows as a plain-text table within `width` (null: as wide as it is), each row's change under it.
 *
 * @example
 * subjectComparisonLines(summary.variantComparisons ?? [])
 * // [' subjects compared, B − A paired over common tasks (points, 95% CI):', ' cell  A  B  …', …]
 */
export function subjectComparisonLines(
  rows: readonly SubjectComparison[],
  width: number | null = TABLE_WIDTH,
  title = 'subjects compared, B − A paired over common tasks (points, 95% CI):',
): string[] {
  if (rows.length === 0) return []
  const wrap = (line: string) => (width === null ? [line] : wrapLine(line, width ?? TEXT_WIDTH, 4))
  const columns = [
    { header: 'benchmark › mode', values: rows.map(comparedCells), numeric: false },
    { header: 'A', values: rows.map((r) => r.a.subject), numeric: false },
    { header: 'B', values: rows.map((r) => r.b.subject), numeric: false },
    { header: 'rate', values: rows.map(comparedRate), numeric: false },
    { header: 'A', values: rows.map((r) => percent(r.a.rate)), numeric: true },
    { header: 'B', values: rows.map((r) => percent(r.b.rate)), numeric: true },
    { header: 'B − A', values: rows.map((r) => signedPercent(r.diff?.point)), numeric: true },
    {
      header: '95% CI',
      values: rows.map((r) => (r.diff ? intervalText(r.diff.lo, r.diff.hi, { signed: true }) : '—')),
      numeric: true,
    },
    { header: 'tasks', values: rows.map((r) => String(r.tasks)), numeric: true },
    { header: 'verdict', values: rows.map(comparisonVerdict), numeric: false },
  ]
  return [...wrap(` ${title}`), ...fitRows(columns, width, (i) => wrap(`   ${comparisonDetail(rows[i]!)}`))]
}
