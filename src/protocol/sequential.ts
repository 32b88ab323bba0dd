import { CallBudgetStop, type ChatMessage, type ChatModel, type ModelCall } from '../models/chat-model.js'
import { checkFeedback, type Feedback, type FeedbackMode } from '../feedback/feedback-mode.js'
import type { Verifier } from '../verifiers/verifier.js'
import type { Attempt, TrajectoryError } from '../core/schemas.js'
import { StageError, proposeAndVerify, stageFailure } from './attempt.js'
import { isPromiseLike } from '../core/awaitable.js'
import { checkHistoryBuild, type HistoryPolicy, type Turn } from './history.js'
import { checkPrompt, checkRevision, withInstructions, type PromptBuilder } from './prompt-builder.js'
import type { RevisionAnnotator } from '../feedback/annotator.js'
import type { RevisionSample } from './revision-annotation.js'
import type { Task } from './task.js'
import type { CapStop, CostMeter } from './cost-cap.js'
import { isLayoutBuilder, type PastAttempt } from './prompt-builders/reference.js'

export interface TrajectoryOutcome {
  attempts: Attempt[]
  firstSuccess: number | null
  error: TrajectoryError | null
  /** Set when a cost cap stopped it before its next model call (its attempts so far all failed). */
  capped?: CapStop
}

export interface SequentialInput {
  task: Task
  repeat: number
  actor: ChatModel
  verifier: Verifier
  feedback: FeedbackMode
  history: HistoryPolicy
  promptBuilder: PromptBuilder
  /** The eval's instructions, a system message before the first prompt (see withInstructions). */
  instructions?: string
  budget: number
  discloseBudget: boolean
  /** The cell's fingerprint, passed to the actor's call context (record and replay key on it). */
  cell?: string
  /**
   * The revision annotator (paper §5.2.2): `derived` (default) keeps the requests structured
   * feedback names; `off` drops them; `llm` annotates each revision (those `sample` drew) right
   * after its verdict and stores the record on its attempt. Never part of what the actor sees.
   */
  annotate?:
    { kind: 'derived' } | { kind: 'off' } | { kind: 'llm'; annotator: RevisionAnnotator; sample?: RevisionSample }
  signal?: AbortSignal
  /** The cost caps: charged after each attempt and each feedback, asked before each model call. */
  meter?: CostMeter
  /**
   * Give feedback after the last failed attempt too (the reference protocol's critic after the last
   * failure), so a run extended to a larger budget goes on from it. Changes nothing the actor sees
   * within the budget; the feedback's calls are spent and counted.
   */
  feedbackAfterLast?: boolean
  /**
   * Continue a trajectory that ended, failed, under a smaller budget (an extended run): its
   * attempts are kept as they are and the loop goes on from the next one, the history rebuilt
   * from their answers and feedback. The last kept attempt's feedback is rendered now when it
   * has none (a protocol without feedback after the last failure), as a run at this budget from
   * the start would have given it then.
   */
  resumeFrom?: readonly Attempt[]
}

/**
 * One Seq@K trajectory: attempt t sees the prompt and the history H_{t-1} as the
 * history policy shows it; a failed attempt gets feedback; the first success stops it. Every call
 * gets a fresh message list built from this trajectory alone, so no state leaks between tasks or
 * repeats. An infrastructure failure ends the trajectory as an error, keeping the attempts so far.
 *
 * What every component returns is checked where it enters the loop (the prompt builder's prompt
 * and replies, the history policy's messages, the actor's completion, the verdict, the feedback):
 * a value outside its contract
 * throws a ComponentError out of the trajectory, failing the cell with the component, the field
 * and the fix; it is never recorded as an attempt.
 */
