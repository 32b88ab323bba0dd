import { appendFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, recordArtifact, test, TestRunner } from 'vitest'
import type { ChatModel } from '../models/chat-model.js'
import { cellProtocol, runCell, type CellResult, type CellSpec } from '../protocol/cell.js'
import { benchmarkHashes, protocolFingerprint } from '../protocol/fingerprint.js'
import type { CellStartPlan } from './artifact-types.js'
import { fullHistory, lastHistory, summaryHistory, type HistoryPolicy } from '../protocol/history.js'
import { defaultPromptBuilder } from '../protocol/prompt-builder.js'
import { perturbedPromptBuilder } from '../protocol/perturbed-prompt.js'
import { appendTrajectory } from '../artifacts/trajectories-file.js'
import { TRAJECTORIES_FILE } from '../artifacts/run-dir.js'
import { appendCellRecord, CELLS_FILE, type CellStartRecord } from '../artifacts/cells-file.js'
import { resolveOptions, SeqEvalOptionsError, type ResolvedOptions, type SeqEvalOptions } from './options.js'
import { currentRun, resumedTrajectories } from './run-context.js'
import { planResume } from '../protocol/resume.js'
import { shardFromEnv, shardOfTask } from '../protocol/shard.js'
import { applyBaseline, updateMode } from './baseline.js'
import { gateNoteLines } from '../protocol/gate-notes.js'
import { onRetry, retryNoticeText } from '../models/retry.js'
import { batchNoticeText, onBatchProgress } from '../models/batch/gatherer.js'
import { cellStartExtras, dryRunNote } from './cell-estimate.js'
import { cellVerdict, storedVerdict, type Check } from '../protocol/verdict.js'
import { TEXT_WIDTH, wrapLine, wrapText } from '../core/text-layout.js'
import { cellCostCap } from './cost-caps.js'
import { preflight } from './preflight.js'
import './artifact-types.js'

/** Retry notices a cell records at most this often (ms). */
const NOTICE_INTERVAL_MS = 2000

/**
 * Raised by a cell test whose thresholds or baseline gate failed; the message lists each failed
 * check once (a gate's further findings indented under it), as every other output counts them.
 * Its stack is the eval file's `seqEval(…)` line, where the thresholds were declared.
 */
export class SeqkThresholdError extends Error {
  constructor(cellId: string, failed: readonly Check[], declaredAt?: string) {
    // Within 120 columns as everything seqk prints (Vitest adds nothing to a message's lines).
    const lines = failed.flatMap((c) => [
      ...wrapLine(`  - ${c.message}`, TEXT_WIDTH, 2),
      ...[...c.notes, ...c.details].flatMap((d) => wrapLine(`    ${d}`, TEXT_WIDTH, 2)),
    ])
    super(`${cellId}: ${failed.length === 1 ? 'a check' : `${failed.length} checks`} failed\n${lines.join('\n')}`)
    this.name = 'SeqkThresholdError'
    if (declaredAt) this.stack = `${this.name}: ${this.message}\n${declaredAt}`
  }
}

/** This package's own sources (src/ or dist/): frames in them are not where a user declared anything. */
const OWN_DIR = fileURLToPath(new URL('..', import.meta.url))

/**
 * The stack frame of the line that called `seqEval` (the eval file's), for the errors its cells
 * throw: a failed threshold points where it was declared, not into this package.
 */
function callerFrame(stack: string | undefined): string | undefined {
  const frames = (stack ?? '').split('\n').filter((l) => /^\s+at /.test(l))
  return frames.find((f) => !f.includes(OWN_DIR) && !/[\\/]node_modules[\\/]/.test(f) && !f.includes('node:'))
}

function historyFor(options: ResolvedOptions, actor: ChatModel): HistoryPolicy {
  const h = options.history
  if (h === 'full') return fullHistory
  if (h === 'last') return lastHistory
  // The actor summarises its own history unless a summariser model is given.
  if (h === 'summary') return summaryHistory(options.summariser ?? actor)
  return h
}

