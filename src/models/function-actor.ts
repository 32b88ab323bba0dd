/**
 * The user's own function as the actor: an app that calls its models, tools and retrieval is the
 * subject of Seq@K, with no `ChatModel` to write. `actors.fromFunction(fn, { name, version })`
 * calls `fn({ prompt, messages, attempt, feedback, signal })` once per attempt and takes what it
 * returns (`answer`, or `{ answer, usage, costUsd }`) as the attempt's answer and spend.
 */
import { z } from 'zod'
import { isPromiseLike, type Awaitable } from '../core/awaitable.js'
import type { ChatMessage, ChatModel, ChatRequest, ChatResponse, ModelDescriptor, Usage } from './chat-model.js'
import { checkReturned, shown } from '../core/component-error.js'
import { simulatedTwin, type SimulatedActorOptions } from './simulated.js'
import { isCi, simulationsAsked, SimulationInCiError, SIMULATED_SPEC } from './simulation-policy.js'
import { rejectUnknownOptions } from '../core/option-checks.js'

/** What the function is called with, once per attempt (or independent sample). */
export interface FunctionActorInput {
  /** The task's prompt as text (a chat-message prompt: its last user message). */
  prompt: string
  /**
   * The conversation the protocol built for this attempt: the prompt as the prompt builder words it,
   * then, in a revision, the earlier answers and their feedback as the history policy keeps them.
   * An app that keeps its own state may ignore it and use `prompt` and `feedback`.
   */
  messages: ChatMessage[]
  /** 1-based attempt (sequential) or sample (independent) index. */
  attempt: number
  /** The feedback the previous attempt got, or null (attempt 1, independent sampling). */
  feedback: string | null
  /** Aborted when the cell times out or the run is cancelled: pass it to your model calls. */
  signal: AbortSignal
  /** The task's id and the 0-based repeat, for the app's own logs. */
  taskId: string
  repeat: number
}

/** Token counts the app reports for its own calls: input and output, cache reads and writes when known (default 0). */
export interface FunctionUsage {
  inputTokens: number
  outputTokens: number
  cacheReadTokens?: number
  cacheWriteTokens?: number
}

/** What the function returns: the answer, or the answer with its calls' usage and cost (unknown when left out). */
export type FunctionActorResult = string | { answer: string; usage?: FunctionUsage | null; costUsd?: number }

/** The user's function: one answer per call. */
export type ActorFunction = (input: FunctionActorInput) => Awaitable<FunctionActorResult>

/** The options of `actors.fromFunction(fn, options)`. */
export interface FromFunctionOptions {
  /** The app's name: the actor's model name in the protocol (the subject) and, by default, its id in tables. */
  name: string
  /**
   * The app's version (default `'1'`): part of the protocol, so bump it whenever the app changes
   * what it answers (its prompt, its model, its retrieval). The function's code is not
   * fingerprinted (a closure's captured values cannot be seen).
   */
  version?: string
  /** What else decides its answers (the model it calls, a temperature, a retrieval index's date): part of the protocol. */
  params?: Record<string, string | number | boolean | null>
  /** Name shown in tables (default: `name`). */
  id?: string
  /**
   * Environment variables the app needs to run (its API keys: `['OPENAI_API_KEY']`). Without one,
   * its `twin` runs instead (never in CI: there it fails at declaration, naming the variable), or,
   * with no twin, the declaration fails naming it.
   */
  requires?: readonly string[]
  /**
   * The app's offline simulated twin: a seeded simulated actor (`{ profile: 'reviser' }`) that
   * answers from each task's `simulation` script, id `simulated:<name>`. It runs when a `requires`
   * variable is missing (outside CI) and whenever `SEQK_ACTORS=simulated`, so the eval and its
   * tests run offline; it measures no app.
   */
  twin?: Omit<SimulatedActorOptions, 'id'>
}

const OPTIONS = ['name', 'version', 'params', 'id', 'requires', 'twin'] as const
const NAME = /^[\w.:/@+-]{1,100}$/

const UsageInputSchema = z.strictObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative().optional(),
  cacheWriteTokens: z.number().int().nonnegative().optional(),
})
const ResultObjectSchema = z.strictObject({
  answer: z.string(),
  usage: UsageInputSchema.nullable().optional(),
  costUsd: z.number().nonnegative().refine(Number.isFinite, 'must be finite').optional(),
})
// An object is checked field by field (so the error names `answer` or `usage.inputTokens`); anything else must be a string.
const resultSchema = (value: unknown): z.ZodType<FunctionActorResult> =>
  typeof value === 'object' && value !== null ? ResultObjectSchema : z.string()

