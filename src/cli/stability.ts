/**
 * `seqk stability <benchmark file>`: runs each task's reference solution M times under the
 * python-tests verifier's limits, at the run's concurrency and at twice it, and reports the tasks
 * whose verdict flips, the tasks within 2× of the time limit (with the limit that would make them
 * stable), and the suite's recommended limit. `--json` writes the report (`seqk.stability/1`) that
 * an eval's `stability` option reads, so its cells say when their verifier is unstable.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { z } from 'zod'
import { CodeEvalProFileError, loadCodeEvalPro, type CodeEvalProBenchmark } from '../benchmarks/codeeval-pro.js'
import { loadTasks, TaskFileError } from '../benchmarks/load-tasks.js'
import { plural } from '../metrics/format.js'
import { measureStability, type StabilityItem, type StabilityReport } from '../protocol/stability.js'
import type { TaskInput } from '../protocol/task.js'
import { verifiers } from '../verifiers/index.js'
import type { CommandSpec, FlagValues } from './args.js'
import { UsageError } from './args.js'
import { fit } from './fit.js'
import { InputError } from './input-error.js'
import type { CliIo } from './run.js'

export const stabilitySpec: CommandSpec = {
  name: 'stability',
  usage:
    'seqk stability <humaneval_pro.json, mbpp_pro.json or tasks.jsonl> [--repeats 5] [--concurrency 4] [--timeout-ms 3000] [--json <file>]',
  summary:
    "Check that the verifier gives the same verdict twice: each reference solution run M times at the run's concurrency and at twice it; flips, near-limit tasks and the limit that would make them stable.",
  details: [
    "Each task's reference solution is verified --repeats times at --concurrency and --repeats times at",
    'twice it, by the python-tests verifier with its verdict cache off (its bubblewrap sandbox, memory',
    'limit and --timeout-ms). A task flips when its verdicts are not all the same; it is near the limit',
    'when its slowest run took more than half the limit; its stable limit is twice its slowest run. The',
    'recommended limit is the largest of those (at least the current one), over the answers that finish:',
    'a task whose every run timed out is run once more with --long-timeout-ms (default 10 times the',
    'limit); if it finishes there its time counts, otherwise it is named as never finishing (a loop that',
    "never ends, or an answer far slower than either limit) and left out. A JSON Lines file's records",
    'are python-tests tasks (id, prompt, tests, setup) with the reference answer in `reference`.',
    'Pass the --json file to seqEval({ stability }) so the cells of its tasks say the verifier is unstable.',
    '',
    'Example:  npx seqk stability ../shared/benchmarks/humaneval-pro/humaneval_pro.json --json stability.json',
  ].join('\n'),
  flags: [
    {
      name: 'repeats',
      kind: 'int',
      min: 2,
      value: '<n>',
      description: 'verifications per task at each load (default 5)',
    },
    {
      name: 'concurrency',
      kind: 'int',
      min: 1,
      value: '<n>',
      description: "the run's concurrency (default 4, a cell's default); the second pass runs at twice it",
    },
    {
      name: 'timeout-ms',
      kind: 'int',
      min: 1,
      value: '<ms>',
      description: "the verifier's time limit (default 3000, the official harness's 3 s)",
    },
    {
      name: 'long-timeout-ms',
      kind: 'int',
      min: 1,
      value: '<ms>',
      description: 'the limit of the one extra run of a task whose every run timed out (default 10 × --timeout-ms)',
    },
    {
      name: 'limit',
      kind: 'int',
      min: 1,
      value: '<n>',
      description: 'only the first <n> tasks of the file (default: every task)',
    },
    {
      name: 'benchmark',
      kind: 'string',
      value: 'humaneval-pro|mbpp-pro|tasks',
      description: "the file's format (default: from its name; .jsonl is tasks)",
    },
    {
      name: 'json',
      kind: 'string',
      value: '<file>',
      description: 'also write the report as JSON to <file> (`-` prints only the JSON, to stdout)',
    },
  ],
}

/** A task file's record: a python-tests task with its reference answer. */
const ReferenceSchema = z.string({ message: 'needs a `reference` field: the reference answer (python code)' }).min(1)

