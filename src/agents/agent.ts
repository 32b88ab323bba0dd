/**
 * The agent actor: an attempt is an episode. The model is offered tools; each turn it either
 * answers (the episode ends, the verifier judges) or calls tools, whose results go back to it in
 * the next turn. Limits on turns, tokens, wall time and cost end the episode with that reason.
 * Feedback and history reach the episode as they reach any actor: in its first messages.
 */
import { sha256, canonicalJson } from '../core/fingerprint.js'
import { UsageTally } from '../core/contract.js'
import type { EpisodeEndReason, EpisodeTurn, ToolCallRecord, ToolFaultKind } from '../core/episode.js'
import {
  faultError,
  faultOf,
  faultParams,
  faultSettings,
  truncated,
  type FaultOptions,
  type FaultSettings,
} from './faults.js'
import {
  CallBudgetStop,
  checkChatResponse,
  recordCall,
  throwIfAborted,
  withSpentCalls,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type FinishReason,
  type ModelCall,
} from '../models/chat-model.js'
import { redactName, redactSecrets, redactText } from '../models/redact.js'
import { TimeLimit } from '../models/call-signal.js'
import { cutToChars } from '../models/providers/remote.js'
import type { ToolCall, ToolTurn } from '../models/tools.js'
import { checkNumberOptions, rejectUnknownOptions } from '../core/option-checks.js'
import type { AgentTool, ToolContext } from './tool.js'
import {
  Workspace,
  workspaceSettings,
  workspaceTools,
  type WorkspaceOptions,
  type WorkspaceSettings,
} from './workspace.js'

/** The options of `actors.agent()`. */
export interface AgentOptions {
  /** The model that drives the episode: a provider that speaks tools (`actors.openai`, `actors.anthropic`, `actors.openaiCompatible`). */
  model: ChatModel
  /** The tools it may call (see `tool()`); names must differ. */
  tools: readonly AgentTool[]
  /** Most model turns in one episode (default 20): the next turn is not asked for. */
  maxSteps?: number
  /** Most tokens (input and output, every turn) in one episode, checked after each turn. */
  maxTokens?: number
  /** Longest one episode may take in ms: a turn or tool still running is stopped. */
  maxWallMs?: number
  /** Most nominal cost in USD of one episode, checked after each turn (the model must have a price). */
  maxCostUsd?: number
  /** Longest tool result sent back and kept, in characters (default 20 000). */
  maxResultChars?: number
  /** Longest one tool call may run in ms (default 60 000): then it fails, and the model reads so. */
  toolTimeoutMs?: number
  /**
   * Most tool calls run from one model turn (default 64): the calls past it are not run, and each
   * reads as its error that the cap was passed.
   */
  maxToolCallsPerTurn?: number
  /** Most tool calls run in one episode (default 1000): later calls are not run, likewise. */
  maxToolCalls?: number
  /**
   * A fresh workspace per attempt, seeded from the task's `files`, with the built-in tools
   * `read_file`, `write_file`, `list_files`, `run_command` and `run_python` (commands run in the
   * Python verifier's sandbox). `true` for the defaults. Its files at the episode's end go to the
   * verifier (`verifiers.pythonTests({ workspace: true })`).
   */
  workspace?: WorkspaceOptions | true
  /**
   * Fault robustness: a seeded share of the tool calls fail, time out or come back cut short
   * (`{ share: 0.2, kinds: ['error', 'timeout', 'truncate'], seed: 1 }`), each recorded on its call.
   * Part of the subject: the run compares the faulted agent with the same agent without faults.
   */
  faults?: FaultOptions
  /** Name in tables (default `agent:<model id>`). */
  id?: string
}

