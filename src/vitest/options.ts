import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { z } from 'zod'
import { knownUnstableFrom } from '../protocol/stability.js'
import { TaskSchema, type Task } from '../protocol/task.js'
import type { ChatModel } from '../models/chat-model.js'
import type { FeedbackMode } from '../feedback/feedback-mode.js'
import type { Verifier } from '../verifiers/verifier.js'
import type { HistoryPolicy } from '../protocol/history.js'
import type { PromptBuilder } from '../protocol/prompt-builder.js'
import type { Thresholds } from '../protocol/cell-summary.js'
import { describeZodError } from '../core/zod-errors.js'
import type { ErrorPolicy } from '../core/schemas.js'
import { FEEDBACK_KINDS, isOneOf, RATE_METRICS } from '../core/kinds.js'
import { METRICS } from '../metrics/registry.js'
import { wrapText } from '../core/text-layout.js'
import { revisionAnnotator, type RevisionAnnotator } from '../feedback/annotator.js'
import type { AnnotateSpec } from '../protocol/revision-annotation.js'
import { CostCapLimitsSchema } from '../core/cost-cap.js'
import { referencePromptBuilder } from '../protocol/prompt-builders/reference.js'
import { PERTURBATION_KINDS } from '../core/perturbation.js'
import { planPerturbations, type Perturbation } from '../protocol/perturbed-prompt.js'

/** The protocol presets a seqEval can name (`protocol`). */
export const PROTOCOL_PRESETS = ['seqk', 'seq_k-reference'] as const
import { unpricedCapProblem } from '../protocol/cost-cap.js'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null

const ChatModelShape = z.custom<ChatModel>(
  (v) => isObject(v) && typeof v.id === 'string' && typeof v.chat === 'function' && isObject(v.descriptor),
  {
    message:
      'expected a chat model such as actors.simulated({ profile: "reviser" }) (an object with id, descriptor and chat())',
  },
)
const VerifierShape = z.custom<Verifier>(
  (v) => isObject(v) && typeof v.verify === 'function' && typeof v.name === 'string',
  {
    message:
      'expected a verifier such as verifiers.pythonTests() (an object with name, version, settings and verify())',
  },
)
// The kind is checked here, at declaration, not at the first failed attempt: the protocol records
// and the reporter only know the closed list of kinds.
const FeedbackShape = z.custom<FeedbackMode>(
  (v) => isObject(v) && typeof v.render === 'function' && isOneOf(FEEDBACK_KINDS, v.kind),
  {
    message: `unknown feedback mode: expected feedback.binary(), feedback.verifier() or feedback.critic() (an object with name, render() and kind ${FEEDBACK_KINDS.map((k) => `'${k}'`).join(' | ')})`,
  },
)
const HistoryShape = z.custom<HistoryPolicy>(
  (v) => isObject(v) && typeof v.build === 'function' && typeof v.name === 'string',
  {
    message: "expected 'full', 'last', 'summary' or a history policy object with name and build()",
  },
)
const PromptBuilderShape = z.custom<PromptBuilder>(
  (v) =>
    isObject(v) && typeof v.initial === 'function' && typeof v.revision === 'function' && typeof v.version === 'string',
  {
    message: 'expected a prompt builder with version, initial() and revision()',
  },
)

const Rate = z
  .number({ message: 'a threshold must be a number in [0, 1]' })
  .min(0, 'a threshold must be in [0, 1]')
  .max(1, 'a threshold must be in [0, 1]')
const KRecord = z.record(z.string().regex(/^[1-9]\d*$/, 'keys are attempt counts k (1, 2, …)'), Rate, {
  error: 'keys are attempt counts k (1, 2, …) and values rates in [0, 1]',
})

const TauRecord = z.record(
  z.string().regex(/^(0?\.\d*[1-9]\d*|1(\.0*)?)$/, 'keys are shares τ in (0, 1] (0.5, 1, …)'),
  Rate,
  { error: 'keys are shares τ in (0, 1] and values rates in [0, 1]' },
)

export const ThresholdsSchema = z
  .object({
    seqAt: KRecord.optional(),
    passAt: KRecord.optional(),
    seqHat: KRecord.optional(),
    passHat: KRecord.optional(),
    coverAt: TauRecord.optional(),
    scoreAt: KRecord.optional(),
    maxErrorRate: Rate.optional(),
  })
  .strict()

