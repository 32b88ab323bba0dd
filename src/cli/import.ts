/**
 * `seqk import seq_k <folder>`: the paper's reference harness's run folders into a run directory
 * (trajectories.jsonl, cells.jsonl, tasks.jsonl, summary.json and the report), so a researcher's
 * existing runs open in the report, `seqk analyze` and the gate. Folders `seqk export --format
 * seq_k` wrote come back to the same summary.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, appendFileSync } from 'node:fs'
import { basename, join, relative, resolve, sep } from 'node:path'
import { appendCellRecord, CELLS_FILE } from '../artifacts/cells-file.js'
import { recomputeRun } from '../artifacts/recompute.js'
import { DEFAULT_RUNS_DIR, newRunId, SUMMARY_FILE, TRAJECTORIES_FILE } from '../artifacts/run-dir.js'
import { appendTaskRecords, TASKS_FILE } from '../artifacts/tasks-file.js'
import { appendTrajectory, readTrajectories } from '../artifacts/trajectories-file.js'
import { importSeqKFolders, parseSeqKAttempt, SeqKFolderError, type SeqKRunFolder } from '../artifacts/seq-k-folder.js'
import { emitRun, runEmitters } from '../report/emitters.js'
import { runCountsText, runVerdict, verdictBlock } from '../protocol/verdict.js'
import { plural } from '../metrics/format.js'
import { wrapText } from '../core/text-layout.js'
import type { CommandSpec, FlagValues } from './args.js'
import { UsageError } from './args.js'
import type { CliIo } from './run.js'

export const importSpec: CommandSpec = {
  name: 'import',
  usage: 'seqk import seq_k <folder> [--out <run dir>]',
  summary:
    "Import the paper's reference harness's run folders (seq_k) into a run directory: its summary, report, seqk analyze and the gate then work on them.",
  details: [
    '<folder> holds <slice>/<metric>/<actor>/<verifier>/<feedback>/task-<i>/attempt-<j>.json (the',
    "reference harness's runs/ folder, or what `seqk export --format seq_k` wrote). Each folder is a",
    'cell (`<slice>.repeat<r>` folders are its repeats). A judge score is clamped to [0, 1]; a task',
    'short of K attempts and unsolved enters as unfinished (censored, an errored trajectory). What',
    'maps to what: docs/reference-harness.md. Writes .seqk/runs/<new id> unless --out says where.',
    '',
    'Example:  npx seqk import seq_k ~/seq_k/runs --out .seqk/runs/paper && npx seqk analyze .seqk/runs/paper',
  ].join('\n'),
  flags: [
    {
      name: 'out',
      kind: 'string',
      value: '<run dir>',
      description: 'the run directory to write (default .seqk/runs/<new id>)',
    },
  ],
}

/** Every run folder under `root`: a directory holding `task-<i>/attempt-<j>.json`. */
function findRunFolders(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    const entries = readdirSync(dir, { withFileTypes: true })
    if (entries.some((e) => e.isDirectory() && /^task-\d+$/.test(e.name))) out.push(dir)
    for (const e of entries) if (e.isDirectory() && !/^task-\d+$/.test(e.name)) walk(join(dir, e.name))
  }
  walk(root)
  return out.sort()
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown
  } catch (error) {
    throw new SeqKFolderError(`${path} is not JSON: ${(error as Error).message}`)
  }
}

/** One run folder from disk. */
function readRunFolder(root: string, dir: string): SeqKRunFolder {
  const path = relative(root, dir).split(sep).join('/')
  if (path.split('/').length !== 5)
    throw new SeqKFolderError(
      `${dir}: a run folder sits at <slice>/<metric>/<actor>/<verifier>/<feedback> under the folder imported (here ${JSON.stringify(path)}); import the runs/ folder above it`,
    )
  const config = existsSync(join(dir, 'config.json'))
    ? (readJson(join(dir, 'config.json')) as Record<string, unknown>)
    : null
  const tasks: SeqKRunFolder['tasks'] = new Map()
  for (const name of readdirSync(dir)) {
    const m = /^task-(\d+)$/.exec(name)
    if (!m) continue
    const taskDir = join(dir, name)
    const attempts = readdirSync(taskDir)
      .filter((f) => /^attempt-\d+\.json$/.test(f))
      .map((f) => parseSeqKAttempt(readJson(join(taskDir, f)), join(taskDir, f)))
    const optional = (f: string) =>
      existsSync(join(taskDir, f)) ? (readJson(join(taskDir, f)) as Record<string, unknown>) : null
    tasks.set(Number(m[1]), { attempts, summary: optional('summary.json'), meta: optional('task_meta.json') })
  }
  return { path, config, tasks }
}

