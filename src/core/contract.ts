/**
 * The data contract every folder speaks, at the bottom of the house: what a model
 * call, its usage and a verdict look like on disk and in memory. It imports nothing of ours.
 */
import { z } from 'zod'

/** One chat message. Every provider and the simulated actor speak this shape. */
export const ChatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
})
/** One chat message: a role and its text. */
export type ChatMessage = z.infer<typeof ChatMessageSchema>

/**
 * The role a model plays in a call. Cassettes (record/replay) and usage accounting key on it.
 * `annotator`: the LLM revision annotator (paper §5.2.2), an analysis of the run, not part of it.
 */
export const MODEL_ROLES = ['actor', 'critic', 'grader', 'summariser', 'annotator'] as const
/** The role a model plays in a call: `actor`, `critic`, `grader`, `summariser` or `annotator`. */
export type ModelRole = (typeof MODEL_ROLES)[number]

/**
 * Token usage of one call. `inputTokens` counts every input token, cached ones included;
 * `cacheReadTokens` and `cacheWriteTokens` are the parts of it read from or written to a prompt
 * cache (0 where a provider has none). Providers with other conventions are normalised to this.
 */
export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
})
/** Token usage of one model call: input (cached included), output, cache reads and writes. */
export type Usage = z.infer<typeof UsageSchema>

export const ZERO_USAGE: Usage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
})

/**
 * A call's usage as recorded: `null` when the reply reported none (an OpenAI-compatible server
 * that sends no `usage`). Unknown is never written as zero: totals add what is known and count
 * the calls that lacked it ({@link sumUsage}).
 */
export const CallUsageSchema = UsageSchema.nullable()

/** Usage added over calls: the known part (null when calls were made and none reported any) and how many calls lacked it. */
export interface UsageSum {
  usage: Usage | null
  /** Calls whose reply reported no usage: their tokens are in no total. */
  unknownCalls: number
}

/**
 * A running sum of calls' usage: what they reported, added, and how many reported none. No call
 * at all spends zero; calls that all reported none sum to unknown (null), never to zero.
 *
 * @example
 * const tally = new UsageTally()
 * tally.add(null)
 * tally.sum() // => { usage: null, unknownCalls: 1 }
 */
export class UsageTally {
  private readonly known: Usage = { ...ZERO_USAGE }
  private knownCalls = 0
  private unknownCalls = 0

  add(usage: Usage | null): void {
    if (usage === null) {
      this.unknownCalls++
      return
    }
    this.knownCalls++
    this.known.inputTokens += usage.inputTokens
    this.known.outputTokens += usage.outputTokens
    this.known.cacheReadTokens += usage.cacheReadTokens
    this.known.cacheWriteTokens += usage.cacheWriteTokens
  }

  sum(): UsageSum {
    return {
      usage: this.knownCalls === 0 && this.unknownCalls > 0 ? null : { ...this.known },
      unknownCalls: this.unknownCalls,
    }
  }
}

/**
 * Adds the known usages and counts the unknown ones (pure).
 *
 * @example
 * sumUsage([{ inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, null])
 * // => { usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, unknownCalls: 1 }
 */
export function sumUsage(usages: Iterable<Usage | null>): UsageSum {
  const tally = new UsageTally()
  for (const u of usages) tally.add(u)
  return tally.sum()
}

/**
 * One model call as artifacts keep it: who made it, what it used and cost, and whether it came
 * from a cassette. Actor calls are flattened into the attempt; helper calls (summariser, critic,
 * grader) are listed on the attempt they served.
 */
export const ModelCallSchema = z.object({
  role: z.enum(MODEL_ROLES),
  /** Null when the reply reported no usage. */
  usage: CallUsageSchema,
  latencyMs: z.number().nonnegative(),
  costUsd: z.number().nullable(),
  /** What it would have cost with no prompt caching; null when unpriced. */
  costUsdWithoutCache: z.number().nullable(),
  replayed: z.boolean(),
  /** Sent through the provider's batch API: its cost is the batch price. False: a batched model's call sent direct after its batch deadline. Absent: a direct call. */
  batched: z.boolean().optional(),
  /** A batched call at list price, for the saving (null when unpriced). */
  costUsdAtListPrice: z.number().nullable().optional(),
  /** The answer was longer than the model's cap (`maxAnswerChars`) and was cut at this many characters. */
  cutAtChars: z.number().int().positive().optional(),
})
/** One model call as artifacts keep it: its role, usage, latency, cost and whether it was replayed. */
export type ModelCall = z.infer<typeof ModelCallSchema>

/** One hidden test statement and how it went. `call`/`expected`/`actual` are set for `assert CALL == EXPECTED`. */
export const TestOutcomeSchema = z.object({
  index: z.number().int().nonnegative(),
  source: z.string(),
  pass: z.boolean(),
  call: z.string().optional(),
  expected: z.string().optional(),
  actual: z.string().optional(),
  error: z.string().optional(),
})
/** One hidden test and how it went, with the call, expected and actual values where known. */
export type TestOutcome = z.infer<typeof TestOutcomeSchema>

