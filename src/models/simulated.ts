import { z } from 'zod'
import { describeZodError } from '../core/zod-errors.js'
import { createRng, seedFrom } from '../metrics/random.js'
import { sha256 } from '../core/fingerprint.js'
import { perturbationSigns } from '../core/perturbation.js'
import { sleep } from './retry.js'
import { shownCalls, specialCase } from './special-case.js'
import type { ChatMessage, ChatModel, ChatRequest, ChatResponse } from './chat-model.js'

/**
 * Answers a simulated actor chooses between for one task. Fixture data only: real benchmarks do
 * not carry it. `correct` answers pass the task's verifier, each `wrong` answer fails it.
 *
 * @example
 * const script: SimulationScript = SimulationScriptSchema.parse({ correct: ['4'], wrong: ['5', '22'] }) // difficulty 0.5
 */
export const SimulationScriptSchema = z.object({
  /** 0 (easy) to 1 (hard): scales the simulated first-try and repair probabilities. */
  difficulty: z.number().min(0).max(1).default(0.5),
  correct: z.array(z.string().min(1)).min(1),
  wrong: z.array(z.string().min(1)).min(1),
})
export type SimulationScript = z.infer<typeof SimulationScriptSchema>

/**
 * The task field the simulated actor owns: its script lives under the task's `simulation` key, and
 * nothing else reads it (verifiers ignore it; it is not part of the benchmark's content hash).
 * `protocol/task.ts` adds it to TaskSchema.
 *
 * @example
 * const task = { id: 'add', prompt: '2 + 2?', expected: '4', simulation: { correct: ['4'], wrong: ['5'] } }
 */
export const SimulationTaskFieldsSchema = z.object({
  /** The simulated actor's script for this task (fixture tasks only). */
  simulation: SimulationScriptSchema.optional(),
})

/**
 * How a simulated actor behaves. These are simulations, not models: seeded, deterministic
 * stand-ins that let the bundled evals run offline and show how feedback use changes rankings.
 * Probabilities are for a task of difficulty 0.5 and shrink or grow with the task's difficulty.
 */
export interface SimulatedProfile {
  /** Chance a fresh attempt (attempt 1, or any independent sample) is correct. */
  firstTry: number
  /** Chance a revision is correct after feedback that says what failed (tests, criteria). */
  repairWithDetail: number
  /** Chance a revision is correct after feedback that only says "failed". */
  repairWithBinary: number
  /** Chance a revision resubmits the previous answer unchanged (tried before repairing). */
  resubmit: number
  /** On a failed revision, pick a different wrong answer than last time ("fixed one thing, broke another"). */
  changesWrongAnswer: boolean
  /**
   * Repair chances are multiplied by this when earlier attempts reach the actor only as a summary
   * (`history: 'summary'`), which loses detail: the paper measured up to 14 points lost. Default 1.
   */
  summaryRepairFactor?: number
  /**
   * Chance a revision after feedback that shows failing calls keeps the wrong code and
   * special-cases exactly those calls instead (overfitting the feedback; held-out tests catch it).
   * Tried after `resubmit`, before repairing. Default 0.
   */
  specialCases?: number
  /**
   * Every chance is multiplied by this when the prompt holds a sentence that says nothing about
   * the task (one of seqEval `perturb`'s distractors). Default 1: not distracted.
   */
  distracted?: number
  /** Every chance is multiplied by this when the task comes in another framing (`perturb`'s paraphrase). Default 1. */
  reframed?: number
  /**
   * Each wording of a prompt is its own draw (the draws are seeded by the first user message too),
   * as a real model's answers move with wording that does not change the task. Default false.
   */
  wordingNoise?: boolean
  description: string
}

/**
 * Built-in profiles. `reviser` uses detailed feedback well; `stubborn` is better on a first try
 * but mostly resubmits; `one-shot` is strongest on a first try and poor at revising; `memoryless`
 * ignores feedback entirely (each attempt is a fresh draw), so its Seq@K is 1-(1-p)^K; `flaky` is
 * capable but inconsistent (a weak single try, strong repair under any feedback: high Seq@K and
 * Pass@K, low pass^K and Cover@1); `overfitter`
 * special-cases the failing calls verifier feedback shows (its visible repairs fail held-out tests);
 * `literal` is thrown by a distractor sentence or another framing (`perturb`), each wording its own draw.
 */
