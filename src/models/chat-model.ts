import { z } from 'zod'
import { ComponentError, zodProblems } from '../core/component-error.js'
import type { Price } from './pricing.js'
import { EpisodeSchema, WorkspaceSnapshotSchema, type Episode, type WorkspaceSnapshot } from '../core/episode.js'
import { ToolCallSchema, type ToolCall, type ToolDefinition, type ToolTurn } from './tools.js'

// The contract's schemas live in core/; re-exported here beside the interfaces that use them.
export {
  ChatMessageSchema,
  UsageSchema,
  ZERO_USAGE,
  ModelCallSchema,
  type ChatMessage,
  type ModelRole,
  type Usage,
  type ModelCall,
} from '../core/contract.js'
import { UsageSchema, type ChatMessage, type ModelRole, type Usage, type ModelCall } from '../core/contract.js'
import type { CapStop } from '../core/cost-cap.js'

/** Adds usages field by field (pure). */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  }
}

/**
 * Where a call sits in the protocol. Providers may ignore it; record/replay keys on it so that
 * repeats stay independent, and the simulated actor reads the task's simulation script from it.
 */
export interface CallContext {
  role: ModelRole
  taskId: string
  /** 1-based attempt index within the trajectory (or sample index for independent sampling). */
  attempt: number
  /** 0-based repeat index. */
  repeat: number
  /** 'sequential' or 'independent': which protocol asked. */
  protocol: 'sequential' | 'independent'
  /** The cell's protocol fingerprint: two cells' first attempts share messages but not a cassette entry. */
  cell?: string
  /**
   * The task's `simulation` field, the simulated actor's script (it owns and validates it);
   * real providers ignore it. Only this field travels: no provider sees the rest of the task.
   */
  simulation?: unknown
  /** The task's `files` field: the seed of an agent's workspace (`actors.agent({ workspace })` validates it). */
  files?: unknown
  /** The task's prompt as written (text, or chat messages), before the prompt builder and history: `actors.fromFunction` hands it on. */
  prompt?: string | readonly ChatMessage[]
  /** The feedback the previous attempt got (a sequential revision); absent on attempt 1 and in independent sampling. */
  feedback?: string
  /**
   * The cost caps' say over further model calls inside this one (an agent's turns), set when a cap
   * applies: an actor that makes several calls asks it before each after the first and tells it
   * each call as it is made, so a cap stops an episode between turns, not after it.
   */
  budget?: CallBudget
}

/** A cost cap's say over the model calls inside one actor call (see {@link CallContext.budget}). */
export interface CallBudget {
  /** Before a further call: the cap that stops it, or undefined to go on. */
  stop(): CapStop | undefined
  /** A call as it is made (its record, or `{ usage: null, costUsd: null }` when what it cost is unknown). */
  charge(call: { usage: Usage | null; costUsd: number | null }): void
}

/**
 * Thrown by an actor whose {@link CallBudget} said stop before a further call, with the calls it
 * made attached (`withSpentCalls`): the loop records the trajectory as stopped at the cost cap,
 * neither a pass nor a failure.
 */
export class CallBudgetStop extends Error {
  constructor(
    readonly stop: CapStop,
    calls: number,
  ) {
    super(
      `stopped at the cost cap (${stop.scope} ${stop.limit}) before call ${calls + 1} of this attempt, ${calls} made`,
    )
    this.name = 'CallBudgetStop'
  }
}

/** What `chat()` is called with: the messages, the call's context and an abort signal. */
export interface ChatRequest {
  messages: ChatMessage[]
  context: CallContext
  /** Aborted when the test times out or is cancelled; providers must stop promptly. */
  signal?: AbortSignal
  /** Tools the model may call (only for a model with `tools: true`; see {@link ChatModel.tools}). */
  tools?: readonly ToolDefinition[]
  /** The episode after `messages`: the model's earlier turns with their tool calls, and the results sent back. */
  turns?: readonly ToolTurn[]
}

/** Why generation stopped. `length` and `refusal` are recorded, not treated as infrastructure errors. */
export type FinishReason = 'stop' | 'length' | 'refusal' | 'other'

export interface ChatResponse {
  text: string
  /** Token usage as the reply reported it; `null` when it reported none (never zeros in its place). */
  usage: Usage | null
  latencyMs: number
  finishReason: FinishReason
  /** Nominal cost in USD of this call (0 for simulations, undefined when the model has no price). */
  costUsd?: number
  /** What the call would have cost with no prompt caching (for the "saved by caching" figure). */
  costUsdWithoutCache?: number
  /** Served from a cassette: tokens and cost are the recorded (nominal) ones. */
  replayed?: boolean
  /**
   * Sent through the provider's batch API: `costUsd` is the batch price, `costUsdAtListPrice` the
   * same call at list price. `false`: a batched model's call that went through the normal API
   * instead (its batch deadline passed).
   */
  batched?: boolean
  costUsdAtListPrice?: number
  /** The answer was longer than the model's `maxAnswerChars` and cut at this many characters. */
  cutAtChars?: number
  /** The model that served the call as the provider names it (e.g. a dated snapshot), when it says. */
  servedModel?: string
  /** The tools the model asked to call (in order; several at once for parallel calls), when `tools` were offered. */
  toolCalls?: ToolCall[]
  /** An agent's answer: the episode of turns and tool calls that produced it (`usage` and `costUsd` are its turns', added). */
  episode?: Episode
  /** An agent's workspace as the episode left it (`actors.agent({ workspace })`), for a verifier that judges files. */
  workspace?: WorkspaceSnapshot
}

