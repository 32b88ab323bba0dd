/**
 * `seqk resume <run dir> [-- vitest args]`: starts Vitest again with SEQK_RESUME set, so the run
 * directory's finished trajectories are kept and only the missing or errored ones run.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { z } from 'zod'
import { RUN_FILE, TRAJECTORIES_FILE } from '../artifacts/run-dir.js'
import { isStale, lockedMessage, readRunLock } from '../artifacts/run-lock.js'
import { readTrajectories } from '../artifacts/trajectories-file.js'
import { describeZodError } from '../core/zod-errors.js'
import type { CommandSpec, FlagValues } from './args.js'
import { wrapText } from '../core/text-layout.js'
import { UsageError } from './args.js'
import { ResumeRefusedError } from '../protocol/resume.js'
import type { CliIo } from './run.js'

export const resumeSpec: CommandSpec = {
  name: 'resume',
  usage: 'seqk resume <run dir> [--budget <K>] [-- <vitest arguments>...]',
  summary:
    'Resume an interrupted run: start Vitest again into the same run directory, keeping every trajectory that had ended and running only those it lacks or that ended in an infrastructure error. With --budget, extend the run to a larger K.',
  details: [
    'Vitest starts with the arguments the run was started with (recorded in <run dir>/run.json),',
    'or with those given after `--`. A cell whose protocol changed since is refused, naming the',
    'fields; an errored trajectory that runs again supersedes its old line. The same as',
    'SEQK_RESUME=<run dir> npx vitest run ….',
    '',
    'Everything after `--` goes to Vitest. Resume a shard with the SEQK_SHARD=i/N it ran with; any',
    "other (or none) is refused. Exit code: Vitest's.",
    '',
    '--budget K extends the run to a budget K larger than it ran with (SEQK_BUDGET=K for every cell):',
    'each trajectory keeps its recorded attempts, a solved one stays solved, and the unsolved ones go',
    'on from their last feedback (rendered now where the run gave none after its last attempt);',
    'independent cells draw the missing samples. Raising `budget` in the eval and resuming does the',
    'same. The summary says the cell was extended and from which K. With the budget disclosed to the',
    'actor (discloseBudget, the seq_k-reference preset) the kept attempts were told the smaller K,',
    'so the extended run is not one at the larger K: docs/reference-harness.md says what changes.',
    '',
    'Examples:  npx seqk resume .seqk/runs/20261201-101500-9f2c4a                  # as recorded in run.json',
    '           npx seqk resume .seqk/runs/20261201-101500-9f2c4a -- run --project evals',
    '           npx seqk resume .seqk/runs/20261201-101500-9f2c4a --budget 10           # K = 5 → 10',
  ].join('\n'),
  flags: [
    {
      name: 'budget',
      kind: 'int',
      min: 1,
      value: '<K>',
      description: 'extend every cell to this budget (larger than it ran with); sets SEQK_BUDGET for the run',
    },
  ],
}

const RunFileSchema = z.object({
  schema: z.literal('seqk.run/1'),
  runId: z.string(),
  argv: z.array(z.string()),
  cwd: z.string(),
})

/** Vitest's arguments for a resume: the recorded ones, made a single run (never watch mode). */
export function resumeArgs(recorded: readonly string[]): string[] {
  const [first, ...rest] = recorded
  if (first === 'run') return [...recorded]
  if (first === 'watch' || first === 'dev') return ['run', ...rest]
  return ['run', ...recorded]
}

/** Runs `seqk resume`; returns Vitest's exit code (1 when it could not start). */
export function runResume(
  paths: readonly string[],
  vitestArgs: readonly string[] | undefined,
  io: CliIo,
  flags: FlagValues = {},
): number {
  if (paths.length !== 1)
    throw new UsageError(
      `seqk resume: give exactly one run directory (got ${paths.length}), e.g. seqk resume .seqk/runs/<run id> -- run --project evals`,
      'resume',
    )
  const runDir = resolve(io.cwd ?? process.cwd(), paths[0]!)
  const file = join(runDir, TRAJECTORIES_FILE)
  // Another run writing there now: refused before Vitest starts (its reporter would refuse too).
  const holder = readRunLock(runDir)
  if (holder && !isStale(holder)) throw new ResumeRefusedError(lockedMessage(runDir, holder))
  if (!existsSync(file))
    throw new ResumeRefusedError(
      `nothing to resume in ${runDir}: it has no ${TRAJECTORIES_FILE} (a run directory looks like .seqk/runs/<run id>)`,
    )
  let trajectories
  try {
    trajectories = readTrajectories(file).trajectories
  } catch (error) {
    throw new ResumeRefusedError(`cannot resume ${runDir}: ${(error as Error).message}`)
  }
  let recorded: z.infer<typeof RunFileSchema> | undefined
  const runFile = join(runDir, RUN_FILE)
  if (existsSync(runFile)) {
    let json: unknown
    try {
      json = JSON.parse(readFileSync(runFile, 'utf8'))
    } catch {
      throw new ResumeRefusedError(`${runFile} is not valid JSON; pass Vitest's arguments after -- instead`)
    }
    const parsed = RunFileSchema.safeParse(json)
    if (!parsed.success)
      throw new ResumeRefusedError(
        `${runFile} is not a seqk run record: ${describeZodError(parsed.error)}; pass Vitest's arguments after -- instead`,
      )
    recorded = parsed.data
  }
  const args = vitestArgs ?? resumeArgs(recorded?.argv ?? [])
  const cwd = recorded?.cwd ?? io.cwd ?? process.cwd()
  let vitest: string
  try {
    vitest = join(dirname(createRequire(join(cwd, 'package.json')).resolve('vitest/package.json')), 'vitest.mjs')
  } catch {
    throw new ResumeRefusedError(
      `Vitest is not installed in ${cwd} (the directory the run started in); install it, or run SEQK_RESUME=${runDir} npx vitest … yourself`,
    )
  }
  // Refused before Vitest starts: a budget is raised, never cut.
  if (typeof flags.budget === 'number') {
    const ran = Math.max(0, ...trajectories.map((t) => t.protocol.budget))
    if (flags.budget <= ran)
      throw new UsageError(
        `seqk resume: --budget ${flags.budget} is not larger than the budget the run used (K = ${ran}): a run is extended, never cut; resume without --budget to finish it as it was`,
        'resume',
      )
  }
  const errored = trajectories.filter((t) => t.status === 'error').length
  io.stderr(
    `${wrapText(`seqk resume: ${trajectories.length} trajectories on file in ${runDir}${errored > 0 ? ` (${errored} errored, to run again)` : ''}; starting vitest ${args.join(' ')}${recorded ? '' : vitestArgs ? '' : ` (no ${RUN_FILE}: pass Vitest's arguments after -- if the run had filters)`}`)}\n`,
  )
  const env: Record<string, string | undefined> = { ...io.env, SEQK_RESUME: runDir }
  if (typeof flags.budget === 'number') env.SEQK_BUDGET = String(flags.budget)
  // The resumed directory is the run's: another one named here would be refused.
  delete env.SEQK_RUN_DIR
  const child = spawnSync(process.execPath, [vitest, ...args], { cwd, env, stdio: 'inherit' })
  if (child.error) throw new ResumeRefusedError(`could not start Vitest: ${child.error.message}`)
  return child.status ?? 1
}
