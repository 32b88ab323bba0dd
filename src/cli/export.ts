/**
 * `seqk export <run> --format inspect | junit`: a run in the formats other tools read: one
 * inspect_ai EvalLog JSON per cell (`inspect view <dir>` opens them), or one JUnit XML file for CI
 * dashboards. What maps to what: docs/disclosure-and-exports.md.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { resolveSummaryPath } from '../analysis/load-runs.js'
import { readSummary } from '../artifacts/summary-file.js'
import { TRAJECTORIES_FILE } from '../artifacts/run-dir.js'
import { readTrajectories } from '../artifacts/trajectories-file.js'
import { readTaskRecords, TASKS_FILE } from '../artifacts/tasks-file.js'
import { DISCLOSURE_FILE, readDisclosure } from '../report/disclosure-file.js'
import { inspectLogs } from '../report/inspect-log.js'
import { junitXml } from '../report/junit.js'
import { plural } from '../metrics/format.js'
import { runCountsText, summaryVerdict } from '../protocol/verdict.js'
import type { CommandSpec, FlagValues } from './args.js'
import { UsageError } from './args.js'
import { InputError } from './input-error.js'
import type { CliIo } from './run.js'
import { fit } from './fit.js'
import { CELLS_FILE, readCells } from '../artifacts/cells-file.js'
import { seqKFiles } from '../artifacts/seq-k-folder.js'
import type { RunSummary, Trajectory } from '../core/schemas.js'
import type { TaskRecord } from '../artifacts/tasks-file.js'

export const exportSpec: CommandSpec = {
  name: 'export',
  usage: 'seqk export <run> --format inspect|junit|seq_k [--out <path>]',
  summary:
    "Export a run for other tools: inspect_ai EvalLog JSON files, one per cell (open them with `inspect view`), JUnit XML with one test case per cell, each failed check listed once, and one per file that failed to load (for CI dashboards), or the paper's reference harness's run folders (seq_k).",
  details: [
    'A run is a run directory (.seqk/runs/<id>), its summary.json, or a runs directory (its newest',
    'run). --format inspect writes <out>/<benchmark>_<cell>.json (default <run dir>/inspect/); each',
    'sample is one trajectory (the task as sample id, the repeat as epoch) with its conversation,',
    "a score per attempt and `solved`; the results hold the cell's Seq@k or Pass@k. --format junit",
    "writes one file (default <run dir>/junit.xml). --format seq_k writes the reference harness's",
    '<slice>/<metric>/<actor>/<verifier>/<feedback>/task-<i>/attempt-<j>.json folders (default',
    '<run dir>/seq_k/; `seqk import seq_k` reads them back to the same summary; docs/reference-harness.md).',
    'The mapping, field by field: docs/disclosure-and-exports.md.',
    '',
    'Examples:  npx seqk export .seqk/runs/latest --format inspect && inspect view --log-dir .seqk/runs/latest/inspect',
    '           npx seqk export .seqk/runs/latest --format junit --out reports/seqk-junit.xml',
  ].join('\n'),
  flags: [
    {
      name: 'format',
      kind: 'string',
      value: 'inspect|junit|seq_k',
      description:
        "inspect (inspect_ai EvalLog JSON, one file per cell), junit (one JUnit XML file) or seq_k (the reference harness's run folders)",
    },
    {
      name: 'out',
      kind: 'string',
      value: '<path>',
      description:
        'a directory for inspect (default <run dir>/inspect), a file for junit (default <run dir>/junit.xml)',
    },
  ],
}

/** Runs `seqk export`; returns its exit code. */
export function runExport(paths: readonly string[], flags: FlagValues, io: CliIo): number {
  if (paths.length !== 1)
    throw new UsageError(
      `seqk export: give exactly one run (got ${paths.length}), e.g. seqk export .seqk/runs/latest --format inspect`,
      'export',
    )
  const format = flags.format
  if (format !== 'inspect' && format !== 'junit' && format !== 'seq_k')
    throw new UsageError(
      `seqk export: --format must be inspect, junit or seq_k (got ${format === undefined ? 'none' : `"${String(format)}"`})`,
      'export',
    )
  const cwd = io.cwd ?? process.cwd()
  const runDir = dirname(resolveSummaryPath(resolve(cwd, paths[0]!)))
  const out =
    typeof flags.out === 'string'
      ? resolve(cwd, flags.out)
      : join(runDir, format === 'inspect' ? 'inspect' : format === 'seq_k' ? 'seq_k' : 'junit.xml')
  let summary
  try {
    summary = readSummary(join(runDir, 'summary.json'))
  } catch (error) {
    throw new InputError(`cannot export ${runDir}: ${(error as Error).message}`, { cause: error })
  }
  if (format === 'junit') {
    mkdirSync(dirname(out), { recursive: true })
    writeFileSync(out, junitXml(summary))
    // The run's counts in the words every output uses (cells, failed checks, files that failed to load).
    io.stdout(`${fit(`seqk export: ${runCountsText(summaryVerdict(summary))}, as JUnit XML; wrote ${out}`, io)}\n`)
    return 0
  }
  const path = join(runDir, TRAJECTORIES_FILE)
  let trajectories, tasks, card
  try {
    // The conversations are the point of an inspect log: every answer and feedback text, read in full.
    trajectories = existsSync(path) ? readTrajectories(path).trajectories : []
    tasks = readTaskRecords(join(runDir, TASKS_FILE))
    card = existsSync(join(runDir, DISCLOSURE_FILE)) ? readDisclosure(join(runDir, DISCLOSURE_FILE)) : undefined
  } catch (error) {
    throw new InputError(`cannot export ${runDir}: ${(error as Error).message}`, { cause: error })
  }
  if (format === 'seq_k') return exportSeqK({ runDir, out, summary, trajectories, tasks }, io)
  const logs = inspectLogs({ summary, trajectories, tasks, ...(card ? { card } : {}) })
  mkdirSync(out, { recursive: true })
  for (const { file, log } of logs) writeFileSync(join(out, file), `${JSON.stringify(log)}\n`)
  const samples = logs.reduce((n, l) => n + ((l.log.samples as unknown[] | undefined)?.length ?? 0), 0)
  const note =
    tasks.size === 0 ? ` (the run has no ${TASKS_FILE}: each sample's input says its prompt is not recorded)` : ''
  io.stdout(
    `${fit(`seqk export: ${plural(logs.length, 'inspect_ai log')} (${plural(samples, 'sample')}) into ${out}${note}`, io)}\n`,
  )
  return 0
}

