/**
 * `seqk analyze` and `seqk select`: read runs, print the paper's tables, optionally write the
 * report JSON. Kept apart from the `#!` entry file so tests can run it in-process with fake IO.
 * Exit codes: 0 ok (also for --help), 1 for bad input and for refusals.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { analyzeRuns, selectModels } from '../analysis/analyze.js'
import { AnalysisInputError, TruncationRefusedError } from '../analysis/cell-scores.js'
import { ComparabilityError } from '../analysis/comparability.js'
import { loadRuns, RunLoadError } from '../analysis/load-runs.js'
import { renderAnalysis, renderSelection } from '../analysis/render.js'
import { commandHelp, parseCommand, UsageError, type CommandSpec, type FlagSpec } from './args.js'

export interface CliIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
  /** Whether stdout is a terminal (colour by default). */
  isTTY: boolean
  env: Record<string, string | undefined>
  /** Directory relative paths are resolved against (default process.cwd()). */
  cwd?: string
}

const common: FlagSpec[] = [
  { name: 'json', kind: 'string', value: '<file>', description: 'also write the report as JSON to <file> (`-` prints only the JSON, to stdout)' },
  { name: 'seed', kind: 'int', value: '<n>', description: 'seed of every split, draw, tie-break and bootstrap (default 1)' },
  { name: 'color', kind: 'boolean', description: 'colour the tables (default: on a terminal, unless NO_COLOR is set); --no-color turns it off' },
]

export const analyzeSpec: CommandSpec = {
  name: 'analyze',
  summary: 'Compare actors the way the Seq@K paper does: rankings and gaps under Pass@k and Seq@k (Table 3), revision timing (Table 4), cost–success Pareto frontiers (Figure 3), model selection (Figure 2, Table 2) and Spearman correlations over actor × benchmark pairs (Figure 4).',
  details: [
    'Runs are run directories (.seqk/runs/<id>), summary.json files, or a runs directory / its',
    '`latest` file (the newest run). Several runs are combined when their protocols agree in',
    'everything but the actor; otherwise seqk refuses and names the differing fields.',
    '',
    'Example:  npx seqk analyze .seqk/runs/latest --json analysis.json',
  ].join('\n'),
  flags: [
    { name: 'k', kind: 'int', min: 1, value: '<k>', description: "compare Pass@k with Seq@k at this k (default: each benchmark's budget K)" },
    { name: 'resamples', kind: 'int', min: 1, value: '<n>', description: 'bootstrap resamples for the correlations (default 1000)' },
    { name: 'draws', kind: 'int', min: 1, value: '<n>', description: 'model selection: calibration draws per size (default 200)' },
    { name: 'selection', kind: 'boolean', description: 'include the model-selection experiment (default on; --no-selection leaves it out)' },
    ...common,
  ],
}

export const selectSpec: CommandSpec = {
  name: 'select',
  summary: 'The model-selection experiment: pick an actor on n calibration tasks under Pass@K or under Seq@k, deploy it on the other task group with feedback, and report selection loss, calibration cost, bootstrap intervals and the random-choice baseline, for n = 1..20.',
  details: [
    'Tasks are split into two fixed groups A and B (ids sorted, shuffled with --seed, first half A).',
    'For each n, --draws calibration sets are drawn from one group; the best-scoring actor (ties',
    'broken at random) is scored by Seq@K on the other group; both directions, weighted by group size.',
    'Seq@k for k < K is read from the K-run by truncation, which is refused when the actor was told',
    'its budget.',
    '',
    'Example:  npx seqk select .seqk/runs/latest --k 3 --draws 200 --mode verifier',
  ].join('\n'),
  flags: [
    { name: 'k', kind: 'int', min: 1, value: '<k>', description: 'calibrate with Seq@k (default min(3, K))' },
    { name: 'draws', kind: 'int', min: 1, value: '<n>', description: 'calibration draws per size and direction (default 200)' },
    { name: 'resamples', kind: 'int', min: 0, value: '<n>', description: 'bootstrap resamples over tasks (default 200; 0 for no intervals)' },
    { name: 'max-n', kind: 'int', min: 1, value: '<n>', description: 'largest calibration size (default 20, capped by the smaller group)' },
    { name: 'mode', kind: 'string', value: '<name>', description: 'only this feedback mode (default: every mode)' },
    { name: 'benchmark', kind: 'string', value: '<name>', description: 'only this benchmark (default: every benchmark)' },
    ...common,
  ],
}

