/**
 * Grading rubric criteria with a grader model: the prompt, the JSON reply (validated with zod),
 * one repair round on malformed output, then an infrastructure error.
 */
import { z } from 'zod'
import type { CallContext, ChatMessage, ChatModel, ModelCall } from '../../models/chat-model.js'
import { callWithRepair, DEFAULT_REPAIR } from '../../models/repair-call.js'
import type { Criterion } from './criteria.js'
import {
  fill,
  loadPromptTemplate,
  renderConversation,
  renderCriterion,
  renderPrompt,
  type PromptTemplate,
} from './prompt-template.js'
import type { CriterionJudgement } from './checks.js'

/** `per-criterion`: one call per criterion (HealthBench's grader). `all-at-once`: one call for the whole rubric (AdvancedIF, CL-bench). */
export type GradingMode = 'per-criterion' | 'all-at-once'

/** The grader prompt of each mode. Loaded on first use, so importing the package never reads files. */
export function graderPrompt(mode: GradingMode): PromptTemplate {
  return mode === 'per-criterion'
    ? loadPromptTemplate(new URL('./prompts/grader.v1.md', import.meta.url))
    : loadPromptTemplate(new URL('./prompts/grader-all.v1.md', import.meta.url))
}

/** The grader failed twice to answer in the agreed JSON shape: an infrastructure error, not a verdict. */
export class RubricGraderError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RubricGraderError'
  }
}

// Graders answer "yes"/"no" as often as true/false, whatever the prompt says; both mean the same.
const MetSchema = z.union([
  z.boolean(),
  z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .pipe(z.enum(['true', 'false', 'yes', 'no', 'met', 'not met']))
    .transform((s) => s === 'true' || s === 'yes' || s === 'met'),
])

const OneReplySchema = z.object({ met: MetSchema, reason: z.string().optional() })
const AllReplySchema = z.object({
  criteria: z.array(
    z.object({
      id: z.union([z.string(), z.number()]).transform(String),
      met: MetSchema,
      reason: z.string().optional(),
    }),
  ),
})

/**
 * The JSON object in a grader's reply: the whole reply, a fenced block, or the span from the
 * first `{` to the last `}` (models add prose around JSON despite instructions).
 *
 * @throws Error saying why no JSON object could be read.
 * @example
 * extractJsonObject('Sure!\n```json\n{"met": true}\n```') // { met: true }
 */
export function extractJsonObject(text: string): unknown {
  const candidates: string[] = []
  const trimmed = text.trim()
  candidates.push(trimmed)
  const fenced = /```(?:json)?[ \t]*\r?\n([\s\S]*?)```/.exec(trimmed)
  if (fenced) candidates.push(fenced[1]!.trim())
  const first = trimmed.indexOf('{')
  const last = trimmed.lastIndexOf('}')
  if (first >= 0 && last > first) candidates.push(trimmed.slice(first, last + 1))
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate)
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value
    } catch {
      // try the next candidate
    }
  }
  throw new Error(trimmed === '' ? 'the reply was empty' : 'the reply holds no JSON object')
}

function zodProblem(error: z.ZodError): string {
  const issue = error.issues[0]
  return issue ? `${issue.path.join('.') || 'the object'}: ${issue.message}` : 'invalid'
}

/** Parses a one-criterion reply `{"met": …, "reason": …}`. */
export function parseOneReply(text: string): CriterionJudgement {
  const parsed = OneReplySchema.safeParse(extractJsonObject(text))
  if (!parsed.success) throw new Error(`expected {"met": true|false, "reason": "…"}; ${zodProblem(parsed.error)}`)
  return { met: parsed.data.met, reason: parsed.data.reason?.trim() ?? '' }
}

