/**
 * `seqk estimate <eval file | run>`: what cells will cost before anything is spent, or what a run's
 * cells were expected to cost beside what they did.
 *
 * For an eval file it starts Vitest on that file with `SEQK_DRY_RUN=1` (the project's own config
 * and reporters: seqk takes over nothing), so every cell computes its estimate and skips without
 * calling a model; the cells write their estimates to a temporary file this command reads.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { z } from 'zod'
import { resolveSummaryPath } from '../analysis/load-runs.js'
import { readSummary } from '../artifacts/summary-file.js'
import { CellEstimateSchema, estimateError, type CellEstimate, type EstimateRange } from '../core/estimate.js'
import { compactCount, money, plural } from '../metrics/format.js'
import { cellStarts } from '../report/disclosure-file.js'
import { TEXT_WIDTH as TABLE_WIDTH, wrapLine } from '../core/text-layout.js'
import { readJsonLines } from '../artifacts/jsonl.js'
import type { CommandSpec, FlagValues } from './args.js'
import { UsageError } from './args.js'
import { InputError } from './input-error.js'
import type { CliIo } from './run.js'
import { fit } from './fit.js'

export const estimateSpec: CommandSpec = {
  name: 'estimate',
  usage: 'seqk estimate <eval file | run> [--from <run>] [--json] [-- <vitest arguments>...]',
  summary:
    "Estimate what an eval file's cells will cost before spending anything: expected calls, tokens and cost per cell and their range, from prompt sizes, prices and a previous run; or, for a run, what its cells were expected to cost beside what they did.",
  details: [
    'For an eval file, Vitest runs it with SEQK_DRY_RUN=1 under your own config (found as Vitest',
    'finds it, then vitest.<name>.config.* such as vitest.evals.config.ts when that one does not run',
    'the file): every cell computes its estimate and skips, and no model is called. Arguments after',
    '`--` go to Vitest (e.g. -- --project evals, -- --config vitest.evals.config.ts). The estimate',
    'learns per-attempt tokens and first successes from the newest',
    'finished run beside the next run directory (or --from); without one it gives the range from',
    '"every trajectory solved at attempt 1" to "none solved", with no expected figure for sequential',
    "cells, and assumes 400 output tokens per answer. Every run records its cells' estimates as it",
    'starts; for a run, this prints them beside the actual cost and the error,',
    '(expected - actual) / actual.',
    '',
    'Examples:  npx seqk estimate evals/fixtures-code.eval.ts',
    '           npx seqk estimate evals/rubric-fixtures.eval.ts --from .seqk/runs/latest --json',
    "           npx seqk estimate .seqk/runs/latest                # the estimate's error after a run",
  ].join('\n'),
  flags: [
    {
      name: 'from',
      kind: 'string',
      value: '<run>',
      description: 'learn from this run directory instead of the newest one beside the next run',
    },
    { name: 'json', kind: 'boolean', description: 'print the estimates as JSON' },
  ],
}

const DRY_RUN_TIMEOUT_MS = 600_000

const EstimateLineSchema = z.object({
  schema: z.literal('seqk.estimate-line/1'),
  benchmark: z.string(),
  cellId: z.string(),
  file: z.string(),
  estimate: CellEstimateSchema,
})

/** One cell's row: its estimate and, for a finished run, what it cost. */
export interface EstimateRow {
  benchmark: string
  cellId: string
  estimate: CellEstimate
  actualUsd?: number | null
  error?: number | null
}

const isEvalFile = (path: string): boolean =>
  existsSync(path) && statSync(path).isFile() && /\.[cm]?[jt]sx?$/.test(path)

/** Runs `seqk estimate`; returns its exit code. */
export async function runEstimate(
  paths: readonly string[],
  flags: FlagValues,
  vitestArgs: readonly string[],
  io: CliIo,
): Promise<number> {
  if (paths.length !== 1)
    throw new UsageError(
      `seqk estimate: give exactly one eval file or run (got ${paths.length}), e.g. seqk estimate evals/capitals.eval.ts`,
      'estimate',
    )
  const cwd = io.cwd ?? process.cwd()
  const target = resolve(cwd, paths[0]!)
  const from = typeof flags.from === 'string' ? dirname(resolveSummaryPath(resolve(cwd, flags.from))) : undefined
  const rows = isEvalFile(target)
    ? await dryRun(target, from, vitestArgs, io)
    : runRows(dirname(resolveSummaryPath(target)))
  if (flags.json === true) io.stdout(`${JSON.stringify(rows, null, 2)}\n`)
  else io.stdout(`${fit(renderEstimates(rows), io)}\n`)
  return 0
}

