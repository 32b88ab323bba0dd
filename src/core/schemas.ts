/**
 * The one contract between the cell runner, the artifact writer, the reporter and later the gate
 * and the HTML report ("one schema is the contract"). JSON Schema files in `schemas/`
 * are generated from these (`npm run schemas`), never written by hand.
 *
 * Everything here is plain JSON: blobs from `--merge-reports` turn NaN into null and Dates into
 * strings, so "no value" is `null` and times are ISO strings.
 */
import { z } from 'zod'
import { CallUsageSchema, ModelCallSchema, VerdictSchema } from './contract.js'
import {
  CELL_STATUSES,
  CELL_VERDICTS,
  FEEDBACK_KINDS,
  PROTOCOL_KINDS,
  RATE_METRICS,
  THRESHOLD_METRICS,
  TRAJECTORY_STATUSES,
} from './kinds.js'
import { FAILURE_KINDS } from './failure-kind.js'
import { CapStopSchema, CellCostCapSchema } from './cost-cap.js'
import { EPISODE_END_REASONS, EpisodeSchema } from './episode.js'
import { PERTURBATION_KINDS } from './perturbation.js'

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()])
const Settings = z.record(z.string(), Scalar)
/** A number that may be undefined for a stated reason (NaN in memory, null on disk). */
const MaybeNumber = z.number().nullable()

/**
 * What identifies a model in the protocol: its provider, model name and parameters. Any further
 * field an actor's descriptor carries (an app's `version`) is kept as it is: it is part of the
 * subject, and its fingerprint must read the same from a file as from memory.
 */
export const ModelDescriptorSchema = z
  .object({ provider: z.string(), model: z.string(), params: Settings })
  .catchall(z.json())

/**
 * Every field that defines a Seq@K number. They fall in two groups (see core/instrument.ts): the
 * instrument (what decides pass or fail and what the actor hears after a failure) and the subject
 * (what produces the answers). Two numbers measure the same thing only under the same instrument;
 * a change of subject is what a comparison is for.
 */
export const ProtocolSchema = z.object({
  schema: z.literal('seqk.protocol/1'),
  kind: z.enum(PROTOCOL_KINDS),
  benchmark: z.object({
    name: z.string(),
    tasks: z.number().int().nonnegative(),
    /** Hash of every task's id, prompt, tests and setup: the benchmark split. */
    contentHash: z.string(),
  }),
  verifier: z.object({ name: z.string(), version: z.string(), settings: Settings }),
  feedback: z
    .object({ kind: z.enum(FEEDBACK_KINDS), name: z.string(), version: z.string(), settings: Settings })
    .nullable(),
  history: z.object({ name: z.string(), settings: Settings }).nullable(),
  promptBuilder: z.string(),
  actor: ModelDescriptorSchema,
  /**
   * The eval's instructions (its system prompt), sent before every task's own messages: part of
   * the subject, so editing them changes no task. Absent when the eval gives none (and in files
   * written before it existed), so those fingerprints do not move.
   */
  instructions: z.string().optional(),
  budget: z.number().int().positive(),
  /** When true only Seq@K itself is valid: Seq@k for k < K may not be read by truncation. */
  budgetDisclosed: z.boolean(),
  /** Infrastructure errors counted as failures (true) or not (false): it changes the numbers. Kept for readers of older files; `errors` says how. */
  errorsCountedAsFailures: z.boolean(),
  /**
   * How an errored trajectory enters Seq@k: `censored` (failed before its error, censored from it
   * on: a Kaplan–Meier estimate, the default), `failures`, or `left-out`. Absent in files written
   * before it existed, where `errorsCountedAsFailures` false meant `left-out`.
   */
  errors: z.enum(['censored', 'failures', 'left-out']).optional(),
})
export type Protocol = z.infer<typeof ProtocolSchema>

/**
 * A cell's instrument: what decides pass or fail and what the actor hears after a failure (the
 * tasks' inputs and tests or criteria, the verifier, the feedback mode, the history policy, the
 * budget and its disclosure, the error policy, the repeats), with its fingerprint. Two numbers
 * measure the same thing only under the same instrument. See core/instrument.ts.
 */
export const InstrumentSchema = z.object({
  fingerprint: z.string(),
  kind: ProtocolSchema.shape.kind,
  benchmark: ProtocolSchema.shape.benchmark,
  verifier: ProtocolSchema.shape.verifier,
  feedback: ProtocolSchema.shape.feedback,
  history: ProtocolSchema.shape.history,
  budget: ProtocolSchema.shape.budget,
  budgetDisclosed: ProtocolSchema.shape.budgetDisclosed,
  errors: z.enum(['censored', 'failures', 'left-out']),
  /** Trajectories per task: how much each task is measured. */
  repeats: z.number().int().positive(),
})
export type Instrument = z.infer<typeof InstrumentSchema>

/**
 * A cell's subject: what produces the answers (the actor: provider, model, decoding, an app and its
 * version, its tools; the instructions; the prompt builder's wording), with its fingerprint. A change
 * of subject is what a pull request or a model choice wants compared, paired by task.
 */
export const SubjectSchema = z.object({
  fingerprint: z.string(),
  actor: ModelDescriptorSchema,
  promptBuilder: z.string(),
  instructions: z.string().optional(),
})
export type Subject = z.infer<typeof SubjectSchema>
/** How errored trajectories enter the rates (the protocol's `errors`). */
export type ErrorPolicy = NonNullable<Protocol['errors']>

/** A protocol's error policy, also for files written before `errors` existed. */
export function errorPolicyOf(protocol: Pick<Protocol, 'errors' | 'errorsCountedAsFailures'>): ErrorPolicy {
  return protocol.errors ?? (protocol.errorsCountedAsFailures ? 'failures' : 'left-out')
}

/** The classes of a revision against the feedback it answered (paper §5.2.2). */
export const REVISION_CLASSES = ['unhelpful', 'some', 'all'] as const
/** How a revision answered its feedback: unhelpful, some or all of what it named. */
export type RevisionClass = (typeof REVISION_CLASSES)[number]

/**
 * How a sampled revision was drawn (`annotate: { model, sample: n }`): `size` of the cell's
 * `slots` revision slots (task × repeat × attempt 2..K), ranked by a seeded hash of task, repeat
 * and attempt (`method`), so reruns, resumes and shards draw the same ones.
 */