/** The cell id shown as the test name and used in artifacts: `<actor> · <mode>`. */
export function cellId(actorId: string, mode: string): string {
  return `${actorId} · ${mode}`
}

/** A cell as declared, before a run gives it a run id, a signal and an artifact sink. */
export type CellPlan = Omit<CellSpec, 'runId' | 'signal' | 'onTrajectory'>

/**
 * Every cell of a resolved seqEval, in declaration order: per subject (each actor, or each variant),
 * each mode, then independent. A variant's cells are named by the variant (`<variant> · <mode>`).
 */
export function planCells(benchmark: string, options: ResolvedOptions): CellPlan[] {
  const subjects = options.variants
    ? options.variants.map((v) => ({ ...v, label: v.name, variant: v.name }))
    : options.actors.map((actor) => ({
        actor,
        label: actor.id,
        variant: undefined,
        instructions: options.instructions,
        promptBuilder: options.promptBuilder,
      }))
  // Each subject, then each of its rewordings (`perturb`): the same actor, the prompt reworded.
  const reworded = subjects.flatMap((s) => [
    s,
    ...(options.perturb ?? []).map((p) => ({
      ...s,
      label: `${s.label} ~ ${p.name}`,
      variant: `${s.label} ~ ${p.name}`,
      perturbation: { of: s.label, name: p.name, kind: p.kind, seed: p.seed },
      promptBuilder: perturbedPromptBuilder(s.promptBuilder ?? defaultPromptBuilder, p),
    })),
  ])
  return reworded.flatMap(({ actor, label, variant, instructions, promptBuilder, ...rest }) => {
    const perturbation = 'perturbation' in rest ? rest.perturbation : undefined
    const common = {
      benchmark,
      tasks: options.tasks,
      actor,
      ...(variant !== undefined ? { variant } : {}),
      ...(perturbation !== undefined ? { perturbation } : {}),
      verifier: options.verifier,
      history: historyFor(options, actor),
      promptBuilder: promptBuilder ?? defaultPromptBuilder,
      ...(instructions !== undefined ? { instructions } : {}),
      budget: options.budget,
      repeats: options.repeats,
      discloseBudget: options.discloseBudget,
      ...(options.feedbackAfterLast ? { feedbackAfterLast: true } : {}),
      concurrency: options.concurrency,
      errors: options.errors,
      ...(options.knownUnstable ? { knownUnstable: options.knownUnstable } : {}),
      ...(options.maxCostUsd !== undefined || options.maxTokens !== undefined
        ? { costCap: { cell: { maxCostUsd: options.maxCostUsd, maxTokens: options.maxTokens } } }
        : {}),
    }
    const cells: CellPlan[] = Object.entries(options.modes).map(([name, mode]) => ({
      ...common,
      cellId: cellId(label, name),
      mode: { name, feedback: mode.feedback },
      thresholds: mode.expect,
      annotate: mode.annotate,
    }))
    if (options.independent)
      cells.push({
        ...common,
        cellId: cellId(label, 'independent'),
        mode: null,
        thresholds: options.independent.expect,
      })
    return cells
  })
}

/** The benchmark names each test file (as Vitest collects it, once per run) has declared. */
const declaredNames = new WeakMap<object, Set<string>>()

/**
 * Refuses a second `seqEval` of one name in one file: its cells would be the first one's in every
 * output (a benchmark is its name), merged silently.
 */
function refuseDuplicateName(name: string): void {
  let file: object | undefined
  try {
    file = TestRunner.getCurrentSuite().file
  } catch {
    return
  }
  if (!file) return
  let names = declaredNames.get(file)
  if (!names) declaredNames.set(file, (names = new Set()))
  if (names.has(name))
    throw new TypeError(
      `seqEval(${JSON.stringify(name)}): a second seqEval with this name in this file; a benchmark is its name, so the two would merge into one in every output: give each its own name`,
    )
  names.add(name)
}