/** The estimates a finished run's cells recorded as they started, beside what each cost. */
export function runRows(runDir: string): EstimateRow[] {
  const summary = readSummary(join(runDir, 'summary.json'))
  const starts = new Map(cellStarts(runDir).map((s) => [`${s.benchmark}\u0000${s.cellId}`, s]))
  const rows: EstimateRow[] = []
  for (const cell of summary.benchmarks.flatMap((b) => b.cells)) {
    const estimate = starts.get(`${cell.benchmark}\u0000${cell.cellId}`)?.estimate
    if (!estimate) continue
    const actualUsd = cell.shard ? null : cell.costUsd
    rows.push({
      benchmark: cell.benchmark,
      cellId: cell.cellId,
      estimate,
      actualUsd,
      error: estimateError(estimate.costUsd.expected, actualUsd),
    })
  }
  if (rows.length === 0)
    throw new InputError(
      `${runDir}: no cell recorded an estimate (runs record one in cells.jsonl as each cell starts, since vitest-seqk had estimates)`,
    )
  return rows
}

/** Starts Vitest on `file` under SEQK_DRY_RUN and reads the estimates its cells wrote. */
async function dryRun(
  file: string,
  from: string | undefined,
  vitestArgs: readonly string[],
  io: CliIo,
): Promise<EstimateRow[]> {
  const cwd = io.cwd ?? process.cwd()
  let vitest: string
  try {
    vitest = join(dirname(createRequire(join(cwd, 'package.json')).resolve('vitest/package.json')), 'vitest.mjs')
  } catch {
    throw new InputError(
      `Vitest is not installed in ${cwd}; install it, or run SEQK_DRY_RUN=1 npx vitest run ${file} yourself`,
    )
  }
  const tmp = mkdtempSync(join(tmpdir(), 'seqk-estimate-'))
  const out = join(tmp, 'estimates.jsonl')
  try {
    const env: Record<string, string | undefined> = {
      ...io.env,
      SEQK_DRY_RUN: '1',
      SEQK_ESTIMATE_FILE: out,
      SEQK_QUIET: '1',
      ...(from ? { SEQK_ESTIMATE_FROM: from } : {}),
    }
    // A dry run writes nothing of its own: no run directory is made, no history is appended.
    delete env.SEQK_RESUME
    // As Vitest finds its config first (vitest.config.*); then, when that one does not run the file,
    // the project's other Vitest configs (the README's vitest.evals.config.ts), evals' first.
    const configs = hasConfigArg(vitestArgs) ? [undefined] : [undefined, ...otherConfigs(cwd)]
    let last = { status: null as number | null, output: '' }
    for (const config of configs) {
      const args = [vitest, 'run', file, ...(config ? ['--config', config] : []), ...vitestArgs]
      last = await runChild(process.execPath, args, { cwd, env, timeoutMs: DRY_RUN_TIMEOUT_MS })
      if (existsSync(out)) break
    }
    if (!existsSync(out)) {
      const tried = configs.length > 1 ? ` (with its default config, then ${configs.slice(1).join(', ')})` : ''
      throw new InputError(
        `Vitest ran ${file}${tried} (exit code ${last.status ?? 'killed'}) but no cell wrote an estimate: is it an eval file of this project (matched by a Vitest project's include, with seqEval)? If your evals have a config of their own, name it: seqk estimate ${file} -- --config <your vitest config>\n${last.output.trim().split('\n').slice(-20).join('\n')}`,
      )
    }
    const { items } = readJsonLines(out, EstimateLineSchema, 'estimate line')
    return items.map((l) => ({ benchmark: l.benchmark, cellId: l.cellId, estimate: l.estimate }))
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** Whether Vitest's arguments name a config (`--config`, `-c`). */
const hasConfigArg = (args: readonly string[]): boolean => args.some((a) => /^(--config|-c)(=|$)/.test(a))

/** Vitest configs in `cwd` other than the default one (`vitest.<name>.config.*`), those with "eval" in their name first. */
export function otherConfigs(cwd: string): string[] {
  const found = readdirSync(cwd).filter((n) => /^vitest\.[\w-]+\.config\.[cm]?[jt]s$/.test(n))
  return found.sort((a, b) => Number(/eval/.test(b)) - Number(/eval/.test(a)) || a.localeCompare(b))
}

/** A child process to its end (never spawnSync: this command may run inside a test), its process group killed after `timeoutMs`. */
function runChild(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; timeoutMs: number },
): Promise<{ status: number | null; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }, options.timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      fail(new InputError(`could not start Vitest: ${error.message}`))
    })
    child.on('close', (status) => {
      clearTimeout(timer)
      done({ status, output })
    })
  })
}

