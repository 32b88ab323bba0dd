import type { ChatModel, ModelDescriptor } from '../models/chat-model.js'
import { redactUrl } from '../models/redact.js'
import { SharedScopes } from '../models/call-signal.js'
import type { FeedbackMode } from '../feedback/feedback-mode.js'
import type { Verifier } from '../verifiers/verifier.js'
import {
  TRAJECTORY_SCHEMA,
  type CellSummary,
  type ErrorPolicy,
  type PerturbationRecord,
  type Protocol,
  type Trajectory,
} from '../core/schemas.js'
import { isoTimestamp } from '../core/timestamp.js'
import { spend } from './attempt.js'
import { mapConcurrent } from './concurrency.js'
import { summariseCell, type Thresholds } from './cell-summary.js'
import { benchmarkContentHash, benchmarkHashes, protocolFingerprint } from './fingerprint.js'
import type { HistoryPolicy } from './history.js'
import { runIndependent } from './independent.js'
import type { PromptBuilder } from './prompt-builder.js'
import { reuseKey } from './resume.js'
import { revisionSample, type AnnotateSpec } from './revision-annotation.js'
import { runSequential, type TrajectoryOutcome } from './sequential.js'
import type { Task } from './task.js'
import { CostMeter, memoryLedger, type CapScopeSpec, type CostCapLimits, type SpendLedger } from './cost-cap.js'

/** Everything one cell (actor × feedback mode, or actor × independent) needs to run. */
export interface CellSpec {
  runId: string
  /** The benchmark (seqEval block) name. */
  benchmark: string
  cellId: string
  tasks: readonly Task[]
  actor: ChatModel
  /**
   * The variant of the eval's subject this cell runs (seqEval's `variants`): its name is the
   * cell's `actorId` in the summary and trajectories, and the run compares it with its siblings.
   */
  variant?: string
  /** The rewording of the prompt this cell runs (seqEval's `perturb`): its builder is `promptBuilder`. */
  perturbation?: PerturbationRecord
  verifier: Verifier
  /** The feedback mode and its name; null runs independent sampling (Pass@K). */
  mode: { name: string; feedback: FeedbackMode } | null
  history: HistoryPolicy
  promptBuilder: PromptBuilder
  /**
   * The eval's instructions (a system prompt sent before each task's own messages): part of the
   * subject, so editing them is a change of subject, not of every task.
   */
  instructions?: string
  budget: number
  repeats: number
  discloseBudget: boolean
  /** At most this many trajectories run at once (attempts within one always run in order). */
  concurrency: number
  thresholds: Thresholds
  /** How errored trajectories enter the rates: `censored` (default in seqEval), `failures` or `left-out`. */
  errors: ErrorPolicy
  /**
   * Feedback after the last failed attempt too (the reference protocol's critic after the last
   * failure, so an extended run goes on from it). Not part of the protocol: the actor sees nothing
   * of it within the budget.
   */
  feedbackAfterLast?: boolean
  /** Tasks a `seqk stability` report saw flip for this verifier (seqEval's `stability`); the summary says so. */
  knownUnstable?: readonly string[]
  signal?: AbortSignal
  /** Called as each trajectory ends, in completion order: append it to the artifact here. */
  onTrajectory?: (trajectory: Trajectory) => void | Promise<void>
  /**
   * Trajectories that already ended under this protocol (a resumed run, see `planResume`), by
   * `reuseKey(taskId, repeat)`: returned as they are, never run again nor passed to `onTrajectory`.
   */
  reuse?: ReadonlyMap<string, Trajectory>
  /**
   * Trajectories that ended under this protocol with a smaller budget (an extended run, see
   * `planResume`), by `reuseKey(taskId, repeat)`: each goes on from its record to this budget (a
   * solved sequential one is kept as it is), and is written again under this cell's protocol.
   */
  extend?: ReadonlyMap<string, Trajectory>
  /**
   * Run only these tasks (by id): a shard's share of the benchmark (see `SEQK_SHARD`). The protocol
   * is still the whole benchmark's, so every shard's trajectories belong to one cell.
   */
  only?: ReadonlySet<string>
  /**
   * How revisions are annotated (paper §5.2.2; default `derived`). Not part of the protocol: it
   * changes nothing the actor sees, and each annotation names its annotator, model and prompt.
   */
  annotate?: AnnotateSpec
  /**
   * Cost caps (not part of the protocol: they decide how much is measured, not how): the cell's own
   * limits, and the run's with the ledger every cell of the run charges. Once one is reached no new
   * trajectory starts and running ones stop at their next model call, as `capped` trajectories.
   */
  costCap?: {
    cell?: CostCapLimits
    run?: { limits: CostCapLimits; ledger: SpendLedger }
    shards?: { limits: CostCapLimits; ledger: SpendLedger }
  }
}