const KNOWN = [
  'model',
  'tools',
  'maxSteps',
  'maxTokens',
  'maxWallMs',
  'maxCostUsd',
  'maxResultChars',
  'toolTimeoutMs',
  'maxToolCallsPerTurn',
  'maxToolCalls',
  'workspace',
  'faults',
  'id',
]
const BOUNDS = {
  maxSteps: { min: 1, max: 10_000, integer: true, why: 'model turns per episode' },
  maxTokens: { min: 1, max: 1e9, integer: true, why: 'tokens per episode' },
  maxWallMs: { min: 1, max: 86_400_000, why: 'ms per episode, at most a day' },
  maxCostUsd: { min: 0, max: 1e6, why: 'USD per episode' },
  maxResultChars: { min: 1, max: 10_000_000, integer: true, why: 'characters per tool result' },
  toolTimeoutMs: { min: 1, max: 86_400_000, why: 'ms per tool call' },
  maxToolCallsPerTurn: { min: 1, max: 100_000, integer: true, why: 'tool calls run per turn' },
  maxToolCalls: { min: 1, max: 1_000_000, integer: true, why: 'tool calls run per episode' },
}
/** Defaults of the tool-call caps: far above what a model asks for in earnest, far below a flood. */
const DEFAULT_CALLS_PER_TURN = 64
const DEFAULT_CALLS = 1000

/** What a limit's ending reports as the attempt's finish reason: a token limit is a `length`. */
const FINISH_OF: Record<Exclude<EpisodeEndReason, 'answer'>, FinishReason> = {
  steps: 'other',
  tokens: 'length',
  time: 'other',
  cost: 'other',
}

/**
 * An actor whose attempt is an episode of tool calls: the model ↔ tools loop runs until the model
 * answers without calling a tool, or a limit is reached. Tool arguments are checked against the
 * tool's schema first; an unknown tool, invalid arguments or a tool that throws go back to the
 * model as the call's error, never crash the attempt. The episode (every turn and tool call,
 * with tokens, cost and durations) is recorded on the attempt.
 *
 * @example
 * const read = tool({ name: 'read', description: 'Reads a note.', parameters: z.object({ key: z.string() }), run: ({ key }) => notes[key] ?? 'none' })
 * actors: [actors.agent({ model: actors.openai({ model: 'gpt-4.1-mini' }), tools: [read], maxSteps: 8 })]
 */