const count = (x: number | null) => (x === null ? '?' : compactCount(Math.round(x)))
const range = (r: EstimateRange, show: (x: number | null) => string): string => {
  if (r.low === r.high) return show(r.low)
  const span = `${show(r.low)}–${show(r.high)}`
  return r.expected === null ? span : `≈ ${show(r.expected)} (${span})`
}

/**
 * The estimates as a table: each cell's name, then its trajectories, calls, tokens, cost and
 * basis (and, for a run, its actual cost and the error); a total at the end.
 *
 * @example
 * console.log(renderEstimates(rows))
 */
export function renderEstimates(rows: readonly EstimateRow[]): string {
  const lines: string[] = []
  for (const row of rows) {
    const e = row.estimate
    const basis =
      e.basis.kind === 'previous-run'
        ? `from run ${e.basis.runId} (${e.basis.match?.replaceAll('-', ' ')})`
        : `from prompt sizes${e.basis.helpers === 'not estimated' ? ', actor calls only' : ''}`
    const actual =
      row.actualUsd === undefined
        ? ''
        : ` · actual ${money(row.actualUsd)}, error ${row.error === null || row.error === undefined ? 'unknown' : `${row.error >= 0 ? '+' : ''}${(row.error * 100).toFixed(1)}%`}`
    lines.push(` ${row.benchmark} › ${row.cellId}`)
    lines.push(
      `   ${plural(e.trajectories, 'trajectory', 'trajectories')} · calls ${range(e.calls, count)} · tokens in ${range(e.inputTokens, count)}, out ${range(e.outputTokens, count)}`,
    )
    const open = e.costUsd.expected === null && e.costUsd.low !== e.costUsd.high ? ', no expected figure' : ''
    lines.push(`   cost ${range(e.costUsd, money)}${open}${actual} · ${basis}`)
    for (const note of e.basis.notes) lines.push(`   note: ${note}`)
  }
  lines.push(totalLine(rows))
  return lines.flatMap((line) => wrapLine(line, TABLE_WIDTH, 4)).join('\n')
}

function totalLine(rows: readonly EstimateRow[]): string {
  const sum = (pick: (r: EstimateRow) => number | null | undefined): number | null =>
    rows.reduce<number | null>((n, r) => (n === null ? null : (pick(r) ?? null) === null ? null : n + pick(r)!), 0)
  const expected = sum((r) => r.estimate.costUsd.expected)
  const low = sum((r) => r.estimate.costUsd.low)
  const high = sum((r) => r.estimate.costUsd.high)
  const head = `total over ${plural(rows.length, 'cell')}: ${expected === null ? `${money(low)}–${money(high)}${low === null ? '' : ' (some cells have no expected figure)'}` : `≈ ${money(expected)} (${money(low)}–${money(high)})`}`
  if (rows.every((r) => r.actualUsd === undefined)) return head
  const actual = sum((r) => r.actualUsd)
  const error = estimateError(expected, actual)
  return `${head}; actual ${money(actual)}, error ${error === null ? 'unknown' : `${error >= 0 ? '+' : ''}${(error * 100).toFixed(1)}%`}`
}