const ANNOTATE_FIX =
  "use 'derived' (the default: free, where feedback names its requests), false, or { model, sample? } with a chat model, e.g. { model: actors.anthropic({ model: 'claude-haiku-4-5' }), sample: 50 }"

const AnnotateObjectSchema = z
  .object({
    model: ChatModelShape,
    sample: z
      .number({
        message:
          'sample is how many revisions per cell to annotate: an integer >= 1, or leave it out to annotate every revision',
      })
      .int('sample must be an integer >= 1')
      .min(1, 'sample must be an integer >= 1 (leave it out to annotate every revision)')
      .optional(),
    cache: z
      .boolean({ message: 'cache must be true (the default: an identical request is served once) or false' })
      .optional(),
  })
  .strict()

/** What `annotate` accepts: `'derived'`, `false`, or the LLM annotator's `{ model, sample?, cache? }`. */
export type AnnotateInput = 'derived' | false | z.input<typeof AnnotateObjectSchema>

/**
 * `annotate`: which revision annotator runs (paper §5.2.2). Checked by hand so that an object's
 * problems are named field by field (a union would report a bare "Invalid input").
 */
const AnnotateSchema = z
  .custom<AnnotateInput>(() => true)
  .transform((value, ctx): 'derived' | false | z.output<typeof AnnotateObjectSchema> => {
    if (value === 'derived' || value === false) return value
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: ANNOTATE_FIX, input: value })
      return z.NEVER
    }
    const parsed = AnnotateObjectSchema.safeParse(value, { reportInput: true })
    if (parsed.success) return parsed.data
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom', path: issue.path })
    return z.NEVER
  })
type AnnotateOption = z.output<typeof AnnotateSchema>

const InstructionsSchema = z
  .string({ message: 'instructions must be a string: the system prompt sent before every task' })
  .min(1, 'instructions must not be empty; leave the option out for none')

/** One variant of the subject: what it changes of the eval's actor, instructions and prompt builder. */
const VariantSchema = z
  .object({
    actor: ChatModelShape.optional(),
    instructions: InstructionsSchema.optional(),
    promptBuilder: PromptBuilderShape.optional(),
  })
  .strict()

const PERTURB_KINDS_FIX = `kinds lists rewordings among ${PERTURBATION_KINDS.map((k) => `'${k}'`).join(', ')}`

/** `perturb`: which rewordings of each task's prompt run as cells of their own, and how many of each. */
const PerturbSchema = z
  .object({
    kinds: z
      .array(z.enum(PERTURBATION_KINDS, { message: PERTURB_KINDS_FIX }), { message: PERTURB_KINDS_FIX })
      .min(1, `${PERTURB_KINDS_FIX} (at least one), or leave kinds out for all four`)
      .optional(),
    seeds: z
      .number({ message: 'seeds is how many rewordings of each kind: an integer from 1 to 10' })
      .int('seeds must be an integer from 1 to 10')
      .min(1, 'seeds must be an integer from 1 to 10')
      .max(10, 'seeds must be at most 10 (each is a cell per mode: ten of each kind already cost 40 times the eval)')
      .default(1),
    seed: z.number({ message: "seed must be an integer (default: the eval's seed)" }).int().optional(),
  })
  .strict()

const PERTURB_FIX = `perturb must be true (every kind once) or { kinds?: [${PERTURBATION_KINDS.map((k) => `'${k}'`).join(', ')}], seeds?, seed? }`

/** `perturb`, checked by hand so an object's problems are named field by field (a union says only "Invalid input"). */
const PerturbOption = z
  .custom<true | z.input<typeof PerturbSchema>>(() => true)
  .transform((value, ctx): true | z.output<typeof PerturbSchema> => {
    if (value === true) return value
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: PERTURB_FIX, input: value })
      return z.NEVER
    }
    const parsed = PerturbSchema.safeParse(value, { reportInput: true })
    if (parsed.success) return parsed.data
    for (const issue of parsed.error.issues)
      ctx.addIssue({
        ...issue,
        code: 'custom',
        path: issue.path,
        ...(issue.code === 'unrecognized_keys'
          ? { message: `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')} (${PERTURB_FIX})` }
          : {}),
      })
    return z.NEVER
  })

const ModeSchema = z
  .object({
    feedback: FeedbackShape,
    expect: ThresholdsSchema.optional(),
    /** This mode's revision annotator, over the eval's `annotate`. */
    annotate: AnnotateSchema.optional(),
  })
  .strict()