export function agentActor(options: AgentOptions): ChatModel {
  const where = `actors.agent({ model: ${JSON.stringify(options?.model?.id)} })`
  rejectUnknownOptions(where, options, KNOWN)
  checkNumberOptions(where, options, BOUNDS)
  const { model } = options
  if (!model || typeof model.chat !== 'function')
    throw new TypeError(`${where}: model must be a chat model, e.g. actors.openai({ model: 'gpt-4.1-mini' })`)
  if (!model.tools && !model.unavailable)
    throw new TypeError(
      `${where}: ${model.id} does not speak the tool protocol; use actors.openai, actors.anthropic or actors.openaiCompatible`,
    )
  if (!Array.isArray(options.tools))
    throw new TypeError(`${where}: tools must be a list of tool({ name, description, parameters, run })`)
  const byName = new Map<string, AgentTool>()
  const workspace = options.workspace === undefined ? undefined : workspaceSettings(where, options.workspace)
  const faults = options.faults === undefined ? undefined : faultSettings(where, options.faults)
  const allTools = workspace ? [...workspaceTools(), ...options.tools] : options.tools
  for (const t of allTools) {
    if (!t?.definition || typeof t.check !== 'function')
      throw new TypeError(`${where}: every tool must come from tool({ name, description, parameters, run })`)
    if (byName.has(t.definition.name))
      throw new TypeError(
        `${where}: two tools are named ${JSON.stringify(t.definition.name)}${workspace ? ' (the workspace adds read_file, write_file, list_files, run_command and run_python)' : ''}`,
      )
    byName.set(t.definition.name, t)
  }
  // Fail closed: a cost limit on a model with no price could never be checked.
  if (options.maxCostUsd !== undefined && !model.price)
    throw new TypeError(
      `${where}: maxCostUsd needs a priced model, and ${model.id} has no price (set its prices option)`,
    )
  const definitions = allTools.map((t) => t.definition)
  const limits = {
    maxSteps: options.maxSteps ?? 20,
    maxTokens: options.maxTokens,
    maxWallMs: options.maxWallMs,
    maxCostUsd: options.maxCostUsd,
  }
  const maxResultChars = options.maxResultChars ?? 20_000
  const toolTimeoutMs = options.toolTimeoutMs ?? 60_000
  const callCaps = {
    perTurn: options.maxToolCallsPerTurn ?? DEFAULT_CALLS_PER_TURN,
    perEpisode: options.maxToolCalls ?? DEFAULT_CALLS,
  }
  const id = options.id ?? `agent:${model.id}`
  // The tools and limits change what the model does: they are part of the protocol's actor.
  const params = Object.fromEntries(Object.entries(model.descriptor.params).map(([k, v]) => [`model.${k}`, v]))
  const descriptor = {
    provider: 'agent',
    model: `${model.descriptor.provider}:${model.descriptor.model}`,
    params: {
      ...params,
      tools: definitions.map((d) => d.name).join(','),
      toolsHash: sha256(canonicalJson(definitions)).slice(0, 16),
      maxSteps: limits.maxSteps,
      maxResultChars,
      ...(limits.maxTokens !== undefined ? { maxTokens: limits.maxTokens } : {}),
      ...(limits.maxWallMs !== undefined ? { maxWallMs: limits.maxWallMs } : {}),
      ...(limits.maxCostUsd !== undefined ? { maxCostUsd: limits.maxCostUsd } : {}),
      // Set caps change what the model reads when it passes them; the defaults only stop floods.
      ...(options.maxToolCallsPerTurn !== undefined ? { maxToolCallsPerTurn: options.maxToolCallsPerTurn } : {}),
      ...(options.maxToolCalls !== undefined ? { maxToolCalls: options.maxToolCalls } : {}),
      // Its limits can change what a command does (a timeout, a memory error): part of the protocol.
      ...(workspace
        ? {
            'workspace.timeoutMs': workspace.timeoutMs,
            'workspace.memoryMb': workspace.memoryMb,
            'workspace.maxOutputBytes': workspace.maxOutputBytes,
            'workspace.maxReadBytes': workspace.maxReadBytes,
            'workspace.maxBytes': workspace.maxBytes,
          }
        : {}),
      ...(faults ? faultParams(faults) : {}),
    },
  }
  return {
    id,
    descriptor,
    ...(model.price ? { price: model.price } : {}),
    ...(model.unavailable ? { unavailable: model.unavailable } : {}),
    chat: (request) =>
      runEpisode({
        model,
        request,
        definitions,
        byName,
        limits,
        maxResultChars,
        toolTimeoutMs,
        callCaps,
        workspace,
        faults,
      }),
  }
}

interface EpisodeInput {
  model: ChatModel
  request: ChatRequest
  definitions: AgentTool['definition'][]
  byName: ReadonlyMap<string, AgentTool>
  limits: { maxSteps: number; maxTokens?: number; maxWallMs?: number; maxCostUsd?: number }
  maxResultChars: number
  toolTimeoutMs: number
  callCaps: { perTurn: number; perEpisode: number }
  workspace: WorkspaceSettings | undefined
  faults: FaultSettings | undefined
}

/** One episode, in a fresh workspace when the agent has one: its files at the end go with the answer. */
function runEpisode(input: EpisodeInput): Promise<ChatResponse> {
  // No async frame without a workspace: the episode's own promise is the one its caller awaits.
  return input.workspace ? runInWorkspace(input, input.workspace) : runTurns(input, undefined)
}

async function runInWorkspace(input: EpisodeInput, settings: WorkspaceSettings): Promise<ChatResponse> {
  throwIfAborted(input.request.signal)
  const workspace = await Workspace.create(input.request.context.files, settings)
  try {
    const response = await runTurns(input, workspace)
    return { ...response, workspace: await workspace.snapshot() }
  } finally {
    await workspace.dispose()
  }
}

