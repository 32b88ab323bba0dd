/**
 * `seqk strengthen <HumanEval Pro or MBPP Pro file> --out <file>`: a copy of the benchmark file
 * whose every task's `test_code` has extra statements made by type-aware mutation of its inputs,
 * the expected values taken from the task's reference solution run by the python-tests verifier.
 */
import { writeFileSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { loadCodeEvalPro, type CodeEvalProBenchmark } from '../benchmarks/codeeval-pro.js'
import {
  DEFAULT_CANDIDATES_PER_INPUT,
  DEFAULT_MAX_STEPS,
  DEFAULT_SEARCH_ROUNDS,
  DROP_REASONS,
  strengthenTests,
} from '../benchmarks/strengthen.js'
import { plural } from '../metrics/format.js'
import { mapConcurrent } from '../protocol/concurrency.js'
import { verifiers } from '../verifiers/index.js'
import type { CommandSpec, FlagValues } from './args.js'
import { UsageError } from './args.js'
import { fit } from './fit.js'
import type { CliIo } from './run.js'

/** The schema id of a `seqk strengthen --report` file. */
export const STRENGTHEN_REPORT_SCHEMA = 'seqk.strengthen-report/1'

export const strengthenSpec: CommandSpec = {
  name: 'strengthen',
  usage:
    'seqk strengthen <humaneval_pro.json or mbpp_pro.json> --out <file> [--inputs 20] [--seed 1] [--report <file>]',
  summary:
    "Strengthen a code benchmark's tests: a copy of the file with mutated inputs whose expected values come from each reference solution.",
  details: [
    "Each task's test statements with literal arguments are mutated by type (integers ±1 and boundaries,",
    'floats perturbed, strings and lists edited, dicts changed, constants of the tests reused). Only',
    "inputs inside the task's input contract are kept: the types, ranges (0, 1 and negatives only where",
    'the tests give them), characters, formats ("# apples and # oranges"), sizes (empty only where',
    "given), order, distinctness and equal lengths that the tests' calls and the statement's examples",
    'show, and relations between arguments (equal lengths, an index into a list, membership). The',
    'reference solution runs each input in the python-tests verifier (its sandbox and 3 s limit);',
    'inputs it raises on, takes more than --max-steps line steps on (counted, not timed, so the same',
    'on any machine), times out on, cuts short with zip (unequal lengths the tests never give), or',
    'answers differently under a reading the tests leave open (% and // on negatives truncating, round',
    'sending halves away from zero, sets iterating in another order) are dropped; at most --inputs are',
    'kept per task, distinct outputs first; an expected value holding a float is compared within 1e-6 +',
    "1e-7 x |expected| (EvalPlus's tolerance). The same seed gives the same file. It prints the added",
    'statements and the dropped inputs by reason, and flags, by task id, references that fail their',
    'original tests, fail a rerun of their own new inputs (a stateful or random reference), or fail the',
    'strengthened suite, and tasks with an input the reference cannot finish within the time limit on',
    "its own though within the step budget (time in a builtin; which ones depends on the machine's",
    'speed). --report writes, per task, the contract, each added statement with the input it came from',
    'and why, and each dropped input with its reason.',
    '',
    'Example:  npx seqk strengthen ../shared/benchmarks/humaneval-pro/humaneval_pro.json --out humaneval_pro.plus.json',
  ].join('\n'),
  flags: [
    {
      name: 'out',
      kind: 'string',
      value: '<file>',
      description: 'where to write the strengthened copy (JSON, same records)',
    },
    {
      name: 'inputs',
      kind: 'int',
      min: 0,
      value: '<n>',
      description: 'new test statements per task at most (default 20)',
    },
    { name: 'seed', kind: 'int', min: 0, value: '<n>', description: 'seed of the mutations (default 1)' },
    {
      name: 'candidates-per-input',
      kind: 'int',
      min: 1,
      value: '<n>',
      description: `candidates inside the contract run through the reference per kept input (default ${DEFAULT_CANDIDATES_PER_INPUT})`,
    },
    {
      name: 'search-rounds',
      kind: 'int',
      min: 0,
      value: '<n>',
      description: `rounds of search for inputs that tell surviving near misses apart (default ${DEFAULT_SEARCH_ROUNDS})`,
    },
    {
      name: 'max-steps',
      kind: 'int',
      min: 1,
      value: '<n>',
      description: `line steps the reference may take on one new input (default ${DEFAULT_MAX_STEPS})`,
    },
    {
      name: 'report',
      kind: 'string',
      value: '<file>',
      description: 'also write the per-task report (contract, added and dropped inputs with reasons) as JSON',
    },
    {
      name: 'benchmark',
      kind: 'string',
      value: 'humaneval-pro|mbpp-pro',
      description: "the file's format (default: from its name)",
    },
  ],
}

/** Runs `seqk strengthen`; resolves to its exit code. */
export async function runStrengthen(paths: readonly string[], flags: FlagValues, io: CliIo): Promise<number> {
  if (paths.length !== 1)
    throw new UsageError(`seqk strengthen: give exactly one benchmark file (got ${paths.length})`, 'strengthen')
  const out = typeof flags.out === 'string' ? flags.out : undefined
  if (out === undefined)
    throw new UsageError('seqk strengthen: --out <file> is required (the input file is never changed)', 'strengthen')
  const file = resolve(io.cwd ?? process.cwd(), paths[0]!)
  const named =
    typeof flags.benchmark === 'string' ? flags.benchmark : /mbpp/i.test(basename(file)) ? 'mbpp-pro' : 'humaneval-pro'
  if (named !== 'humaneval-pro' && named !== 'mbpp-pro')
    throw new UsageError(`seqk strengthen: --benchmark must be humaneval-pro or mbpp-pro, got ${named}`, 'strengthen')
  const benchmark: CodeEvalProBenchmark = named
  const inputs = typeof flags.inputs === 'number' ? flags.inputs : 20
  const seed = typeof flags.seed === 'number' ? flags.seed : 1
  const maxSteps = typeof flags['max-steps'] === 'number' ? flags['max-steps'] : DEFAULT_MAX_STEPS
  const candidatesPerInput =
    typeof flags['candidates-per-input'] === 'number' ? flags['candidates-per-input'] : DEFAULT_CANDIDATES_PER_INPUT
  const searchRounds = typeof flags['search-rounds'] === 'number' ? flags['search-rounds'] : DEFAULT_SEARCH_ROUNDS
  const entries = loadCodeEvalPro(file, { benchmark })
  const verifier = verifiers.pythonTests()
  // Each reference on its own tests first: one that fails them is a defective task as given.
  const original = await mapConcurrent(entries, 4, async (e) => (await verifier.verify(e.task, e.reference)).pass)
  const results = await mapConcurrent(entries, 4, (e) =>
    strengthenTests(e.task, {
      seed,
      inputs,
      reference: e.reference,
      verifier,
      maxSteps,
      candidatesPerInput,
      searchRounds,
    }),
  )
  // And on the strengthened suite as written: every added statement passed it once already.
  const final = await mapConcurrent(
    results,
    4,
    async (r, i) => (await verifier.verify(r.task, entries[i]!.reference)).pass,
  )
  const records = entries.map((e, i) => ({ ...e.record, test_code: `${results[i]!.task.tests}\n` }))
  writeFileSync(resolve(io.cwd ?? process.cwd(), out), `${JSON.stringify(records, null, 2)}\n`)
  const reportFile = typeof flags.report === 'string' ? flags.report : undefined
  if (reportFile !== undefined)
    writeFileSync(
      resolve(io.cwd ?? process.cwd(), reportFile),
      `${JSON.stringify(
        {
          schema: STRENGTHEN_REPORT_SCHEMA,
          benchmark,
          seed,
          inputs,
          maxSteps,
          searchRounds,
          tasks: entries.map((e, i) => ({ id: e.task.id, ...results[i]!.report })),
        },
        null,
        2,
      )}\n`,
    )
  const added = results.reduce((n, r) => n + r.added, 0)
  const overBudget = results.reduce((n, r) => n + r.overBudget, 0)
  const unchanged = results.filter((r) => r.added === 0).length
  const ids = (keep: (i: number) => boolean) => entries.flatMap((e, i) => (keep(i) ? [e.task.id] : []))
  const idList = (list: string[]) => (list.length === 0 ? '' : ` (${list.join(', ')})`)
  const flaky = ids((i) => results[i]!.referenceFailures > 0)
  const slow = ids((i) => results[i]!.timedOut > 0)
  const failsOriginal = ids((i) => !original[i])
  const failsFinal = ids((i) => !final[i])
  io.stdout(
    `${fit(`seqk strengthen: ${plural(entries.length, 'task')}, ${plural(added, 'test statement')} added (${unchanged} tasks unchanged); wrote ${out}`, io)}\n`,
  )
  for (const [what, list] of [
    ['references failing their original tests', failsOriginal],
    ['failing a rerun of their own new inputs (those inputs dropped)', flaky],
    ['failing the strengthened suite', failsFinal],
    ["with an input over the time limit alone (dropped; depends on the machine's speed)", slow],
  ] as const)
    io.stdout(`${fit(`  ${what}: ${list.length}${idList(list)}`, io)}\n`)
  io.stdout(
    `${fit(`  new inputs over the step budget of ${maxSteps} (dropped, the same on any machine): ${overBudget}`, io)}\n`,
  )
  const byReason = DROP_REASONS.map((reason) => {
    const n = results.reduce((sum, r) => sum + r.report.dropped.filter((d) => d.reason === reason).length, 0)
    return `${reason} ${n}`
  })
  io.stdout(`${fit(`  inputs dropped, by reason: ${byReason.join(', ')}`, io)}\n`)
  const tolerant = results.reduce((n, r) => n + r.tolerant, 0)
  io.stdout(`${fit(`  added statements compared within a float tolerance: ${tolerant}`, io)}\n`)
  const near = results.reduce(
    (n, r) => ({
      points: n.points + r.report.nearMisses.points,
      byTests: n.byTests + r.report.nearMisses.byTests,
      byAdded: n.byAdded + r.report.nearMisses.byAdded,
    }),
    { points: 0, byTests: 0, byAdded: 0 },
  )
  io.stdout(
    `${fit(`  near misses of the references (mutants): ${near.points}; failed by the original tests ${near.byTests}, by the added ones ${near.byAdded} more`, io)}\n`,
  )
  if (reportFile !== undefined) io.stdout(`${fit(`  wrote the per-task report to ${reportFile}`, io)}\n`)
  return 0
}
