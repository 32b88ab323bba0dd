import {
  checkChatResponse,
  recordCall,
  spentCalls,
  throwIfAborted,
  type CallContext,
  type ModelCall,
  type ChatMessage,
  type ChatModel,
  type ChatResponse,
  type ModelRole,
  type Usage,
} from '../models/chat-model.js'
import { UsageTally } from '../core/contract.js'
import { isBundledSimulation } from '../models/simulated.js'
import { redactName, redactText } from '../models/redact.js'
import { isComponentError } from '../core/component-error.js'
import { failureKindOf } from '../models/retry.js'
import type { FailureKind } from '../core/failure-kind.js'
import { checkVerdict, type Verdict, type Verifier } from '../verifiers/verifier.js'
import type { Attempt, TrajectoryError } from '../core/schemas.js'
import { isPromiseLike } from '../core/awaitable.js'
import type { Task } from './task.js'

/** An infrastructure failure at one stage of an attempt; ends the trajectory as `error`. */
export class StageError extends Error {
  /** Calls billed in this attempt before the failure (see withSpentCalls). */
  readonly calls: ModelCall[]
  constructor(
    readonly stage: TrajectoryError['stage'],
    readonly attempt: number,
    cause: unknown,
    spentBefore: readonly ModelCall[] = [],
  ) {
    // Stored in every artifact: a gateway that echoes the request's headers must not leak the key.
    super(redactText(cause instanceof Error ? cause.message : String(cause)), { cause })
    this.name = 'StageError'
    this.calls = [...spentBefore, ...spentCalls(cause)]
    this.kind = failureKindOf(cause)
  }

  /** What kind of failure a model call ended with, when it was one (see FAILURE_FIXES). */
  readonly kind: FailureKind | undefined

  /** The trajectory's error record; `calls` only when something was spent, to keep artifacts small. */
  toJSON(): TrajectoryError {
    return {
      stage: this.stage,
      attempt: this.attempt,
      message: this.message,
      ...(this.kind ? { kind: this.kind } : {}),
      ...(this.calls.length > 0 ? { calls: this.calls } : {}),
    }
  }
}

/** Sum of two costs where null means "unknown": unknown stays unknown. */
export function addCost(a: number | null, b: number | null | undefined): number | null {
  return a === null || b === null || b === undefined ? null : a + b
}

/**
 * The StageError for a failure at `stage`, keeping the calls already billed in this attempt
 * (`spentBefore`) and those the error carries. An abort (test timeout, Ctrl-C) is rethrown as it
 * is instead: it ends the whole cell, not one trajectory. So is a ComponentError (a component
 * nested in this stage, such as a critic's or a grader's chat model, returned a malformed value):
 * a bug in user code fails the cell, it is not an infrastructure error (see ComponentError). Callers `throw stageFailure(...)` from
 * their own `catch`, so the common path (no failure) pays for no wrapper.
 *
 * @example
 * try { verdict = await verifier.verify(task, answer, { signal, attempt, repeat }) }
 * catch (error) { throw stageFailure('verifier', attempt, signal, error) }
 */
export function stageFailure(
  stage: TrajectoryError['stage'],
  attempt: number,
  signal: AbortSignal | undefined,
  error: unknown,
  spentBefore?: readonly ModelCall[],
): StageError {
  throwIfAborted(signal)
  if (isComponentError(error)) throw error
  return new StageError(stage, attempt, error, spentBefore)
}

/**
 * One actor call plus its verification: the shared step of both protocols, as the attempt's record.
 * What the actor and the verifier return is checked (checkChatResponse, checkVerdict): a value
 * outside its contract throws a ComponentError that fails the cell (never a pass, never a silent
 * failure); an actor or verifier that throws ends the trajectory as an infrastructure error.
 */
export async function proposeAndVerify(input: {
  actor: ChatModel
  verifier: Verifier
  task: Task
  messages: ChatMessage[]
  context: CallContext
  signal?: AbortSignal
  /** Calls this attempt made before the actor's (a summariser's): kept if a later stage fails. */
  spentBefore?: readonly ModelCall[]
}): Promise<Attempt> {
  const { actor, verifier, task, messages, context, signal, spentBefore = [] } = input
  throwIfAborted(signal)
  let response: ChatResponse
  try {
    response = await actor.chat({ messages, context, signal })
  } catch (error) {
    throw stageFailure('actor', context.attempt, signal, error, spentBefore)
  }
  // Outside the try: a malformed completion is the model's bug, not an infrastructure error.
  response = checkChatResponse(actor, 'actor', response, context)
  let graded: unknown
  try {
    const origin = isBundledSimulation(actor) ? 'bundled-simulation' : 'model'
    const verifying = verifier.verify(task, response.text, {
      signal,
      attempt: context.attempt,
      repeat: context.repeat,
      origin,
      ...(response.workspace ? { workspace: response.workspace } : {}),
      ...(response.episode ? { episode: response.episode } : {}),
    })
    graded = isPromiseLike(verifying) ? await verifying : verifying
  } catch (error) {
    // A verifier that fails after the actor answered must not lose the actor's spend.
    throw stageFailure('verifier', context.attempt, signal, error, [...spentBefore, recordCall('actor', response)])
  }
  const checked: Verdict = checkVerdict(verifier, graded, context)
  const { calls: graderCalls, ...verdict } = checked
  // Every recorded verdict carries its score: a verifier that gives none is binary (1 or 0).
  if (verdict.score === undefined) verdict.score = verdict.pass ? 1 : 0
  return {
    index: context.attempt,
    answer: response.text,
    verdict,
    // A grader's calls count like any helper's: per role, in the attempt's totals (a fresh array: checkVerdict parsed it).
    helperCalls: graderCalls ?? [],
    finishReason: response.finishReason,
    usage: response.usage,
    latencyMs: response.latencyMs,
    costUsd: response.costUsd ?? null,
    costUsdWithoutCache: response.costUsdWithoutCache ?? response.costUsd ?? null,
    replayed: response.replayed ?? false,
    ...(response.batched
      ? { batched: true, costUsdAtListPrice: response.costUsdAtListPrice ?? null }
      : response.batched === false
        ? { batched: false }
        : {}),
    ...(response.cutAtChars !== undefined ? { cutAtChars: response.cutAtChars } : {}),
    ...(response.servedModel ? { servedModel: redactName(response.servedModel) } : {}),
    ...(response.episode ? { episode: response.episode } : {}),
    // Set by the protocol: sequential fills both after the attempt; independent keeps null.
    feedback: null,
    unmodified: null,
  }
}