/** One episode: turns until an answer or a limit. */
async function runTurns(input: EpisodeInput, workspace: Workspace | undefined): Promise<ChatResponse> {
  const { model, request, limits } = input
  throwIfAborted(request.signal)
  const started = performance.now()
  const wall = episodeClock(request.signal, limits.maxWallMs)
  const turns: ToolTurn[] = []
  const record: EpisodeTurn[] = []
  const spent: ModelCall[] = []
  const tally = new UsageTally()
  let cost: number | null = 0
  let last: ChatResponse | undefined
  let endedBy: EpisodeEndReason | undefined
  const served = new Set<string>()
  // Every call id the model used in this episode, and how many calls were run.
  const ids = new Set<string>()
  let callsRun = 0
  try {
    for (let step = 1; endedBy === undefined; step++) {
      if (step > limits.maxSteps) {
        endedBy = 'steps'
        break
      }
      // A cost cap reached since the last turn stops the episode before the next call (see CallBudget).
      const capped = step > 1 ? request.context.budget?.stop() : undefined
      if (capped) throw withSpentCalls(new CallBudgetStop(capped, step - 1), spent)
      const turnStarted = performance.now()
      let response: ChatResponse
      try {
        response = checkChatResponse(
          model,
          'actor',
          await model.chat({
            messages: request.messages,
            context: request.context,
            signal: wall.signal,
            tools: input.definitions,
            turns,
          }),
          request.context,
        )
      } catch (error) {
        throwIfAborted(request.signal)
        if (!wall.passed) throw withSpentCalls(error, spent)
        // The turn stopped at the wall: what it cost is unknown (it may have been billed), never $0.
        record.push({
          index: step,
          text: '',
          toolCalls: [],
          usage: null,
          costUsd: null,
          latencyMs: performance.now() - turnStarted,
          replayed: false,
        })
        tally.add(null)
        cost = null
        request.context.budget?.charge({ usage: null, costUsd: null })
        endedBy = 'time'
        break
      }
      last = response
      if (response.servedModel) served.add(response.servedModel)
      const call = recordCall('actor', response)
      spent.push(call)
      request.context.budget?.charge(call)
      tally.add(response.usage)
      cost = cost === null || response.costUsd === undefined ? null : cost + response.costUsd
      const turn: EpisodeTurn = {
        index: step,
        text: response.text,
        toolCalls: [],
        usage: response.usage,
        costUsd: response.costUsd ?? null,
        latencyMs: response.latencyMs,
        replayed: response.replayed ?? false,
      }
      record.push(turn)
      const calls = response.toolCalls ?? []
      if (calls.length === 0) {
        endedBy = 'answer'
        break
      }
      turns.push({ role: 'assistant', text: response.text, toolCalls: calls })
      const runBefore = callsRun
      // Calls past a cap, and a call reusing an id, are the model's errors: not run.
      const refusals = calls.map((call, i) => {
        const reused = ids.has(call.id)
        ids.add(call.id)
        if (reused)
          return `not run: the call id ${JSON.stringify(call.id)} was already used in this episode; give each call its own id`
        if (i >= input.callCaps.perTurn)
          return `not run: this turn asked for ${calls.length} tool calls, over the limit of ${input.callCaps.perTurn} a turn (maxToolCallsPerTurn)`
        if (callsRun >= input.callCaps.perEpisode)
          return `not run: the episode reached its limit of ${input.callCaps.perEpisode} tool calls (maxToolCalls)`
        callsRun++
        return undefined
      })
      // The injector's faults, by each run call's place in the episode (refused calls are not run, so never hit).
      let place = runBefore
      const faultsOf = calls.map((_, i) =>
        refusals[i] === undefined && input.faults ? faultOf(input.faults, request.context, place++) : undefined,
      )
      // Parallel calls run together, as the model asked for them together; results go back in its
      // order. A single call to a tool that answered at once is not awaited (no promise, no hop).
      let results: CallResult[]
      if (calls.length === 1 && refusals[0] === undefined && faultsOf[0] === undefined) {
        const one = runCall(calls[0]!, input, wall, workspace)
        results = [one instanceof Promise ? await one : one]
      } else
        results = await Promise.all(
          calls.map((call, i) =>
            refusals[i] !== undefined
              ? refusedCall(call, refusals[i])
              : faultsOf[i] !== undefined
                ? faultedCall(call, faultsOf[i], input, wall, workspace)
                : startCall(call, input, wall, workspace),
          ),
        )
      throwIfAborted(request.signal)
      const records: ToolCallRecord[] = []
      for (const r of results) {
        records.push(r.record)
        turns.push(r.turn)
      }
      turn.toolCalls = records
      endedBy = limitReached(input, tally, cost, wall, spent)
    }
  } finally {
    wall.dispose()
  }
  const reason = endedBy ?? 'answer'
  return {
    text: last?.text ?? '',
    usage: tally.sum().usage,
    latencyMs: performance.now() - started,
    finishReason: reason === 'answer' ? (last?.finishReason ?? 'other') : FINISH_OF[reason],
    ...(cost !== null ? { costUsd: cost } : {}),
    ...(record.length > 0 && record.every((t) => t.replayed) ? { replayed: true } : {}),
    // What served the turns, as the provider said (the disclosure card's served model).
    ...(served.size > 0 ? { servedModel: [...served].join(', ') } : {}),
    episode: { turns: record, endedBy: reason },
  }
}