const RESULT_HINTS: Readonly<Record<string, string>> = {
  '(root)':
    'return the answer as a string, or { answer: string, usage?: { inputTokens, outputTokens }, costUsd?: number } (did the function forget to return, or return the SDK response itself?)',
  answer:
    "make `answer` the app's answer as a string (for an SDK response: `completion.choices[0].message.content ?? ''`)",
  usage:
    'make `usage` { inputTokens, outputTokens, cacheReadTokens?, cacheWriteTokens? } with whole numbers >= 0 (from OpenAI: prompt_tokens, completion_tokens), or leave it out when unknown',
  costUsd: 'make `costUsd` a finite number of dollars >= 0, or leave it out (the cost is then unknown, never $0)',
}

/** The task's prompt as text: a string as it is, a message prompt's last user message. */
function promptText(prompt: ChatRequest['context']['prompt'], messages: readonly ChatMessage[]): string {
  if (typeof prompt === 'string') return prompt
  const from = prompt ?? messages
  return [...from].reverse().find((m) => m.role === 'user')?.content ?? ''
}

/** A usage as the contract has it: the cache counts default to 0. */
function usageOf(usage: FunctionUsage | null | undefined): Usage | null {
  if (usage === undefined || usage === null) return null
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cacheReadTokens: usage.cacheReadTokens ?? 0,
    cacheWriteTokens: usage.cacheWriteTokens ?? 0,
  }
}

/** Rejects when `signal` aborts, so a function that ignores its signal still lets the cell stop. */
function abortion(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let dispose = () => {}
  const promise = new Promise<never>((_, reject) => {
    const stop = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'))
    if (signal.aborted) return stop()
    signal.addEventListener('abort', stop, { once: true })
    dispose = () => signal.removeEventListener('abort', stop)
  })
  // Nobody may await it (the function answered first): never an unhandled rejection.
  promise.catch(() => {})
  return { promise, dispose }
}

/**
 * Your own function as an actor: `fn({ prompt, messages, attempt, feedback, signal, taskId,
 * repeat })` returns the answer, or `{ answer, usage, costUsd }` with the usage and cost of the
 * calls it made (left out: unknown, never zero). An app that calls its own models, tools and
 * retrieval becomes the subject measured under sequential feedback, as it runs in production.
 *
 * In the protocol it is provider `function`, model `name`, with `version` and `params` as its
 * parameters: bump the version when the app changes. What it returns is checked (zod): anything
 * else fails the cell naming the function and the field. An error it throws is an infrastructure
 * error of that trajectory, redacted like every stored error; the cell's `signal` is passed in, and
 * a function that ignores it is abandoned when it aborts.
 *
 * For tests and offline runs give it a `twin` (a seeded simulated actor over the tasks'
 * `simulation` scripts) and `requires` (the variables the app needs): without them, or with
 * `SEQK_ACTORS=simulated`, the twin runs; in CI a missing variable fails closed instead.
 *
 * @example
 * const app = actors.fromFunction(
 *   async ({ messages, signal }) => {
 *     const completion = await openai.chat.completions.create({ model: 'gpt-4.1-mini', messages }, { signal })
 *     const u = completion.usage
 *     return { answer: completion.choices[0]?.message.content ?? '', usage: u && { inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens } }
 *   },
 *   { name: 'invoice-app', version: '3', params: { model: 'gpt-4.1-mini' }, requires: ['OPENAI_API_KEY'], twin: { profile: 'reviser' } },
 * )
 */