/**
 * Declares a benchmark as a Vitest `describe` with one test per cell (each actor × each feedback
 * mode, plus actor × independent sampling when `independent` is set). Each test runs every task ×
 * repeat trajectory, appends them to `trajectories.jsonl` as they end, puts the cell's summary on
 * `task.meta.seqk` for the reporter, and fails with a readable message when a threshold is missed.
 * Options are validated here, at declaration time.
 *
 * @example
 * seqEval('self-invoking python (fixtures)', {
 *   tasks,
 *   actors: [actors.simulated({ profile: 'reviser' })],
 *   verifier: verifiers.pythonTests(),
 *   budget: 5,
 *   repeats: 3,
 *   independent: true,
 *   modes: { verifier: { feedback: feedback.verifier(), expect: { seqAt: { 5: 0.8 } } } },
 * })
 */
export function seqEval(name: string, options: SeqEvalOptions): void {
  const declaredAt = callerFrame(new Error().stack)
  refuseDuplicateName(name)
  const resolved = resolveOptions(name, withBudgetFromEnv(name, options, process.env.SEQK_BUDGET))
  // One machine's share of every cell's tasks (task-level sharding): the same split everywhere.
  const shard = shardFromEnv(process.env)
  warnWithoutSetupFile()
  describe(name, () => {
    const plans = planCells(name, resolved)
    // Every cell of the eval, for matching a cell whose subject's id changed with its baseline.
    const refs = plans.map((p) => ({ cellId: p.cellId, mode: p.mode?.name ?? 'independent' }))
    for (const spec of plans) {
      const planned =
        (shard ? spec.tasks.filter((t) => shardOfTask(t.id, shard.count) === shard.index).length : spec.tasks.length) *
        spec.repeats
      test(
        spec.cellId,
        {
          timeout: resolved.timeout,
          meta: { seqkCell: { benchmark: name, cellId: spec.cellId, trajectories: planned } },
        },
        async (context) => {
          // A model that cannot run here (no key, and the eval opted into skipping) skips its cells with the reason.
          if (spec.actor.unavailable) return context.skip(`${spec.actor.id}: ${spec.actor.unavailable}`)
          const plan = planOf(spec, relative(process.cwd(), context.task.file.filepath))
          // SEQK_DRY_RUN: the cell's cost estimate instead of the cell.
          const dryRun = dryRunNote(spec, plan)
          if (dryRun !== undefined) return context.skip(dryRun)
          const run = currentRun()
          // The cell's and the run's caps (a USD cap for an actor with no price fails the cell here, before any call).
          const costCap = cellCostCap(spec.actor, spec.costCap?.cell, run)
          // What the verifier needs of this machine (Python, a sandbox), checked once before any call:
          // the cell that finds a problem fails with it (after its start is recorded, so every output
          // has it), the others skip naming that cell.
          const ready = await preflight(spec.verifier, spec.actor, `${name} › ${spec.cellId}`)
          if (ready.kind === 'skip') return context.skip(ready.note)
          const file = join(run.runDir, TRAJECTORIES_FILE)
          const only = shard
            ? new Set(spec.tasks.filter((t) => shardOfTask(t.id, shard.count) === shard.index).map((t) => t.id))
            : undefined
          // A resumed run keeps what had ended under this protocol and runs only the rest; at a larger
          // budget (an extended run) it continues what had ended at the smaller one.
          const { reuse, extend } = planResume(
            resumedTrajectories(run),
            { benchmark: name, cellId: spec.cellId, ...plan },
            run.runDir,
          )
          const baselinePath = resolved.baseline
            ? resolve(dirname(context.task.file.filepath), resolved.baseline.file)
            : null
          const gateOptions = resolved.baseline
            ? {
                margin: resolved.baseline.margin,
                maxDrop: resolved.baseline.maxDrop,
                ks: Object.keys(spec.thresholds.seqAt ?? {}).map(Number),
                seed: resolved.seed,
              }
            : null
          // What the cell declared, beside its trajectories: `seqk summarize` recomputes it from the two files.
          const cellsFile = join(run.runDir, CELLS_FILE)
          // The file exists from the cell's start, even for a shard with none of its tasks.
          appendFileSync(file, '')
          const record = { schema: 'seqk.cell/1' as const, runId: run.runId, benchmark: name, cellId: spec.cellId }
          const declared: CellStartRecord = {
            ...record,
            type: 'start',
            actorId: plan.actorId,
            ...(plan.variant !== undefined ? { variant: plan.variant } : {}),
            ...(plan.perturbation !== undefined ? { perturbation: plan.perturbation } : {}),
            mode: plan.mode,
            protocol: plan.protocol,
            fingerprint: plan.fingerprint,
            taskIds: plan.taskIds,
            taskHashes: plan.taskHashes,
            repeats: plan.repeats,
            thresholds: plan.thresholds,
            errors: plan.errors,
            file: plan.file,
            ...(plan.knownUnstable ? { knownUnstable: plan.knownUnstable } : {}),
            baseline:
              baselinePath && gateOptions ? { file: relative(process.cwd(), baselinePath), ...gateOptions } : null,
            ...(shard ? { shard } : {}),
            ...cellStartExtras(spec, plan, run),
          }
          appendCellRecord(cellsFile, declared)
          // Carried in the artifact too, so --merge-reports can rebuild cells.jsonl on another machine.
          await recordArtifact(context.task, {
            type: 'seqk:cell-start',
            benchmark: name,
            cellId: spec.cellId,
            total: (only?.size ?? spec.tasks.length) * spec.repeats,
            plan,
            declared,
            ...(run.resume ? { reused: reuse.size } : {}),
          })
          if (ready.kind === 'fail') throw new Error(ready.message)
          // The reporter sees kept trajectories like new ones (progress, report, an unfinished cell's summary).
          for (const trajectory of reuse.values())
            await recordArtifact(context.task, { type: 'seqk:trajectory', trajectory, reused: true })
          // Retries and rate-limit waits while the cell runs, for live progress: the first at once,
          // then at most one every few seconds (the reporter prints fewer still).
          let lastNotice = Number.NEGATIVE_INFINITY
          const stopRetries = onRetry((notice) => {
            const now = Date.now()
            if (now - lastNotice < NOTICE_INTERVAL_MS) return
            lastNotice = now
            void recordArtifact(context.task, { type: 'seqk:notice', text: retryNoticeText(notice) }).catch(() => {})
          })
          // A batched actor's batches: every change of status (submitted, finalising, ended) at once, counts throttled.
          let lastBatch = ''
          const stopBatches = onBatchProgress((p) => {
            const now = Date.now()
            const changed = `${p.batchId}:${p.status}` !== lastBatch
            if (!changed && now - lastNotice < NOTICE_INTERVAL_MS) return
            lastBatch = `${p.batchId}:${p.status}`
            lastNotice = now
            void recordArtifact(context.task, { type: 'seqk:notice', text: batchNoticeText(p) }).catch(() => {})
          })
          const stopNotices = () => {
            stopRetries()
            stopBatches()
          }
          let result: CellResult
          try {
            result = await runCell({
              ...spec,
              runId: run.runId,
              costCap,
              reuse,
              extend,
              only,
              signal: context.signal,
              onTrajectory: async (trajectory) => {
                appendTrajectory(file, trajectory)
                await recordArtifact(context.task, { type: 'seqk:trajectory', trajectory })
              },
            })
          } finally {
            stopNotices()
          }
          const end = {
            ...record,
            type: 'end' as const,
            durationMs: result.summary.durationMs,
            ...(run.resume ? { kept: reuse.size } : {}),
          }
          if (shard) {
            // A shard's numbers cover a share of the tasks: thresholds and the baseline wait for `seqk merge`.
            appendCellRecord(cellsFile, { ...end, verdict: 'shard' })
            context.task.meta.seqk = { ...result.summary, thresholds: [], verdict: 'shard', shard, file: plan.file }
            return
          }
          let summary = result.summary
          try {
            if (baselinePath && gateOptions) {
              const gate = applyBaseline({
                path: baselinePath,
                benchmark: name,
                summary,
                mode: updateMode(context.expect.getState().snapshotState),
                gate: gateOptions,
                cells: refs,
              })
              if (gate.status === 'written' || gate.status === 'updated')
                await context.annotate(gate.messages.join('\n'), 'notice')
              // What a passing gate compared across and could not see, on Vitest's own result (a failing one throws it).
              const notes = gateNoteLines(spec.cellId, gate)
              if (gate.status === 'pass' && notes.length > 0) await context.annotate(notes.join('\n'), 'notice')
              summary = { ...summary, gate, verdict: storedVerdict({ ...summary, gate }) }
            }
          } catch (error) {
            // The cell ran to its end: its trajectories are whole, only its gate could not be read.
            appendCellRecord(cellsFile, end)
            throw error
          }
          // The same verdict every output derives: each failed check once, a root cause alone.
          const verdict = cellVerdict(summary)
          appendCellRecord(cellsFile, { ...end, verdict: verdict.status, failedChecks: verdict.failed.length })
          context.task.meta.seqk = { ...summary, file: relative(process.cwd(), context.task.file.filepath) }
          if (verdict.status === 'fail') throw new SeqkThresholdError(spec.cellId, verdict.failed, declaredAt)
        },
      )
    }
  })
}