/**
 * Options of `seqEval` (validated at declaration time, so a typo fails before any model call).
 * Every option is documented in the README.
 */
export const SeqEvalOptionsSchema = z
  .object({
    tasks: z.array(TaskSchema).min(1, 'give at least one task'),
    actors: z
      .array(ChatModelShape)
      .min(1, 'give at least one actor, e.g. actors.simulated({ profile: "reviser" })')
      .optional(),
    verifier: VerifierShape,
    budget: z
      .number({ message: 'budget (K) must be an integer >= 1' })
      .int('budget (K) must be an integer >= 1')
      .min(1, 'budget (K) must be an integer >= 1')
      .max(
        100,
        'budget (K) must be at most 100 (the paper uses 5; a larger K is a different protocol, and 1e9 attempts would exhaust memory before the first model call)',
      ),
    repeats: z
      .number()
      .int()
      .min(1, 'repeats must be an integer >= 1')
      .max(1000, 'repeats must be at most 1000 (the intervals narrow little beyond a few: more tasks narrow them more)')
      .default(1),
    history: z
      .union([z.enum(['full', 'last', 'summary']), HistoryShape], {
        error: "history must be 'full', 'last', 'summary' or a history policy object with name and build()",
      })
      .default('full'),
    summariser: ChatModelShape.optional(),
    independent: z.union([z.boolean(), z.object({ expect: ThresholdsSchema.optional() }).strict()]).default(false),
    modes: z.record(z.string().min(1), ModeSchema).default({}),
    discloseBudget: z.boolean().default(false),
    concurrency: z
      .number()
      .int()
      .min(1, 'concurrency must be an integer >= 1')
      .max(1000, 'concurrency must be at most 1000 trajectories in flight per cell')
      .default(4),
    // Node's timers overflow past 2^31 - 1 ms (about 24.8 days) and fire at once: a longer cell timeout "timed out" immediately.
    timeout: z
      .number()
      .int()
      .positive('timeout is in milliseconds and must be > 0')
      .max(
        2 ** 31 - 1,
        'timeout must be at most 2147483647 ms (about 24.8 days, the longest timer Node keeps, and a longer one fires at once)',
      )
      .default(10 * 60_000),
    seed: z.number().int().default(1),
    /** Accepted so older configs load; intervals are closed-form now (korn-graubard), so it changes nothing. */
    bootstrapResamples: z
      .number()
      .int()
      .min(100, 'bootstrapResamples must be >= 100 for a usable interval')
      .max(100_000, 'bootstrapResamples must be at most 100000')
      .optional(),
    errors: z.enum(['censored', 'failures', 'left-out']).optional(),
    /** The older spelling: true is `errors: 'failures'`, false is `errors: 'left-out'`. */
    countErrorsAsFailures: z.boolean().optional(),
    promptBuilder: PromptBuilderShape.optional(),
    /**
     * The eval's instructions (its system prompt), sent before every task's own messages. Part of
     * the subject: editing them is a change the baseline gate compares, not a change of every task.
     */
    instructions: InstructionsSchema.optional(),
    /**
     * Variants of the subject, by name (two instructions, two models, two app versions): each is a
     * cell per mode, `<name> · <mode>`, run on the same tasks and compared pairwise (summary.json's
     * `variantComparisons`). A variant sets its own `actor`, `instructions` or `promptBuilder`, and
     * takes the eval's for the rest.
     */
    variants: z.record(z.string().min(1, 'a variant needs a name'), VariantSchema).optional(),
    /**
     * Prompt robustness: each subject also runs under seeded, meaning-preserving rewordings of every
     * task's prompt (`reorder`, `paraphrase`, `format`, `distractor`), each a cell per mode
     * (`<subject> ~ <kind>/<i> · <mode>`) on the same instrument; summary.json's `robustness` says
     * Seq@K (or Pass@K) perturbed over original with its interval, and which tasks flipped.
     */
    perturb: PerturbOption.optional(),
    /**
     * A named protocol preset: `seqk` (the default: budget not disclosed, feedback only before a
     * revision) or `seq_k-reference` (the paper's reference harness: its prompt layout, budget
     * disclosed, feedback after the last failure too).
     */
    protocol: z
      .enum(PROTOCOL_PRESETS, {
        message: `protocol must be ${PROTOCOL_PRESETS.map((p) => `'${p}'`).join(' or ')}`,
      })
      .default('seqk'),
    /** Each cell's cost cap in US dollars (see `SEQK_CELL_MAX_COST_USD`); the run's is the reporter's. */
    maxCostUsd: CostCapLimitsSchema.shape.maxCostUsd,
    /** Each cell's cap in tokens, input (cached included) plus output. */
    maxTokens: CostCapLimitsSchema.shape.maxTokens,
    annotate: AnnotateSchema.default('derived'),
    baseline: z
      .union([
        z.boolean(),
        z
          .object({
            /** Baseline file, relative to the eval file (default `seqk.baseline.json`). */
            file: z.string().min(1).optional(),
            margin: Rate.optional(),
            maxDrop: Rate.optional(),
          })
          .strict(),
      ])
      .default(false),
    /**
     * A `seqk stability --json` report of this eval's verifier (path relative to the working
     * directory): cells say when their verifier is known to be unstable on any of their tasks.
     */
    stability: z
      .string({ message: 'stability must be the path of a seqk stability --json report, e.g. "stability.json"' })
      .min(1, 'stability must be the path of a seqk stability --json report, e.g. "stability.json"')
      .optional(),
  })
  .strict()