/**
 * The limit the episode has reached after a turn, or undefined. A limit that cannot be checked
 * fails the attempt instead of being ignored: tokens a reply did not report, a cost left unknown.
 */
function limitReached(
  input: EpisodeInput,
  tally: UsageTally,
  cost: number | null,
  wall: EpisodeClock,
  spent: readonly ModelCall[],
): EpisodeEndReason | undefined {
  const { limits, model } = input
  if (wall.passed) return 'time'
  if (limits.maxTokens !== undefined) {
    const { usage, unknownCalls } = tally.sum()
    if (unknownCalls > 0 || usage === null)
      throw withSpentCalls(
        new Error(`actors.agent: maxTokens cannot be held: ${model.id} reported no usage for a turn`),
        spent,
      )
    if (usage.inputTokens + usage.outputTokens >= limits.maxTokens) return 'tokens'
  }
  if (limits.maxCostUsd !== undefined) {
    if (cost === null)
      throw withSpentCalls(
        new Error(`actors.agent: maxCostUsd cannot be held: the cost of a turn of ${model.id} is unknown`),
        spent,
      )
    if (cost >= limits.maxCostUsd) return 'cost'
  }
  return undefined
}

/** What one tool call leaves: its record on the attempt and its turn for the model. */
interface CallResult {
  record: ToolCallRecord
  turn: ToolTurn
}

/**
 * One tool call: the tool found, its arguments checked, its function run; any failure becomes the
 * call's error. A tool that answers at once (a plain function returning a value) is done here,
 * with no promise: its result comes back as it is. One that returns a promise races its time limit
 * from then on, counted from the call's start, as does one that reads its signal. Throws (at once)
 * only when the caller's signal has aborted.
 */
function runCall(
  call: ToolCall,
  input: EpisodeInput,
  wall: EpisodeClock,
  workspace: Workspace | undefined,
): CallResult | Promise<CallResult> {
  const started = performance.now()
  const found = input.byName.get(call.name)
  if (!found)
    return callResult(
      call,
      input,
      started,
      undefined,
      `there is no tool named ${JSON.stringify(redactName(call.name))}; the tools are ${[...input.byName.keys()].join(', ') || 'none'}`,
    )
  let args: unknown
  try {
    args = JSON.parse(call.arguments)
  } catch (e) {
    return callResult(call, input, started, undefined, `the arguments are not valid JSON (${(e as Error).message})`)
  }
  const checked = found.check(args)
  if (!checked.ok) return callResult(call, input, started, undefined, `invalid arguments: ${checked.problems}`)
  const run = new ToolRun(wall, input.toolTimeoutMs, started)
  let result: string
  try {
    // The episode was stopped before the call (its wall time passed): the tool is not started.
    if (wall.signal?.aborted) throw wall.signal.reason
    const out = found.run(checked.value, toolContext(run, input.request.context, workspace))
    if (isThenable(out)) return settleCall(call, input, wall, run, started, out)
    result = resultText(out)
  } catch (e) {
    run.end()
    return callResult(call, input, started, undefined, toolFailure(e, input, wall, run))
  }
  run.end()
  return callResult(call, input, started, result, undefined)
}