export const AnnotationSampleSchema = z.object({
  size: z.number().int().positive(),
  slots: z.number().int().nonnegative(),
  method: z.string(),
})
export type AnnotationSample = z.infer<typeof AnnotationSampleSchema>

/**
 * One revision's annotation: attempt t + 1 judged against the requests of attempt t's feedback.
 * `unhelpful`: it satisfies none of them; `some`: it fully or partly satisfies at least one but not
 * every one fully; `all`: it fully satisfies every one. The derived annotator computes it from the
 * verdicts (request ids such as `test:3`); the LLM annotator writes the same record, with the
 * requests as it read them from the feedback, and is stored on the revision's attempt.
 */
export const RevisionAnnotationSchema = z.object({
  annotator: z.enum(['derived', 'llm']),
  /** The annotator's rule or prompt version: `derived/1`, or the prompt file's id `annotator.v1@<hash>`. */
  version: z.string(),
  /** LLM annotator: the model, `provider:model`. */
  model: z.string().optional(),
  /** Index of the revision (attempt t + 1). */
  attempt: z.number().int().positive(),
  requests: z.array(z.string()),
  /** The requests the revision satisfied, fully or partly. */
  satisfied: z.array(z.string()),
  /** LLM annotator: the requests it satisfied only partly (a subset of `satisfied`). */
  partly: z.array(z.string()).optional(),
  /** Requests the revision's verdict did not report (e.g. code that did not load): counted as not satisfied. */
  unobserved: z.array(z.string()),
  class: z.enum(REVISION_CLASSES),
  /** LLM annotator: its one-sentence reason. */
  reason: z.string().optional(),
  /** Set when the revision was drawn into a sample (`annotate: { sample }`). */
  sample: AnnotationSampleSchema.optional(),
  /** LLM annotator: its calls (a repair included), counted in the cell's cost under the role `annotator`. */
  calls: z.array(ModelCallSchema).optional(),
})
export type RevisionAnnotation = z.infer<typeof RevisionAnnotationSchema>

/**
 * An LLM annotation that failed (the model's call failed after its retries, or it answered
 * malformed JSON twice): an infrastructure error of this annotation only, never of the
 * trajectory. Its calls were billed and count like any annotator call.
 */
export const RevisionAnnotationErrorSchema = z.object({
  annotator: z.literal('llm'),
  version: z.string(),
  model: z.string(),
  attempt: z.number().int().positive(),
  error: z.string(),
  sample: AnnotationSampleSchema.optional(),
  calls: z.array(ModelCallSchema),
})
export type RevisionAnnotationError = z.infer<typeof RevisionAnnotationErrorSchema>

/** What a revision's attempt stores: an LLM annotation or its failure. */
export const StoredRevisionAnnotationSchema = z.union([RevisionAnnotationSchema, RevisionAnnotationErrorSchema])
export type StoredRevisionAnnotation = z.infer<typeof StoredRevisionAnnotationSchema>

/** One attempt of a trajectory: the answer, its verdict, the feedback it got and the calls it made. */
export const AttemptSchema = z.object({
  /** 1-based attempt (sequential) or sample (independent) index. */
  index: z.number().int().positive(),
  answer: z.string(),
  verdict: VerdictSchema,
  /**
   * Feedback given on this attempt (null when it passed, was the last (unless the protocol gives
   * feedback after the last failure, as `seq_k-reference` does), or in independent sampling).
   * `requests`: what its text names, where the feedback is structured (verifier feedback: `test:3`
   * for TestOutcome.index 3, `criterion:c2`, a composed verifier's failed check `check:numeric(total)`);
   * absent where it names nothing checkable, and in files
   * written before it existed.
   */
  feedback: z
    .object({ kind: z.enum(FEEDBACK_KINDS), text: z.string(), requests: z.array(z.string()).optional() })
    .nullable(),
  finishReason: z.enum(['stop', 'length', 'refusal', 'other']),
  /** The actor's call; null when its reply reported no usage. */
  usage: CallUsageSchema,
  latencyMs: z.number().nonnegative(),
  costUsd: MaybeNumber,
  costUsdWithoutCache: MaybeNumber,
  /** The actor's answer came from a cassette (its tokens and cost are the recorded, nominal ones). */
  replayed: z.boolean(),
  /** Sent through the provider's batch API: its cost is the batch price. False: a batched model's call sent direct after its batch deadline. Absent: a direct call. */
  batched: z.boolean().optional(),
  /** The batched actor call at list price, for the saving (null when unpriced). */
  costUsdAtListPrice: z.number().nullable().optional(),
  /** The actor's answer was longer than its cap (`maxAnswerChars`) and was cut at this many characters (`finishReason` is `length`). */
  cutAtChars: z.number().int().positive().optional(),
  /** The model that served the actor's call as the provider named it (a dated snapshot); absent when it did not say, and for local simulations. */
  servedModel: z.string().optional(),
  /** Helper calls made for this attempt: the summariser before it, a critic or grader after it. */
  helperCalls: z.array(ModelCallSchema),
  /** Revision identical (after the verifier's normalisation) to the previous attempt; null for attempt 1. */
  unmodified: z.boolean().nullable(),
  /**
   * The LLM revision annotator's judgement of this revision (attempt ≥ 2) against the previous
   * attempt's feedback, or its failure (`annotate: { model }`). Absent under the derived annotator
   * (computed from the verdicts when summarising), for revisions outside a sample, and in files
   * written before it existed.
   */
  annotation: StoredRevisionAnnotationSchema.optional(),
  /**
   * An agent's attempt: its turns and tool calls in order and why it ended (`actors.agent`). Its
   * turns' usage and cost are the attempt's `usage` and `costUsd`, added. Absent for a plain actor.
   */
  episode: EpisodeSchema.optional(),
})
export type Attempt = z.infer<typeof AttemptSchema>