/** The options of `seqEval(name, options)`, as you write them. */
export type SeqEvalOptions = z.input<typeof SeqEvalOptionsSchema>
/** `seqEval` options once checked, with every default filled in. */
export type ResolvedOptions = Omit<
  z.output<typeof SeqEvalOptionsSchema>,
  'tasks' | 'modes' | 'independent' | 'baseline' | 'errors' | 'annotate' | 'actors' | 'variants' | 'perturb'
> & {
  /** The rewordings each subject also runs under (`perturb`), in plan order; null without. */
  perturb: Perturbation[] | null
  /** The actors: the eval's, or with `variants` every variant's actor (each once). */
  actors: ChatModel[]
  /** The variants of the subject, in declaration order, each resolved against the eval's defaults; null without. */
  variants: ResolvedVariant[] | null
  /** How errored trajectories enter the rates. */
  errors: ErrorPolicy
  tasks: Task[]
  /** Each mode's feedback, thresholds and revision annotator (its own `annotate`, else the eval's). */
  modes: Record<string, { feedback: FeedbackMode; expect: Thresholds; annotate: AnnotateSpec }>
  independent: { expect: Thresholds } | null
  /** The baseline gate, or null when the eval keeps no baseline. */
  baseline: { file: string; margin: number; maxDrop: number } | null
  /** The tasks the `stability` report saw flip (absent without a report). */
  knownUnstable?: string[]
  /** Feedback after the last failed attempt too (the `seq_k-reference` preset). */
  feedbackAfterLast: boolean
}

/** A variant of the subject with the eval's defaults filled in. */
export interface ResolvedVariant {
  name: string
  actor: ChatModel
  instructions?: string
  promptBuilder?: PromptBuilder
}

