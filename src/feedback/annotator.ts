/**
 * The LLM revision annotator (paper §5.2.2, Figure 5b): any chat model reads the task, the
 * previous answer, the feedback on it and the revision, lists the feedback's requests and says
 * which the revision satisfied, fully or partly. Works for every kind of feedback (a critic's
 * prose, binary, verifier), where the derived annotator needs requests the feedback names by id.
 *
 * The reply is JSON validated with zod; a malformed one gets one repair call, a second one makes
 * that annotation an infrastructure error (recorded and counted, never the trajectory's). Its calls
 * are recorded under the role `annotator`. Identical requests are served once (a cache, as the
 * grader's), keyed by their content, so cassettes key them by content too.
 */
import { z } from 'zod'
import { taskMessages, type AnyTask } from '../core/task.js'
import type { AnnotationSample, RevisionAnnotation, RevisionAnnotationError, RevisionClass } from '../core/schemas.js'
import {
  spentCalls,
  throwIfAborted,
  type CallContext,
  type ChatMessage,
  type ChatModel,
  type ModelCall,
} from '../models/chat-model.js'
import { isComponentError } from '../core/component-error.js'
import { callCache } from '../models/call-cache.js'
import { callWithRepair, DEFAULT_REPAIR } from '../models/repair-call.js'
import { redactText } from '../models/redact.js'
import { extractJsonObject } from '../verifiers/rubric/grader.js'
import {
  fill,
  loadPromptTemplate,
  renderConversation,
  renderPrompt,
  type PromptTemplate,
} from '../verifiers/rubric/prompt-template.js'

/** The annotator's versioned prompt file (`annotator.v1.md`), loaded on first use. */
export function annotatorPrompt(): PromptTemplate {
  return loadPromptTemplate(new URL('./prompts/annotator.v1.md', import.meta.url))
}

/** How far a revision satisfies one request. */
export type RequestJudgement = 'fully' | 'partly' | 'no'

// Models answer with near-synonyms whatever the prompt says; these mean the same.
const SYNONYMS: Readonly<Record<string, RequestJudgement>> = {
  fully: 'fully',
  full: 'fully',
  yes: 'fully',
  true: 'fully',
  satisfied: 'fully',
  all: 'fully',
  partly: 'partly',
  partially: 'partly',
  partial: 'partly',
  some: 'partly',
  no: 'no',
  none: 'no',
  false: 'no',
  not: 'no',
  unsatisfied: 'no',
}

const JudgementSchema = z
  .union([z.boolean(), z.string()], { error: 'expected "fully", "partly" or "no"' })
  .transform((value, ctx): RequestJudgement => {
    if (typeof value === 'boolean') return value ? 'fully' : 'no'
    const judgement = Object.hasOwn(SYNONYMS, value.trim().toLowerCase())
      ? SYNONYMS[value.trim().toLowerCase()]
      : undefined
    if (judgement) return judgement
    ctx.addIssue({
      code: 'custom',
      message: `expected "fully", "partly" or "no" (got ${JSON.stringify(value.slice(0, 40))})`,
    })
    return z.NEVER
  })

const ReplySchema = z.object({
  requests: z
    .array(z.object({ request: z.string().trim().min(1, 'a request needs its sentence'), satisfied: JudgementSchema }))
    .min(1, 'list at least one request (feedback that only says the answer failed asks for a correct answer)'),
  reason: z.string().optional(),
})

/** An annotator's reply as read: each request and how far the revision satisfies it. */
export interface AnnotatorReply {
  requests: { request: string; satisfied: RequestJudgement }[]
  reason: string
}

/**
 * Parses an annotator's reply (the JSON object, possibly fenced or wrapped in prose).
 *
 * @throws Error saying what is wrong (the repair call shows it to the model).
 * @example
 * parseAnnotatorReply('{"requests": [{"request": "Mention the price", "satisfied": "partly"}]}').requests[0].satisfied // 'partly'
 */
export function parseAnnotatorReply(text: string): AnnotatorReply {
  const parsed = ReplySchema.safeParse(extractJsonObject(text))
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(
      `expected {"requests": [{"request", "satisfied": "fully" | "partly" | "no"}, …], "reason"}; ${issue ? `${issue.path.join('.') || 'the object'}: ${issue.message}` : 'invalid'}`,
    )
  }
  return {
    requests: parsed.data.requests.map((r) => ({ request: clip(r.request, 300), satisfied: r.satisfied })),
    reason: clip(parsed.data.reason?.trim() ?? '', 500),
  }
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/**
 * The paper's class from the judgement of each request: `unhelpful` when none is satisfied even
 * partly, `all` when every one is fully satisfied, `some` otherwise.
 *
 * @example
 * revisionClassOf(['fully', 'no']) // 'some'
 */
export function revisionClassOf(judgements: readonly RequestJudgement[]): RevisionClass {
  if (judgements.length > 0 && judgements.every((j) => j === 'fully')) return 'all'
  return judgements.some((j) => j !== 'no') ? 'some' : 'unhelpful'
}

/** The annotator gave malformed output twice: an infrastructure error of that annotation. */
export class AnnotatorReplyError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'AnnotatorReplyError'
  }
}