/**
 * What a {@link ChatModel}'s `chat()` must resolve to, checked where a completion enters the loop
 * (the actor's in every attempt, a critic's, a grader's, a summariser's; see
 * {@link checkChatResponse}). Unknown fields are ignored.
 */
export const ChatResponseSchema = z.object({
  text: z.string(),
  usage: UsageSchema.nullable(),
  latencyMs: z.number().nonnegative(),
  finishReason: z.enum(['stop', 'length', 'refusal', 'other']),
  costUsd: z.number().nonnegative().optional(),
  costUsdWithoutCache: z.number().nonnegative().optional(),
  replayed: z.boolean().optional(),
  toolCalls: z.array(ToolCallSchema).optional(),
  episode: EpisodeSchema.optional(),
  workspace: WorkspaceSnapshotSchema.optional(),
})

const CHAT_RESPONSE_CONTRACT =
  "{ text: string, usage: { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } (integers >= 0) | null, latencyMs: number >= 0, finishReason: 'stop' | 'length' | 'refusal' | 'other', costUsd?: number >= 0, costUsdWithoutCache?: number >= 0, replayed?: boolean } (see ChatResponse)"

const CHAT_RESPONSE_HINTS: Readonly<Record<string, string>> = {
  '(root)': 'chat() must resolve to a completion object; did it forget to return (or await) it?',
  text: 'put the completion in `text` as a string ("" for an empty reply: a provider\'s null content must become "")',
  usage:
    'report token counts in `usage` as non-negative integers, or null when the provider reports none (unknown, never zero)',
  latencyMs: "set `latencyMs` to the call's wall-clock duration in ms (a finite number >= 0)",
  finishReason:
    "map the provider's stop reason to `finishReason` 'stop', 'length' (cut off by the token limit), 'refusal' or 'other'",
  costUsd: 'leave `costUsd` out when the model has no price, else a finite number >= 0',
  costUsdWithoutCache: 'leave `costUsdWithoutCache` out, or a finite number >= 0',
  replayed: 'leave `replayed` out unless the completion came from a cassette (then true)',
}

const FINISH_REASONS: ReadonlySet<unknown> = new Set(['stop', 'length', 'refusal', 'other'])
const isCount = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0
const isAmount = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0
const isOptionalAmount = (n: unknown) => n === undefined || isAmount(n)
const isToolCallList = (calls: unknown): boolean =>
  Array.isArray(calls) &&
  calls.every((c: unknown) => {
    if (typeof c !== 'object' || c === null || Array.isArray(c)) return false
    const call = c as Record<string, unknown>
    return typeof call.id === 'string' && typeof call.name === 'string' && typeof call.arguments === 'string'
  })

/**
 * The hot path of {@link checkChatResponse}: a hand-written test that accepts only completions
 * {@link ChatResponseSchema} accepts (a property test holds it to that), in a few nanoseconds
 * instead of a zod parse per attempt. Anything it does not accept goes to zod, which decides.
 */
export function isPlainChatResponse(value: unknown): value is ChatResponse {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const r = value as Record<string, unknown>
  const u = r.usage as Record<string, unknown> | null | undefined
  return (
    typeof r.text === 'string' &&
    isAmount(r.latencyMs) &&
    FINISH_REASONS.has(r.finishReason) &&
    (u === null ||
      (typeof u === 'object' &&
        !Array.isArray(u) &&
        isCount(u.inputTokens) &&
        isCount(u.outputTokens) &&
        isCount(u.cacheReadTokens) &&
        isCount(u.cacheWriteTokens))) &&
    isOptionalAmount(r.costUsd) &&
    isOptionalAmount(r.costUsdWithoutCache) &&
    (r.replayed === undefined || typeof r.replayed === 'boolean') &&
    // An agent checks every turn: its tool calls, plain strings, are checked here too.
    (r.toolCalls === undefined || isToolCallList(r.toolCalls)) &&
    r.episode === undefined &&
    r.workspace === undefined
  )
}

/**
 * Checks what `model.chat()` returned in `role` and returns it, or throws a ComponentError naming
 * the model, the field and the fix. A completion without usage or text used to crash far from
 * its cause (while adding up a trajectory's tokens, or in a verifier); now the cell fails at once
 * with the model's name (see ComponentError for why it is not a trajectory's infrastructure error).
 *
 * @example
 * const response = checkChatResponse(actor, 'actor', await actor.chat(request), { taskId: 't1', attempt: 1 })
 */