function itemsOf(file: string, format: CodeEvalProBenchmark | 'tasks', limit: number | undefined): StabilityItem[] {
  try {
    if (format === 'tasks')
      // The record is the task; its `reference` column, which is no task field, is kept in metadata.
      return loadTasks(file, {
        limit,
        map: ({ reference, ...row }) =>
          (reference === undefined
            ? row
            : {
                ...row,
                metadata: { ...(row.metadata as Record<string, unknown> | undefined), reference },
              }) as TaskInput,
      }).map((task) => {
        const reference = ReferenceSchema.safeParse(task.metadata?.reference)
        if (!reference.success)
          throw new InputError(
            `seqk stability: ${file}: task ${task.id}: ${reference.error.issues[0]!.message}, e.g. "reference": "\`\`\`python\\ndef f(): ...\\n\`\`\`"`,
          )
        return { task, answer: reference.data }
      })
    return loadCodeEvalPro(file, { benchmark: format, limit }).map((e) => ({ task: e.task, answer: e.reference }))
  } catch (error) {
    if (error instanceof CodeEvalProFileError || error instanceof TaskFileError)
      throw new InputError(error.message, { cause: error })
    throw error
  }
}

const ms = (v: number | null) => (v === null ? 'unknown' : `${Math.round(v)} ms`)

/** The report as the terminal prints it: totals, then one line per flipped or near-limit task. */
export function renderStability(report: StabilityReport, file: string): string {
  const flipped = report.tasks.filter((t) => t.flipped)
  const near = report.tasks.filter((t) => t.nearLimit === true && t.longRun === undefined)
  const never = report.tasks.filter((t) => t.neverFinished)
  const slow = report.tasks.filter((t) => t.longRun !== undefined && !t.neverFinished)
  const runs = report.tasks.reduce((n, t) => n + t.runs + t.errors, 0)
  const lines = [
    `seqk stability: ${file}: ${plural(report.tasks.length, 'task')}, ${plural(runs, 'verification')} (${report.repeats} per task at concurrency ${report.concurrency[0]} and ${report.repeats} at ${report.concurrency[1]}), ${report.verifier.name} limit ${ms(report.timeoutMs)}`,
    `verdict flips: ${flipped.length} of ${plural(report.tasks.length, 'task')}${flipped.length > 0 ? ` (the verifier is unstable on ${flipped.map((t) => t.taskId).join(', ')})` : ''}`,
    `never finished: ${never.length}${never.length > 0 ? ` (${never.map((t) => t.taskId).join(', ')}: every run timed out${report.longTimeoutMs === null ? '' : `, also with a limit of ${ms(report.longTimeoutMs)}`}; left out of the recommendation)` : ''}`,
    `near the limit (slowest run over half of it): ${near.length}; recommended limit ${ms(report.recommendedTimeoutMs)}${report.recommendationIsLowerBound ? ' at least (a task timed out in some runs and finished in others, so its real time is unknown)' : ''}${never.length > 0 ? ', from the answers that finish' : ''}`,
  ]
  for (const t of flipped) {
    const loads = t.byLoad.map((l) => `${l.passes}/${l.runs} at ${l.concurrency}`).join(', ')
    const outcomes = Object.entries(t.outcomes)
      .map(([o, n]) => `${n} ${o}`)
      .join(', ')
    lines.push(
      `  flips ${t.taskId}: passed ${loads}${t.errors > 0 ? `, ${t.errors} verifications threw` : ''} (${outcomes}); slowest ${ms(t.maxDurationMs)}`,
    )
  }
  for (const t of slow)
    lines.push(
      `  slow ${t.taskId}: every run timed out at ${ms(report.timeoutMs)}, finished in ${ms(t.longRun!.durationMs)} with ${ms(t.longRun!.timeoutMs)}; stable at ${ms(t.stableTimeoutMs)}`,
    )
  for (const t of near)
    lines.push(
      `  near limit ${t.taskId}: slowest ${ms(t.maxDurationMs)}, median ${ms(t.medianDurationMs)}; stable at ${ms(t.stableTimeoutMs)}${(t.outcomes.timeout ?? 0) > 0 ? ` at least (${plural(t.outcomes.timeout!, 'run')} timed out)` : ''}`,
    )
  const a = report.verdictAgreement
  lines.push(
    `self-agreement of the verdict: ${a.identical === null ? 'unknown' : `${(a.identical * 100).toFixed(1)}% of tasks identical every time`}, Cohen's κ ${a.kappa === null ? 'undefined (one verdict throughout)' : a.kappa.toFixed(3)}`,
  )
  const c = report.criterionAgreement
  if (c)
    lines.push(
      `self-agreement per criterion: ${c.identical === null ? 'unknown' : `${(c.identical * 100).toFixed(1)}% of ${plural(c.items, 'criterion')} identical every time`}, Cohen's κ ${c.kappa === null ? 'undefined' : c.kappa.toFixed(3)}`,
    )
  return lines.join('\n')
}