/** Parses an all-at-once reply and checks it judges exactly the criteria asked for. */
export function parseAllReply(text: string, ids: readonly string[]): Map<string, CriterionJudgement> {
  const parsed = AllReplySchema.safeParse(extractJsonObject(text))
  if (!parsed.success)
    throw new Error(`expected {"criteria": [{"id", "met", "reason"}, …]}; ${zodProblem(parsed.error)}`)
  const out = new Map<string, CriterionJudgement>()
  const wanted = new Set(ids)
  for (const entry of parsed.data.criteria) {
    if (!wanted.has(entry.id))
      throw new Error(`criteria: unknown id ${JSON.stringify(entry.id)} (expected ${ids.join(', ')})`)
    if (out.has(entry.id)) throw new Error(`criteria: id ${JSON.stringify(entry.id)} judged twice`)
    out.set(entry.id, { met: entry.met, reason: entry.reason?.trim() ?? '' })
  }
  const missing = ids.filter((id) => !out.has(id))
  if (missing.length > 0) throw new Error(`criteria: no verdict for ${missing.join(', ')}`)
  return out
}

/** What a grading request needs: the model, the conversation, the answer and where it sits. */
export interface GradeRequest {
  grader: ChatModel
  conversation: readonly ChatMessage[]
  answer: string
  context: CallContext
  signal?: AbortSignal
}

/** Verdicts by criterion id and every call made to get them (repairs included). */
export interface GradeResult {
  verdicts: Map<string, CriterionJudgement>
  calls: ModelCall[]
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return JSON.stringify(flat.length > 200 ? `${flat.slice(0, 199)}…` : flat)
}

/**
 * Calls the grader; on a reply `parse` rejects, asks once more with the reply and the problem in
 * view (a repeated identical request would get the same answer from a temperature-0 grader), then
 * gives up with a RubricGraderError.
 */
function callParsed<T>(
  request: GradeRequest,
  template: PromptTemplate,
  messages: ChatMessage[],
  values: Record<string, string>,
  parse: (text: string) => T,
  what: string,
): Promise<{ value: T; calls: ModelCall[] }> {
  return callWithRepair({
    model: request.grader,
    role: 'grader',
    messages,
    context: request.context,
    signal: request.signal,
    parse,
    repair: (problem) => fill(template.repair ?? DEFAULT_REPAIR, { ...values, problem }),
    giveUp: (problem, first, last) =>
      new RubricGraderError(
        `grader ${request.grader.id} gave malformed output twice for task ${JSON.stringify(request.context.taskId)}, ${what}: ${problem} (first: ${first}); last reply ${snippet(last)}`,
      ),
  })
}

/**
 * Grades one criterion with one call (plus one repair call at most).
 *
 * @example
 * const { verdicts, calls } = await gradeOne({ grader, conversation, answer, context }, criterion, 3)
 */
export async function gradeOne(request: GradeRequest, criterion: Criterion, index: number): Promise<GradeResult> {
  const template = graderPrompt('per-criterion')
  const values = {
    conversation: renderConversation(request.conversation),
    response: request.answer,
    criterion: renderCriterion(criterion, { index }),
  }
  const { value, calls } = await callParsed(
    request,
    template,
    renderPrompt(template, values),
    values,
    parseOneReply,
    `criterion ${criterion.id}`,
  )
  return { verdicts: new Map([[criterion.id, value]]), calls }
}

/**
 * Grades several criteria with one call (plus one repair call at most).
 *
 * @example
 * const { verdicts } = await gradeAll({ grader, conversation, answer, context }, [[c1, 1], [c2, 2]])
 */
export async function gradeAll(
  request: GradeRequest,
  criteria: readonly (readonly [Criterion, number])[],
): Promise<GradeResult> {
  const template = graderPrompt('all-at-once')
  const ids = criteria.map(([c]) => c.id)
  const values = {
    conversation: renderConversation(request.conversation),
    response: request.answer,
    criteria: criteria.map(([c, index]) => renderCriterion(c, { index })).join('\n'),
    ids: ids.join(', '),
  }
  const { value, calls } = await callParsed(
    request,
    template,
    renderPrompt(template, values),
    values,
    (text) => parseAllReply(text, ids),
    `criteria ${ids.join(', ')}`,
  )
  return { verdicts: value, calls }
}