/** An infrastructure error that ended a trajectory early: where it happened and its message. */
export const TrajectoryErrorSchema = z.object({
  stage: z.enum(['actor', 'verifier', 'feedback', 'history']),
  attempt: z.number().int().positive(),
  message: z.string(),
  /** What kind of failure a model call ended with (authentication, connection, quota, …), for the advice; absent when not a model call's. */
  kind: z.enum(FAILURE_KINDS).optional(),
  /** Calls made and billed in the failed attempt before it failed (the actor's answer, a grader's first calls); counted in the spend. */
  calls: z.array(ModelCallSchema).optional(),
})
export type TrajectoryError = z.infer<typeof TrajectoryErrorSchema>

/**
 * The trajectory schema's version. `/3`: an agent's attempt carries its `episode` (turns and tool
 * calls). `/2`: usage a reply did not report is `null` (in `/1` files it was written as zero
 * tokens, so their zeros may be unknowns). All three read.
 */
export const TRAJECTORY_SCHEMA = 'seqk.trajectory/3'
/** Every trajectory version this reader accepts (the lenient reader of older files). */
export const TRAJECTORY_SCHEMAS = ['seqk.trajectory/1', 'seqk.trajectory/2', TRAJECTORY_SCHEMA] as const
/**
 * Which cell of which run a record belongs to, and under what protocol: the fields a trajectory
 * and a cell summary share (in this order, after their `schema`).
 */
const cellOf = () => ({
  runId: z.string(),
  benchmark: z.string(),
  cellId: z.string(),
  actorId: z.string(),
  /** Feedback mode name, or 'independent'. */
  mode: z.string(),
  fingerprint: z.string(),
  protocol: ProtocolSchema,
})

/** One task × repeat of a cell: its attempts in order, its protocol and how it ended. */
export const TrajectorySchema = z.object({
  schema: z.enum(TRAJECTORY_SCHEMAS),
  ...cellOf(),
  taskId: z.string(),
  repeat: z.number().int().nonnegative(),
  /** `error` = an infrastructure failure (model, verifier or critic crashed), not a wrong answer. */
  status: z.enum(TRAJECTORY_STATUSES),
  firstSuccess: z.number().int().positive().nullable(),
  error: TrajectoryErrorSchema.nullable(),
  attempts: z.array(AttemptSchema),
  /** Set when `status` is `capped`: the cost cap that stopped it. */
  capped: CapStopSchema.optional(),
  /**
   * Set on a trajectory of an extended run (`seqk resume --budget`): the budget its first attempts
   * ran under before it went on (absent for a trajectory run at its budget from the start).
   */
  extendedFrom: z.number().int().positive().optional(),
  /** What its calls reported, added (null when none of them reported usage). */
  usage: CallUsageSchema,
  /** Its calls whose reply reported no usage (absent: none); their tokens are in no total, and their cost is unknown. */
  usageUnknownCalls: z.number().int().positive().optional(),
  costUsd: MaybeNumber,
  startedAt: z.string(),
  durationMs: z.number().nonnegative(),
})
export type Trajectory = z.infer<typeof TrajectorySchema>

/** An interval as artifacts store it: the estimate, the bounds, the level and the method. */
export const IntervalSchema = z.object({
  point: MaybeNumber,
  lo: MaybeNumber,
  hi: MaybeNumber,
  level: z.number(),
  /** How it was computed, with a version (`korn-graubard/2`); files written before methods were named used the percentile bootstrap. */
  method: z.string().default('percentile-bootstrap/1'),
  /** Tasks it is computed over. */
  tasks: z.number().int().nonnegative().optional(),
  /** Only for the bootstrap of older files: its resamples and seed. */
  resamples: z.number().int().optional(),
  seed: z.number().optional(),
  /** Set when the interval is too wide to be useful, saying what would narrow it. */
  note: z.string().optional(),
})
/** An interval as artifacts store it (IntervalSchema). */
export type IntervalJson = z.infer<typeof IntervalSchema>

/**
 * A cell's reliability: whether it solves a task every time, not only once. Each figure is over
 * the tries a task had here (its repeats, or its samples), which `tries` gives.
 */
export const ReliabilitySchema = z.object({
  /** The most tries a task had: repeats of a sequential cell (solved within K or not), samples of an independent one. */
  tries: z.number().int().nonnegative(),
  /**
   * What the figures rest on: tries in all over the tasks, and how many of them an infrastructure
   * error hid (under `errors: 'censored'` each such try is credited the chance the rates credit it,
   * and every interval widens to hold the figure whatever it hid). Absent in files written before.
   */
  basis: z.object({ tries: z.number().int().nonnegative(), hidden: z.number().int().nonnegative() }).optional(),
  /** Seq^k for k = 1..K: the share of tasks that every repeat solved within k (sequential cells; null for independent ones, whose pass^k is `passHat`). */
  seqHat: z.array(MaybeNumber).nullable(),
  /** The interval of Seq^K (sequential) or pass^K (independent). */
  hatInterval: IntervalSchema,
  /** Cover@τ at K for each τ reported (0.5, 1 and any a threshold names): the share of tasks whose success share reaches τ. */
  coverAt: z.array(z.object({ tau: z.number(), interval: IntervalSchema })),
  /** The whole Cover@τ curve at K, a step function: Cover(τ) = cover for τ up to each step's tau. */
  coverCurve: z.array(z.object({ tau: z.number(), cover: z.number() })),
  /** Outcome consistency, 1 − 4·p̂(1 − p̂) per task, its mean, and the share of tasks whose tries did not all end alike. */
  outcome: z.object({ mean: IntervalSchema, inconsistent: IntervalSchema }),
  /** Resource consistency, exp(−mean coefficient of variation across a task's repeats), of attempts, tokens and cost. */
  resource: z.object({ attempts: IntervalSchema, tokens: IntervalSchema, costUsd: IntervalSchema }),
})
/** A cell's reliability figures (ReliabilitySchema). */
export type Reliability = z.infer<typeof ReliabilitySchema>

/** One threshold of a cell's `expect`: the metric, k, the limit, the value and whether it held. */
export const ThresholdResultSchema = z.object({
  /** `finished`: the cell did not run to its end (a timeout, a crash, a cancel); its message says why. */
  metric: z.enum(THRESHOLD_METRICS),
  k: z.number().int().positive().nullable(),
  /** For coverAt, the share τ a task's tries must reach (k is then the budget). */
  tau: z.number().optional(),
  /** For rates a minimum; for maxErrorRate a maximum. */
  limit: z.number(),
  actual: MaybeNumber,
  pass: z.boolean(),
  message: z.string(),
})
export type ThresholdResult = z.infer<typeof ThresholdResultSchema>

