/**
 * A simulated tool-calling model for offline agent evals: seeded, deterministic stand-ins that
 * drive `actors.agent({ workspace: true })` through real tools and the real sandbox, so the bundled
 * agent benchmark runs with no key. These are simulations, not models: what they write comes from
 * the repair scripts given to their constructor (a correct or a wrong version of the task's file),
 * and how they act (read, edit, run the tests, stop) from their profile.
 */
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { describeZodError } from '../core/zod-errors.js'
import { createRng, seedFrom, type Rng } from '../metrics/random.js'
import type { ChatModel, ChatRequest, ChatResponse } from '../models/chat-model.js'
import type { ToolCall, ToolTurn } from '../models/tools.js'

/**
 * What a simulated agent may write for one task: the file to repair, versions of it that pass the
 * task's tests (`correct`) and versions that fail them (`wrong`), and the command that runs the
 * workspace's own tests.
 *
 * @example
 * RepairScriptSchema.parse({ file: 'calc.py', test: 'python3 test_calc.py', correct: ['def add(a, b):\n    return a + b\n'], wrong: ['def add(a, b):\n    return a - b\n'] })
 */
export const RepairScriptSchema = z.object({
  /** The file an edit replaces (relative to the workspace). */
  file: z.string().min(1),
  /** The shell command that runs the workspace's visible tests. */
  test: z.string().min(1),
  /** 0 (easy) to 1 (hard): scales the first-try and repair chances, as the simulated actor's. */
  difficulty: z.number().min(0).max(1).default(0.5),
  correct: z.array(z.string().min(1)).min(1),
  wrong: z.array(z.string().min(1)).min(1),
})
/** A repair script (see {@link RepairScriptSchema}). */
export type RepairScript = z.infer<typeof RepairScriptSchema>

/**
 * How a simulated agent acts in an episode. Chances are for a task of difficulty 0.5.
 */
export interface SimulatedAgentProfile {
  /** Chance the file it leaves in a fresh attempt (attempt 1, or any independent sample) is correct. */
  firstTry: number
  /** Chance a revision leaves a correct file after feedback that names what failed. */
  repairWithDetail: number
  /** Chance a revision leaves a correct file after feedback that only says "failed". */
  repairWithBinary: number
  /** Chance a revision ends at once, with no edit (so the workspace stays as the task gave it). */
  stops: number
  /** Fewest and most rewrites of the file in one episode (the last one is what it leaves). */
  rewrites: readonly [number, number]
  /** Chance it runs the tests after a rewrite (a sandboxed command). */
  runsTests: number
  /** Chance an episode also reads a file that is not there (a tool error). */
  strayReads: number
  description: string
}

/**
 * The bundled agent profiles. `repairs` reads the file, edits it once, runs the tests half the time, and uses
 * detailed feedback well; `thrashes` has a better first try but rewrites the file several times
 * in one episode, with stray reads, and its revisions mostly break it again; `stops-early` has
 * the best first try, never runs the tests, and on a revision mostly stops without an edit.
 *
 * @example
 * Object.keys(SIMULATED_AGENT_PROFILES) // => ['repairs', 'thrashes', 'stops-early']
 */
export const SIMULATED_AGENT_PROFILES = {
  repairs: {
    firstTry: 0.25,
    repairWithDetail: 0.9,
    repairWithBinary: 0.35,
    stops: 0,
    rewrites: [1, 1],
    runsTests: 0.5,
    strayReads: 0,
    description: 'reads the file, edits it once, sometimes runs the tests; repairs from detailed feedback',
  },
  thrashes: {
    firstTry: 0.5,
    repairWithDetail: 0.15,
    repairWithBinary: 0.15,
    stops: 0,
    rewrites: [2, 4],
    runsTests: 0.25,
    strayReads: 0.5,
    description: 'rewrites the file several times per episode with stray reads; its revisions mostly break it again',
  },
  'stops-early': {
    firstTry: 0.7,
    repairWithDetail: 0.6,
    repairWithBinary: 0.6,
    stops: 0.9,
    rewrites: [1, 1],
    runsTests: 0,
    strayReads: 0,
    description: 'best first try, never runs the tests; on a revision it mostly stops without an edit',
  },
} as const satisfies Record<string, SimulatedAgentProfile>

/** The name of a bundled simulated agent profile. */
export type SimulatedAgentProfileName = keyof typeof SIMULATED_AGENT_PROFILES

/** The options of `actors.simulatedAgent()`. */
export interface SimulatedAgentOptions {
  /** A bundled profile name, or a profile of your own. */
  profile: SimulatedAgentProfileName | SimulatedAgentProfile
  /** What it may write, by task id (see {@link RepairScriptSchema}). */
  scripts: Readonly<Record<string, RepairScript | z.input<typeof RepairScriptSchema>>>
  /** Seed of every draw (default 1). Same seed, same episodes. */
  seed?: number
  /**
   * How many times it calls a tool again when the call failed or timed out (default 0: it goes on
   * with its plan). A retry that fails too is not retried past this count.
   */
  retries?: number
  /** Name in tables (default `simulated-agent:<profile>`). */
  id?: string
}