/** Runs `seqk import`; returns its exit code. */
export async function runImport(paths: readonly string[], flags: FlagValues, io: CliIo): Promise<number> {
  const [format, folder, ...rest] = paths
  if (format !== 'seq_k' || folder === undefined || rest.length > 0)
    throw new UsageError('seqk import: give the format and one folder: seqk import seq_k <folder>', 'import')
  const cwd = io.cwd ?? process.cwd()
  const root = resolve(cwd, folder)
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new UsageError(`seqk import: ${root} is not a directory`, 'import')
  const folders = findRunFolders(root).map((dir) => readRunFolder(root, dir))
  if (folders.length === 0)
    throw new SeqKFolderError(`nothing to import in ${root}: no <…>/task-<i>/attempt-<j>.json below it`)
  const out = typeof flags.out === 'string' ? resolve(cwd, flags.out) : join(cwd, DEFAULT_RUNS_DIR, newRunId())
  if (existsSync(join(out, TRAJECTORIES_FILE)))
    throw new UsageError(`seqk import: ${out} already holds a run; give another --out`, 'import')
  const runId = basename(out)
  const imported = importSeqKFolders(folders, runId, `seq_k:${basename(root)}`)
  // Written beside, then moved into place: an import that fails half-way leaves no half a run.
  const partial = `${out}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  mkdirSync(partial, { recursive: true })
  appendFileSync(join(partial, TRAJECTORIES_FILE), '')
  for (const t of imported.trajectories) appendTrajectory(join(partial, TRAJECTORIES_FILE), t)
  for (const { start, end } of imported.cells) {
    appendCellRecord(join(partial, CELLS_FILE), start)
    appendCellRecord(join(partial, CELLS_FILE), end)
  }
  appendTaskRecords(join(partial, TASKS_FILE), imported.tasks)
  const recomputed = recomputeRun({
    runId,
    createdAt: new Date().toISOString(),
    cells: imported.cells,
    trajectories: imported.trajectories,
  })
  const verdict = runVerdict(recomputed)
  const summary = { ...recomputed, verdict: verdictBlock(verdict) }
  const { written, failures } = await emitRun(runEmitters({ html: true, disclosure: 'seqk merge' }), {
    summary,
    runDir: partial,
    root: cwd,
    trajectories: () => readTrajectories(join(partial, TRAJECTORIES_FILE)).trajectories,
    color: Boolean(io.isTTY && !io.env.NO_COLOR),
    print: (text) => io.stdout(`${wrapText(text)}\n`),
    env: io.env,
  })
  written.splice(written[0] === SUMMARY_FILE ? 1 : 0, 0, TRAJECTORIES_FILE, CELLS_FILE, TASKS_FILE)
  rmSync(out, { recursive: true, force: true })
  mkdirSync(join(out, '..'), { recursive: true })
  renameSync(partial, out)
  const broken = failures.length > 0 ? `; could not write the ${failures.map((f) => f.name).join(', ')}` : ''
  io.stdout(
    `${wrapText(`seqk import: ${plural(folders.length, 'run folder')} as ${plural(imported.cells.length, 'cell')}, ${plural(imported.trajectories.length, 'trajectory', 'trajectories')} · ${runCountsText(verdict)}${broken}; wrote ${written.join(', ')} to ${out}`)}\n`,
  )
  return failures.length > 0 ? 1 : 0
}
