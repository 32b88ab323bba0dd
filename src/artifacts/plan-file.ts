/**
 * `plan.jsonl`: what a run is about to do, written by the reporter as Vitest loads the eval files,
 * before and while cells run. The live view reads it for the run's planned trajectory total from
 * the start (not only of the cells that started) and for the files that failed to load; the
 * summary reads the load errors from it too, so `seqk summarize` keeps them.
 */
import { appendFileSync, existsSync } from 'node:fs'
import { stripVTControlCharacters } from 'node:util'
import { z } from 'zod'
import { redactText } from '../models/redact.js'
import { readJsonLines } from './jsonl.js'

export const PLAN_FILE = 'plan.jsonl'

/** The eval files of the run, as Vitest queued them (before any is loaded). */
export const PlanFilesRecordSchema = z.object({
  schema: z.literal('seqk.plan/1'),
  type: z.literal('files'),
  runId: z.string(),
  files: z.array(z.string()),
})

/** One eval file, loaded: its cells and how many trajectories each will run (tasks in this shard × repeats). */
export const PlanFileRecordSchema = z.object({
  schema: z.literal('seqk.plan/1'),
  type: z.literal('file'),
  runId: z.string(),
  file: z.string(),
  cells: z.array(z.object({ benchmark: z.string(), cellId: z.string(), trajectories: z.number().int().nonnegative() })),
})

/** An eval file that failed to load or collect (a syntax error, a throw while declaring): no cell of it runs. */
export const PlanLoadErrorRecordSchema = z.object({
  schema: z.literal('seqk.plan/1'),
  type: z.literal('load-error'),
  runId: z.string(),
  file: z.string(),
  /** The error's first line. */
  error: z.string(),
})

/**
 * A cell of a loaded file that was skipped (a model without a key, data that is absent, a dry run):
 * it will not run, and says why. Written as Vitest reports the skip, so the live view shows it
 * skipped at once rather than planned for ever; summary.json's `notRun` holds the same cells.
 */
export const PlanSkippedRecordSchema = z.object({
  schema: z.literal('seqk.plan/1'),
  type: z.literal('skipped'),
  runId: z.string(),
  file: z.string(),
  benchmark: z.string(),
  cellId: z.string(),
  reason: z.string(),
})

export const PlanRecordSchema = z.discriminatedUnion('type', [
  PlanFilesRecordSchema,
  PlanFileRecordSchema,
  PlanLoadErrorRecordSchema,
  PlanSkippedRecordSchema,
])
export type PlanRecord = z.infer<typeof PlanRecordSchema>

/** Appends one record, one `write`. */
export function appendPlanRecord(path: string, record: PlanRecord): void {
  appendFileSync(path, `${JSON.stringify(record)}\n`)
}

/**
 * The load errors a run's plan records, the last record of each file counting (a resumed run
 * that loads a fixed file again clears its error). Empty when there is no plan file.
 *
 * @example
 * planLoadErrors('.seqk/runs/20261201-101500-9f2c4a/plan.jsonl') // => [{ file: 'evals/broken.eval.ts', error: 'SyntaxError: …' }]
 */
export function planLoadErrors(path: string): { file: string; error: string }[] {
  if (!existsSync(path)) return []
  const last = new Map<string, PlanRecord>()
  for (const record of readJsonLines(path, PlanRecordSchema, 'plan record').items)
    if (record.type === 'file' || record.type === 'load-error') last.set(record.file, record)
  return [...last.values()].flatMap((r) => (r.type === 'load-error' ? [{ file: r.file, error: r.error }] : []))
}

/**
 * The cells a run's plan records as skipped and that have no summary among `ran` (a resume that
 * ran a cell it skipped before has one), each once: summary.json's `notRun`, rebuilt from the files.
 *
 * @example
 * planNotRun('run/plan.jsonl', summary.benchmarks) // => [{ file, benchmark, cellId: 'openai:gpt-4o · binary', reason: '…' }]
 */
export function planNotRun(
  path: string,
  ran: readonly { name: string; cells: readonly { cellId: string }[] }[],
): { file: string; benchmark: string; cellId: string; reason: string }[] {
  if (!existsSync(path)) return []
  const done = new Set(ran.flatMap((b) => b.cells.map((c) => `${b.name}\u0000${c.cellId}`)))
  const out = new Map<string, { file: string; benchmark: string; cellId: string; reason: string }>()
  for (const r of readJsonLines(path, PlanRecordSchema, 'plan record').items)
    if (r.type === 'skipped' && !done.has(`${r.benchmark}\u0000${r.cellId}`))
      out.set(`${r.benchmark}\u0000${r.cellId}`, {
        file: r.file,
        benchmark: r.benchmark,
        cellId: r.cellId,
        reason: r.reason,
      })
  return [...out.values()]
}

/**
 * The first line of an error's message, as every output names a file that failed to load; a line
 * that only announces what follows (`Transform failed with 1 error:`, or a heading over a list of
 * problems, `- …` lines) takes the next line with it.
 * Credential shapes in it are redacted.
 *
 * @example
 * firstLine('Transform failed with 1 error:\n/p/x.eval.ts:2:28: ERROR: Unexpected "}"\n…')
 * // => 'Transform failed with 1 error: /p/x.eval.ts:2:28: ERROR: Unexpected "}"'
 */
export function firstLine(message: string | undefined): string {
  // Colour codes (a bundler's message) are for a terminal, not for every output.
  // Written to summary.json, plan.jsonl, the report and the PR comment: a key the error quotes is not.
  const lines = stripVTControlCharacters(redactText(message ?? ''))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
  if (lines.length === 0) return 'unknown error'
  // A heading over a list of problems (`seqEval("x"): invalid options` then `- budget: …`) takes the first, and says how many more.
  const bullets = lines.slice(1).filter((l) => l.startsWith('- '))
  if (lines[1]?.startsWith('- ')) {
    const more = bullets.length > 1 ? ` (and ${bullets.length - 1} more)` : ''
    return `${lines[0]!.replace(/:$/, '')}: ${lines[1].slice(2)}${more}`
  }
  return lines[0]!.endsWith(':') && lines[1] !== undefined ? `${lines[0]} ${lines[1]}` : lines[0]!
}