export interface RevisionAnnotatorOptions {
  /** Any chat model. One of the actor's own family grades its own kind: prefer another family. */
  model: ChatModel
  /** Serve an identical request once (default true); a reused call keeps its nominal cost, marked `replayed`. */
  cache?: boolean
}

/** What one annotation needs: the revision and what it answered. */
export interface AnnotateRevisionInput {
  task: AnyTask
  /** The answer the feedback was about (attempt t). */
  previous: string
  feedback: { kind: string; text: string }
  /** The revision (attempt t + 1) and its index. */
  revision: string
  attempt: number
  repeat: number
  /** Set when the revision was drawn into a sample: stored on the record. */
  sample?: AnnotationSample
  signal?: AbortSignal
}

/** An annotator bound to a model, its prompt and its cache. */
export interface RevisionAnnotator {
  readonly model: ChatModel
  /** `provider:model`, as records store it. */
  readonly modelId: string
  readonly prompt: PromptTemplate
  /**
   * The revision's annotation, or its failure record (the model's call failed after its retries,
   * or it answered malformed JSON twice). Rejects only on an abort, or with the ComponentError of a
   * model that returned something outside the chat contract (a bug that fails the cell).
   */
  annotate(input: AnnotateRevisionInput): Promise<RevisionAnnotation | RevisionAnnotationError>
  /** Model requests made and requests served from the cache. */
  stats(): { calls: number; cacheHits: number }
}

interface Parsed {
  reply: AnnotatorReply
  calls: ModelCall[]
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return JSON.stringify(flat.length > 200 ? `${flat.slice(0, 199)}…` : flat)
}

/**
 * The LLM revision annotator over `model`.
 *
 * @example
 * const annotator = revisionAnnotator({ model: actors.anthropic({ model: 'claude-haiku-4-5' }) })
 * const record = await annotator.annotate({ task, previous, feedback, revision, attempt: 2, repeat: 0 })
 * record.class // 'unhelpful' | 'some' | 'all' (or record.error)
 */
export function revisionAnnotator(options: RevisionAnnotatorOptions): RevisionAnnotator {
  const { model } = options
  const useCache = options.cache ?? true
  const prompt = annotatorPrompt()
  const modelId = `${model.descriptor.provider}:${model.descriptor.model}`
  const counters = { calls: 0, cacheHits: 0 }

  /** One call, then one repair call on a reply that does not parse. */
  const callParsed = async (
    messages: ChatMessage[],
    values: Record<string, string>,
    context: CallContext,
    signal: AbortSignal | undefined,
    where: string,
  ): Promise<Parsed> => {
    const { value, calls } = await callWithRepair({
      model,
      role: 'annotator',
      messages,
      context,
      signal,
      parse: parseAnnotatorReply,
      repair: (problem) => fill(prompt.repair ?? DEFAULT_REPAIR, { ...values, problem }),
      giveUp: (problem, first, last) =>
        new AnnotatorReplyError(
          `annotator ${model.id} gave malformed output twice for ${where}: ${problem} (first: ${first}); last reply ${snippet(last)}`,
        ),
    })
    return { reply: value, calls }
  }

  const cached = callCache<Parsed>({
    enabled: useCache,
    onRun: () => counters.calls++,
    onHit: () => counters.cacheHits++,
  })

  return {
    model,
    modelId,
    prompt,
    stats: () => ({ ...counters }),
    async annotate(input) {
      const { task, attempt, repeat, signal } = input
      throwIfAborted(signal)
      const values = {
        conversation: renderConversation(taskMessages(task)),
        previous: input.previous,
        feedback: input.feedback.text,
        revision: input.revision,
      }
      const messages = renderPrompt(prompt, values)
      // With the cache on, one annotation serves every revision that asks the same thing, so it is
      // keyed by its content alone (attempt 0, repeat 0), as the grader's are; off, by where it sits.
      const context: CallContext = {
        role: 'annotator',
        taskId: task.id,
        attempt: useCache ? 0 : attempt,
        repeat: useCache ? 0 : repeat,
        protocol: 'sequential',
      }
      const where = `task ${JSON.stringify(task.id)}, repeat ${repeat}, revision ${attempt}`
      const base = {
        annotator: 'llm' as const,
        version: prompt.id,
        model: modelId,
        attempt,
        ...(input.sample ? { sample: input.sample } : {}),
      }
      try {
        const { reply, calls } = await cached({ model: model.descriptor, prompt: prompt.id, messages }, () =>
          callParsed(messages, values, context, signal, where),
        )
        const requests = reply.requests.map((r) => r.request)
        return {
          ...base,
          requests,
          satisfied: reply.requests.filter((r) => r.satisfied !== 'no').map((r) => r.request),
          partly: reply.requests.filter((r) => r.satisfied === 'partly').map((r) => r.request),
          unobserved: [],
          class: revisionClassOf(reply.requests.map((r) => r.satisfied)),
          ...(reply.reason ? { reason: reply.reason } : {}),
          calls,
        }
      } catch (error) {
        // An abort ends the cell, and a model outside the chat contract is a bug that fails it.
        throwIfAborted(signal)
        if (isComponentError(error)) throw error
        const message = redactText(error instanceof Error ? error.message : String(error))
        return { ...base, error: message, calls: spentCalls(error) }
      }
    },
  }
}