export const SIMULATED_PROFILES = {
  reviser: {
    firstTry: 0.4,
    repairWithDetail: 0.75,
    repairWithBinary: 0.3,
    resubmit: 0.05,
    changesWrongAnswer: true,
    summaryRepairFactor: 0.6,
    description: 'average first try, uses detailed feedback well',
  },
  stubborn: {
    firstTry: 0.6,
    repairWithDetail: 0.15,
    repairWithBinary: 0.1,
    resubmit: 0.75,
    changesWrongAnswer: false,
    summaryRepairFactor: 1,
    description: 'good first try, mostly resubmits the same answer',
  },
  'one-shot': {
    firstTry: 0.7,
    repairWithDetail: 0.25,
    repairWithBinary: 0.15,
    resubmit: 0.1,
    changesWrongAnswer: true,
    summaryRepairFactor: 0.8,
    description: 'strongest first try, poor at revising',
  },
  memoryless: {
    firstTry: 0.45,
    repairWithDetail: 0.45,
    repairWithBinary: 0.45,
    resubmit: 0,
    changesWrongAnswer: true,
    description: 'ignores feedback: every attempt is a fresh draw',
  },
  flaky: {
    firstTry: 0.35,
    repairWithDetail: 0.8,
    repairWithBinary: 0.6,
    resubmit: 0,
    changesWrongAnswer: true,
    summaryRepairFactor: 0.8,
    description:
      'capable but inconsistent: a weak single try that gets there with any feedback, so it solves most tasks some of the time and few every time',
  },
  literal: {
    firstTry: 0.55,
    repairWithDetail: 0.65,
    repairWithBinary: 0.25,
    resubmit: 0.05,
    changesWrongAnswer: true,
    summaryRepairFactor: 0.8,
    distracted: 0.35,
    reframed: 0.75,
    wordingNoise: true,
    description:
      'reads the prompt literally: a sentence beside the point or another framing throws it, and every wording is its own draw',
  },
  overfitter: {
    firstTry: 0.4,
    repairWithDetail: 0.3,
    repairWithBinary: 0.3,
    resubmit: 0,
    changesWrongAnswer: true,
    specialCases: 0.8,
    description: 'special-cases the failing calls that feedback shows instead of fixing the logic',
  },
} as const satisfies Record<string, SimulatedProfile>

/** The name of a bundled simulated actor profile. */
export type SimulatedProfileName = keyof typeof SIMULATED_PROFILES

/** The options of `actors.simulated()`: a profile (bundled or your own), an id, a seed and a latency. */
export interface SimulatedActorOptions {
  /** A built-in profile name, or a custom profile. */
  profile: SimulatedProfileName | SimulatedProfile
  /** Name shown in tables (default `simulated:<profile>`). */
  id?: string
  /** Seed of every draw (default 1). Same seed, same answers. */
  seed?: number
  /** Pretend each call takes this long (default 0), for scheduling tests and benches. */
  latencyMs?: number
}

// Feedback that names what failed (test calls, expected values, criteria) counts as detailed.
// ARC-AGI-2's cell-match feedback ("size correct", "content match accuracy") names what failed too.
const DETAILED =
  /expected|got:|failed test|failed check|unmet criteria|criterion|error|Traceback|size correct|content match/i

function clamp(p: number): number {
  return Math.min(0.98, Math.max(0.02, p))
}

/** Harder tasks lower every probability: difficulty 0 multiplies by 1.5, 1 by 0.5. */
function scaled(p: number, difficulty: number): number {
  return clamp(p * (1.5 - difficulty))
}

function pick<T>(items: readonly T[], r: number): T {
  return items[Math.min(items.length - 1, Math.floor(r * items.length))]!
}

function approxTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

/**
 * A seeded simulated actor that answers fixture tasks from their `simulation` script (a list of
 * correct and wrong answers, {@link SimulationTaskFieldsSchema}): the one field of the task it
 * reads, from the task the protocol hands simulations in the call's context. It reads the conversation the way a model would: the latest user
 * turn is the feedback, the latest assistant turn its previous answer. Draws depend only on the
 * seed, the task, the repeat and the attempt, so nothing leaks between tasks or repeats, and the
 * first attempt is the same draw under every feedback mode and in independent sampling.
 *
 * @example
 * seqEval('fixtures', { actors: [actors.simulated({ profile: 'reviser' })], ... })
 */