/** What `runCell` returns: the cell's summary and its trajectories. */
export interface CellResult {
  summary: CellSummary
  /** In (task, repeat) order, whatever order they finished in. */
  trajectories: Trajectory[]
}

/** The protocol of a cell: every field that defines its numbers. */
export function cellProtocol(
  spec: Pick<
    CellSpec,
    | 'benchmark'
    | 'tasks'
    | 'actor'
    | 'verifier'
    | 'mode'
    | 'history'
    | 'promptBuilder'
    | 'instructions'
    | 'budget'
    | 'discloseBudget'
    | 'errors'
  >,
  /** The benchmark's content hash when already computed (see benchmarkHashes). */
  contentHash: string = benchmarkContentHash(spec.tasks),
): Protocol {
  const sequential = spec.mode !== null
  return {
    schema: 'seqk.protocol/1',
    kind: sequential ? 'sequential' : 'independent',
    benchmark: { name: spec.benchmark, tasks: spec.tasks.length, contentHash },
    verifier: { name: spec.verifier.name, version: spec.verifier.version, settings: spec.verifier.settings },
    feedback: spec.mode
      ? {
          kind: spec.mode.feedback.kind,
          name: spec.mode.feedback.name,
          version: spec.mode.feedback.version,
          settings: spec.mode.feedback.settings,
        }
      : null,
    history: sequential ? { name: spec.history.name, settings: spec.history.settings } : null,
    promptBuilder: spec.promptBuilder.version,
    actor: storedDescriptor(spec.actor.descriptor),
    budget: spec.budget,
    budgetDisclosed: sequential && spec.discloseBudget,
    errorsCountedAsFailures: spec.errors === 'failures',
    errors: spec.errors,
    // Absent when the eval gives none, so the fingerprints of evals without them do not move.
    ...(spec.instructions !== undefined ? { instructions: spec.instructions } : {}),
  }
}

/**
 * The actor's descriptor as the protocol stores it: string parameters without credentials (a
 * custom model's base URL with `user:pass@` or `?api-key=`, a key passed as a parameter). A
 * parameter with none is kept as it is, so fingerprints do not move. Every other field of the
 * descriptor (an app's `version`) is kept whole: the subject is the whole descriptor.
 */
function storedDescriptor(descriptor: ModelDescriptor): Protocol['actor'] {
  const params = Object.fromEntries(
    Object.entries(descriptor.params).map(([k, v]) => [k, typeof v === 'string' ? redactUrl(v) : v]),
  )
  // Undefined fields are left out, as JSON leaves them (the fingerprint is the same read back).
  const fields = Object.entries(descriptor).filter(([, v]) => v !== undefined)
  return { ...Object.fromEntries(fields), params } as Protocol['actor']
}

/**
 * Runs one cell: every task × repeat trajectory (tasks concurrently up to `concurrency`, attempts
 * in order), hands each finished trajectory to `onTrajectory` as soon as it ends, then computes
 * the cell's metrics and threshold verdicts. The lower-level path for users writing their own
 * tests; `seqEval` calls it once per cell.
 *
 * @example
 * const { summary } = await runCell({ ...spec, mode: { name: 'verifier', feedback: feedback.verifier() } })
 * expect(summary).toReachSeqAt(5, 0.8)
 */