const COMMANDS = [analyzeSpec, selectSpec]

function version(): string {
  // src/cli and dist/cli are both two levels below the package root.
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

function mainHelp(): string {
  return [
    'Usage: seqk <command> <run dir or summary.json>... [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(8)}  ${c.summary.split(':')[0]}`),
    '',
    'Run `seqk <command> --help` for its options. Exit code 0 when done, 1 on bad input or a refusal.',
  ].join('\n')
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined)

/**
 * Runs one `seqk` invocation and returns its exit code.
 *
 * @example
 * const code = runCli(['analyze', '.seqk/runs/latest'], { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), isTTY: false, env: process.env })
 */
export function runCli(argv: readonly string[], io: CliIo): number {
  const [command, ...rest] = argv
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    io.stdout(`${mainHelp()}\n`)
    return command === undefined ? 1 : 0
  }
  if (command === '--version' || command === '-v') {
    io.stdout(`${version()}\n`)
    return 0
  }
  const spec = COMMANDS.find((c) => c.name === command)
  try {
    if (spec === undefined) throw new UsageError(`seqk: unknown command "${command}" (commands: ${COMMANDS.map((c) => c.name).join(', ')})`, null)
    const { paths, flags } = parseCommand(spec, rest)
    if (flags.help === true) {
      io.stdout(`${commandHelp(spec)}\n`)
      return 0
    }
    if (paths.length === 0) throw new UsageError(`seqk ${spec.name}: no runs given: pass run directories or summary.json files (e.g. .seqk/runs/latest)`, spec.name)
    const cwd = io.cwd ?? process.cwd()
    const { runs, notes } = loadRuns(paths.map((p) => resolve(cwd, p)))
    const color = flags.color === undefined ? io.isTTY && !io.env.NO_COLOR : flags.color === true
    const seed = num(flags.seed)
    let json: unknown
    let text: string
    if (spec.name === 'analyze') {
      const report = analyzeRuns(runs, {
        k: num(flags.k),
        seed,
        resamples: num(flags.resamples),
        selection: flags.selection === false ? false : { draws: num(flags.draws) },
      })
      report.notes.unshift(...notes)
      json = report
      text = renderAnalysis(report, { color })
    } else {
      const report = selectModels(runs, { k: num(flags.k), seed, draws: num(flags.draws), resamples: num(flags.resamples), maxN: num(flags['max-n']), mode: str(flags.mode), benchmark: str(flags.benchmark) })
      report.notes.unshift(...notes)
      json = report
      text = renderSelection(report, { color })
    }
    const out = str(flags.json)
    if (out === '-') {
      io.stdout(`${JSON.stringify(json, null, 2)}\n`)
      return 0
    }
    io.stdout(`${text}\n`)
    if (out !== undefined) {
      const file = resolve(cwd, out)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`)
      io.stdout(`\nseqk: wrote ${file}\n`)
    }
    return 0
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${error.message}\nRun \`seqk ${error.command ?? ''}${error.command ? ' ' : ''}--help\` for usage.\n`)
      return 1
    }
    if (error instanceof RunLoadError || error instanceof ComparabilityError || error instanceof TruncationRefusedError || error instanceof AnalysisInputError || error instanceof RangeError) {
      io.stderr(`seqk ${command}: ${error.message}\n`)
      return 1
    }
    // Anything else is a bug in seqk: keep the stack, still exit 1 (a failed analysis is not a pass).
    io.stderr(`seqk ${command}: unexpected error: ${(error as Error).stack ?? String(error)}\n`)
    return 1
  }
}