/** One rubric criterion's verdict (rubric verifiers; later issues). */
export const CriterionVerdictSchema = z.object({
  id: z.string(),
  text: z.string(),
  met: z.boolean(),
  points: z.number().optional(),
  reason: z.string().optional(),
  /** Whether the criterion counts in the answer's favour: `met` for a normal criterion, not met for a penalty (negative points). */
  satisfied: z.boolean().optional(),
  checkedBy: z.enum(['code', 'predicate', 'grader']).optional(),
})
/** One rubric criterion's verdict: met or not, its points and the reason. */
export type CriterionVerdict = z.infer<typeof CriterionVerdictSchema>

/**
 * Whether a criterion counts in the answer's favour: a met criterion, or an unmet penalty
 * (negative points). A verdict that already says (`satisfied`) is taken at its word. The one
 * rule the rubric verifier, its pass rule, verifier feedback and the cell summary share.
 *
 * @example
 * criterionSatisfied({ met: true, points: -5 }) // false: the answer did the penalised thing
 */
export function criterionSatisfied(c: { met: boolean; points?: number; satisfied?: boolean }): boolean {
  return c.satisfied ?? ((c.points ?? 0) < 0 ? !c.met : c.met)
}

/**
 * The score a verdict counts with in the score curve: its `score` clamped to [0, 1] (older files
 * could hold a HealthBench score below 0), or 1 / 0 by `pass` where it has none.
 *
 * @example
 * verdictScore({ pass: false, score: 0.75 }) // => 0.75
 * verdictScore({ pass: true }) // => 1
 */
export function verdictScore(verdict: { pass: boolean; score?: number }): number {
  const s = verdict.score
  if (s === undefined || !Number.isFinite(s)) return verdict.pass ? 1 : 0
  return Math.min(1, Math.max(0, s))
}

/**
 * What a verifier saw besides pass/fail: the raw material of `verifier` feedback.
 * `outcome` separates a wrong answer from code that did not load or ran out of time.
 */
export const DiagnosticsSchema = z.object({
  outcome: z.enum(['passed', 'failed', 'load-error', 'timeout', 'no-answer']),
  summary: z.string(),
  tests: z.array(TestOutcomeSchema).optional(),
  error: z.string().optional(),
  stdout: z.string().optional(),
  stderr: z.string().optional(),
})
/** What a verifier saw besides pass or fail: the outcome, a one-line summary, the tests and the output. */
export type Diagnostics = z.infer<typeof DiagnosticsSchema>

/**
 * Held-out tests of a verdict, by index only (their text never leaves the verifier): the statement
 * count, the held-out indices, those that failed or did not run, and whether every visible
 * statement passed (what Seq@k on the visible tests counts).
 */
export const HeldOutRecordSchema = z.object({
  statements: z.number().int().nonnegative(),
  tests: z.array(z.number().int().nonnegative()),
  failed: z.array(z.number().int().nonnegative()),
  visiblePass: z.boolean(),
})
/** A verdict's held-out tests by index, and whether every visible test passed. */
export type HeldOutRecord = z.infer<typeof HeldOutRecordSchema>

/**
 * One check's verdict inside a composed verdict (`verifiers.all`, `any`, `weighted`): its name
 * (unique in the composition), the verifier that gave it, and that verifier's own pass, score,
 * diagnostics and criteria. Its model calls are the composed verdict's `calls`.
 */
export const CheckVerdictSchema = z.object({
  name: z.string(),
  /** The check's verifier as `name@version`. */
  verifier: z.string(),
  pass: z.boolean(),
  score: z.number().optional(),
  /** Its weight in a weighted score. */
  weight: z.number().optional(),
  extracted: z.string().optional(),
  diagnostics: DiagnosticsSchema,
  criteria: z.array(CriterionVerdictSchema).optional(),
})
/** One check's verdict inside a composed verdict. */
export type CheckVerdict = z.infer<typeof CheckVerdictSchema>

/** A verifier's verdict on one answer: pass or fail, with its diagnostics, criteria and model calls. */
export const VerdictSchema = z.object({
  pass: z.boolean(),
  /**
   * The answer's score in [0, 1]: 1 or 0 where the verifier is binary, the benchmark's own soft
   * score where it has one (a rubric's compliance share, HealthBench's positive points met). The
   * protocol fills it in as 1 or 0 when a verifier leaves it out, and refuses one outside [0, 1];
   * the score curve (Score@k) is the mean over tasks of the best score by attempt k. Files written
   * before the range was checked are read as they are ({@link verdictScore} clamps).
   */
  score: z.number().optional(),
  /** What was verified: e.g. the extracted code block. */
  extracted: z.string().optional(),
  /** Which form of the answer the verdict is about: as written, or sanitised (demo code cut off). */
  variant: z.enum(['raw', 'sanitised']).optional(),
  diagnostics: DiagnosticsSchema,
  criteria: z.array(CriterionVerdictSchema).optional(),
  durationMs: z.number().nonnegative().optional(),
  /** The isolation the answer ran under (code verifiers): `bwrap` or `none`. */
  sandbox: z.enum(['bwrap', 'none']).optional(),
  /** Model calls the verifier made (a grader's); the protocol moves them to the attempt's helper calls. */
  calls: z.array(ModelCallSchema).optional(),
  /** Held-out tests (python-tests with `heldOut`): counted in `pass`, absent from `diagnostics`. */
  heldOut: HeldOutRecordSchema.optional(),
  /** Each check's verdict, for a composed verifier (`verifiers.all`, `any`, `weighted`), in the order given. */
  checks: z.array(CheckVerdictSchema).optional(),
})
export type Verdict = z.infer<typeof VerdictSchema>