// Feedback that names what failed (failing tests, expected values, a traceback) counts as detailed.
const DETAILED = /failed test|expected|assert|Traceback|Error/i

const clamp = (p: number) => Math.min(0.98, Math.max(0.02, p))
const scaled = (p: number, difficulty: number) => clamp(p * (1.5 - difficulty))
const pick = <T>(items: readonly T[], r: number): T => items[Math.min(items.length - 1, Math.floor(r * items.length))]!
const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8)
const approxTokens = (text: string) => Math.ceil(text.length / 4)

/** One planned turn: the calls it makes, or its closing answer. */
type PlannedTurn = { calls: { name: string; arguments: Record<string, string> }[] } | { answer: string }

/**
 * A seeded simulated model that speaks the tool protocol, for `actors.agent({ workspace: true })`:
 * each episode it lists and reads the workspace, rewrites the task's file with a correct or a
 * wrong version from its script, may run the tests in the sandbox, and answers. Its plan depends
 * only on the seed, the profile, the task, the repeat, the attempt and the feedback it was given,
 * so one episode replays the same under every run; nothing leaks between tasks or repeats.
 *
 * @example
 * actors.agent({ model: actors.simulatedAgent({ profile: 'repairs', scripts }), tools: [], workspace: true })
 */
export function simulatedAgent(options: SimulatedAgentOptions): ChatModel {
  const where = 'actors.simulatedAgent'
  const name = typeof options?.profile === 'string' ? options.profile : 'custom'
  const profile: SimulatedAgentProfile | undefined =
    typeof options?.profile === 'string'
      ? Object.hasOwn(SIMULATED_AGENT_PROFILES, options.profile)
        ? SIMULATED_AGENT_PROFILES[options.profile as SimulatedAgentProfileName]
        : undefined
      : options?.profile
  if (!profile)
    throw new TypeError(
      `${where}: unknown profile ${JSON.stringify(options?.profile)}; use one of ${Object.keys(SIMULATED_AGENT_PROFILES).join(', ')} or pass a profile object`,
    )
  if (!options.scripts || typeof options.scripts !== 'object')
    throw new TypeError(`${where}: scripts must map each task id to { file, test, correct, wrong }`)
  const scripts = new Map<string, RepairScript>()
  for (const [taskId, raw] of Object.entries(options.scripts)) {
    const parsed = RepairScriptSchema.safeParse(raw)
    if (!parsed.success)
      throw new TypeError(`${where}: the script of task ${JSON.stringify(taskId)}: ${describeZodError(parsed.error)}`)
    scripts.set(taskId, parsed.data)
  }
  const seed = options.seed ?? 1
  const retries = options.retries ?? 0
  if (!Number.isInteger(retries) || retries < 0 || retries > 10)
    throw new RangeError(`${where}: retries must be an integer from 0 to 10, got ${String(options.retries)}`)
  return {
    id: options.id ?? `simulated-agent:${name}`,
    descriptor: {
      provider: 'simulated-agent',
      model: name,
      params: {
        seed,
        firstTry: profile.firstTry,
        repairWithDetail: profile.repairWithDetail,
        repairWithBinary: profile.repairWithBinary,
        stops: profile.stops,
        rewrites: profile.rewrites.join('-'),
        runsTests: profile.runsTests,
        strayReads: profile.strayReads,
        // Only when set, so the fingerprints of agents that never retry do not move.
        ...(retries > 0 ? { retries } : {}),
      },
    },
    tools: true,
    // Simulations cost nothing: their calls are priced at $0.
    price: { input: 0, output: 0 },
    async chat(request: ChatRequest): Promise<ChatResponse> {
      const started = performance.now()
      const { taskId, repeat, attempt } = request.context
      const script = scripts.get(taskId)
      if (!script)
        throw new Error(
          `${where}: no repair script for task ${JSON.stringify(taskId)}; give scripts: { ${JSON.stringify(taskId)}: { file, test, correct, wrong } }`,
        )
      const plan = planEpisode(profile, script, request, createRng(seedFrom(seed, name, taskId, repeat, attempt)))
      const turns = request.turns ?? []
      const retry = retries > 0 ? retryOf(turns, retries) : []
      // A retry turn is not a step of the plan: the plan goes on where it was.
      const planned = turns.filter((t) => t.role === 'assistant' && !isRetry(t.toolCalls)).length
      const turn = retry.length > 0 ? { calls: [] } : misread(plan[planned] ?? plan.at(-1)!, turns, script)
      const toolCalls: ToolCall[] =
        retry.length > 0
          ? retry.map((c, i) => ({ ...c, id: `${RETRY}${attempt}_${turns.length}_${i}` }))
          : 'calls' in turn
            ? turn.calls.map((c, i) => ({
                id: `call_${attempt}_${turns.length}_${i}`,
                name: c.name,
                arguments: JSON.stringify(c.arguments),
              }))
            : []
      const text = 'answer' in turn ? turn.answer : ''
      const input =
        request.messages.reduce((n, m) => n + m.content.length, 0) +
        (request.turns ?? []).reduce(
          (n, t) => n + (t.role === 'tool' ? t.content.length : t.text.length + JSON.stringify(t.toolCalls).length),
          0,
        )
      return {
        text,
        usage: {
          inputTokens: Math.ceil(input / 4),
          outputTokens: approxTokens(text) + approxTokens(JSON.stringify(toolCalls)),
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
        },
        latencyMs: performance.now() - started,
        finishReason: 'stop',
        costUsd: 0,
        servedModel: `simulated-agent:${name} (seeded local simulation, seed ${seed})`,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      }
    },
  }
}