/** A parallel call, started: a throw (the caller's signal aborted) is its rejection, so every call started is awaited together. */
function startCall(
  call: ToolCall,
  input: EpisodeInput,
  wall: EpisodeClock,
  workspace: Workspace | undefined,
): CallResult | Promise<CallResult> {
  try {
    return runCall(call, input, wall, workspace)
  } catch (error) {
    return Promise.reject(error)
  }
}

/** A tool that returned a promise: its result, or its failure, within its time limit. */
async function settleCall(
  call: ToolCall,
  input: EpisodeInput,
  wall: EpisodeClock,
  run: ToolRun,
  started: number,
  out: PromiseLike<unknown>,
): Promise<CallResult> {
  let result: string | undefined
  let error: string | undefined
  try {
    result = resultText(await run.limit().race(Promise.resolve(out)))
  } catch (e) {
    error = toolFailure(e, input, wall, run)
  } finally {
    run.end()
  }
  return callResult(call, input, started, result, error)
}

/** What a tool returned, as the text the model reads. */
const resultText = (out: unknown): string => (typeof out === 'string' ? out : (JSON.stringify(out) ?? String(out)))

/** Why a tool call failed, as the model reads it; the caller's own abort is thrown instead. */
function toolFailure(e: unknown, input: EpisodeInput, wall: EpisodeClock, run: ToolRun): string {
  throwIfAborted(input.request.signal)
  return wall.passed
    ? "stopped: the agent's maxWallMs passed"
    : run.passed
      ? `timed out after ${input.toolTimeoutMs} ms (toolTimeoutMs)`
      : `the tool failed: ${(e as Error)?.message ?? String(e)}`
}

/**
 * A call the injector hit: `error` and `timeout` are not run and read as a real failure would;
 * `truncate` runs and its result goes back cut to its first half. The record names the fault.
 */
async function faultedCall(
  call: ToolCall,
  fault: ToolFaultKind,
  input: EpisodeInput,
  wall: EpisodeClock,
  workspace: Workspace | undefined,
): Promise<CallResult> {
  if (fault !== 'truncate') {
    const result = callResult(call, input, performance.now(), undefined, faultError(fault, input.toolTimeoutMs))
    result.record.fault = fault
    return result
  }
  const ran = await startCall(call, input, wall, workspace)
  if (ran.record.result === null) return { ...ran, record: { ...ran.record, fault } }
  const cut = truncated(ran.record.result)
  return {
    record: { ...ran.record, result: cut, fault },
    turn: { ...ran.turn, content: cut } as ToolTurn,
  }
}

/** A call that was not run (a cap passed, an id reused): the model's error, said in our own words. */
function refusedCall(call: ToolCall, reason: string): CallResult {
  return {
    record: { id: call.id, name: call.name, arguments: call.arguments, result: null, error: reason, durationMs: 0 },
    turn: { role: 'tool', callId: call.id, name: call.name, content: `error: ${reason}`, isError: true },
  }
}

