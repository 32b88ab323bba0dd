/**
 * `seqk analyze`, `seqk select` and `seqk power`: read runs (or a planned size), print the
 * paper's tables or the gate's power, optionally write the report JSON. `seqk resume` starts
 * Vitest again into an interrupted run's directory; `seqk view` serves a run live on 127.0.0.1.
 * Kept apart from the `#!` entry file so tests can run it in-process with fake IO.
 * Exit codes: 0 ok (also for --help), 1 for bad input and for refusals.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { analyzeRuns, selectModels } from '../analysis/analyze.js'
import { AnalysisInputError, TruncationRefusedError } from '../analysis/cell-scores.js'
import { ComparabilityError } from '../analysis/comparability.js'
import { loadRuns, RunLoadError } from '../analysis/load-runs.js'
import { renderAnalysis, renderSelection } from '../analysis/render.js'
import { commandHelp, parseCommand, UsageError, type CommandSpec, type FlagSpec, type FlagValues } from './args.js'
import { TEXT_WIDTH, wideFromEnv, wrapText } from '../core/text-layout.js'
import { answerPower, powerSpec, questionsFromCells, renderPower } from './power.js'
import { resumeSpec, runResume } from './resume.js'
import { importSpec, runImport } from './import.js'
import { runSummarize, summarizeSpec, SummarizeError } from './summarize.js'
import { compareSpec, runCompare } from './compare.js'
import { mergeSpec, runMerge } from './merge.js'
import { runView, viewSpec } from './view.js'
import { discloseSpec, runDisclose } from './disclose.js'
import { InputError } from './input-error.js'
import { estimateSpec, runEstimate } from './estimate.js'
import { exportSpec, runExport } from './export.js'
import { runStrengthen, strengthenSpec } from './strengthen.js'
import { runSuites, suitesSpec } from './suites.js'
import { runStability, stabilitySpec } from './stability.js'
import { MergeError } from '../artifacts/merge.js'
import { ResumeRefusedError } from '../protocol/resume.js'
import { gateMetricOf, type GateMetric } from '../protocol/gate.js'

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
  {
    name: 'json',
    kind: 'string',
    value: '<file>',
    description: 'also write the report as JSON to <file> (`-` prints only the JSON, to stdout)',
  },
  {
    name: 'seed',
    kind: 'int',
    value: '<n>',
    description: 'seed of every split, draw, tie-break and bootstrap (default 1)',
  },
  {
    name: 'color',
    kind: 'boolean',
    description: 'colour the tables (default: on a terminal, unless NO_COLOR is set); --no-color turns it off',
  },
]

export const analyzeSpec: CommandSpec = {
  name: 'analyze',
  summary:
    'Compare actors the way the Seq@K paper does: rankings and gaps under Pass@k and Seq@k (Table 3), revision timing (Table 4), cost–success Pareto frontiers (Figure 3), model selection (Figure 2, Table 2) and Spearman correlations over actor × benchmark pairs (Figure 4).',
  details: [
    'Runs are run directories (.seqk/runs/<id>), summary.json files, or a runs directory / its',
    '`latest` file (the newest run). Several runs are combined when their protocols agree in',
    'everything but the actor; otherwise seqk refuses and names the differing fields.',
    '',
    'Example:  npx seqk analyze .seqk/runs/latest --json analysis.json',
  ].join('\n'),
  flags: [
    {
      name: 'k',
      kind: 'int',
      min: 1,
      value: '<k>',
      description: "compare Pass@k with Seq@k at this k (default: each benchmark's budget K)",
    },
    {
      name: 'resamples',
      kind: 'int',
      min: 1,
      value: '<n>',
      description: 'bootstrap resamples for the correlations (default 1000)',
    },
    {
      name: 'draws',
      kind: 'int',
      min: 1,
      value: '<n>',
      description: 'model selection: calibration draws per size (default 200)',
    },
    {
      name: 'selection',
      kind: 'boolean',
      description: 'include the model-selection experiment (default on; --no-selection leaves it out)',
    },
    ...common,
  ],
}

export const selectSpec: CommandSpec = {
  name: 'select',
  summary:
    'The model-selection experiment: pick an actor on n calibration tasks under Pass@K or under Seq@k, deploy it on the other task group with feedback, and report selection loss, calibration cost, bootstrap intervals and the random-choice baseline, for n = 1..20.',
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
    {
      name: 'draws',
      kind: 'int',
      min: 1,
      value: '<n>',
      description: 'calibration draws per size and direction (default 200)',
    },
    {
      name: 'resamples',
      kind: 'int',
      min: 0,
      value: '<n>',
      description: 'bootstrap resamples over tasks (default 200; 0 for no intervals)',
    },
    {
      name: 'max-n',
      kind: 'int',
      min: 1,
      value: '<n>',
      description: 'largest calibration size (default 20, capped by the smaller group)',
    },
    { name: 'mode', kind: 'string', value: '<name>', description: 'only this feedback mode (default: every mode)' },
    {
      name: 'benchmark',
      kind: 'string',
      value: '<name>',
      description: 'only this benchmark (default: every benchmark)',
    },
    ...common,
  ],
}

const COMMANDS = [
  analyzeSpec,
  selectSpec,
  powerSpec,
  resumeSpec,
  summarizeSpec,
  mergeSpec,
  compareSpec,
  viewSpec,
  discloseSpec,
  estimateSpec,
  exportSpec,
  importSpec,
  strengthenSpec,
  suitesSpec,
  stabilitySpec,
]

function version(): string {
  // src/cli and dist/cli are both two levels below the package root.
  try {
    return (
      (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string })
        .version ?? 'unknown'
    )
  } catch {
    return 'unknown'
  }
}

function mainHelp(): string {
  return [
    'Usage: seqk <command> [runs, run directories or summary.json files] [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(10)}  ${c.summary.split(':')[0]}`),
    '',
    'Options:',
    "  -h, --help     this help (`seqk <command> --help`: the command's usage, every flag and an example)",
    '  -v, --version  the version of vitest-seqk',
    '',
    'A run is a run directory (.seqk/runs/<id>), its summary.json, or a runs directory for its newest run.',
    'Exit code 0 when done, 1 on bad input or a refusal; `merge` also 1 when a merged cell fails,',
    "`resume` Vitest's own.",
    '',
    'Examples:  npx seqk analyze .seqk/runs            # compare the actors of the newest run',
    '           npx seqk power --tasks 40 --repeats 3 --rate 0.75',
    '           npx seqk view                          # watch the next run live at http://127.0.0.1:4180/',
  ].join('\n')
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/** Text as the terminal gets it: every line within 120 columns (wrapped by words, never cutting a path), unless SEQK_WIDE. */
function fit(text: string, io: CliIo): string {
  return wrapText(text, wideFromEnv(io.env) ? null : TEXT_WIDTH)
}
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined)

