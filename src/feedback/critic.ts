import { z } from 'zod'
import { describeZodError } from '../core/zod-errors.js'
import { checkChatResponse, recordCall, withSpentCalls, type ChatModel } from '../models/chat-model.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import { canonicalJson } from '../core/fingerprint.js'
import { taskMessages } from '../core/task.js'
import { criteriaOf } from '../verifiers/rubric/criteria.js'
import {
  loadPromptTemplate,
  renderConversation,
  renderCriterion,
  renderPrompt,
  type PromptTemplate,
} from '../verifiers/rubric/prompt-template.js'
import type { AsyncFeedbackMode, FeedbackInput } from './feedback-mode.js'

/** The options of `feedback.critic()`: the critic model, its prompt style and whether it sees the rubric. */
export interface CriticOptions {
  /** The critic model. Default: the actor critiques its own answer. Its descriptor is part of the fingerprint. */
  model?: ChatModel
  /** `aware`: the critic sees the task's grading rubric (its criteria). `blind`: only the task and the answer. */
  rubric: 'aware' | 'blind'
  /** `directive`: explicit, actionable revision instructions. `socratic`: pointed questions, no fix stated. */
  style: 'directive' | 'socratic'
}

const OptionsSchema = z
  .object({
    model: z
      .custom<ChatModel>(
        (v) =>
          typeof v === 'object' &&
          v !== null &&
          typeof (v as ChatModel).chat === 'function' &&
          typeof (v as ChatModel).descriptor === 'object',
        {
          message:
            'expected a chat model such as actors.openai({ model: "gpt-4.1-mini" }), or leave it out to let the actor critique itself',
        },
      )
      .optional(),
    rubric: z.enum(['aware', 'blind'], { message: "use 'aware' (the critic sees the rubric) or 'blind'" }),
    style: z.enum(['directive', 'socratic'], { message: "use 'directive' or 'socratic'" }),
  })
  .strict()

/** The versioned prompt file of a critic configuration (`critic-aware-directive.v1.md`, …). */
export function criticPrompt(rubric: CriticOptions['rubric'], style: CriticOptions['style']): PromptTemplate {
  return loadPromptTemplate(new URL(`./prompts/critic-${rubric}-${style}.v1.md`, import.meta.url))
}

/** The protocol hands the actor to feedback modes (a critic with no model of its own uses it). */
type WithActor = FeedbackInput & { actor?: ChatModel }

/**
 * LLM critic feedback (the `critic` mode; the paper's §4): a model reads the task and the
 * failed answer — and, when `rubric: 'aware'`, the task's grading criteria — and writes the
 * critique the actor sees. The paper found a rubric-aware critic repairs about twice as many
 * failed criteria as a rubric-blind one, which does no better than independent retries.
 *
 * With no `model`, the actor critiques itself (a simulated actor cannot: it only picks scripted
 * answers, so give simulations a critic model). The critic's model, the rubric access, the style
 * and the prompt file's version and hash are the mode's settings (part of the fingerprint); the
 * critic's call is returned in `calls`, so its tokens and cost count toward the trajectory.
 * A critic that fails (after its provider's retries) or answers nothing ends the trajectory as an
 * infrastructure error.
 *
 * @example
 * modes: {
 *   'critic-aware': { feedback: feedback.critic({ model: actors.openai({ model: 'gpt-4.1' }), rubric: 'aware', style: 'directive' }) },
 *   'critic-blind': { feedback: feedback.critic({ rubric: 'blind', style: 'socratic' }) }, // the actor critiques itself
 * }
 */
export function critic(options: CriticOptions): AsyncFeedbackMode {
  if (options !== null && typeof options === 'object')
    rejectUnknownOptions('feedback.critic()', options, Object.keys(OptionsSchema.shape))
  const parsed = OptionsSchema.safeParse(options)
  if (!parsed.success) throw new TypeError(`feedback.critic(): ${describeZodError(parsed.error)}`)
  const { model, rubric, style } = options
  const prompt = criticPrompt(rubric, style)
  return {
    kind: 'critic',
    name: `critic-${rubric}-${style}`,
    version: '1',
    settings: {
      critic: model ? `${model.descriptor.provider}:${model.descriptor.model}` : 'actor',
      criticParams: model ? canonicalJson(model.descriptor.params) : null,
      rubric,
      style,
      prompt: prompt.id,
    },
    async render(input) {
      const { task, attempt, repeat, answer, signal } = input
      const criticModel = model ?? (input as WithActor).actor
      if (!criticModel) {
        throw new Error(
          `feedback.critic(): no critic model for task ${JSON.stringify(task.id)}: pass { model } or run it where the protocol hands the actor to feedback modes`,
        )
      }
      const values: Record<string, string> = { conversation: renderConversation(taskMessages(task)), answer }
      if (rubric === 'aware') {
        const criteria = criteriaOf(task)
        if (!criteria)
          throw new Error(
            `feedback.critic({ rubric: 'aware' }): task ${JSON.stringify(task.id)} has no criteria to show the critic; use rubric: 'blind' for tasks without a rubric`,
          )
        // Criteria the verdict holds out of feedback are held out of the critic's rubric too.
        const held = new Set(input.verdict.criteria ? (input.verdict.heldOut?.tests ?? []) : [])
        values.rubric = criteria
          .filter((_, i) => !held.has(i))
          .map((c) => renderCriterion(c))
          .join('\n')
      }
      // No `task` in the context: only simulations may read it, and a critique is not an answer.
      const response = checkChatResponse(
        criticModel,
        'critic',
        await criticModel.chat({
          messages: renderPrompt(prompt, values),
          context: { role: 'critic', taskId: task.id, attempt, repeat, protocol: 'sequential' },
          signal,
        }),
        { taskId: task.id, attempt },
      )
      const text = response.text.trim()
      const calls = [recordCall('critic', response)]
      if (text === '')
        throw withSpentCalls(
          new Error(
            `feedback.critic(): critic ${criticModel.id} returned an empty critique for task ${JSON.stringify(task.id)}, attempt ${attempt} (finish reason ${response.finishReason})`,
          ),
          calls,
        )
      return { kind: 'critic', text, calls }
    },
  }
}
