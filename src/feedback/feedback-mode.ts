import { z } from 'zod'
import { ModelCallSchema, type ChatMessage, type ChatModel, type ModelCall } from '../models/chat-model.js'
import { ComponentError, zodProblems } from '../core/component-error.js'
import type { AnyTask } from '../core/task.js'
import type { Awaitable } from '../core/awaitable.js'
import type { Verdict } from '../verifiers/verifier.js'
import { FEEDBACK_KINDS, isOneOf, type FeedbackKind } from '../core/kinds.js'

/** The kinds of feedback (the contract's closed list). The text and its kind are kept apart in artifacts. */
export type { FeedbackKind }

export interface Feedback {
  kind: FeedbackKind
  text: string
  /**
   * The requests the text names, as stable ids (`test:3`, `criterion:c2`, `check:numeric(total)`),
   * where the feedback is structured (verifier feedback); the derived revision annotator checks the next verdict
   * against them. Absent for feedback that names nothing checkable (binary, a critic's prose).
   */
  requests?: string[]
  /** Calls an LLM critic made to write it, counted toward the trajectory. */
  calls?: ModelCall[]
}

/** What a feedback mode renders from: the task, the attempt, the answer, its verdict and the history. */
export interface FeedbackInput {
  /** The task; a mode validates any task field it reads beyond the base ones (the critic: `criteria`). */
  task: AnyTask
  /** 1-based index of the failed attempt. */
  attempt: number
  repeat: number
  answer: string
  verdict: Verdict
  /** Why the actor stopped writing this answer: `length` means it was cut off by the token limit. */
  finishReason?: 'stop' | 'length' | 'refusal' | 'other'
  /**
   * The messages the actor saw for this attempt, as the history policy built them (cut down under
   * `last`, summarised under `summary`), followed by this answer; a fresh array for each call.
   */
  history: ChatMessage[]
  /** The actor under test: a critic with no model of its own critiques with it. */
  actor?: ChatModel
  signal?: AbortSignal
}

/**
 * Turns a failed attempt into the message the actor sees next. What `render` returns is checked
 * by the protocol ({@link checkFeedback}): anything but `{ kind: this mode's kind, text: string,
 * calls? }` is a ComponentError that fails the cell.
 *
 * @example
 * const terse: FeedbackMode = {
 *   kind: 'binary', name: 'terse', version: '1', settings: {},
 *   render: () => ({ kind: 'binary', text: 'Wrong.' }),
 * }
 */
export interface FeedbackMode {
  kind: FeedbackKind
  /** Stable name and version: part of the protocol fingerprint. */
  name: string
  version: string
  settings: Record<string, string | number | boolean | null>
  /** The feedback; a promise only when something must be waited for (a critic's model call). */
  render(input: FeedbackInput): Awaitable<Feedback>
}

/** A feedback mode whose feedback always comes as a promise (an LLM critic). */
export interface AsyncFeedbackMode extends FeedbackMode {
  render(input: FeedbackInput): Promise<Feedback>
}

/** What a feedback mode's `render` must return (or resolve to); unknown fields are ignored. */
export const FeedbackSchema = z.object({
  kind: z.enum(FEEDBACK_KINDS),
  text: z.string(),
  requests: z.array(z.string()).optional(),
  calls: z.array(ModelCallSchema).optional(),
})

const FEEDBACK_CONTRACT = `{ kind: the mode's own kind (${FEEDBACK_KINDS.map((k) => `'${k}'`).join(' | ')}), text: string, requests?: string[], calls?: ModelCall[] } (FeedbackSchema)`

const FEEDBACK_HINTS: Readonly<Record<string, string>> = {
  '(root)': 'render() must return (or resolve to) { kind, text }, not a bare string; did it forget to return it?',
  kind: "set `kind` to the mode's own `kind`: the artifacts keep the feedback's kind apart from its text",
  text: 'put the message the actor reads in `text`, as a string',
  requests: 'leave `requests` out, or list the ids of what the text asks for (`test:3`, `criterion:c2`) as strings',
  calls: "leave `calls` out unless the mode called a model; each is recordCall('critic', response)",
}

/**
 * Checks what `mode.render()` returned and returns it as FeedbackSchema reads it, or throws a
 * ComponentError naming the mode, the field and the fix (see ComponentError for why that fails
 * the cell rather than one trajectory). The feedback's `kind` must be the mode's own `kind`.
 *
 * @example
 * const given = checkFeedback(mode, await mode.render(input), { taskId: 't1', attempt: 1 })
 */
export function checkFeedback(
  mode: Pick<FeedbackMode, 'kind' | 'name' | 'version'>,
  value: unknown,
  at?: { taskId: string; attempt: number },
): Feedback {
  // The hot path: a kind, a text and maybe plain string requests (a critic's calls go to zod).
  const plain = value as Partial<Feedback> | null | undefined
  if (
    typeof plain === 'object' &&
    plain !== null &&
    plain.kind === mode.kind &&
    isOneOf(FEEDBACK_KINDS, plain.kind) &&
    typeof plain.text === 'string' &&
    plain.calls === undefined
  ) {
    const requests = plain.requests
    if (requests === undefined) return { kind: plain.kind, text: plain.text }
    if (Array.isArray(requests) && requests.every((r) => typeof r === 'string'))
      return { kind: plain.kind, text: plain.text, requests: [...requests] }
  }
  const parsed = FeedbackSchema.safeParse(value)
  if (parsed.success && parsed.data.kind === mode.kind) return parsed.data
  throw new ComponentError(
    {
      component: `feedback mode ${JSON.stringify(mode.name)}@${String(mode.version)}`,
      returned: 'feedback',
      where: at ? `for task ${JSON.stringify(at.taskId)}, attempt ${at.attempt}` : undefined,
      contract: FEEDBACK_CONTRACT,
      hints: FEEDBACK_HINTS,
    },
    parsed.success
      ? [
          {
            field: 'kind',
            message: `is ${JSON.stringify(parsed.data.kind)} but the mode's kind is ${JSON.stringify(mode.kind)}`,
          },
        ]
      : zodProblems(FeedbackSchema, value),
  )
}
