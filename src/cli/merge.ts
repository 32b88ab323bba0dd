/**
 * `seqk merge <shard run dirs…> --out <dir>`: joins the run directories of a task-sharded run
 * (`SEQK_SHARD=i/N` on N machines) into one run directory, every cell recomputed from the union
 * of its trajectories: summary.json, the tables, the baseline verdicts, pr-comment.md and the report.
 */
import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { appendCellRecord, CELLS_FILE, readCells } from '../artifacts/cells-file.js'
import { mergeShards, MergeError, type ShardRun } from '../artifacts/merge.js'
import { recomputeRun } from '../artifacts/recompute.js'
import { SUMMARY_FILE, TRAJECTORIES_FILE } from '../artifacts/run-dir.js'
import { readTrajectories, summaryView } from '../artifacts/trajectories-file.js'
import { forEachJsonLine } from '../artifacts/jsonl.js'
import { TrajectorySchema } from '../core/schemas.js'
import { DEFAULT_HISTORY_FILE } from '../report/history.js'
import { plural } from '../metrics/format.js'
import { emitRun, runEmitters, runHistory } from '../report/emitters.js'
import { planLoadErrors, PLAN_FILE } from '../artifacts/plan-file.js'
import { runCountsText, runVerdict, verdictBlock } from '../protocol/verdict.js'
import { wrapText } from '../core/text-layout.js'
import type { CommandSpec, FlagValues } from './args.js'
import { UsageError } from './args.js'
import type { CliIo } from './run.js'
import { baselineGate } from './summarize.js'

export const mergeSpec: CommandSpec = {
  name: 'merge',
  usage: 'seqk merge <shard run dir>... --out <dir> [options]',
  summary:
    "Merge the run directories of a task-sharded run (SEQK_SHARD=i/N on N machines) into one: every cell recomputed from the union of its shards' trajectories, with its thresholds, baseline verdict, tables, pr-comment.md and report.",
  details: [
    'Every shard 1..N of every cell must be given, once, under one protocol; seqk refuses and',
    'names what is missing or different otherwise. Baselines are read, never written. Exit code 1',
    'when a merged cell fails its thresholds or its baseline gate.',
    '',
    'Each shard is the run directory one machine wrote with SEQK_SHARD=i/N npx vitest run …;',
    'copy them to one machine (CI artifacts) and merge in the project root, where the baselines',
    "and the history file are read. The merged directory gets the unsharded run's summary.json,",
    'tables, pr-comment.md (and the GitHub step summary and annotations), report.html and history line.',
    '',
    'Example:  npx seqk merge shard-1 shard-2 shard-3 shard-4 --out .seqk/runs/merged',
  ].join('\n'),
  flags: [
    {
      name: 'out',
      kind: 'string',
      value: '<dir>',
      description: 'the merged run directory to write (required; must not hold a run yet)',
    },
    {
      name: 'report',
      kind: 'boolean',
      description:
        'write report.html (default on; --no-report skips it, which holds every answer of the run in memory at once)',
    },
    {
      name: 'history',
      kind: 'boolean',
      description:
        'compare with and append to the history file (SEQK_HISTORY_FILE, else .seqk/history.jsonl), as the reporter does; --no-history keeps none',
    },
  ],
}

