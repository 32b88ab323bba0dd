/**
 * `seqk suites <original run> <strengthened run>`: Seq@k and Pass@k of the same actors on a
 * benchmark's own tests and on its strengthened copy (`seqk strengthen`), side by side, with the
 * change and a paired interval over tasks.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { loadRuns, sourcedCells } from '../analysis/load-runs.js'
import { compareSuites, renderSuites, SuiteComparisonError } from '../analysis/strengthened-suites.js'
import type { CommandSpec, FlagValues } from './args.js'
import { UsageError } from './args.js'
import { fit } from './fit.js'
import { InputError } from './input-error.js'
import type { CliIo } from './run.js'

export const suitesSpec: CommandSpec = {
  name: 'suites',
  usage:
    'seqk suites <original run> <strengthened run> [--original <name>] [--strengthened <name>] [--k <k>] [--json <file>]',
  summary:
    "Original vs strengthened tests: Seq@k and Pass@k of each actor and mode on a benchmark's own tests and on its strengthened copy, side by side, with the change and a paired interval over tasks.",
  details: [
    'Give the run on the original suite first and the run on the strengthened copy second (or one run',
    'holding both benchmarks with --original and --strengthened). Cells pair by actor and mode; their',
    'protocols must agree in everything but the benchmark name and its content hash (the tests), and',
    'they must hold the same task ids, else seqk refuses and names what differs. Seq@K is re-measured',
    'on the strengthened suite, never rescored from the original run (its feedback would differ).',
    'Exit code 1 on a refusal, or when no actor and mode was measured on both suites.',
    '',
    'Example:  npx seqk suites .seqk/runs/20261202-101500-9f2c4a .seqk/runs/latest',
  ].join('\n'),
  flags: [
    {
      name: 'original',
      kind: 'string',
      value: '<name>',
      description: "the benchmark of the original suite (default: the first run's only one)",
    },
    {
      name: 'strengthened',
      kind: 'string',
      value: '<name>',
      description: "the benchmark of the strengthened copy (default: the second run's only one)",
    },
    { name: 'k', kind: 'int', min: 1, value: '<k>', description: 'compare at this k (default: the budget K)' },
    { name: 'seed', kind: 'int', min: 0, value: '<n>', description: 'seed of the paired bootstrap (default 1)' },
    {
      name: 'json',
      kind: 'string',
      value: '<file>',
      description: 'also write the comparison as JSON (`-` for stdout only)',
    },
  ],
}

/** Runs `seqk suites`; returns its exit code. */
export function runSuites(paths: readonly string[], flags: FlagValues, io: CliIo): number {
  if (paths.length === 0 || paths.length > 2)
    throw new UsageError(`seqk suites: give one or two runs (got ${paths.length})`, 'suites')
  const cwd = io.cwd ?? process.cwd()
  const { runs } = loadRuns(paths.map((p) => resolve(cwd, p)))
  const only = (i: number, flag: string) => {
    const names = [...new Set(runs[i]?.summary.benchmarks.map((b) => b.name) ?? [])]
    if (names.length !== 1)
      throw new UsageError(
        `seqk suites: --${flag} is needed: the ${i === 0 ? 'first' : 'second'} run holds ${names.length === 0 ? 'no' : names.length} benchmarks${names.length ? ` (${names.map((n) => `"${n}"`).join(', ')})` : ''}`,
        'suites',
      )
    return names[0]!
  }
  const original = typeof flags.original === 'string' ? flags.original : only(0, 'original')
  const strengthened =
    typeof flags.strengthened === 'string' ? flags.strengthened : only(runs.length > 1 ? 1 : 0, 'strengthened')
  let cmp
  try {
    cmp = compareSuites(
      sourcedCells(runs),
      { original, strengthened },
      {
        k: typeof flags.k === 'number' ? flags.k : undefined,
        seed: typeof flags.seed === 'number' ? flags.seed : undefined,
      },
    )
  } catch (error) {
    if (error instanceof SuiteComparisonError) throw new InputError(`refused: ${error.message}`, { cause: error })
    throw error
  }
  const out = typeof flags.json === 'string' ? flags.json : undefined
  if (out === '-') {
    io.stdout(`${JSON.stringify(cmp, null, 2)}\n`)
    return 0
  }
  io.stdout(`${fit(renderSuites(cmp).join('\n'), io)}\n`)
  if (out !== undefined) {
    const file = resolve(cwd, out)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, `${JSON.stringify(cmp, null, 2)}\n`)
    io.stdout(`${fit(`seqk suites: wrote ${file}`, io)}\n`)
  }
  return cmp.rows.length === 0 ? 1 : 0
}