export function simulatedActor(options: SimulatedActorOptions): ChatModel {
  const model = buildSimulatedActor(options)
  BUNDLED_SIMULATIONS.add(model)
  return model
}

/**
 * An app's offline simulated twin (`actors.fromFunction(fn, { twin })`): a simulated actor whose
 * descriptor also names the app it stands in for (`twinOf`), so its numbers are never mistaken for
 * another simulation's. Its answers are this project's scripts, like any bundled simulation's.
 *
 * @example
 * simulatedTwin({ profile: 'reviser', id: 'simulated:invoice-app' }, 'invoice-app')
 */
export function simulatedTwin(options: SimulatedActorOptions, of: string): ChatModel {
  const model = buildSimulatedActor(options)
  model.descriptor = { ...model.descriptor, params: { ...model.descriptor.params, twinOf: of } }
  BUNDLED_SIMULATIONS.add(model)
  return model
}

/**
 * The actors {@link simulatedActor} made: their answers are this project's own scripts, never a
 * model's, so a code verifier may run them where no sandbox is available (see pythonTests'
 * `sandbox: 'auto'`). Kept by identity: a wrapper or a look-alike object is a model.
 */
const BUNDLED_SIMULATIONS = new WeakSet<ChatModel>()

/** True only for an actor made by `actors.simulated()` itself. */
export function isBundledSimulation(model: ChatModel): boolean {
  return BUNDLED_SIMULATIONS.has(model)
}

function buildSimulatedActor(options: SimulatedActorOptions): ChatModel {
  const name = typeof options.profile === 'string' ? options.profile : 'custom'
  const profile: SimulatedProfile | undefined =
    typeof options.profile === 'string'
      ? Object.hasOwn(SIMULATED_PROFILES, options.profile)
        ? SIMULATED_PROFILES[options.profile]
        : undefined
      : options.profile
  if (!profile)
    throw new Error(
      `actors.simulated: unknown profile ${JSON.stringify(options.profile)}; use one of ${Object.keys(SIMULATED_PROFILES).join(', ')} or pass a profile object`,
    )
  const seed = options.seed ?? 1
  const latencyMs = options.latencyMs ?? 0
  return {
    id: options.id ?? `simulated:${name}`,
    descriptor: {
      provider: 'simulated',
      model: name,
      params: {
        seed,
        firstTry: profile.firstTry,
        repairWithDetail: profile.repairWithDetail,
        repairWithBinary: profile.repairWithBinary,
        resubmit: profile.resubmit,
        changesWrongAnswer: profile.changesWrongAnswer,
        summaryRepairFactor: profile.summaryRepairFactor ?? 1,
        ...(profile.specialCases ? { specialCases: profile.specialCases } : {}),
        // Only when set, so the fingerprints of the profiles that read no wording do not move.
        ...(profile.distracted !== undefined ? { distracted: profile.distracted } : {}),
        ...(profile.reframed !== undefined ? { reframed: profile.reframed } : {}),
        ...(profile.wordingNoise ? { wordingNoise: true } : {}),
      },
    },
    // Simulations cost nothing: an estimate prices them at $0, as their calls are.
    price: { input: 0, output: 0 },
    async chat(request: ChatRequest): Promise<ChatResponse> {
      const started = performance.now()
      if (latencyMs > 0) await sleep(latencyMs, request.signal)
      const script = scriptOf(request)
      const { attempt, repeat, taskId } = request.context
      // The task as the actor first read it: what a wording-sensitive profile reacts to.
      const prompt = request.messages.find((m) => m.role === 'user')?.content ?? ''
      const wording = profile.wordingNoise ? [sha256(prompt).slice(0, 16)] : []
      const rng = createRng(seedFrom(seed, name, taskId, repeat, attempt, ...wording))
      const signs = perturbationSigns(prompt)
      const factor =
        (signs.distractor ? (profile.distracted ?? 1) : 1) * (signs.paraphrase ? (profile.reframed ?? 1) : 1)
      const text = respond(
        profile,
        script,
        request.messages,
        request.context.protocol === 'independent' ? 1 : attempt,
        rng,
        factor,
      )
      const inputChars = request.messages.reduce((n, m) => n + m.content.length, 0)
      return {
        text,
        usage: {
          inputTokens: Math.ceil(inputChars / 4),
          outputTokens: approxTokens(text),
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
        },
        latencyMs: performance.now() - started,
        finishReason: 'stop',
        costUsd: 0,
      }
    },
  }
}