export function fromFunction(fn: ActorFunction, options: FromFunctionOptions): ChatModel {
  if (typeof fn !== 'function')
    throw new TypeError(
      `actors.fromFunction(fn, options): fn must be a function ({ prompt, messages, attempt, feedback, signal }) => answer | { answer, usage }, got ${shown(fn)}`,
    )
  if (typeof options !== 'object' || options === null)
    throw new TypeError(
      `actors.fromFunction(fn, options): give the app a name, e.g. actors.fromFunction(fn, { name: 'invoice-app', version: '1' })`,
    )
  const name = options.name
  if (typeof name !== 'string' || !NAME.test(name))
    throw new TypeError(
      `actors.fromFunction(fn, { name }): name must be 1 to 100 letters, digits or . _ : / @ + -, got ${shown(name)}`,
    )
  const where = `actors.fromFunction(fn, { name: ${JSON.stringify(name)} })`
  rejectUnknownOptions(where, options, OPTIONS)
  const version = options.version ?? '1'
  if (typeof version !== 'string' || version === '' || version.length > 100)
    throw new TypeError(`${where}: version must be a non-empty string of at most 100 characters, got ${shown(version)}`)
  const params = options.params ?? {}
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw new TypeError(
      `${where}: params must be an object of strings, numbers, booleans or nulls, got ${shown(params)}`,
    )
  for (const [key, value] of Object.entries(params)) {
    if (key === 'version') throw new TypeError(`${where}: params.version is taken (it is the version option)`)
    if (!(value === null || typeof value === 'string' || typeof value === 'boolean' || Number.isFinite(value)))
      throw new TypeError(
        `${where}: params.${key} must be a string, a finite number, a boolean or null (it is hashed into the protocol), got ${shown(value)}`,
      )
  }
  const requires = options.requires ?? []
  if (!Array.isArray(requires) || !requires.every((v) => typeof v === 'string' && /^\w+$/.test(v)))
    throw new TypeError(`${where}: requires must be a list of environment variable names, got ${shown(requires)}`)

  const twin =
    options.twin === undefined ? undefined : () => simulatedTwin({ ...options.twin!, id: `simulated:${name}` }, name)
  const missing = requires.filter((v) => !process.env[v]?.trim())
  if (simulationsAsked()) {
    if (twin) return twin()
    throw new Error(
      `${where}: SEQK_ACTORS=${SIMULATED_SPEC} asks for simulations, but this app has no twin; give it one (twin: { profile: 'reviser' }) or unset SEQK_ACTORS`,
    )
  }
  if (missing.length > 0) {
    const unset = `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set`
    if (twin && isCi())
      throw new SimulationInCiError(
        where,
        `${unset}, so its simulated twin would run in its place`,
        `set ${missing.join(' and ')} (a repository secret in the workflow's env)`,
        'the app',
      )
    if (twin) return twin()
    throw new Error(
      `${where}: ${unset}; the app needs ${missing.length === 1 ? 'it' : 'them'} to run (requires). Set ${missing.join(' and ')}, or give it a twin to run offline`,
    )
  }

  const descriptor: ModelDescriptor = { provider: 'function', model: name, params: { ...params, version } }
  const breach = (taskId: string, attempt: number) => () => ({
    component: `${where}'s function`,
    returned: 'result',
    where: `for task ${JSON.stringify(taskId)}, attempt ${attempt}`,
    contract:
      'a string (the answer) or { answer: string, usage?: { inputTokens, outputTokens, cacheReadTokens?, cacheWriteTokens? } | null, costUsd?: number }',
    hints: RESULT_HINTS,
  })
  return {
    id: options.id ?? name,
    descriptor,
    async chat(request: ChatRequest): Promise<ChatResponse> {
      const started = performance.now()
      const { context } = request
      const signal = request.signal ?? new AbortController().signal
      const input: FunctionActorInput = {
        prompt: promptText(context.prompt, request.messages),
        // A copy: the loop's own list stays as it built it, whatever the function does with this one.
        messages: request.messages.map((m) => ({ ...m })),
        attempt: context.attempt,
        feedback: context.feedback ?? null,
        signal,
        taskId: context.taskId,
        repeat: context.repeat,
      }
      const running = fn(input)
      let value: unknown = running
      if (isPromiseLike(running)) {
        const stop = abortion(signal)
        try {
          value = await Promise.race([running, stop.promise])
        } finally {
          stop.dispose()
        }
      }
      const result = checkReturned(resultSchema(value), value, breach(context.taskId, context.attempt))
      const latencyMs = performance.now() - started
      if (typeof result === 'string') return { text: result, usage: null, latencyMs, finishReason: 'stop' }
      const response: ChatResponse = {
        text: result.answer,
        usage: usageOf(result.usage),
        latencyMs,
        finishReason: 'stop',
      }
      if (result.costUsd !== undefined) response.costUsd = result.costUsd
      return response
    },
  }
}