/**
 * What the reporter needs to summarise this cell from its trajectories if it never finishes (the
 * cell-start artifact's `plan`).
 *
 * @example
 * const plan = planOf(spec, 'evals/code.eval.ts') // plan.fingerprint === the cell's trajectories' fingerprint
 */
export function planOf(spec: CellPlanInput, file: string): CellStartPlan {
  const hashes = benchmarkHashes(spec.tasks)
  const protocol = cellProtocol(spec, hashes.benchmark)
  return {
    actorId: spec.variant ?? spec.actor.id,
    ...(spec.variant !== undefined ? { variant: spec.variant } : {}),
    ...(spec.perturbation !== undefined ? { perturbation: spec.perturbation } : {}),
    mode: spec.mode?.name ?? 'independent',
    protocol,
    fingerprint: protocolFingerprint(protocol),
    taskIds: spec.tasks.map((t) => t.id),
    taskHashes: hashes.tasks,
    repeats: spec.repeats,
    thresholds: spec.thresholds,
    errors: spec.errors,
    file,
    ...(spec.knownUnstable ? { knownUnstable: [...spec.knownUnstable] } : {}),
  }
}

type CellPlanInput = Parameters<typeof cellProtocol>[0] &
  Pick<CellSpec, 'repeats' | 'thresholds' | 'errors' | 'knownUnstable' | 'variant' | 'perturbation'>

