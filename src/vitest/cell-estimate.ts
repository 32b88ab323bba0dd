/**
 * What a cell records about itself before it spends anything: its cost estimate (from prompt
 * sizes, prices and a previous run's stop rates), where its tasks came from, and their prompts. With
 * `SEQK_DRY_RUN=1` that is all a cell does: it skips with its estimate and calls no model.
 */
import { appendFileSync, mkdirSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { inject } from 'vitest'
import type { BenchmarkProvenance } from '../core/disclosure.js'
import { isDryRun, type CellEstimate } from '../core/estimate.js'
import { DEFAULT_RUNS_DIR } from '../artifacts/run-dir.js'
import { appendTaskRecords, TASKS_FILE, type TaskRecord } from '../artifacts/tasks-file.js'
import { findPrior, finishedRuns, priorFromRun } from '../artifacts/prior-run.js'
import { describeEstimate, estimateCell } from '../protocol/estimate.js'
import { withInstructions } from '../protocol/prompt-builder.js'
import { DEFAULT_BATCH_SHARE, type Price } from '../models/pricing.js'
import type { CellPlan } from './seq-eval.js'
import type { CellStartPlan } from './artifact-types.js'

/** One line of the file `SEQK_ESTIMATE_FILE` names: a dry-run cell's estimate (what `seqk estimate` reads). */
export interface EstimateLine {
  schema: 'seqk.estimate-line/1'
  benchmark: string
  cellId: string
  file: string
  estimate: CellEstimate
}

/** How many of the newest finished runs are searched for a match (each costs a read of its cells.jsonl). */
const PREVIOUS_RUNS_SEARCHED = 20

/**
 * The previous runs an estimate may learn from: `SEQK_ESTIMATE_FROM` (one run directory) when set,
 * else the newest finished runs beside this one, newest first.
 */
function previousRuns(runId: string | undefined): string[] {
  const from = process.env.SEQK_ESTIMATE_FROM
  if (from) return [resolve(from)]
  const run = inject('seqkRun')
  const outputDir = process.env.SEQK_OUTPUT_DIR ?? DEFAULT_RUNS_DIR
  const runsDir = run?.runDir
    ? dirname(run.runDir)
    : isAbsolute(outputDir)
      ? outputDir
      : resolve(process.cwd(), outputDir)
  return finishedRuns(runsDir, runId ?? run?.runId).slice(0, PREVIOUS_RUNS_SEARCHED)
}

/**
 * The cell's estimate, or undefined when it cannot be made (a prompt builder that throws on a
 * task): an estimate never fails a cell.
 *
 * @example
 * const estimate = cellEstimate(spec, plan, run.runId)
 */
export function cellEstimate(spec: CellPlan, plan: CellStartPlan, runId?: string): CellEstimate | undefined {
  try {
    const cell = {
      benchmark: spec.benchmark,
      cellId: spec.cellId,
      mode: plan.mode,
      fingerprint: plan.fingerprint,
      protocol: plan.protocol,
    }
    const runs = previousRuns(runId)
    const prior = process.env.SEQK_ESTIMATE_FROM ? priorFromRun(runs[0]!, cell) : findPrior(runs, cell)
    return estimateCell({
      kind: plan.protocol.kind,
      tasks: spec.tasks,
      promptBuilder: spec.promptBuilder,
      ...(spec.instructions !== undefined ? { instructions: spec.instructions } : {}),
      budget: spec.budget,
      repeats: spec.repeats,
      discloseBudget: spec.discloseBudget,
      history: spec.mode ? spec.history.name : null,
      price: batchedPrice(spec.actor),
      ...(prior ? { prior } : {}),
      ...maxOutputOf(spec.actor),
    })
  } catch {
    return undefined
  }
}

/** The actor's declared longest answer (`maxTokens` in its decoding parameters), when it declares one. */
function maxOutputOf(actor: CellPlan['actor']): { maxOutputTokens?: number } {
  const max = actor.descriptor.params.maxTokens
  return typeof max === 'number' && Number.isFinite(max) && max > 0 ? { maxOutputTokens: max } : {}
}

/** A batched actor's calls cost the batch share of its list price (what its calls are billed at, unless a deadline sends one direct). */
function batchedPrice(actor: CellPlan['actor']): Price | undefined {
  const price = actor.price
  if (!price || !actor.gathers) return price
  const share = price.batch ?? DEFAULT_BATCH_SHARE
  return {
    input: price.input * share,
    output: price.output * share,
    ...(price.cacheRead !== undefined ? { cacheRead: price.cacheRead * share } : {}),
    ...(price.cacheWrite !== undefined ? { cacheWrite: price.cacheWrite * share } : {}),
  }
}

/** The distinct `metadata.source`, `revision` and `subset` strings of the tasks, for the disclosure card. */
export function provenanceOf(tasks: CellPlan['tasks']): BenchmarkProvenance {
  const distinct = (field: string) =>
    [
      ...new Set(tasks.map((t) => t.metadata?.[field]).filter((v): v is string => typeof v === 'string' && v !== '')),
    ].sort()
  return { sources: distinct('source'), revisions: distinct('revision'), subsets: distinct('subset') }
}

/**
 * Under `SEQK_DRY_RUN`, the cell's skip note with its estimate (also appended to
 * `SEQK_ESTIMATE_FILE` when set); undefined otherwise, when the cell runs.
 */
export function dryRunNote(spec: CellPlan, plan: CellStartPlan): string | undefined {
  if (!isDryRun()) return undefined
  const estimate = cellEstimate(spec, plan)
  const out = process.env.SEQK_ESTIMATE_FILE
  if (out && estimate) {
    const line: EstimateLine = {
      schema: 'seqk.estimate-line/1',
      benchmark: spec.benchmark,
      cellId: spec.cellId,
      file: plan.file,
      estimate,
    }
    mkdirSync(dirname(out), { recursive: true })
    appendFileSync(out, `${JSON.stringify(line)}\n`)
  }
  return `dry run (SEQK_DRY_RUN): ${estimate ? describeEstimate(estimate) : "no estimate could be made (see the cell's prompt builder)"}; no model was called`
}

// Benchmarks whose prompts this worker already wrote into a run directory (one record per task).
const promptsWritten = new Set<string>()

/**
 * What a cell adds to its line of cells.jsonl as it starts: its estimate (where one could be
 * made) and its tasks' provenance. The first cell of a benchmark in a run (per worker) also
 * records the tasks' prompts in tasks.jsonl, for exports.
 *
 * @example
 * const declared = { ...record, ...cellStartExtras(spec, plan, run) }
 */
export function cellStartExtras(
  spec: CellPlan,
  plan: CellStartPlan,
  run: { runId: string; runDir: string },
): { estimate?: CellEstimate; provenance: BenchmarkProvenance } {
  const estimate = cellEstimate(spec, plan, run.runId)
  const key = `${run.runDir}\u0000${spec.benchmark}`
  if (!promptsWritten.has(key)) {
    promptsWritten.add(key)
    // A prompt builder that throws fails the cell where it runs, with its own message; here it only costs the prompts.
    let records: TaskRecord[] = []
    try {
      records = spec.tasks.map((task) => ({
        schema: 'seqk.task/1',
        benchmark: spec.benchmark,
        taskId: task.id,
        contentHash: plan.taskHashes[task.id] ?? '',
        messages: withInstructions(
          spec.promptBuilder.initial(task, { budget: spec.budget, discloseBudget: spec.discloseBudget }),
          spec.instructions,
        ),
        promptBuilder: spec.promptBuilder.version,
        ...(task.expected !== undefined && !Array.isArray(task.expected) ? { target: String(task.expected) } : {}),
        ...(task.metadata ? { metadata: task.metadata } : {}),
      }))
    } catch {
      records = []
    }
    appendTaskRecords(join(run.runDir, TASKS_FILE), records)
  }
  return { ...(estimate ? { estimate } : {}), provenance: provenanceOf(spec.tasks) }
}