export async function runCell(spec: CellSpec): Promise<CellResult> {
  const started = Date.now()
  const hashes = benchmarkHashes(spec.tasks)
  const protocol = cellProtocol(spec, hashes.benchmark)
  const fingerprint = protocolFingerprint(protocol)
  // Stops the trajectories still in flight when one fails for good (or the test is aborted):
  // a failed cell must not keep spending model calls in the background.
  const stop = new AbortController()
  // Trajectories share signals linked to `stop` (see call-signal.ts): one AbortController per 16.
  const scopes = new SharedScopes(stop.signal)
  const forward = () => stop.abort(spec.signal?.reason)
  if (spec.signal?.aborted) forward()
  else spec.signal?.addEventListener('abort', forward, { once: true })
  const tasks = spec.only ? spec.tasks.filter((t) => spec.only!.has(t.id)) : spec.tasks
  // A sample is drawn over the whole benchmark, so every shard draws its share of the same one.
  const annotate =
    spec.annotate?.kind === 'llm'
      ? {
          kind: 'llm' as const,
          annotator: spec.annotate.annotator,
          sample:
            spec.annotate.sample === undefined
              ? undefined
              : revisionSample(
                  spec.tasks.map((t) => t.id),
                  spec.repeats,
                  spec.budget,
                  spec.annotate.sample,
                ),
        }
      : spec.annotate
  const meter = costMeterOf(spec.costCap)
  const jobs = tasks.flatMap((task) =>
    Array.from({ length: spec.repeats }, (_, repeat) => async (): Promise<Trajectory> => {
      const kept = spec.reuse?.get(reuseKey(task.id, repeat))
      if (kept) {
        // A kept trajectory from another protocol would mix two runs' numbers into one.
        if (kept.fingerprint !== fingerprint || kept.taskId !== task.id || kept.repeat !== repeat)
          throw new Error(
            `${spec.cellId}: the trajectory kept for task ${task.id}, repeat ${repeat} is not this cell's (fingerprint ${kept.fingerprint}, task ${kept.taskId}, repeat ${kept.repeat}; expected ${fingerprint}): build \`reuse\` with planResume`,
          )
        return kept
      }
      const startedMs = Date.now()
      const from = spec.extend?.get(reuseKey(task.id, repeat))
      if (from && (from.taskId !== task.id || from.repeat !== repeat || from.protocol.budget >= spec.budget))
        throw new Error(
          `${spec.cellId}: the trajectory to extend for task ${task.id}, repeat ${repeat} is not one of this cell's at a smaller budget (task ${from.taskId}, repeat ${from.repeat}, budget ${from.protocol.budget} → ${spec.budget}): build \`extend\` with planResume`,
        )
      // A reached cap starts no trajectory: it is recorded as capped, with no attempt.
      const notStarted = meter?.stop(0)
      let outcome: TrajectoryOutcome
      if (from && spec.mode && from.status === 'solved') {
        // Solved within the smaller budget: a run at this budget would have stopped there too.
        outcome = { attempts: from.attempts, firstSuccess: from.firstSuccess, error: null }
      } else if (notStarted) {
        outcome = { attempts: [], firstSuccess: null, error: null, capped: notStarted }
      } else {
        // Providers hand this signal to the SDKs as it is (see call-signal.ts).
        const scope = scopes.acquire()
        try {
          outcome = spec.mode
            ? await runSequential({
                task,
                repeat,
                actor: spec.actor,
                verifier: spec.verifier,
                feedback: spec.mode.feedback,
                history: spec.history,
                promptBuilder: spec.promptBuilder,
                instructions: spec.instructions,
                budget: spec.budget,
                discloseBudget: spec.discloseBudget,
                cell: fingerprint,
                annotate,
                ...(spec.feedbackAfterLast ? { feedbackAfterLast: true } : {}),
                ...(from ? { resumeFrom: from.attempts } : {}),
                signal: scope.signal,
                meter,
              })
            : await runIndependent({
                task,
                repeat,
                actor: spec.actor,
                verifier: spec.verifier,
                promptBuilder: spec.promptBuilder,
                instructions: spec.instructions,
                budget: spec.budget,
                cell: fingerprint,
                signal: scope.signal,
                meter,
                ...(from ? { resumeFrom: from.attempts } : {}),
              })
        } finally {
          scope.close()
        }
        // What an attempt that failed part way had spent counts against the caps too.
        if (outcome.error?.calls) meter?.charge(outcome.error.calls)
      }
      const { usage, usageUnknownCalls, costUsd } = spend(outcome.attempts, outcome.error?.calls)
      const trajectory: Trajectory = {
        schema: TRAJECTORY_SCHEMA,
        runId: spec.runId,
        benchmark: spec.benchmark,
        cellId: spec.cellId,
        actorId: spec.variant ?? spec.actor.id,
        mode: spec.mode?.name ?? 'independent',
        fingerprint,
        protocol,
        taskId: task.id,
        repeat,
        status: outcome.capped
          ? 'capped'
          : outcome.error
            ? 'error'
            : outcome.firstSuccess !== null
              ? 'solved'
              : 'failed',
        firstSuccess: outcome.firstSuccess,
        error: outcome.error,
        attempts: outcome.attempts,
        ...(outcome.capped ? { capped: outcome.capped } : {}),
        ...(from ? { extendedFrom: from.extendedFrom ?? from.protocol.budget } : {}),
        usage,
        ...(usageUnknownCalls > 0 ? { usageUnknownCalls } : {}),
        costUsd,
        startedAt: from ? from.startedAt : isoTimestamp(startedMs),
        durationMs: (from?.durationMs ?? 0) + Date.now() - startedMs,
      }
      // Awaited only when there is one: a bare `await undefined` still costs a turn of the queue.
      if (spec.onTrajectory) await spec.onTrajectory(trajectory)
      return trajectory
    }),
  )
  let trajectories: Trajectory[]
  try {
    trajectories = await mapConcurrent(jobs, spec.concurrency, (job) => job())
  } catch (error) {
    stop.abort(error)
    throw error
  } finally {
    spec.signal?.removeEventListener('abort', forward)
    scopes.close()
  }
  const summary = summariseCell({
    runId: spec.runId,
    benchmark: spec.benchmark,
    cellId: spec.cellId,
    actorId: spec.variant ?? spec.actor.id,
    ...(spec.variant !== undefined ? { variant: spec.variant } : {}),
    ...(spec.perturbation !== undefined ? { perturbation: spec.perturbation } : {}),
    mode: spec.mode?.name ?? 'independent',
    protocol,
    fingerprint,
    taskIds: tasks.map((t) => t.id),
    taskHashes: hashes.tasks,
    repeats: spec.repeats,
    trajectories,
    thresholds: spec.thresholds,
    errors: spec.errors,
    durationMs: Date.now() - started,
    ...(spec.knownUnstable ? { knownUnstable: spec.knownUnstable } : {}),
  })
  return { summary, trajectories }
}

/** The meter of a cell's caps, or undefined when it has none (the loop then checks nothing). */
function costMeterOf(caps: CellSpec['costCap']): CostMeter | undefined {
  const scopes: CapScopeSpec[] = []
  if (caps?.cell) scopes.push({ scope: 'cell', limits: caps.cell, ledger: memoryLedger() })
  if (caps?.run) scopes.push({ scope: 'run', limits: caps.run.limits, ledger: caps.run.ledger })
  if (caps?.shards) scopes.push({ scope: 'shards', limits: caps.shards.limits, ledger: caps.shards.ledger })
  const meter = new CostMeter(scopes)
  return meter.active ? meter : undefined
}