/** How a true drop can fall on the tasks, as the gate's power simulates it (see src/protocol/gate-power.ts). */
export const POWER_ALTERNATIVES = ['proportional', 'concentrated'] as const
/** Where the power simulation read how much tasks differ. */
export const SPREAD_SOURCES = ['repeats', 'pairs', 'samples', 'assumed'] as const
const PowerAtSchema = z.array(z.object({ drop: z.number(), power: z.number() }))

/** The baseline gate's verdict on a cell (see src/protocol/gate.ts). */
export const GateJsonSchema = z.object({
  /** `written`: no baseline existed and one was written; `updated`: refreshed by -u; `missing`: none, and CI never writes one. */
  status: z.enum(['pass', 'fail', 'written', 'updated', 'missing']),
  file: z.string(),
  messages: z.array(z.string()),
  comparisons: z.array(
    z.object({
      metric: z.enum(RATE_METRICS),
      k: z.number().int().positive(),
      baseline: MaybeNumber,
      current: MaybeNumber,
      diff: z.object({ point: MaybeNumber, lo: MaybeNumber, hi: MaybeNumber }),
      /** One-sided p-value of "no drop beyond the margin", and the Holm threshold it was held to (absent in files from seqk.gate/1). */
      p: MaybeNumber.optional(),
      threshold: MaybeNumber.optional(),
    }),
  ),
  /** The gate protocol that decided (absent: seqk.gate/1, the paired bootstrap) and its settings. */
  gate: z
    .object({
      protocol: z.string(),
      interval: z.string(),
      margin: z.number(),
      maxDrop: z.number(),
      level: z.number(),
      ks: z.array(z.number().int().positive()),
    })
    .optional(),
  /** What the gate could see: the smallest drop at K it catches 80% of the time at these tasks and repeats. */
  power: z
    .object({
      tasks: z.number().int().nonnegative(),
      repeats: z.number().int().nonnegative(),
      detectableDrop: MaybeNumber,
      at: PowerAtSchema,
      /** The alternative the figures are for, the one the gate sees less of: every task worse in proportion, or a few tasks broken (absent in older files: proportional). */
      alternative: z.enum(POWER_ALTERNATIVES).optional(),
      /** How much the tasks differ as the simulation drew them, and where that was read (`assumed`: one repeat, no second run). */
      concentration: z.number().optional(),
      spread: z.enum(SPREAD_SOURCES).optional(),
      /** Each alternative on its own. */
      alternatives: z
        .array(z.object({ alternative: z.enum(POWER_ALTERNATIVES), detectableDrop: MaybeNumber, at: PowerAtSchema }))
        .optional(),
      sentence: z.string(),
    })
    .nullable()
    .optional(),
  regressed: z.array(z.string()),
  improved: z.array(z.string()),
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.string()),
  /** Files written before the instrument/subject split: the protocol fields that differed (the gate refused). */
  protocolChanges: z.array(z.string()).optional(),
  /** Instrument fields that differ from the baseline, `path: before → after`: the gate refused (absent in older files). */
  instrumentChanges: z.array(z.string()).optional(),
  /**
   * Subject fields that differ from the baseline, `path: before → after` (the actor, the
   * instructions, the prompt builder): the change under review, compared paired by task. Absent or
   * empty when the subject is the baseline's.
   */
  subjectChanges: z.array(z.string()).optional(),
  /**
   * The baseline's cell this cell was compared with, when it is not this cell's own id: the
   * subject's id changed (a new model's id) and the cell was matched by its mode. Absent otherwise.
   */
  baselineCell: z.string().optional(),
})
export type GateJson = z.infer<typeof GateJsonSchema>

/** One revision class of a cell (or of pooled cells): its revisions, share, solved count and next-attempt success. */
export const RevisionClassSummarySchema = z.object({
  /** Annotated revisions in this class. */
  revisions: z.number().int().nonnegative(),
  /** Its share of the annotated revisions, pooled over revisions, with a cluster (task) interval. */
  share: IntervalSchema,
  /** Revisions of this class whose verdict passed. */
  solved: z.number().int().nonnegative(),
  /** Next-attempt success: the share of this class's revisions whose verdict passed (null point when the class is empty). */
  success: IntervalSchema,
})

/**
 * A cell's revisions by whether they addressed the feedback they answered (paper §5.2.2, Figure
 * 5b): the share of annotated revisions in each class and the next-attempt success per class.
 * Rates are pooled over revisions (the paper: 22% / 34% / 44% of 842), their intervals clustered
 * by task (a task's revisions, over its attempts and repeats, are not independent).
 */
export const RevisionAnnotationSummarySchema = z.object({
  annotator: z.enum(['derived', 'llm']),
  /** The rule or prompt version (`derived/1`, `annotator.v1@<hash>`); several joined with ` + ` if a resumed cell mixes them. */
  version: z.string(),
  /** LLM annotator: the model (`provider:model`; several joined with ` + `). */
  model: z.string().optional(),
  /** Revisions in the cell's counted trajectories (attempts t ≥ 2). */
  revisions: z.number().int().nonnegative(),
  /** Revisions the annotator could judge (derived: the previous feedback named requests). */
  annotatable: z.number().int().nonnegative(),
  /** Revisions annotated: all annotatable ones, or a sample of them (`sampled`). */
  annotated: z.number().int().nonnegative(),
  sampled: z.boolean(),
  /** Annotated revisions with a request their verdict did not report, counted as not satisfied. */
  unobserved: z.number().int().nonnegative(),
  /** LLM annotator: annotations that failed (an infrastructure error of that annotation only), in no class. */
  errors: z.number().int().nonnegative().optional(),
  /** LLM annotator with `sample`: how the sample was drawn. */
  sample: AnnotationSampleSchema.optional(),
  /** LLM annotator: its calls and their cost in this cell (also in `byRole.annotator`; never in `costAtK`, the protocol's cost). */
  calls: z.number().int().nonnegative().optional(),
  costUsd: MaybeNumber.optional(),
  /** A caution about the annotator, e.g. that it is the actor's own model or family (self-annotation). */
  note: z.string().optional(),
  classes: z.object({
    unhelpful: RevisionClassSummarySchema,
    some: RevisionClassSummarySchema,
    all: RevisionClassSummarySchema,
  }),
})
export type RevisionAnnotationSummary = z.infer<typeof RevisionAnnotationSummarySchema>