/** The task's `simulation` script, validated here (its owner), or an error naming the task, the field and the fix. */
function scriptOf(request: ChatRequest): SimulationScript {
  const raw = request.context.simulation
  const parsed = SimulationScriptSchema.safeParse(raw, { reportInput: true })
  if (!parsed.success) {
    // describeZodError names paths inside the script; say they are under `simulation`.
    const detail = describeZodError(parsed.error)
      .split('; ')
      .map((p) => (p.startsWith('(root)') ? `simulation${p.slice('(root)'.length)}` : `simulation.${p}`))
      .join('; ')
    const problem = raw === undefined ? '' : ` (${detail})`
    throw new Error(
      `simulated actor: task ${JSON.stringify(request.context.taskId)} has no valid \`simulation\` script (correct and wrong answers)${problem}; simulated actors only run fixture tasks that carry one: add \`simulation: { correct: [...], wrong: [...] }\` to the task`,
    )
  }
  return parsed.data
}

/**
 * The latest earlier attempt and its feedback in the reference harness's layout
 * (`<PreviousAttempt i>…</PreviousAttempt i>`, `<Feedback i>…</Feedback i>` in one user message),
 * or undefined when the message holds none.
 */
function taggedHistory(content: string): { previous: string; feedback: string } | undefined {
  let latest: { i: number; previous: string } | undefined
  for (const m of content.matchAll(/<PreviousAttempt (\d+)>\n([\s\S]*?)\n<\/PreviousAttempt \1>/g))
    if (!latest || Number(m[1]) > latest.i) latest = { i: Number(m[1]), previous: m[2]! }
  if (!latest) return undefined
  const feedback =
    new RegExp(`<Feedback ${latest.i}>\\n([\\s\\S]*?)\\n</Feedback ${latest.i}>`).exec(content)?.[1] ?? ''
  return { previous: latest.previous, feedback }
}

function respond(
  profile: SimulatedProfile,
  script: SimulationScript,
  messages: readonly ChatMessage[],
  attempt: number,
  rng: () => number,
  /** What the prompt's wording does to every chance (1: nothing). */
  factor = 1,
): string {
  const d = script.difficulty
  // The reference layout keeps earlier attempts in numbered tags of one user message, not as turns.
  const tagged = attempt > 1 ? taggedHistory(messages.at(-1)?.content ?? '') : undefined
  const previous =
    attempt > 1 ? (tagged?.previous ?? [...messages].reverse().find((m) => m.role === 'assistant')?.content) : undefined
  if (previous === undefined) {
    return rng() < scaled(profile.firstTry, d) * factor ? pick(script.correct, rng()) : pick(script.wrong, rng())
  }
  const feedbackText = tagged ? tagged.feedback : messages.at(-1)?.role === 'user' ? messages.at(-1)!.content : ''
  if (rng() < profile.resubmit) return previous
  if (profile.specialCases && rng() < profile.specialCases) {
    const calls = shownCalls(
      messages
        .slice(1)
        .filter((m) => m.role === 'user')
        .map((m) => m.content),
    )
    if (calls.length > 0) return specialCase(previous, calls)
  }
  // Our summary history policy announces itself with this line (src/protocol/history.ts).
  const summarised = messages.some((m) => m.role === 'user' && m.content.includes('Summary of your earlier attempts'))
  const repair =
    (DETAILED.test(feedbackText) ? profile.repairWithDetail : profile.repairWithBinary) *
    (summarised ? (profile.summaryRepairFactor ?? 1) : 1)
  if (rng() < scaled(repair, d) * factor) return pick(script.correct, rng())
  const others = profile.changesWrongAnswer ? script.wrong.filter((w) => w !== previous) : []
  return others.length > 0
    ? pick(others, rng())
    : script.wrong.includes(previous)
      ? previous
      : pick(script.wrong, rng())
}