/**
 * Runs one `seqk` invocation and returns its exit code.
 *
 * @example
 * const code = runCli(['analyze', '.seqk/runs/latest'], { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), isTTY: false, env: process.env })
 */
export function runCli(argv: readonly string[], io: CliIo): number | Promise<number> {
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
    if (spec === undefined)
      throw new UsageError(
        `seqk: unknown command "${command}" (commands: ${COMMANDS.map((c) => c.name).join(', ')})`,
        null,
      )
    // `seqk resume <dir> -- <vitest args>` (and estimate): what follows `--` is Vitest's, not ours.
    const dash = spec.name === 'resume' || spec.name === 'estimate' ? rest.indexOf('--') : -1
    const { paths, flags } = parseCommand(spec, dash >= 0 ? rest.slice(0, dash) : rest)
    if (flags.help === true) {
      io.stdout(`${commandHelp(spec, wideFromEnv(io.env) ? Number.POSITIVE_INFINITY : TEXT_WIDTH)}\n`)
      return 0
    }
    const cwd = io.cwd ?? process.cwd()
    if (spec.name === 'power')
      return runPower(
        paths.map((p) => resolve(cwd, p)),
        flags,
        io,
      )
    if (spec.name === 'summarize') return runSummarize(paths, flags, io)
    if (spec.name === 'compare') return runCompare(paths, flags, io)
    if (spec.name === 'disclose') return runDisclose(paths, flags, io)
    if (spec.name === 'export') return runExport(paths, flags, io)
    if (spec.name === 'import') return runImport(paths, flags, io).catch((error: unknown) => failed(command, error, io))
    if (spec.name === 'strengthen')
      return runStrengthen(paths, flags, io).catch((error: unknown) => failed(command, error, io))
    if (spec.name === 'suites') return runSuites(paths, flags, io)
    if (spec.name === 'stability')
      return runStability(paths, flags, io).catch((error: unknown) => failed(command, error, io))
    if (spec.name === 'estimate')
      return runEstimate(paths, flags, dash >= 0 ? rest.slice(dash + 1) : [], io).catch((error: unknown) =>
        failed(command, error, io),
      )
    if (spec.name === 'merge') return runMerge(paths, flags, io).catch((error: unknown) => failed(command, error, io))
    if (spec.name === 'view') return runView(paths, flags, io).catch((error: unknown) => failed(command, error, io))
    if (spec.name === 'resume') return runResume(paths, dash >= 0 ? rest.slice(dash + 1) : undefined, io, flags)
    if (paths.length === 0)
      throw new UsageError(
        `seqk ${spec.name}: no runs given: pass run directories or summary.json files (e.g. .seqk/runs/latest)`,
        spec.name,
      )
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
      const report = selectModels(runs, {
        k: num(flags.k),
        seed,
        draws: num(flags.draws),
        resamples: num(flags.resamples),
        maxN: num(flags['max-n']),
        mode: str(flags.mode),
        benchmark: str(flags.benchmark),
      })
      report.notes.unshift(...notes)
      json = report
      text = renderSelection(report, { color })
    }
    const out = str(flags.json)
    if (out === '-') {
      io.stdout(`${JSON.stringify(json, null, 2)}\n`)
      return 0
    }
    io.stdout(`${fit(text, io)}\n`)
    if (out !== undefined) {
      const file = resolve(cwd, out)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`)
      io.stdout(`\n${fit(`seqk: wrote ${file}`, io)}\n`)
    }
    return 0
  } catch (error) {
    return failed(command, error, io)
  }
}

/** The exit code and message of a failed command: 1, and the stack only for what is a bug in seqk. */
function failed(command: string, error: unknown, io: CliIo): number {
  if (error instanceof UsageError) {
    io.stderr(
      `${fit(error.message, io)}\nRun \`seqk ${error.command ?? ''}${error.command ? ' ' : ''}--help\` for usage.\n`,
    )
    return 1
  }
  if (
    error instanceof RunLoadError ||
    error instanceof ComparabilityError ||
    error instanceof TruncationRefusedError ||
    error instanceof AnalysisInputError ||
    error instanceof ResumeRefusedError ||
    error instanceof SummarizeError ||
    error instanceof MergeError ||
    error instanceof InputError ||
    error instanceof RangeError
  ) {
    io.stderr(`${fit(`seqk ${command}: ${(error as Error).message}`, io)}\n`)
    return 1
  }
  // Anything else is a bug in seqk: keep the stack, still exit 1 (a failed analysis is not a pass).
  io.stderr(`seqk ${command}: unexpected error: ${(error as Error).stack ?? String(error)}\n`)
  return 1
}