/**
 * The feedback-overfitting gap of a cell with held-out tests (or rubric criteria): Seq@k on the
 * visible tests against Seq@k on every test, over its trajectories that did not error, and the
 * visible repairs (a revision that fixed every visible failure) that still fail a held-out test.
 */
export const HeldOutGapSummarySchema = z.object({
  /** What was held out: test statements (python-tests) or rubric criteria (absent in older files: tests). */
  over: z.enum(['tests', 'criteria']).optional(),
  /** Trajectories it is computed over (errored ones are left out). */
  trajectories: z.number().int().nonnegative(),
  /** Seq@k on the visible tests, k = 1..K. */
  visibleAt: z.array(MaybeNumber),
  /** Seq@k on every test, k = 1..K (the verdict that counts). */
  allAt: z.array(MaybeNumber),
  /** visibleAt − allAt: how much of the visible Seq@k the held-out tests take back. */
  gapAt: z.array(MaybeNumber),
  /** The gap at K, a paired interval over tasks. */
  gapInterval: IntervalSchema,
  /** Revisions whose previous attempt failed a visible test and which pass every visible test. */
  visibleRepairs: z.number().int().nonnegative(),
  /** Of those, revisions failing a held-out test (broken or never fixed). */
  overfit: z.number().int().nonnegative(),
  /** Of the overfit ones, revisions that broke a held-out test the previous attempt passed. */
  broke: z.number().int().nonnegative(),
  /** overfit / visibleRepairs, pooled, its interval clustered by task. */
  overfitShare: IntervalSchema,
})
export type HeldOutGapSummary = z.infer<typeof HeldOutGapSummarySchema>

/** The schema id of a cell summary. */
export const CELL_SUMMARY_SCHEMA = 'seqk.cell/2'

/**
 * One statistic of a cell (a module of `protocol/statistics/` computes it): its value, null when
 * undefined here (never 0 for unknown); its interval and what it is over, when it has them; a
 * sentence when the value needs one (why it is undefined); and the module's own detail, which its
 * detail schema checks.
 */
export const StatisticValueSchema = z.object({
  value: MaybeNumber,
  interval: IntervalSchema.optional(),
  /** What the value is over (tasks, revisions, trajectories): the module's label says which. */
  n: z.number().int().nonnegative().optional(),
  note: z.string().optional(),
  detail: z.unknown().optional(),
})
/** One statistic of a cell (see {@link StatisticValueSchema}). */
export type StatisticValue = z.infer<typeof StatisticValueSchema>
/**
 * A cell's agent metrics (cells whose attempts are episodes, `actors.agent`): steps and tool calls
 * per attempt, the pooled tool error rate, how episodes ended, cost per success, and trajectory
 * consistency over successful repeats (the mean over tasks with at least two; see
 * `trajectoryConsistency` in vitest-seqk/metrics).
 */
export const AgentSummarySchema = z.object({
  episodes: z.number().int().nonnegative(),
  meanSteps: MaybeNumber,
  meanToolCalls: MaybeNumber,
  toolErrorRate: MaybeNumber,
  /** Episodes by why they ended: `answer`, or the limit (`steps`, `tokens`, `time`, `cost`). */
  endedBy: z.partialRecord(z.enum(EPISODE_END_REASONS), z.number().int().positive()),
  /** Successes: solved trajectories (sequential cells) or passing samples (independent cells). */
  solved: z.number().int().nonnegative(),
  /** The cell's cost over its successes; null when a cost is unknown or nothing was solved. */
  costPerSolvedUsd: MaybeNumber,
  consistency: z.object({
    /** Mean pairwise 1 − normalised edit distance between the action-name sequences. */
    sequence: MaybeNumber,
    /** Mean pairwise 1 − Jensen–Shannon distance between the action-frequency vectors. */
    frequency: MaybeNumber,
    /** Tasks with at least two successful repeats (the mean's count). */
    tasks: z.number().int().nonnegative(),
  }),
  /** With a fault injector: the faults injected and the recovery rate. */
  faults: z.lazy(() => FaultRecoverySchema).optional(),
})
/** Episodes of one kind (hit by a fault, or not) and the share of them whose attempt passed. */
const EpisodeShareSchema = z.object({
  episodes: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  /** Tasks the episodes fall in (the interval's clusters). */
  tasks: z.number().int().nonnegative(),
  /** Passed over episodes with its 95% interval clustered by task; null with no episode. */
  rate: z.object({ point: z.number(), lo: MaybeNumber, hi: MaybeNumber }).nullable(),
})

/**
 * An agent cell's fault recovery (`actors.agent({ faults })`): the tool calls hit by each fault,
 * and of the episodes a fault hit the share that still passed (the recovery rate), beside the
 * same share for the episodes no fault hit.
 */
export const FaultRecoverySchema = z.object({
  injected: z.object({ error: z.number().int(), timeout: z.number().int(), truncate: z.number().int() }),
  /** Episodes with at least one fault: `rate` is the recovery rate. */
  hit: EpisodeShareSchema,
  /** Episodes no fault hit, in the same cell. */
  clean: EpisodeShareSchema,
  method: z.string(),
})
/** An agent cell's fault recovery (see {@link FaultRecoverySchema}). */
export type FaultRecovery = z.infer<typeof FaultRecoverySchema>

/** A cell's agent metrics (see {@link AgentSummarySchema}). */
export type AgentSummary = z.infer<typeof AgentSummarySchema>

/** A perturbed cell's rewording (seqEval's `perturb`): its name, kind and seed, and the subject it rewords. */
export const PerturbationRecordSchema = z.object({
  /** The subject whose original cell this one is compared with: an actor's id or a variant's name. */
  of: z.string(),
  /** `<kind>/<i>`, as in the cell id. */
  name: z.string(),
  kind: z.enum(PERTURBATION_KINDS),
  seed: z.number().int(),
})
/** A perturbed cell's rewording (see {@link PerturbationRecordSchema}). */
export type PerturbationRecord = z.infer<typeof PerturbationRecordSchema>