/** Runs `seqk stability`; resolves to its exit code (0 also when tasks flip: the report is the result). */
export async function runStability(paths: readonly string[], flags: FlagValues, io: CliIo): Promise<number> {
  if (paths.length !== 1)
    throw new UsageError(`seqk stability: give exactly one benchmark file (got ${paths.length})`, 'stability')
  const cwd = io.cwd ?? process.cwd()
  const file = resolve(cwd, paths[0]!)
  const named =
    typeof flags.benchmark === 'string'
      ? flags.benchmark
      : /\.(jsonl|ndjson|csv)$/i.test(file)
        ? 'tasks'
        : /mbpp/i.test(basename(file))
          ? 'mbpp-pro'
          : 'humaneval-pro'
  if (named !== 'humaneval-pro' && named !== 'mbpp-pro' && named !== 'tasks')
    throw new UsageError(
      `seqk stability: --benchmark must be humaneval-pro, mbpp-pro or tasks, got ${named}`,
      'stability',
    )
  const limit = typeof flags.limit === 'number' ? flags.limit : undefined
  const items = itemsOf(file, named, limit)
  const timeoutMs = typeof flags['timeout-ms'] === 'number' ? flags['timeout-ms'] : 3000
  const verifier = verifiers.pythonTests({ cache: false, timeoutMs })
  const longTimeoutMs = typeof flags['long-timeout-ms'] === 'number' ? flags['long-timeout-ms'] : 10 * timeoutMs
  if (longTimeoutMs <= timeoutMs)
    throw new UsageError(
      `seqk stability: --long-timeout-ms must be above --timeout-ms (${timeoutMs}), got ${longTimeoutMs}`,
      'stability',
    )
  const report = await measureStability(items, verifier, {
    longVerifier: verifiers.pythonTests({ cache: false, timeoutMs: longTimeoutMs }),
    repeats: typeof flags.repeats === 'number' ? flags.repeats : 5,
    concurrency: typeof flags.concurrency === 'number' ? flags.concurrency : 4,
  })
  const out = typeof flags.json === 'string' ? flags.json : undefined
  if (out === '-') {
    io.stdout(`${JSON.stringify(report, null, 2)}\n`)
    return 0
  }
  io.stdout(`${fit(renderStability(report, paths[0]!), io)}\n`)
  if (out !== undefined) {
    const target = resolve(cwd, out)
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, `${JSON.stringify(report, null, 2)}\n`)
    io.stdout(`${fit(`seqk stability: wrote ${target}`, io)}\n`)
  }
  return 0
}