export async function runSequential(input: SequentialInput): Promise<TrajectoryOutcome> {
  const { task, repeat, actor, verifier, feedback, history, promptBuilder, budget, discloseBudget, signal, meter } =
    input
  const annotate = input.annotate ?? { kind: 'derived' }
  const prompt = withInstructions(
    checkPrompt(promptBuilder, promptBuilder.initial(task, { budget, discloseBudget }), {
      taskId: task.id,
      attempt: 1,
    }),
    input.instructions,
  )
  const normalise = (answer: string) => (verifier.normalise ? verifier.normalise(answer) : answer.trim())
  const attempts: Attempt[] = []
  const turns: Turn[] = []
  const layout = isLayoutBuilder(promptBuilder) ? promptBuilder : undefined
  const past: PastAttempt[] = []
  // The previous answer, and as the verifier normalises it (once), to mark unmodified revisions.
  let previous: { answer: string; normalised?: string } | undefined
  /** The messages of attempt `context.attempt`: the layout builder's, or the history policy's. */
  const buildMessages = async (context: {
    taskId: string
    attempt: number
    repeat: number
  }): Promise<{ messages: ChatMessage[]; calls: ModelCall[] }> => {
    const attempt = context.attempt
    // A layout builder writes the whole prompt, every earlier attempt included (history `full`).
    if (layout)
      return {
        messages: checkPrompt(promptBuilder, layout.layout(task, { attempt, budget, past }), context),
        calls: [],
      }
    let building: unknown
    try {
      // Awaited only when it is a promise (see Awaitable): the bundled policies answer at once.
      building = history.build({ prompt, turns, context, signal })
      if (isPromiseLike(building)) building = await building
    } catch (error) {
      throw stageFailure('history', attempt, signal, error)
    }
    // What user code returned is checked outside the try: a malformed value is a ComponentError
    // that fails the cell, not an infrastructure error of this trajectory (see ComponentError).
    return checkHistoryBuild(history, building, context)
  }
  /** Renders a failed attempt's feedback and records it (and its calls) on the attempt. */
  const giveFeedback = async (
    step: Attempt,
    messages: ChatMessage[],
    context: { taskId: string; attempt: number; repeat: number },
  ): Promise<Feedback> => {
    let rendered: unknown
    try {
      const rendering = feedback.render({
        task,
        attempt: context.attempt,
        repeat,
        answer: step.answer,
        verdict: step.verdict,
        finishReason: step.finishReason,
        // A plain property, not a lazy getter: an object literal with an accessor is built by a
        // slow runtime path (~0.5 µs hot), dearer than this shallow copy of a few pointers.
        history: messages.concat({ role: 'assistant', content: step.answer }),
        actor,
        signal,
      })
      rendered = isPromiseLike(rendering) ? await rendering : rendering
    } catch (error) {
      throw stageFailure('feedback', context.attempt, signal, error)
    }
    const given = checkFeedback(feedback, rendered, context)
    // The requests the text names (verifier feedback) are kept for the derived revision annotator.
    step.feedback =
      given.requests === undefined || annotate.kind === 'off'
        ? { kind: given.kind, text: given.text }
        : { kind: given.kind, text: given.text, requests: given.requests }
    if (given.calls?.length) {
      step.helperCalls.push(...given.calls)
      meter?.charge(given.calls)
    }
    return given
  }
  /** Keeps a failed attempt and its feedback in the history the next attempt sees. */
  const remember = (step: Attempt, given: Feedback, context: { taskId: string; attempt: number }) => {
    past.push({ answer: step.answer, feedback: given.text })
    turns.push({
      answer: step.answer,
      reply: checkRevision(
        promptBuilder,
        promptBuilder.revision(given, { attempt: context.attempt, budget, discloseBudget }),
        context,
      ),
    })
  }
  try {
    // An extended run: the kept attempts, replayed into the history without a model call (but
    // the last one's feedback, when it has none, which is rendered now).
    const kept = input.resumeFrom ?? []
    for (const [i, recorded] of kept.entries()) {
      const step: Attempt = { ...recorded, helperCalls: [...recorded.helperCalls] }
      const context = { taskId: task.id, attempt: step.index, repeat }
      attempts.push(step)
      if (step.verdict.pass) return { attempts, firstSuccess: step.index, error: null }
      if (step.feedback) {
        remember(step, step.feedback, context)
      } else if (i === kept.length - 1) {
        remember(step, await giveFeedback(step, (await buildMessages(context)).messages, context), context)
      } else {
        throw new Error(
          `task ${task.id}, repeat ${repeat}: kept attempt ${step.index} failed and has no feedback, but a later attempt followed it; a trajectory is continued only from its own record`,
        )
      }
    }
    if (kept.length > 0) previous = { answer: kept.at(-1)!.answer }
    for (let attempt = kept.length + 1; attempt <= budget; attempt++) {
      // Before the summariser's call as well as the actor's: a capped scope makes no new call.
      const capped = meter?.stop(attempts.length)
      if (capped) return { attempts, firstSuccess: null, error: null, capped }
      const context = { taskId: task.id, attempt, repeat }
      const built = await buildMessages(context)
      const budgetOf = meter?.budget(attempts.length)
      const step = await proposeAndVerify({
        actor,
        verifier,
        task,
        messages: built.messages,
        context: {
          role: 'actor',
          taskId: task.id,
          attempt,
          repeat,
          protocol: 'sequential',
          simulation: task.simulation,
          ...(task.files !== undefined ? { files: task.files } : {}),
          cell: input.cell,
          prompt: task.prompt,
          ...(attempt > 1 && attempts.at(-1)?.feedback ? { feedback: attempts.at(-1)!.feedback!.text } : {}),
          ...(budgetOf ? { budget: budgetOf } : {}),
        },
        signal,
        spentBefore: built.calls,
      })
      // The summariser's calls come before this attempt, a grader's with its verdict.
      if (built.calls.length > 0) step.helperCalls.unshift(...built.calls)
      if (previous === undefined) {
        step.unmodified = null
        previous = { answer: step.answer }
      } else {
        const normalised = normalise(step.answer)
        step.unmodified = (previous.normalised ?? normalise(previous.answer)) === normalised
        previous = { answer: step.answer, normalised }
        // The LLM annotator judges this revision against the feedback it answered, before the
        // attempt is kept: a failed annotation is recorded on it, never the trajectory's error.
        const before = attempts[attempts.length - 1]
        if (
          annotate.kind === 'llm' &&
          before?.feedback &&
          (!annotate.sample || annotate.sample.has(task.id, repeat, attempt))
        ) {
          step.annotation = await annotate.annotator.annotate({
            task,
            previous: before.answer,
            feedback: before.feedback,
            revision: step.answer,
            attempt,
            repeat,
            sample: annotate.sample?.sample,
            signal,
          })
        }
      }
      attempts.push(step)
      meter?.chargeAttempt(step, budgetOf)
      if (step.verdict.pass) return { attempts, firstSuccess: attempt, error: null }
      // No feedback after the last attempt (nobody would read it, and a critic would cost money),
      // unless the protocol keeps it for a run extended to a larger budget.
      if (attempt === budget && !input.feedbackAfterLast) break
      // A critic is a model call too: none once a cap is reached.
      const cappedBeforeFeedback = meter?.stop(attempts.length)
      if (cappedBeforeFeedback) return { attempts, firstSuccess: null, error: null, capped: cappedBeforeFeedback }
      remember(step, await giveFeedback(step, built.messages, context), context)
    }
    return { attempts, firstSuccess: null, error: null }
  } catch (error) {
    if (error instanceof StageError) return cappedOutcome(attempts, error)
    throw error
  }
}

/**
 * The outcome of a trajectory whose attempt ended in `error`: an infrastructure error, or, when
 * the attempt's actor stopped at the cost cap between its calls (an agent's episode, see
 * CallBudgetStop), a capped trajectory that keeps the calls it made on its error record, so they
 * count in every total.
 */
export function cappedOutcome(attempts: Attempt[], error: StageError): TrajectoryOutcome {
  const stop = error.cause instanceof CallBudgetStop ? error.cause.stop : undefined
  return { attempts, firstSuccess: null, error: error.toJSON(), ...(stop ? { capped: stop } : {}) }
}