/** One cell's summary: its protocol, Seq@k or Pass@k curve, intervals, thresholds, cost and verdict. */
export const CellSummarySchema = z.object({
  schema: z.literal(CELL_SUMMARY_SCHEMA),
  ...cellOf(),
  /**
   * The protocol split in two, each with its fingerprint: the instrument (with the repeats) and
   * the subject. Absent in files written before the split: read them with `cellInstrument` and
   * `cellSubject`, which derive them from `protocol` and `repeats`.
   */
  instrument: InstrumentSchema.optional(),
  subject: SubjectSchema.optional(),
  /**
   * The variant of the eval's subject this cell runs (seqEval's `variants`; its `actorId` is the
   * variant's name): the run compares it pairwise with its sibling variants. Absent otherwise.
   */
  variant: z.string().optional(),
  /**
   * The rewording of the prompt this cell runs (seqEval's `perturb`): `of` names the subject whose
   * original cell it is compared with (an actor's id or a variant's name). Absent otherwise.
   */
  perturbation: PerturbationRecordSchema.optional(),
  budget: z.number().int().positive(),
  repeats: z.number().int().positive(),
  tasks: z.number().int().nonnegative(),
  trajectories: z.number().int().nonnegative(),
  errors: z.object({
    count: z.number().int().nonnegative(),
    rate: MaybeNumber,
    /** Errored trajectories are counted as failures (true), or censored or left out (see `policy`). */
    countedAsFailures: z.boolean(),
    /** The protocol's `errors` (absent in older files). */
    policy: z.enum(['censored', 'failures', 'left-out']).optional(),
    /**
     * Seq@k (Pass@k for independent cells) at every k under each rule for errored trajectories, when
     * the cell had errors: every one a failure (`asFailures`) and every one a success at the attempt
     * its error stopped (`asSuccesses`, absent in older files) bound the rate whatever the errors
     * hid; `leftOut` drops them. Null without errors.
     */
    bounds: z
      .object({
        asFailures: z.array(MaybeNumber),
        asSuccesses: z.array(MaybeNumber).optional(),
        leftOut: z.array(MaybeNumber),
      })
      .nullable()
      .optional(),
    /** Tasks in no rate: every trajectory errored before its first verdict (under `left-out`, every one errored). Absent when none. */
    unmeasured: z.array(z.string()).optional(),
    examples: z.array(z.object({ taskId: z.string(), repeat: z.number().int(), message: z.string() })),
  }),
  /** Seq@k for k = 1..K (sequential cells; for independent cells the empirical "solved by sample k"). */
  seqAt: z.array(MaybeNumber),
  seqAtInterval: IntervalSchema,
  /** Unbiased Pass@k for k = 1..K (independent cells only). */
  passAt: z.array(MaybeNumber).nullable(),
  passAtInterval: IntervalSchema.nullable(),
  passHat: z.array(MaybeNumber).nullable(),
  /**
   * G-Pass@k_τ (independent cells; absent otherwise and in older files): per τ, the chance that at
   * least ⌈τk⌉ of k tries pass, for k = 1..K, and its interval at K.
   */
  gPass: z.array(z.object({ tau: z.number(), curve: z.array(MaybeNumber), atK: IntervalSchema })).optional(),
  /**
   * The score curve (absent in older files): Score@k, the mean over tasks of the best verdict
   * score reached by attempt k (sample k, in draw order, for independent cells), k = 1..K: the
   * paper's reference harness's metric@k. With binary scores (`binary`) it is the solved rate, so
   * a sequential cell's equals its Seq@k; with soft scores (rubrics) it credits partial answers.
   * Told its budget (`protocol.budgetDisclosed`), a cell's Score@k for k < K is read within its
   * K-run, as the reference reads it, not as a budget-k number. `interval` is at K, over tasks.
   */
  score: z
    .object({
      at: z.array(MaybeNumber),
      interval: IntervalSchema,
      /** Every verdict scored 0 or 1. */
      binary: z.boolean(),
    })
    .optional(),
  /** Whether the cell does it every time: Cover@τ, Seq^k or pass^k, outcome and resource consistency (absent in older files). */
  reliability: ReliabilitySchema.nullable().optional(),
  /**
   * The cell's statistics by id (version 2; files of version 1 named some as fields of their own,
   * `upgradeSummary` moves them here): each computed by one module of `protocol/statistics/`, absent
   * when it does not apply to the cell. Every output reads this map through the registry.
   */
  statistics: z.record(z.string(), StatisticValueSchema),
  /** Revisions by whether they addressed the feedback (sequential cells whose feedback names requests); null or absent otherwise. */
  revisionAnnotation: RevisionAnnotationSummarySchema.nullable().optional(),
  /** The feedback-overfitting gap (sequential cells whose verdicts hold out tests); null or absent otherwise. */
  heldOut: HeldOutGapSummarySchema.nullable().optional(),
  /**
   * Tasks on which the verifier is known to be unstable (absent when none): `inRun`, an unmodified
   * revision got another verdict than the same answer one attempt before, in this run; `reported`,
   * a `seqk stability` report given to the eval (`stability`) saw the reference's verdict flip.
   */
  verifierUnstable: z.object({ inRun: z.array(z.string()), reported: z.array(z.string()).optional() }).optional(),
  /** Agent metrics, for cells whose attempts are episodes of tool calls (absent otherwise). */
  agent: AgentSummarySchema.optional(),
  /** What its calls reported, added (null when none of them reported usage). */
  usage: CallUsageSchema,
  /** Its calls whose reply reported no usage (absent: none): `usage` leaves them out, and the cost is unknown. */
  usageUnknownCalls: z.number().int().positive().optional(),
  costUsd: MaybeNumber,
  /** Usage, cost and call count per role (actor, critic, grader, summariser). */
  byRole: z.record(
    z.string(),
    z.object({
      usage: CallUsageSchema,
      usageUnknownCalls: z.number().int().positive().optional(),
      costUsd: MaybeNumber,
      calls: z.number().int().nonnegative(),
    }),
  ),
  costPerTrajectory: MaybeNumber,
  /** Prompt caching: the share of input tokens read from cache, and the cost saved against no caching. */
  cache: z.object({ cachedShare: MaybeNumber, savedUsd: MaybeNumber }),
  /**
   * The calls sent through a provider's batch API (present only when some were): how many, what
   * they cost at the batch price, what they would have cost at list price, and the saving.
   */
  batch: z
    .object({
      calls: z.number().int().positive(),
      costUsd: MaybeNumber,
      listCostUsd: MaybeNumber,
      savedUsd: MaybeNumber,
    })
    .optional(),
  /**
   * Set when the cell was extended to its budget from a smaller one (`seqk resume --budget K`): the
   * budget its kept attempts ran under, and how many trajectories were kept and went on. With the
   * budget disclosed those attempts were told the smaller budget, so it is not a run at this budget.
   */
  extended: z.object({ from: z.number().int().positive(), trajectories: z.number().int().positive() }).optional(),
  /** Set when a cost cap stopped the cell: its trajectories that did not finish are `capped`. */
  costCap: CellCostCapSchema.optional(),
  /** Calls served from a cassette (their tokens and cost are the recorded, nominal ones). */
  replayedCalls: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
  /** Attempts judged under each sandbox mode (code verifiers): `none` means the code ran without bubblewrap. */
  sandboxes: z
    .object({ bwrap: z.number().int().nonnegative().optional(), none: z.number().int().nonnegative().optional() })
    .strict()
    .optional(),
  /** Per task: first success per repeat (null = not within K); what baselines and paired tests need. */
  perTask: z.array(
    z.object({
      taskId: z.string(),
      /** Hash of the task's id, prompt, tests and setup. */
      contentHash: z.string().optional(),
      firstSuccess: z.array(z.number().int().positive().nullable()),
      errors: z.number().int().nonnegative(),
      /** Under `errors: 'censored'`: the attempt at which each errored repeat was censored (its earlier attempts failed). */
      censoredAt: z.array(z.number().int().positive()).optional(),
      samples: z.number().int().nonnegative().optional(),
      passes: z.number().int().nonnegative().optional(),
      /** Its best score by attempt k, k = 1..K, the mean over its repeats measured there (the score curve's per-task value). */
      bestScore: z.array(MaybeNumber).optional(),
      /** Mean cost over repeats of running this task with budget k and stopping at the first success, k = 1..K. */
      costAtK: z.array(MaybeNumber),
    }),
  ),
  /** Mean over tasks of `perTask[].costAtK`: what a budget of k costs per task (cost–success analyses). */
  costAtK: z.array(MaybeNumber),
  /**
   * Mean spend per task of a budget of k, k = 1..K, under the cell's own protocol, in tokens (input +
   * output, helpers included) and dollars: a sequential cell stops at the first success (a solved
   * task stops spending), an independent cell spends k samples (k times the task's mean per sample).
   * The cost axis of the run's `equalCost`. Null where a call reported no usage or has no price;
   * absent in older files.
   */
  spendAtK: z.object({ tokens: z.array(MaybeNumber), usd: z.array(MaybeNumber) }).optional(),
  thresholds: z.array(ThresholdResultSchema),
  /** The baseline gate, when the eval keeps a baseline. */
  gate: GateJsonSchema.nullable().optional(),
  /**
   * The cell's status (see the verdict model): `no-thresholds` when it checked nothing, `shard`
   * for one machine's share of a task-sharded run (checked at the merge). Files written before
   * these existed say `pass` for both.
   */
  verdict: z.enum(CELL_VERDICTS),
  durationMs: z.number().nonnegative(),
  /**
   * Set on one machine's share of a sharded run (`SEQK_SHARD=i/N`): the numbers cover only its
   * tasks, and thresholds and the baseline are checked once the shards are merged (`seqk merge`).
   */
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).optional(),
})
/** What `CellSummarySchema` checks: one cell's summary. */
export type CellSummary = z.infer<typeof CellSummarySchema>