/** A call's record and the turn the model reads: its result or its error, each redacted and capped. */
function callResult(
  call: ToolCall,
  input: EpisodeInput,
  started: number,
  result: string | undefined,
  error: string | undefined,
): CallResult {
  // A tool may read a configured key from a file or the environment, or throw with it in its message
  // (an HTTP wrapper's 401): it never reaches an artifact or the model's next turn.
  const text = result === undefined ? undefined : redactSecrets(result)
  if (error !== undefined) error = cutToChars(redactText(error), input.maxResultChars)
  const capped = text === undefined ? undefined : cutToChars(text, input.maxResultChars)
  // Assigned in the order a literal would give, not spread (a runtime call on every tool call).
  // A name and an error are written to every output: a credential-shaped value in them is not.
  const name = redactName(call.name)
  const record = { id: call.id, name, arguments: call.arguments, result: capped ?? null } as ToolCallRecord
  if (text !== undefined && capped !== text) record.resultCutAtChars = input.maxResultChars
  record.error = error === undefined ? null : redactText(error)
  record.durationMs = performance.now() - started
  const content =
    error !== undefined
      ? `error: ${record.error}`
      : capped !== text
        ? `${capped}\n[cut at ${input.maxResultChars} characters]`
        : (capped ?? '')
  return { record, turn: { role: 'tool', callId: call.id, name: call.name, content, isError: error !== undefined } }
}

/**
 * One tool call's time limit, started only when needed: when the tool returns a promise, or reads
 * its signal (a tool that answers at once is never timed).
 */
class ToolRun {
  #limit: TimeLimit | undefined
  #ended = false

  constructor(
    private readonly wall: EpisodeClock,
    private readonly ms: number,
    private readonly started: number,
  ) {}

  /** The call's limit, counted from the call's start; started now if it was not yet. */
  limit(): TimeLimit {
    return (this.#limit ??= new TimeLimit(
      this.wall.signal,
      Math.max(1, this.ms - (performance.now() - this.started)),
      timeLimitPassed,
    ))
  }

  /** The tool's signal. Read after the call ended (a tool that kept its context): no limit is left to start. */
  signal(): AbortSignal {
    if (this.#limit) return this.#limit.signal
    return this.#ended ? new AbortController().signal : this.limit().signal
  }

  /** The call's own time limit passed. */
  get passed(): boolean {
    return this.#limit?.passed ?? false
  }

  end(): void {
    this.#ended = true
    this.#limit?.dispose()
  }
}

/**
 * What a tool's function is handed: a literal whose `signal` is an own, enumerable getter, so a tool
 * that spreads its context (`{ ...context, extra }`) keeps the signal (a class's prototype getter
 * would be dropped by the spread; the literal costs about 0.9 µs more a call).
 */
function toolContext(run: ToolRun, context: ChatRequest['context'], workspace: Workspace | undefined): ToolContext {
  return {
    get signal() {
      return run.signal()
    },
    taskId: context.taskId,
    attempt: context.attempt,
    repeat: context.repeat,
    ...(workspace ? { workspace } : {}),
  }
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null &&
  (typeof value === 'object' || typeof value === 'function') &&
  typeof (value as { then?: unknown }).then === 'function'

/** The reason a time limit of the episode or of a tool call gives. */
const timeLimitPassed = (ms: number) => new Error(`the time limit of ${ms} ms passed`)

/** The episode's time limit, as its turns and tools read it. */
interface EpisodeClock {
  /** Aborted when the caller's signal does or the limit passes; the caller's own (or none) with no limit. */
  readonly signal: AbortSignal | undefined
  /** The limit passed. */
  readonly passed: boolean
  dispose(): void
}

/**
 * The episode's time limit under the caller's signal: `signal` aborts when the parent does or when
 * `ms` pass (`passed` then says it was the limit). With no limit it is the parent's own signal (or
 * none): no controller, no timer and no listener for a limit that cannot pass.
 */
function episodeClock(parent: AbortSignal | undefined, ms: number | undefined): EpisodeClock {
  if (ms === undefined) return { signal: parent, passed: false, dispose: () => {} }
  const limit = new TimeLimit(parent, ms, timeLimitPassed)
  // Read now: the model's turns are handed it.
  void limit.signal
  return limit
}