/**
 * The turn as the agent writes it after reading a file that came back cut short (its last line
 * unfinished: a file ends with a newline): it rewrites the file from the half it read, so its
 * edit is a wrong version whatever its plan was. Any other turn as planned.
 */
function misread(turn: PlannedTurn, turns: readonly ToolTurn[], script: RepairScript): PlannedTurn {
  if (!('calls' in turn) || !turn.calls.some((c) => c.name === 'write_file')) return turn
  const cut = turns.some(
    (t) => t.role === 'tool' && t.name === 'read_file' && !t.isError && t.content !== '' && !t.content.endsWith('\n'),
  )
  if (!cut) return turn
  return {
    calls: turn.calls.map((c) =>
      c.name === 'write_file' ? { ...c, arguments: { ...c.arguments, content: script.wrong[0]! } } : c,
    ),
  }
}

/** Call ids of retries start so: a retry is not a step of the plan. */
const RETRY = 'retry_'
const isRetry = (calls: readonly ToolCall[]) => calls.length > 0 && calls.every((c) => c.id.startsWith(RETRY))

/**
 * The calls to make again: those of the latest assistant turn that failed (an error or a time-out),
 * unless it has been retried `retries` times in a row already. Empty when there is nothing to retry.
 */
function retryOf(turns: readonly ToolTurn[], retries: number): ToolCall[] {
  const lastAt = turns.findLastIndex((t) => t.role === 'assistant')
  if (lastAt < 0) return []
  let inARow = 0
  for (let i = lastAt; i >= 0; i--) {
    const t = turns[i]!
    if (t.role !== 'assistant') continue
    if (!isRetry(t.toolCalls)) break
    inARow++
  }
  if (inARow >= retries) return []
  const last = turns[lastAt] as Extract<ToolTurn, { role: 'assistant' }>
  const failed = new Set(
    turns
      .slice(lastAt + 1)
      .filter((t) => t.role === 'tool' && t.isError)
      .map((t) => (t as Extract<ToolTurn, { role: 'tool' }>).callId),
  )
  return last.toolCalls.filter((c) => failed.has(c.id))
}

/** The episode's turns, drawn once from the attempt's seed (every turn of the episode draws the same plan). */
function planEpisode(
  profile: SimulatedAgentProfile,
  script: RepairScript,
  request: ChatRequest,
  rng: Rng,
): PlannedTurn[] {
  const d = script.difficulty
  const fresh = request.context.protocol === 'independent' || request.context.attempt === 1
  const feedbackText = request.messages.at(-1)?.role === 'user' ? request.messages.at(-1)!.content : ''
  const look: PlannedTurn = { calls: [{ name: 'list_files', arguments: {} }] }
  const read: PlannedTurn = { calls: [{ name: 'read_file', arguments: { path: script.file } }] }
  if (!fresh && rng() < profile.stops)
    return [look, { answer: `No change: I stand by my earlier edit of ${script.file}.` }]
  const chance = fresh
    ? profile.firstTry
    : DETAILED.test(feedbackText)
      ? profile.repairWithDetail
      : profile.repairWithBinary
  const turns: PlannedTurn[] = [look, read]
  if (rng() < profile.strayReads)
    turns.push({ calls: [{ name: 'read_file', arguments: { path: `tests/${script.file}` } }] })
  const [least, most] = profile.rewrites
  const rewrites = least + Math.floor(rng() * (most - least + 1))
  let content = ''
  let ran = false
  for (let i = 0; i < rewrites; i++) {
    // Only the last rewrite decides; the earlier ones are the thrashing.
    const last = i === rewrites - 1
    content = last && rng() < scaled(chance, d) ? pick(script.correct, rng()) : pick(script.wrong, rng())
    const run = rng() < profile.runsTests
    ran ||= run
    turns.push({
      calls: [
        { name: 'write_file', arguments: { path: script.file, content } },
        ...(run ? [{ name: 'run_command', arguments: { command: script.test } }] : []),
      ],
    })
  }
  turns.push({
    answer: `Rewrote ${script.file}${rewrites > 1 ? ` ${rewrites} times` : ''} (now ${shortHash(content)})${ran ? ' and ran the tests' : ''}.`,
  })
  return turns
}