/** Runs `seqk merge`; resolves to its exit code. */
export async function runMerge(paths: readonly string[], flags: FlagValues, io: CliIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd()
  if (paths.length === 0)
    throw new UsageError(
      "seqk merge: give the shards' run directories, e.g. seqk merge shard-1 shard-2 --out merged",
      'merge',
    )
  if (typeof flags.out !== 'string')
    throw new UsageError('seqk merge: --out <dir> is required: the merged run directory to write', 'merge')
  const out = resolve(cwd, flags.out)
  for (const file of [TRAJECTORIES_FILE, CELLS_FILE, SUMMARY_FILE]) {
    if (existsSync(join(out, file)))
      throw new MergeError(`${out} already holds a run (${file}); merge into a new directory`)
  }
  const runs: ShardRun[] = paths.map((p) => {
    const dir = resolve(cwd, p)
    if (!existsSync(join(dir, CELLS_FILE)))
      throw new MergeError(`${dir}: no ${CELLS_FILE}; give run directories written by seqEval (.seqk/runs/<run id>)`)
    try {
      // Only what the summary needs is held; the texts are streamed to the merged file below. A
      // shard none of whose tasks fell to it may have no trajectories at all.
      const file = join(dir, TRAJECTORIES_FILE)
      return {
        dir,
        cells: readCells(join(dir, CELLS_FILE)).cells,
        trajectories: existsSync(file) ? readTrajectories(file, { view: summaryView }).trajectories : [],
      }
    } catch (error) {
      throw new MergeError((error as Error).message)
    }
  })
  const runId = basename(out)
  const merged = mergeShards(runs, runId)
  // Baselines and the history are this checkout's: the shards may have run on other machines.
  const root = cwd
  const recomputed = recomputeRun({ runId, createdAt: new Date().toISOString(), ...merged, gate: baselineGate(root) })
  // A file that failed to load on any machine is a failed entry of the merged run.
  const loadErrors = [
    ...new Map(runs.flatMap((r) => planLoadErrors(join(r.dir, PLAN_FILE))).map((e) => [e.file, e])).values(),
  ]
  const withErrors = { ...recomputed, ...(loadErrors.length > 0 ? { loadErrors } : {}) }
  const verdict = runVerdict(withErrors)
  const summary = { ...withErrors, verdict: verdictBlock(verdict) }
  // Written beside, then moved into place: a merge that fails half-way leaves no half a run at `out`.
  const partial = `${out}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  mkdirSync(partial, { recursive: true })
  appendFileSync(join(partial, TRAJECTORIES_FILE), '')
  for (const run of runs) copyTrajectories(run, join(partial, TRAJECTORIES_FILE), runId)
  for (const { start, end } of merged.cells) {
    appendCellRecord(join(partial, CELLS_FILE), start)
    if (end) appendCellRecord(join(partial, CELLS_FILE), end)
  }
  // As the reporter does for an unsharded run: the change since the last run, then this one appended.
  const historyPath = flags.history === false ? null : resolve(root, io.env.SEQK_HISTORY_FILE ?? DEFAULT_HISTORY_FILE)
  const history = historyPath ? runHistory(historyPath, historyPath, summary) : undefined
  const { written, failures } = await emitRun(runEmitters({ html: flags.report !== false, disclosure: 'seqk merge' }), {
    summary,
    runDir: partial,
    root,
    // The report's trajectory viewer shows every answer: it reads them back in full.
    trajectories: () => readTrajectories(join(partial, TRAJECTORIES_FILE)).trajectories,
    ...(history ? { history } : {}),
    color: Boolean(io.isTTY && !io.env.NO_COLOR),
    print: (text) => io.stdout(`${wrapText(text)}\n`),
    env: io.env,
  })
  written.splice(written[0] === SUMMARY_FILE ? 1 : 0, 0, TRAJECTORIES_FILE, CELLS_FILE)
  rmSync(out, { recursive: true, force: true })
  renameSync(partial, out)
  const broken = failures.length > 0 ? `; could not write the ${failures.map((f) => f.name).join(', ')}` : ''
  const line = `seqk merge: ${runs.length} shard ${runs.length === 1 ? 'directory' : 'directories'}, ${plural(merged.trajectories.length, 'trajectory', 'trajectories')} · ${runCountsText(verdict)}${broken}; wrote ${written.join(', ')} to ${out}`
  io.stdout(`${wrapText(line)}\n`)
  for (const reason of verdict.reasons) io.stdout(`${wrapText(`  ✗ ${reason}`)}\n`)
  return verdict.status === 'fail' || failures.length > 0 ? 1 : 0
}

/**
 * Appends a shard's trajectories of the merged cells to the merged file, renamed into `runId`,
 * streamed line by line in file order (a rerun's line still follows the errored one it supersedes).
 */
function copyTrajectories(run: ShardRun, file: string, runId: string): void {
  const cells = new Set(
    run.cells.map(
      ({ start }) => `${start.runId}\u0000${start.benchmark}\u0000${start.cellId}\u0000${start.fingerprint}`,
    ),
  )
  let chunk = ''
  forEachJsonLine(join(run.dir, TRAJECTORIES_FILE), TrajectorySchema, 'trajectory', (t) => {
    if (!cells.has(`${t.runId}\u0000${t.benchmark}\u0000${t.cellId}\u0000${t.fingerprint}`)) return
    chunk += `${JSON.stringify({ ...t, runId })}\n`
    if (chunk.length > 1 << 20) {
      appendFileSync(file, chunk)
      chunk = ''
    }
  })
  if (chunk) appendFileSync(file, chunk)
}