/**
 * Two cells of one instrument and two subjects compared paired by task (B − A, over the tasks both
 * measured with the same content): two variants of one run, or a cell of two runs (`seqk compare`).
 * The same paired statistics as the baseline gate (Agresti–Min t interval over tasks at K).
 */
export const SubjectComparisonSchema = z.object({
  benchmark: z.string(),
  mode: z.string(),
  /** Each side: its cell, its subject's name (a variant's or the cell's actor id) and fingerprint, its rate at K. */
  a: z.object({ cellId: z.string(), subject: z.string(), fingerprint: z.string(), rate: MaybeNumber }),
  b: z.object({ cellId: z.string(), subject: z.string(), fingerprint: z.string(), rate: MaybeNumber }),
  /** The rate compared: Seq@K, or Pass@K for independent cells. */
  metric: z.enum(RATE_METRICS),
  k: z.number().int().positive(),
  /** Tasks compared: the same id and content on both sides, measured on both. */
  tasks: z.number().int().nonnegative(),
  /** What differs between the two subjects, `path: a → b`. */
  subjectChanges: z.array(z.string()),
  /** What differs between the two instruments: when not empty, nothing is compared (`verdict` not-comparable). */
  instrumentChanges: z.array(z.string()),
  /** B − A, paired over the tasks, with its 95% interval; null when not compared. */
  diff: z.object({ point: MaybeNumber, lo: MaybeNumber, hi: MaybeNumber }).nullable(),
  /** One-sided p-value of "B is no worse than A" (small: B is worse). */
  p: MaybeNumber,
  /** `worse` or `better`: the interval excludes zero; `no-difference-seen`: it does not. */
  verdict: z.enum(['worse', 'better', 'no-difference-seen', 'not-comparable']),
  /** Why it was not compared (another instrument, no common task). */
  note: z.string().optional(),
})
/** What `SubjectComparisonSchema` checks: two subjects on one instrument, compared paired by task. */
export type SubjectComparison = z.infer<typeof SubjectComparisonSchema>

/** One protocol's equal-cost curve: per budget k, its mean spend per task and its rate (Seq@k or Pass@k). */
const EqualCostPointSchema = z.object({ k: z.number().int().positive(), cost: MaybeNumber, rate: MaybeNumber })