export interface Totals {
  /** What the calls reported, added; null when none of them reported usage. */
  usage: Usage | null
  /** Calls whose reply reported no usage. */
  usageUnknownCalls: number
  costUsd: number | null
  costUsdWithoutCache: number | null
  /** Per role (actor, critic, grader, summariser): usage and cost. */
  byRole: Partial<
    Record<ModelRole, { usage: Usage | null; usageUnknownCalls: number; costUsd: number | null; calls: number }>
  >
  replayedCalls: number
  calls: number
  /** The calls sent through a batch API: how many, what they cost, and what they would have at list price. */
  batch: { calls: number; costUsd: number | null; listCostUsd: number | null }
}

/**
 * Adds a list of attempts' calls, actor, helpers and the LLM revision annotator's (stored on its
 * record), and the calls of an attempt that failed part way (`unfinished`), in total and per role
 * (pure: only its own result is mutated). Usage a reply did not report is counted, never added
 * as zero.
 */
export function totals(attempts: readonly Attempt[], unfinished: readonly ModelCall[] = []): Totals {
  const out: Totals = {
    usage: null,
    usageUnknownCalls: 0,
    costUsd: 0,
    costUsdWithoutCache: 0,
    byRole: {},
    replayedCalls: 0,
    calls: 0,
    batch: { calls: 0, costUsd: 0, listCostUsd: 0 },
  }
  const all = new UsageTally()
  const byRole = new Map<ModelRole, UsageTally>()
  const add = (role: ModelRole, call: Parameters<typeof addCall>[2]) => {
    all.add(call.usage)
    if (!byRole.has(role)) byRole.set(role, new UsageTally())
    byRole.get(role)!.add(call.usage)
    addCall(out, role, call)
  }
  for (const a of attempts) {
    add('actor', a)
    for (const call of a.helperCalls) add(call.role, call)
    if (a.annotation) for (const call of a.annotation.calls ?? []) add(call.role, call)
  }
  for (const call of unfinished) add(call.role, call)
  ;({ usage: out.usage, unknownCalls: out.usageUnknownCalls } = all.sum())
  for (const [role, tally] of byRole)
    ({ usage: out.byRole[role]!.usage, unknownCalls: out.byRole[role]!.usageUnknownCalls } = tally.sum())
  return out
}

/**
 * A trajectory's usage and cost: {@link totals} without the per-role split, for every trajectory's
 * record. It is what the trajectory spent, the annotator's calls included; the protocol's cost at
 * k (`costCurve`) counts only what running it takes (actor and helpers), not its analysis.
 */
export function spend(
  attempts: readonly Attempt[],
  unfinished: readonly ModelCall[] = [],
): { usage: Usage | null; usageUnknownCalls: number; costUsd: number | null } {
  const tally = new UsageTally()
  let costUsd: number | null = 0
  const add = (call: { usage: Usage | null; costUsd: number | null }) => {
    tally.add(call.usage)
    costUsd = addCost(costUsd, call.costUsd)
  }
  for (const a of attempts) {
    add(a)
    for (const call of a.helperCalls) add(call)
    for (const call of a.annotation?.calls ?? []) add(call)
  }
  for (const call of unfinished) add(call)
  const { usage, unknownCalls } = tally.sum()
  return { usage, usageUnknownCalls: unknownCalls, costUsd }
}

/** Adds one call into `out`, in total and for its role. */
function addCall(
  out: Totals,
  role: ModelRole,
  call: {
    usage: Usage | null
    costUsd: number | null
    costUsdWithoutCache: number | null
    replayed: boolean
    batched?: boolean
    costUsdAtListPrice?: number | null
  },
): void {
  if (call.batched) {
    out.batch.calls++
    out.batch.costUsd = addCost(out.batch.costUsd, call.costUsd)
    out.batch.listCostUsd = addCost(out.batch.listCostUsd, call.costUsdAtListPrice ?? null)
  }
  out.costUsd = addCost(out.costUsd, call.costUsd)
  out.costUsdWithoutCache = addCost(out.costUsdWithoutCache, call.costUsdWithoutCache)
  out.calls++
  if (call.replayed) out.replayedCalls++
  const r = (out.byRole[role] ??= { usage: null, usageUnknownCalls: 0, costUsd: 0, calls: 0 })
  r.costUsd = addCost(r.costUsd, call.costUsd)
  r.calls++
}
