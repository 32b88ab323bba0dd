/**
 * The run's verdict in the terminal, under the tables: one line with the counts every output
 * shows (from the verdict model), then what no table row shows: the files that failed to load,
 * the cells that did not run, and the run's own problems.
 */
import { Chalk } from 'chalk'
import type { RunSummary } from '../core/schemas.js'
import { TEXT_WIDTH, wrapLine } from '../core/text-layout.js'
import { runCountsText, summaryVerdict } from '../protocol/verdict.js'

/**
 * The verdict lines, each within `width` (null: as they are).
 *
 * @example
 * runVerdictLines(summary) // => ['seqk: run FAIL · 14 cells · 2 failed (3 checks) · 1 file failed to load', '  ✗ evals/broken.eval.ts failed to load: SyntaxError: …']
 */
export function runVerdictLines(
  summary: RunSummary,
  options: { color?: boolean; width?: number | null } = {},
): string[] {
  const c = new Chalk({ level: options.color ? 1 : 0 })
  const width = options.width === undefined ? TEXT_WIDTH : options.width
  const wrap = (line: string) => (width === null ? [line] : wrapLine(line, width, 2))
  const v = summaryVerdict(summary)
  const status = v.status === 'fail' ? c.red('FAIL') : v.status === 'pass' ? c.green('pass') : c.dim('no thresholds')
  const out = wrap(
    `seqk: run ${v.status === 'fail' ? 'FAIL' : v.status === 'pass' ? 'pass' : 'no thresholds'} · ${runCountsText(v)}`,
  ).map((l, i) => (i === 0 ? l.replace(/run (FAIL|pass|no thresholds)/, `run ${status}`) : l))
  for (const e of v.loadErrors) out.push(...wrap(`  ✗ ${e.file} failed to load: ${e.error}`).map((l) => c.red(l)))
  for (const n of summary.notRun ?? [])
    out.push(...wrap(`  - ${n.benchmark} › ${n.cellId} did not run: ${n.reason}`).map((l) => c.dim(l)))
  for (const p of v.problems) out.push(...wrap(`  ✗ ${p}`).map((l) => c.red(l)))
  return out
}