/** Sequential against independent at equal spend, in one unit (tokens or dollars). */
export const EqualCostCurvesSchema = z.object({
  sequential: z.array(EqualCostPointSchema),
  independent: z.array(EqualCostPointSchema),
  /**
   * Over the spend both reach: `sequential-dominates` (at least as high at every equal spend, and
   * somewhere higher), `independent-dominates`, `equal`, `crossing` (the lead changes at
   * `crossings`), `unknown` (a spend is unknown: never read as 0), `not-comparable` (not the same tasks).
   */
  verdict: z.enum(['sequential-dominates', 'independent-dominates', 'equal', 'crossing', 'unknown', 'not-comparable']),
  /** Where the lead changes, cheapest first: from `cost` per task on, `leader` is ahead. */
  crossings: z.array(z.object({ cost: z.number(), leader: z.enum(['sequential', 'independent']) })),
  /** The spend compared (null unless compared): from the dearer cheapest point to the dearer dearest point. */
  from: MaybeNumber,
  to: MaybeNumber,
  /** The verdict in one sentence, as every output prints it. */
  note: z.string(),
})
export type EqualCostCurves = z.infer<typeof EqualCostCurvesSchema>

/**
 * A sequential cell against the independent cell of the same benchmark and actor at equal cost
 * (Olausson et al. 2024): Seq@k at the mean spend by attempt k, Pass@k at the mean spend of k samples.
 */
export const EqualCostSchema = z.object({
  benchmark: z.string(),
  actorId: z.string(),
  /** The sequential cell's feedback mode. */
  mode: z.string(),
  sequential: z.string(),
  independent: z.string(),
  tokens: EqualCostCurvesSchema,
  usd: EqualCostCurvesSchema,
})
export type EqualCost = z.infer<typeof EqualCostSchema>

/**
 * One robustness row (summary.json's `robustness`): a subject's original cell against a rewording
 * of its prompt (seqEval's `perturb`), its rewordings pooled, or the same agent with injected tool
 * faults (`actors.agent({ faults })`), on the same tasks and instrument.
 */
export const RobustnessRowSchema = z.object({
  benchmark: z.string(),
  mode: z.string(),
  /** The original's subject: an actor's id or a variant's name. */
  subject: z.string(),
  /** The rewording's name (`distractor/1`), `all rewordings`, or `faults`. */
  condition: z.string(),
  kind: z.enum([...PERTURBATION_KINDS, 'all', 'faults']),
  originalCellId: z.string(),
  /** The cells compared with the original (several for `all rewordings`: their mean per task). */
  cellIds: z.array(z.string()),
  /** The rate compared: Seq@K, or Pass@K for independent cells. */
  metric: z.enum(RATE_METRICS),
  k: z.number().int().positive(),
  /** Tasks paired: the same id and content, measured on both sides. */
  tasks: z.number().int().nonnegative(),
  /** Each side's rate at K over the paired tasks; null with none. */
  original: MaybeNumber,
  perturbed: MaybeNumber,
  /**
   * Perturbed over original with its 95% interval (`method`); `hi` null and `bounded` false when the
   * interval is unbounded above. Null when undefined (no task passed on the original): see `note`.
   */
  ratio: z.object({ point: z.number(), lo: z.number(), hi: MaybeNumber, bounded: z.boolean() }).nullable(),
  method: z.string(),
  /** Tasks that passed (rate at K ≥ 1/2) on the original and fail on the other side. */
  lost: z.array(z.string()),
  /** Tasks that failed on the original and pass on the other side. */
  gained: z.array(z.string()),
  note: z.string().optional(),
})
/** One robustness row (see {@link RobustnessRowSchema}). */
export type RobustnessRow = z.infer<typeof RobustnessRowSchema>

/** The schema id of `summary.json`. */
export const SUMMARY_SCHEMA = 'seqk.summary/2'
/** The whole run as `summary.json` holds it: every benchmark's cells, verdicts and problems. */
export const RunSummarySchema = z.object({
  schema: z.literal(SUMMARY_SCHEMA),
  runId: z.string(),
  createdAt: z.string(),
  benchmarks: z.array(z.object({ name: z.string(), file: z.string(), cells: z.array(CellSummarySchema) })),
  /** Eval files that failed to load or collect (a syntax error, a throw at declaration): each a failed entry of the run, with its error's first line. */
  loadErrors: z.array(z.object({ file: z.string(), error: z.string() })).optional(),
  /** Cells declared but not run (skipped: a model without a key, data that is absent), each with why. */
  notRun: z
    .array(z.object({ file: z.string(), benchmark: z.string(), cellId: z.string(), reason: z.string() }))
    .optional(),
  /**
   * The run's verdict as every output shows it: `fail` on a failed cell, a file that failed to load
   * or a problem of the run; `pass` when something was checked and held; else `no-thresholds`.
   * Cells by status, failed checks (each counted once) and one reason per failure.
   */
  verdict: z
    .object({
      status: z.enum(['pass', 'fail', 'no-thresholds']),
      cells: z.object(
        Object.fromEntries(CELL_STATUSES.map((s) => [s, z.number().int().nonnegative()])) as Record<
          (typeof CELL_STATUSES)[number],
          z.ZodNumber
        >,
      ),
      failedChecks: z.number().int().nonnegative(),
      reasons: z.array(z.string()),
    })
    .optional(),
  /** Paired effects of the history policy: cells identical but for it, on the same tasks (paper Table 6). */
  historyComparisons: z
    .array(
      z.object({
        actorId: z.string(),
        mode: z.string(),
        baseline: z.object({ history: z.string(), benchmark: z.string(), seqAtK: MaybeNumber }),
        other: z.object({ history: z.string(), benchmark: z.string(), seqAtK: MaybeNumber }),
        diff: z.object({ point: MaybeNumber, lo: MaybeNumber, hi: MaybeNumber }),
        commonTasks: z.number().int().nonnegative(),
      }),
    )
    .optional(),
  /** The variants of each benchmark's subject (seqEval's `variants`), compared pairwise on the same tasks. */
  variantComparisons: z.array(SubjectComparisonSchema).optional(),
  /** Each sequential cell against its actor's independent cell at equal spend per task (absent without such pairs). */
  equalCost: z.array(EqualCostSchema).optional(),
  /** Each rewording (`perturb`) and each faulted agent against its original, paired over tasks. */
  robustness: z.array(RobustnessRowSchema).optional(),
})
export type RunSummary = z.infer<typeof RunSummarySchema>