/** `--format seq_k`: every cell (and repeat) as the reference harness's run folder under `out`. */
function exportSeqK(
  input: {
    runDir: string
    out: string
    summary: RunSummary
    trajectories: readonly Trajectory[]
    tasks: ReadonlyMap<string, TaskRecord>
  },
  io: CliIo,
): number {
  const cellsPath = join(input.runDir, CELLS_FILE)
  if (!existsSync(cellsPath))
    throw new InputError(
      `cannot export ${input.runDir} as seq_k: it has no ${CELLS_FILE} (runs written before it existed cannot be)`,
    )
  let starts
  try {
    starts = readCells(cellsPath).cells.map((c) => c.start)
  } catch (error) {
    throw new InputError(`cannot export ${input.runDir}: ${(error as Error).message}`, { cause: error })
  }
  const cells = input.summary.benchmarks.flatMap((b) =>
    b.cells.flatMap((summary) => {
      const start = starts.find((s) => s.benchmark === summary.benchmark && s.cellId === summary.cellId)
      return start ? [{ start, summary }] : []
    }),
  )
  const files = seqKFiles({ cells, trajectories: input.trajectories, tasks: input.tasks })
  for (const file of files) {
    const path = join(input.out, file.path)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, `${JSON.stringify(file.json, null, 2)}\n`)
  }
  const folders = files.filter((f) => f.path.endsWith('/config.json')).length
  const attempts = files.filter((f) => /\/attempt-\d+\.json$/.test(f.path)).length
  io.stdout(
    `${fit(`seqk export: ${plural(cells.length, 'cell')} as ${plural(folders, 'seq_k run folder')} (${plural(attempts, 'attempt')}) into ${input.out}`, io)}\n`,
  )
  return 0
}