export function checkChatResponse(
  model: ChatModel,
  role: ModelRole,
  response: unknown,
  at?: { taskId: string; attempt: number },
): ChatResponse {
  if (isPlainChatResponse(response) || ChatResponseSchema.safeParse(response).success) return response as ChatResponse
  throw new ComponentError(
    {
      component: `chat model ${JSON.stringify(model.id)} (${role}, ${model.descriptor?.provider}:${model.descriptor?.model})`,
      returned: 'completion',
      where: at ? `for task ${JSON.stringify(at.taskId)}, attempt ${at.attempt}` : undefined,
      contract: CHAT_RESPONSE_CONTRACT,
      hints: CHAT_RESPONSE_HINTS,
    },
    zodProblems(ChatResponseSchema, response),
  )
}

/**
 * What identifies a model in a protocol: provider, model name and every decoding parameter.
 * It is hashed into the protocol fingerprint, so it must be plain JSON and stable.
 */
export interface ModelDescriptor {
  provider: string
  model: string
  params: Record<string, string | number | boolean | null>
}

/**
 * The one chat interface the protocol speaks. Actors, critics, graders and summarisers are all
 * ChatModels; the protocol never knows which provider is behind one. What `chat` resolves to is
 * checked where it enters the loop ({@link checkChatResponse}): anything outside
 * {@link ChatResponseSchema} is a ComponentError naming the model, which fails the cell.
 *
 * @example
 * const echo: ChatModel = {
 *   id: 'echo',
 *   descriptor: { provider: 'custom', model: 'echo', params: {} },
 *   async chat({ messages }) {
 *     return { text: messages.at(-1)!.content, usage: ZERO_USAGE, latencyMs: 0, finishReason: 'stop' }
 *   },
 * }
 */
export interface ChatModel {
  /** Short, unique, human-readable name used in cell titles and tables, e.g. `simulated:reviser`. */
  id: string
  descriptor: ModelDescriptor
  chat(request: ChatRequest): Promise<ChatResponse>
  /** Set when the model cannot run here (e.g. no API key and the eval opted into skipping): its cells are skipped with this reason. */
  unavailable?: string
  /**
   * Set when the model gathers calls into provider batches (`batch`): the loop then issues what it
   * may issue at once together (independent sampling draws its K samples at once, one batch).
   */
  gathers?: boolean
  /**
   * What its calls are priced at (USD per million tokens), for cost estimates before a run;
   * absent when it has no price (its cost is then unknown, never $0).
   */
  price?: Price
  /**
   * Speaks the tool protocol: `chat()` accepts `tools` and `turns` and answers with `toolCalls`.
   * A model without it is refused by an agent at declaration, never sent tools it would ignore.
   */
  tools?: boolean
}

/** Throws the signal's reason if it is aborted (so long loops stop between steps). */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted')
}

/** The artifact record of one response in `role`. */
export function recordCall(role: ModelRole, response: ChatResponse): ModelCall {
  // Assigned, not spread: an agent records every turn (a spread of a conditional object costs a runtime call).
  const call: ModelCall = {
    role,
    usage: response.usage,
    latencyMs: response.latencyMs,
    costUsd: response.costUsd ?? null,
    costUsdWithoutCache: response.costUsdWithoutCache ?? response.costUsd ?? null,
    replayed: response.replayed ?? false,
  }
  if (response.batched) {
    call.batched = true
    call.costUsdAtListPrice = response.costUsdAtListPrice ?? null
  } else if (response.batched === false) call.batched = false
  if (response.cutAtChars !== undefined) call.cutAtChars = response.cutAtChars
  return call
}

const SPENT = Symbol.for('vitest-seqk.spentCalls')

/**
 * Marks `error` with the calls that were made, and billed, before it was thrown (a grader's first
 * call before its repair failed, the actor's answer before the verifier broke), so the trajectory's
 * spend keeps them. Non-object errors are wrapped in an Error first. Returns the error to throw.
 *
 * @example
 * catch (error) { throw withSpentCalls(error, [recordCall('grader', first)]) }
 */
export function withSpentCalls(error: unknown, calls: readonly ModelCall[]): unknown {
  const target = error !== null && typeof error === 'object' ? error : new Error(String(error), { cause: error })
  if (calls.length === 0) return target
  const before = spentCalls(target)
  Object.defineProperty(target, SPENT, { value: [...before, ...calls], configurable: true, enumerable: false })
  return target
}

/**
 * A copy of `error` (same class, message and fields) carrying exactly `calls`: for a second party
 * that shares one failure (a deduplicated grading) without touching the original's accounting.
 */
export function copyWithSpentCalls(error: unknown, calls: readonly ModelCall[]): unknown {
  if (error === null || typeof error !== 'object') return withSpentCalls(error, calls)
  const copy = Object.create(Object.getPrototypeOf(error) as object) as object
  const fields = Object.getOwnPropertyDescriptors(error) as Record<string | symbol, PropertyDescriptor>
  delete fields[SPENT]
  Object.defineProperties(copy, fields)
  return withSpentCalls(copy, calls)
}

/** The calls an error carries (see {@link withSpentCalls}); empty for any other error. */
export function spentCalls(error: unknown): ModelCall[] {
  if (error === null || typeof error !== 'object') return []
  return ((error as Record<symbol, unknown>)[SPENT] as ModelCall[] | undefined) ?? []
}