/**
 * The options with the budget `SEQK_BUDGET` extends them to (`seqk resume --budget K`): an integer
 * at least the eval's own budget. Unset, the options as they are.
 *
 * @example
 * withBudgetFromEnv('bench', { ...options, budget: 3 }, '5').budget // => 5
 */
export function withBudgetFromEnv(name: string, options: SeqEvalOptions, value: string | undefined): SeqEvalOptions {
  if (value === undefined || value === '') return options
  const budget = Number(value)
  const own = (options as { budget?: unknown }).budget
  if (!/^[1-9]\d*$/.test(value.trim()))
    throw new SeqEvalOptionsError(name, [
      `SEQK_BUDGET: ${JSON.stringify(value)} is not a budget; give an integer K >= 1`,
    ])
  if (typeof own === 'number' && budget < own)
    throw new SeqEvalOptionsError(name, [
      `SEQK_BUDGET: ${budget} is below the eval's budget ${own}: a run is extended, never cut; unset SEQK_BUDGET`,
    ])
  return { ...options, budget }
}

let warnedSetup = false

/** Says once per worker when 'vitest-seqk/setup' is missing (the matchers would not exist). */
function warnWithoutSetupFile(): void {
  if (warnedSetup || process.env.SEQK_QUIET || (globalThis as Record<symbol, unknown>)[Symbol.for('vitest-seqk.setup')])
    return
  warnedSetup = true
  console.warn(
    wrapText(
      "vitest-seqk: the setup file is not loaded, so expect(summary).toReachSeqAt() and toReachPassAt() do not exist. Add 'vitest-seqk/setup' to test.setupFiles.",
    ),
  )
}
