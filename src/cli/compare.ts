/**
 * `seqk compare <run A> <run B>`: two runs of the same evals with different subjects (a main run and
 * a branch run: new instructions, a new model, a new version of the app), every cell of B against
 * its cell in A, paired by task, in the table the variants of one run print. From a script:
 * `compareRuns` in `vitest-seqk/gate`.
 */
import { resolve } from 'node:path'
import { resolveSummaryPath } from '../analysis/load-runs.js'
import { readSummary } from '../artifacts/summary-file.js'
import { compareRuns } from '../protocol/subject-comparison.js'
import { subjectComparisonLines } from '../report/subject-comparisons.js'
import { TABLE_WIDTH } from '../report/table.js'
import { wideFromEnv } from '../core/text-layout.js'
import type { CommandSpec, FlagValues } from './args.js'
import { UsageError } from './args.js'
import { InputError } from './input-error.js'
import type { CliIo } from './run.js'
import { fit } from './fit.js'

export const compareSpec: CommandSpec = {
  name: 'compare',
  usage: 'seqk compare <run A> <run B> [--json]',
  summary:
    'Compare two runs cell by cell: B − A paired by task, with its 95% interval and what changed between the subjects (a main run and a branch run, two models, two prompts).',
  details: [
    'A run is a run directory (.seqk/runs/<id>), its summary.json, or a runs directory (its newest',
    "run). Each cell of B is compared with A's cell of the same id, else with the one of its mode",
    "whose subject's id changed (a new model: one subject per mode); only cells with the same",
    'instrument (tasks, verifier, feedback, history, budget) are compared, over the tasks both',
    "measured with the same content. The numbers are the baseline gate's (a paired Agresti–Min t",
    "interval over tasks) and the same as seqEval's variants give for the same two subjects.",
    'Exit code 0 (a comparison is no gate: gate with vitest-seqk/gate or a baseline).',
    '',
    'Example:  npx seqk compare main-run/ .seqk/runs/latest',
  ].join('\n'),
  flags: [
    {
      name: 'json',
      kind: 'boolean',
      description: "print the rows as JSON (each as summary.json's variantComparisons holds them)",
    },
  ],
}

/** Runs `seqk compare`; returns its exit code. */
export function runCompare(paths: readonly string[], flags: FlagValues, io: CliIo): number {
  if (paths.length !== 2)
    throw new UsageError(
      `seqk compare: give exactly two runs, A then B (got ${paths.length}), e.g. seqk compare main-run .seqk/runs/latest`,
      'compare',
    )
  const cwd = io.cwd ?? process.cwd()
  const [a, b] = paths.map((p) => {
    try {
      return readSummary(resolveSummaryPath(resolve(cwd, p)))
    } catch (error) {
      throw new InputError(`seqk compare: cannot read ${p}: ${(error as Error).message}`, { cause: error })
    }
  }) as [ReturnType<typeof readSummary>, ReturnType<typeof readSummary>]
  const { rows, unmatched } = compareRuns(a, b)
  if (flags.json === true) {
    io.stdout(`${JSON.stringify({ a: a.runId, b: b.runId, rows, unmatched }, null, 2)}\n`)
    return 0
  }
  const width = wideFromEnv(io.env) ? null : TABLE_WIDTH
  const lines = subjectComparisonLines(
    rows,
    width,
    `run ${b.runId} (B) against run ${a.runId} (A), B − A paired over the common tasks (points, 95% CI):`,
  )
  if (lines.length > 0) io.stdout(`${lines.join('\n')}\n`)
  else io.stdout(`${fit(`seqk compare: no cell of run ${b.runId} has a counterpart in run ${a.runId}`, io)}\n`)
  for (const line of unmatched) io.stdout(`${fit(`  - ${line}`, io)}\n`)
  return 0
}