/** `seqk power`: a planned size from the flags, or every gateable cell of the given runs. */
/** `--metric` for this protocol, or a UsageError naming the flag, the value and what it takes. */
function powerMetric(metric: string | undefined, kind: 'sequential' | 'independent') {
  let found
  try {
    found = gateMetricOf(metric, kind, 'seqk power: --metric')
  } catch (error) {
    throw new UsageError((error as Error).message, 'power')
  }
  if (found && !found.protocols.includes(kind))
    throw new UsageError(
      `seqk power: --metric ${metric} is not measured by ${kind} cells; ${kind === 'sequential' ? 'add --independent' : 'drop --independent'}, or use --metric reliability`,
      'power',
    )
  return found
}

function runPower(paths: readonly string[], flags: FlagValues, io: CliIo): number {
  const ks = (str(flags.ks) ?? '')
    .split(',')
    .filter((x) => x.trim() !== '')
    .map((x) => {
      const k = Number(x)
      if (!Number.isInteger(k) || k < 1)
        throw new UsageError(
          `seqk power: --ks must be attempt counts >= 1, comma-separated (got "${str(flags.ks)}")`,
          'power',
        )
      return k
    })
  const rule = { margin: num(flags.margin) ?? 0, maxDrop: num(flags['max-drop']) ?? 0.1, level: 0.95, ks }
  const options = { seed: num(flags.seed), simulations: num(flags.simulations) ?? 500 }
  const target = num(flags.target) ?? 0.1
  const planned = flags.tasks !== undefined || flags.rate !== undefined
  if (planned && paths.length > 0)
    throw new UsageError(
      'seqk power: give either a planned size (--tasks, --repeats, --rate) or run directories, not both',
      'power',
    )
  let questions
  if (planned) {
    const tasks = num(flags.tasks)
    const rate = num(flags.rate)
    if (tasks === undefined || rate === undefined)
      throw new UsageError(
        'seqk power: a planned size needs --tasks and --rate (and optionally --repeats), e.g. --tasks 40 --repeats 3 --rate 0.75',
        'power',
      )
    const K = num(flags.budget) ?? 5
    const independent = flags.independent === true
    const kind = independent ? 'independent' : 'sequential'
    const metric = powerMetric(str(flags.metric), kind)
    const gated = metric?.index === 'tau' ? [1] : [...new Set([K, ...ks])].filter((k) => k <= K).sort((x, y) => x - y)
    questions = [
      {
        subject: 'planned',
        question: {
          tasks,
          repeats: num(flags.repeats) ?? 1,
          rate,
          concentration: num(flags.concentration) ?? 1,
          rule: { ...rule, K, ks: gated, independent, ...(metric ? { metric: metric.id } : {}) },
          ...options,
        },
      },
    ]
  } else {
    if (paths.length === 0)
      throw new UsageError(
        'seqk power: pass a planned size (--tasks 40 --repeats 3 --rate 0.75) or run directories (e.g. .seqk/runs/latest)',
        'power',
      )
    const { runs } = loadRuns(paths)
    const cells = runs.flatMap((r) => r.summary.benchmarks.flatMap((b) => b.cells))
    const metric = str(flags.metric)
    powerMetric(metric, 'sequential')
    questions = questionsFromCells(cells, rule, options, metric as GateMetric | undefined)
    if (questions.length === 0)
      throw new UsageError(
        `seqk power: no cell of these runs measures --metric ${metric}; use reliability (each cell's own Seq^K or pass^K) or a metric their protocols measure`,
        'power',
      )
    const concentration = num(flags.concentration)
    if (concentration !== undefined)
      for (const q of questions) q.question = { ...q.question, concentration, spread: undefined }
  }
  const rows = questions.map((q) => answerPower(q.subject, q.question, target))
  const out = str(flags.json)
  if (out === '-') io.stdout(`${JSON.stringify(rows, null, 2)}\n`)
  else io.stdout(`${fit(renderPower(rows), io)}\n`)
  return 0
}
