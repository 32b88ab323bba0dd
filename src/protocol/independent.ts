import type { ChatModel } from '../models/chat-model.js'
import type { Verifier } from '../verifiers/verifier.js'
import type { Attempt } from '../core/schemas.js'
import { StageError, proposeAndVerify } from './attempt.js'
import { checkPrompt, withInstructions, type PromptBuilder } from './prompt-builder.js'
import type { TrajectoryOutcome } from './sequential.js'
import type { Task } from './task.js'
import type { AttemptBudget, CostMeter } from './cost-cap.js'
import { cappedOutcome } from './sequential.js'

export interface IndependentInput {
  task: Task
  repeat: number
  actor: ChatModel
  verifier: Verifier
  promptBuilder: PromptBuilder
  /** The eval's instructions, a system message before the prompt (see withInstructions). */
  instructions?: string
  budget: number
  /** The cell's fingerprint, passed to the actor's call context. */
  cell?: string
  signal?: AbortSignal
  /** The cost caps: charged after each sample, asked before each one is drawn. */
  meter?: CostMeter
  /** Samples already drawn under a smaller budget (an extended run): kept, and only the rest are drawn. */
  resumeFrom?: readonly Attempt[]
}

/**
 * K independent candidates from the original prompt alone (the Pass@K protocol). All K are drawn,
 * with no early stop, because the unbiased estimator needs n samples and their pass count c;
 * `firstSuccess` still records the first passing sample in draw order.
 */
export async function runIndependent(input: IndependentInput): Promise<TrajectoryOutcome> {
  const { task, repeat, actor, verifier, promptBuilder, budget, signal, meter } = input
  const attempts: Attempt[] = [...(input.resumeFrom ?? [])]
  const first = attempts.length + 1
  const draw = (sample: number, calls?: AttemptBudget) => {
    const messages = withInstructions(
      checkPrompt(promptBuilder, promptBuilder.initial(task, { budget, discloseBudget: false }), {
        taskId: task.id,
        attempt: sample,
      }),
      input.instructions,
    )
    return proposeAndVerify({
      actor,
      verifier,
      task,
      messages,
      context: {
        role: 'actor',
        taskId: task.id,
        attempt: sample,
        repeat,
        protocol: 'independent',
        simulation: task.simulation,
        ...(task.files !== undefined ? { files: task.files } : {}),
        cell: input.cell,
        prompt: task.prompt,
        ...(calls ? { budget: calls } : {}),
      },
      signal,
    })
  }
  try {
    const before = meter?.stop(0)
    if (before) return { attempts, firstSuccess: null, error: null, capped: before }
    if (actor.gathers) {
      // A batched actor gets its K samples at once: one batch, not K rounds. Under a cost cap they
      // are reserved first, so only as many go as the cap has room for (see CostMeter.reserve).
      // The trajectory is the one drawing them in order would give: the samples before the first that failed.
      for (let next = first; next <= budget;) {
        const capped = next > 1 ? meter?.stop(attempts.length) : undefined
        if (capped) return { attempts, firstSuccess: null, error: null, capped }
        const held = meter?.reserve(budget - next + 1)
        const count = held?.granted ?? budget - next + 1
        const settled = await Promise.allSettled(Array.from({ length: count }, (_, i) => draw(next + i)))
        held?.release()
        for (const s of settled) if (s.status === 'fulfilled') meter?.chargeAttempt(s.value)
        for (const s of settled) {
          if (s.status === 'rejected') throw s.reason
          attempts.push(s.value)
        }
        next += count
      }
    } else {
      for (let sample = first; sample <= budget; sample++) {
        const capped = sample > 1 ? meter?.stop(attempts.length) : undefined
        if (capped) return { attempts, firstSuccess: null, error: null, capped }
        const budgetOf = meter?.budget(attempts.length)
        const drawn = await draw(sample, budgetOf)
        meter?.chargeAttempt(drawn, budgetOf)
        attempts.push(drawn)
      }
    }
  } catch (error) {
    if (error instanceof StageError) return cappedOutcome(attempts, error)
    throw error
  }
  const passed = attempts.find((a) => a.verdict.pass)
  return { attempts, firstSuccess: passed ? passed.index : null, error: null }
}