/** Thrown at declaration time: names the eval, the option and the fix. */
export class SeqEvalOptionsError extends Error {
  constructor(evalName: string, problems: string[]) {
    super(`seqEval(${JSON.stringify(evalName)}): invalid options\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'SeqEvalOptionsError'
  }
}

function toThresholds(raw: z.output<typeof ThresholdsSchema> | undefined): Thresholds {
  const keyed = (r: Record<string, number> | undefined) =>
    r ? Object.fromEntries(Object.entries(r).map(([k, v]) => [Number(k), v])) : undefined
  const out: Thresholds = { seqAt: keyed(raw?.seqAt), passAt: keyed(raw?.passAt), maxErrorRate: raw?.maxErrorRate }
  // The reliability thresholds are set only when given, so a resolved `expect` without them reads as before.
  for (const metric of ['seqHat', 'passHat', 'coverAt', 'scoreAt'] as const)
    if (raw?.[metric]) out[metric] = keyed(raw[metric])
  return out
}

/**
 * Validates `seqEval` options and returns them resolved, or throws a SeqEvalOptionsError listing
 * every problem with the option's path and the fix.
 */
export function resolveOptions(evalName: string, input: unknown): ResolvedOptions {
  const parsed = SeqEvalOptionsSchema.safeParse(input, { reportInput: true })
  if (!parsed.success) {
    throw new SeqEvalOptionsError(evalName, describeZodError(parsed.error).split('; '))
  }
  const o = parsed.data
  const problems: string[] = []
  const seen = new Set<string>()
  for (const t of o.tasks) {
    if (seen.has(t.id)) problems.push(`tasks: duplicate task id ${JSON.stringify(t.id)}; task ids must be unique`)
    seen.add(t.id)
  }
  const preset = presetOptions(o, (input as { discloseBudget?: unknown }).discloseBudget === false, problems)
  const variants = resolveVariants(o, preset.promptBuilder, problems)
  // The actors the cells run: the eval's, or each variant's (one actor may serve several variants).
  const actors = variants ? [...new Set(variants.map((v) => v.actor))] : (o.actors ?? [])
  const actorIds = new Set<string>()
  for (const a of o.actors ?? []) {
    if (actorIds.has(a.id))
      problems.push(
        `actors: two actors are named ${JSON.stringify(a.id)}; pass a distinct id (e.g. actors.simulated({ profile, id: 'b' }))`,
      )
    actorIds.add(a.id)
  }
  const independent =
    o.independent === false ? null : { expect: toThresholds(o.independent === true ? undefined : o.independent.expect) }
  if (Object.keys(o.modes).length === 0 && !independent)
    problems.push(
      'modes: give at least one feedback mode (e.g. { verifier: { feedback: feedback.verifier() } }) or set independent: true',
    )
  const checkK = (where: string, thresholds: Thresholds) => {
    for (const metric of RATE_METRICS) {
      if (METRICS[metric].index === 'tau') continue
      for (const k of Object.keys(thresholds[metric] ?? {}).map(Number)) {
        if (k > o.budget)
          problems.push(
            `${where}.${metric}.${k}: k = ${k} is above the budget ${o.budget}; use k <= budget or raise budget`,
          )
      }
    }
  }
  // One annotator (and so one cache) per model and cache setting, shared by every mode using it.
  const annotators = new Map<ChatModel, Map<boolean, RevisionAnnotator>>()
  const warned = new Set<ChatModel>()
  const annotateSpec = (option: AnnotateOption, where: string): AnnotateSpec => {
    if (option === 'derived') return { kind: 'derived' }
    if (option === false) return { kind: 'off' }
    const cache = option.cache ?? true
    if (option.model.descriptor.provider === 'simulated')
      problems.push(
        `${where}.model: the simulated model ${option.model.id} only picks scripted answers and cannot annotate; pass a chat model (a test-server model such as testServerModel(server, { model: 'rule-annotator' }) offline)`,
      )
    let byCache = annotators.get(option.model)
    if (!byCache) annotators.set(option.model, (byCache = new Map()))
    let annotator = byCache.get(cache)
    if (!annotator) byCache.set(cache, (annotator = revisionAnnotator({ model: option.model, cache })))
    for (const actor of actors) {
      const same =
        actor.descriptor.provider === option.model.descriptor.provider &&
        actor.descriptor.model === option.model.descriptor.model
      if (!same || warned.has(actor) || process.env.SEQK_QUIET) continue
      warned.add(actor)
      console.warn(
        wrapText(
          `seqEval(${JSON.stringify(evalName)}): ${where}.model is the actor ${actor.id} itself: it will annotate its own revisions (self-annotation risk); prefer an annotator of another family`,
        ),
      )
    }
    return { kind: 'llm', annotator, ...(option.sample === undefined ? {} : { sample: option.sample }) }
  }
  const evalAnnotate = annotateSpec(o.annotate, 'annotate')
  const modes: ResolvedOptions['modes'] = {}
  for (const [name, mode] of Object.entries(o.modes)) {
    if (name === 'independent')
      problems.push("modes.independent: 'independent' is reserved for the Pass@K cells; use the independent option")
    const expect = toThresholds(mode.expect)
    if (expect.passAt)
      problems.push(
        `modes.${name}.expect.passAt: Pass@k is measured by independent sampling; put it under independent: { expect: { passAt } }`,
      )
    if (expect.passHat)
      problems.push(
        `modes.${name}.expect.passHat: pass^k is measured by independent sampling; put it under independent: { expect: { passHat } }, or use seqHat (every repeat solved within k) here`,
      )
    checkK(`modes.${name}.expect`, expect)
    modes[name] = {
      feedback: mode.feedback,
      expect,
      annotate: mode.annotate === undefined ? evalAnnotate : annotateSpec(mode.annotate, `modes.${name}.annotate`),
    }
  }
  if (independent) {
    if (independent.expect.seqAt)
      problems.push('independent.expect.seqAt: Seq@k needs feedback; put it under a mode in modes')
    if (independent.expect.seqHat)
      problems.push(
        'independent.expect.seqHat: Seq^k needs feedback; put it under a mode in modes, or use passHat (k tries all pass) here',
      )
    checkK('independent.expect', independent.expect)
  }
  if (o.discloseBudget || o.protocol === 'seq_k-reference') {
    for (const [name, mode] of Object.entries(modes)) {
      for (const metric of ['seqAt', 'seqHat'] as const) {
        for (const k of Object.keys(mode.expect[metric] ?? {}).map(Number)) {
          if (k < o.budget)
            problems.push(
              `modes.${name}.expect.${metric}.${k}: with discloseBudget only ${METRICS[metric].label('K')} (k = ${o.budget}) is defined; remove it or set discloseBudget: false`,
            )
        }
      }
    }
  }
  for (const t of o.tasks) {
    for (const p of o.verifier.checkTask?.(t) ?? []) problems.push(`tasks[${JSON.stringify(t.id)}]: ${p}`)
  }
  // A simulated actor only picks scripted answers: it cannot write a summary or a critique.
  const simulated = actors.filter((a) => a.descriptor.provider === 'simulated').map((a) => a.id)
  if (simulated.length > 0) {
    if (o.history === 'summary' && !o.summariser)
      problems.push(
        `summariser: history 'summary' needs a summariser model: the simulated actors (${simulated.join(', ')}) cannot summarise; pass summariser: actors.openai({ … }) or a test-server model`,
      )
    for (const [name, mode] of Object.entries(modes)) {
      if (mode.feedback.kind === 'critic' && mode.feedback.settings.critic === 'actor')
        problems.push(
          `modes.${name}.feedback: a critic with no model critiques with the actor, and the simulated actors (${simulated.join(', ')}) cannot; pass feedback.critic({ model, … })`,
        )
    }
  }
  // A USD cap is refused here for an actor no price covers: its spend would be unknown from the first call.
  if (o.maxCostUsd !== undefined)
    for (const a of actors) {
      const problem = unpricedCapProblem(a, 'maxCostUsd')
      if (problem) problems.push(problem)
    }
  const legacy = o.countErrorsAsFailures === undefined ? undefined : o.countErrorsAsFailures ? 'failures' : 'left-out'
  if (o.errors !== undefined && legacy !== undefined && o.errors !== legacy)
    problems.push(
      `countErrorsAsFailures: ${String(o.countErrorsAsFailures)} contradicts errors: '${o.errors}'; keep only errors (countErrorsAsFailures is its older spelling)`,
    )
  let knownUnstable: string[] | undefined
  if (o.stability !== undefined) {
    let text: string | undefined
    try {
      text = readFileSync(resolve(o.stability), 'utf8')
    } catch {
      problems.push(
        `stability: cannot read ${o.stability}; write it with npx seqk stability <benchmark file> --json ${o.stability}`,
      )
    }
    if (text !== undefined) {
      const known = knownUnstableFrom(text, o.stability, o.verifier)
      if ('problem' in known) problems.push(`stability: ${known.problem}`)
      else knownUnstable = known.tasks
    }
  }
  if (o.perturb !== undefined && o.perturb !== true) {
    const kinds = o.perturb.kinds ?? []
    for (const kind of new Set(kinds.filter((k, i) => kinds.indexOf(k) !== i)))
      problems.push(
        `perturb.kinds: '${kind}' is listed twice; list each kind once (seeds sets how many rewordings of each)`,
      )
  }
  if (problems.length > 0) throw new SeqEvalOptionsError(evalName, problems)
  const errors: ErrorPolicy = o.errors ?? legacy ?? 'censored'
  const baseline =
    o.baseline === false
      ? null
      : { file: 'seqk.baseline.json', margin: 0, maxDrop: 0.1, ...(o.baseline === true ? {} : o.baseline) }
  const { annotate: _annotate, variants: _variants, perturb: _perturb, ...rest } = o
  const perturb =
    o.perturb === undefined
      ? null
      : o.perturb === true
        ? planPerturbations(PERTURBATION_KINDS, 1, o.seed)
        : planPerturbations(o.perturb.kinds ?? PERTURBATION_KINDS, o.perturb.seeds, o.perturb.seed ?? o.seed)
  return {
    ...rest,
    perturb,
    ...preset,
    actors,
    variants,
    tasks: o.tasks,
    modes,
    independent,
    baseline,
    errors,
    ...(knownUnstable ? { knownUnstable } : {}),
  }
}

/** The variants with the eval's defaults filled in, or null without `variants`; problems are pushed. */
function resolveVariants(
  o: z.output<typeof SeqEvalOptionsSchema>,
  presetBuilder: PromptBuilder | undefined,
  problems: string[],
): ResolvedVariant[] | null {
  if (!o.variants) {
    if (!o.actors) problems.push('actors: give at least one actor, e.g. actors.simulated({ profile: "reviser" })')
    return null
  }
  const entries = Object.entries(o.variants)
  if (entries.length < 2)
    problems.push(
      "variants: give at least two variants to compare (e.g. { terse: { instructions: 'Be brief.' }, careful: { instructions: 'Check each field.' } }), or leave the option out",
    )
  const resolved: ResolvedVariant[] = []
  for (const [name, v] of entries) {
    // A cell is `<variant> · <mode>`: the separator in a name would make the mode unreadable from the id.
    if (name.includes(' · ')) problems.push(`variants.${name}: a variant's name must not contain " · "; rename it`)
    if (v.actor === undefined && v.instructions === undefined && v.promptBuilder === undefined)
      problems.push(
        `variants.${name}: changes nothing; give it its own actor, instructions or promptBuilder (the eval's are the default)`,
      )
    let actor = v.actor
    if (actor === undefined) {
      if (!o.actors)
        problems.push(`variants.${name}.actor: give each variant an actor, or the eval one actor in actors`)
      else if (o.actors.length > 1)
        problems.push(
          `variants.${name}.actor: the eval has ${o.actors.length} actors, and a variant without its own actor runs the eval's one actor; give the variant an actor, or keep one actor in actors`,
        )
      else actor = o.actors[0]
    }
    if (actor === undefined) continue
    const instructions = v.instructions ?? o.instructions
    // A preset's prompt layout is part of its protocol: a variant may not swap it (as the eval may not).
    if (presetBuilder && v.promptBuilder)
      problems.push(
        `variants.${name}.promptBuilder: protocol '${o.protocol}' lays out every prompt itself; remove the variant's promptBuilder, or drop the preset`,
      )
    const promptBuilder = presetBuilder ?? v.promptBuilder ?? o.promptBuilder
    resolved.push({
      name,
      actor,
      ...(instructions !== undefined ? { instructions } : {}),
      ...(promptBuilder !== undefined ? { promptBuilder } : {}),
    })
  }
  return resolved
}

/**
 * What a protocol preset sets: `seq_k-reference` lays out each prompt as the reference harness
 * does (`referencePromptBuilder`), discloses the budget, and gives feedback after the last failure.
 * It refuses options that would make it another protocol (its own prompt builder, an undisclosed
 * budget, a history other than `full`), naming the option.
 */
function presetOptions(
  o: Pick<z.output<typeof SeqEvalOptionsSchema>, 'protocol' | 'promptBuilder' | 'history'>,
  undisclosed: boolean,
  problems: string[],
): Pick<ResolvedOptions, 'feedbackAfterLast'> & Partial<Pick<ResolvedOptions, 'promptBuilder' | 'discloseBudget'>> {
  if (o.protocol !== 'seq_k-reference') return { feedbackAfterLast: false }
  if (o.promptBuilder)
    problems.push(
      "promptBuilder: protocol 'seq_k-reference' uses the reference harness's prompt layout; remove promptBuilder, or drop the preset to use your own",
    )
  if (o.history !== 'full')
    problems.push(
      "history: protocol 'seq_k-reference' shows every earlier attempt and its feedback in numbered tags (history 'full'); remove history or set it to 'full'",
    )
  if (undisclosed)
    problems.push(
      "discloseBudget: protocol 'seq_k-reference' tells the actor its budget ('This is attempt t of K.'); remove discloseBudget: false",
    )
  return { promptBuilder: referencePromptBuilder, discloseBudget: true, feedbackAfterLast: true }
}
