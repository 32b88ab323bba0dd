import { addUsage, throwIfAborted, type CallContext, type ChatMessage, type ChatModel, type Usage, ZERO_USAGE } from '../models/chat-model.js'
import type { Verifier } from '../verifiers/verifier.js'
import type { Attempt, TrajectoryError } from '../artifacts/schemas.js'
import type { Task } from './task.js'

/** An infrastructure failure at one stage of an attempt; ends the trajectory as `error`. */
export class StageError extends Error {
  constructor(
    readonly stage: TrajectoryError['stage'],
    readonly attempt: number,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause })
    this.name = 'StageError'
  }
}

/** Sum of two costs where null means "unknown": unknown stays unknown. */
export function addCost(a: number | null, b: number | null | undefined): number | null {
  return a === null || b === null || b === undefined ? null : a + b
}

/** Runs `fn`, turning any failure other than an abort into a StageError for `stage`. */
export async function atStage<T>(stage: TrajectoryError['stage'], attempt: number, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    // An abort (test timeout, Ctrl-C) ends the whole cell, not one trajectory.
    throwIfAborted(signal)
    throw new StageError(stage, attempt, error)
  }
}

/** One actor call plus its verification: the shared step of both protocols. */
export async function proposeAndVerify(input: {
  actor: ChatModel
  verifier: Verifier
  task: Task
  messages: ChatMessage[]
  context: CallContext
  signal?: AbortSignal
}): Promise<Omit<Attempt, 'feedback' | 'overhead' | 'unmodified'>> {
  const { actor, verifier, task, messages, context, signal } = input
  throwIfAborted(signal)
  const response = await atStage('actor', context.attempt, signal, () => actor.chat({ messages, context, signal }))
  const verdict = await atStage('verifier', context.attempt, signal, () => verifier.verify(task, response.text, { signal }))
  return {
    index: context.attempt,
    answer: response.text,
    verdict,
    finishReason: response.finishReason,
    usage: response.usage,
    latencyMs: response.latencyMs,
    costUsd: response.costUsd ?? null,
  }
}

/** Total usage and cost of a list of attempts, helper calls included. */
export function totals(attempts: readonly Attempt[]): { usage: Usage; costUsd: number | null } {
  let usage = ZERO_USAGE
  let costUsd: number | null = 0
  for (const a of attempts) {
    usage = addUsage(addUsage(usage, a.usage), a.overhead.usage)
    costUsd = addCost(addCost(costUsd, a.costUsd), a.overhead.costUsd)
  }
  return { usage, costUsd }
}
