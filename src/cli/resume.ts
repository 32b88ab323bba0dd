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
import type { CommandSpec } from './args.js'
import { wrapText } from '../core/text-layout.js'
import { UsageError } from './args.js'
import { ResumeRefusedError } from '../protocol/resume.js'
import type { CliIo } from './run.js'

export const resumeSpec: CommandSpec = {
  name: 'resume',
  usage: 'seqk resume <run dir> [-- <vitest arguments>...]',
  summary:
    'Resume an interrupted run: start Vitest again into the same run directory, keeping every trajectory that had ended and running only those it lacks or that ended in an infrastructure error.',
  details: [
    'Vitest starts with the arguments the run was started with (recorded in <run dir>/run.json),',
    'or with those given after `--`. A cell whose protocol changed since is refused, naming the',
    'fields; an errored trajectory that runs again supersedes its old line. The same as',
    'SEQK_RESUME=<run dir> npx vitest run ….',
    '',
    'It takes no options of its own: everything after `--` goes to Vitest. Resume a shard with',
    "the SEQK_SHARD=i/N it ran with; any other (or none) is refused. Exit code: Vitest's.",
    '',
    'Examples:  npx seqk resume .seqk/runs/20261201-101500-9f2c4a                  # as recorded in run.json',
    '           npx seqk resume .seqk/runs/20261201-101500-9f2c4a -- run --project evals',
  ].join('\n'),
  flags: [],
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
export function runResume(paths: readonly string[], vitestArgs: readonly string[] | undefined, io: CliIo): number {
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
  const errored = trajectories.filter((t) => t.status === 'error').length
  io.stderr(
    `${wrapText(`seqk resume: ${trajectories.length} trajectories on file in ${runDir}${errored > 0 ? ` (${errored} errored, to run again)` : ''}; starting vitest ${args.join(' ')}${recorded ? '' : vitestArgs ? '' : ` (no ${RUN_FILE}: pass Vitest's arguments after -- if the run had filters)`}`)}\n`,
  )
  const env: Record<string, string | undefined> = { ...io.env, SEQK_RESUME: runDir }
  // The resumed directory is the run's: another one named here would be refused.
  delete env.SEQK_RUN_DIR
  const child = spawnSync(process.execPath, [vitest, ...args], { cwd, env, stdio: 'inherit' })
  if (child.error) throw new ResumeRefusedError(`could not start Vitest: ${child.error.message}`)
  return child.status ?? 1
}
