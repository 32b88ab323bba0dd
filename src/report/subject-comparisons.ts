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

/** The table's columns, the same in the terminal, Markdown and the report (Markdown and the report add "what changed"). */
export const COMPARISON_HEADERS = [
  'benchmark › mode',
  'A',
  'B',
  'rate',
  'A',
  'B',
  'B − A',
  '95% CI',
  'tasks',
  'verdict',
]
/** Which of {@link COMPARISON_HEADERS} are right-aligned numbers. */
export const COMPARISON_NUMERIC: ReadonlySet<number> = new Set([4, 5, 6, 7, 8])

/**
 * One row's values under {@link COMPARISON_HEADERS}: where (benchmark › mode), the two subjects, the
 * rate compared, both rates, B − A and its interval in points, the tasks compared, the verdict.
 *
 * @example
 * comparisonValues(row) // => ['invoices › verifier', 'reviser', 'stubborn', 'Seq@4', '98.3', '70.0', '−28.3', '−37.8–−15.3', '30', 'B worse']
 */
export function comparisonValues(row: SubjectComparison): string[] {
  return [
    `${row.benchmark} › ${row.mode}`,
    row.a.subject,
    row.b.subject,
    METRICS[row.metric].label(row.k),
    percent(row.a.rate),
    percent(row.b.rate),
    signedPercent(row.diff?.point),
    row.diff ? intervalText(row.diff.lo, row.diff.hi, { signed: true }) : '—',
    String(row.tasks),
    comparisonVerdict(row),
  ]
}

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
  const values = rows.map(comparisonValues)
  const columns = COMPARISON_HEADERS.map((header, i) => ({
    header,
    values: values.map((v) => v[i]!),
    numeric: COMPARISON_NUMERIC.has(i),
  }))
  return [...wrap(` ${title}`), ...fitRows(columns, width, (i) => wrap(`   ${comparisonDetail(rows[i]!)}`))]
}
