/**
 * The JSON written by `seqk analyze --json` and `seqk select --json`, and handed to the HTML
 * report: one zod schema is the contract, the TypeScript types are inferred from it.
 *
 * Plain JSON throughout: "no value" is `null` next to a stated reason, never NaN, 0 or 1.
 * Rates are shares in [0, 1]; costs are US dollars per task (or per calibration) as priced in the
 * runs; `k` is a budget (number of attempts or samples).
 */
import { z } from 'zod'
import { EqualCostSchema, IntervalSchema, RevisionClassSummarySchema, StatisticValueSchema } from '../core/schemas.js'

const Rate = z.number().nullable()
const Int = z.number().int()

/** An actor the analysis left out, and why. */
export const ExcludedActorSchema = z.object({ actorId: z.string(), reason: z.string() })
export type ExcludedActor = z.infer<typeof ExcludedActorSchema>

/** Where a run came from. `path` is null when the summary was handed over in memory. */
export const SourceSchema = z.object({ path: z.string().nullable(), runId: z.string(), createdAt: z.string() })
export type Source = z.infer<typeof SourceSchema>

// ── 1. Rankings (paper Table 3) ───────────────────────────────────────────────────────────────

/** The best–worst and mean pairwise gaps between actors under one metric. */
export const GapsSchema = z.object({
  /** Best score minus worst score. */
  bestWorst: Rate,
  /** Mean of |score_a − score_b| over all unordered actor pairs. */
  meanPairwise: Rate,
})
export type Gaps = z.infer<typeof GapsSchema>

/** One actor in a ranking: its Pass@K and Seq@K, their ranks and the change. */
export const RankedActorSchema = z.object({
  actorId: z.string(),
  pass: z.number(),
  seq: z.number(),
  /** Competition ranks ("1224"): 1 is best, tied actors share the better rank. */
  passRank: Int,
  seqRank: Int,
  /** passRank − seqRank: positive when the actor moves up under Seq@k. */
  rankChange: Int,
})

/** The actors of one benchmark and mode ranked under Pass@K and Seq@K, with the gaps and reversals. */
export const RankingSchema = z.object({
  benchmark: z.string(),
  /** The feedback mode whose Seq@k is compared with Pass@k. */
  mode: z.string(),
  k: Int,
  /** Actors ordered by Seq@k (best first), then by Pass@k. */
  actors: z.array(RankedActorSchema),
  passOrder: z.array(z.string()),
  seqOrder: z.array(z.string()),
  gaps: z.object({ pass: GapsSchema, seq: GapsSchema, /** Seq gap minus Pass gap. */ change: GapsSchema }),
  /** Pairs ordered one way by Pass@k and the other way by Seq@k. */
  reversals: z.array(z.object({ passAbove: z.string(), seqAbove: z.string() })),
  excluded: z.array(ExcludedActorSchema),
})
export type Ranking = z.infer<typeof RankingSchema>

// ── 1b. Reliability: the four numbers and the rankings by each metric ─────────────────────────

/** One actor's four numbers on one benchmark and mode, and the mode cell's own reliability rates. */
export const ReliabilityRowSchema = z.object({
  actorId: z.string(),
  /**
   * A single try, as the report's four numbers give it: Pass@1 of the independent cell (its label
   * says when it ran at temperature 0), else Seq@1 of a sequential cell whose actor was not told its
   * budget (its first attempt, before any feedback: the same try), null when neither measured it.
   */
  singleTry: z.object({
    label: z.string(),
    value: Rate,
    /** Which rate it is: `Pass@1`, `Seq@1`, or null when no cell measured a single try. */
    source: z.enum(['Pass@1', 'Seq@1']).nullable(),
    /** The cell it was read from. */
    cellId: z.string().nullable(),
  }),
  /** Coverage at the largest k run: Pass@K of the independent cell. */
  passAtK: Rate,
  /** pass^K of the independent cell: all K samples pass. */
  passHatK: Rate,
  /**
   * G-Pass@K_τ of the independent cell, per τ: at least ⌈τK⌉ of K samples pass, between Pass@K and
   * pass^K (empty without an independent cell; absent in older files).
   */
  gPassK: z.array(z.object({ tau: z.number(), value: Rate })).optional(),
  /** Seq@K under the mode: completion under the run's retry budget. */
  seqAtK: Rate,
  /** Seq^K under the mode: every repeat solves the task within K. */
  seqHatK: Rate,
  /** Cover@1 under the mode: the share of tasks solved within K in every repeat. */
  coverAt1: Rate,
})
export type ReliabilityRow = z.infer<typeof ReliabilityRowSchema>

/** The actors ranked by one metric next to their ranks by Seq@K, over the actors that have both. */
export const MetricRankingSchema = z.object({
  /** Its label at the budget, e.g. `pass^5`, `Cover@1`, `Pass@1`. */
  metric: z.string(),
  /** Best first (ties by Seq@K rank, then id). */
  order: z.array(z.string()),
  /** Competition ranks under this metric and under Seq@K, per actor. */
  ranks: z.array(z.object({ actorId: z.string(), rank: Int, seqRank: Int })),
  /** True when some actor's rank differs from its rank by Seq@K. */
  differsFromSeq: z.boolean(),
  /** Pairs ordered one way by this metric and the other way by Seq@K (ties are not an order). */
  reversals: z.array(z.object({ metricAbove: z.string(), seqAbove: z.string() })),
})
export type MetricRanking = z.infer<typeof MetricRankingSchema>

/**
 * A pair of actors where the one better at K (Seq@K or Pass@K) is worse at the single try
 * (Pass@1), and the tasks where that happens and where the reverse does.
 */
export const SingleShotReversalSchema = z.object({
  /** `Seq@5` or `Pass@5`: the rate at K the pair is ordered by. */
  against: z.string(),
  /** Above at K, below at Pass@1. */
  betterAtK: z.string(),
  /** Below at K, above at Pass@1. */
  betterAtOne: z.string(),
  /** Tasks where `betterAtK` has the lower Pass@1 and the higher rate at K. */
  tasks: z.array(z.string()),
  /** Tasks the other way round: `betterAtK` has the higher Pass@1 and the lower rate at K. */
  reverseTasks: z.array(z.string()),
})
export type SingleShotReversal = z.infer<typeof SingleShotReversalSchema>

/** One benchmark and mode's reliability view. */
export const ReliabilitySectionSchema = z.object({
  benchmark: z.string(),
  mode: z.string(),
  /** The mode's budget K (Seq@K, Seq^K, Cover@1 at K). */
  k: Int,
  /** The independent cells' budget (Pass@K, pass^K), null without independent cells. */
  passK: Int.nullable(),
  rows: z.array(ReliabilityRowSchema),
  rankings: z.array(MetricRankingSchema),
  singleShot: z.array(SingleShotReversalSchema),
  /** One sentence per ranking that differs from Seq@K's and per single-shot reversal. */
  notes: z.array(z.string()),
})
export type ReliabilitySection = z.infer<typeof ReliabilitySectionSchema>

// ── 2. Correlations (paper Figure 4) ──────────────────────────────────────────────────────────

/** One Spearman correlation with its bootstrap interval. */
export const CorrelationSchema = z.object({
  /** Spearman's rho; null when undefined (fewer than 2 pairs, or a constant variable). */
  rho: Rate,
  lo: Rate,
  hi: Rate,
  level: z.number(),
  resamples: Int,
  seed: z.number(),
})
export type Correlation = z.infer<typeof CorrelationSchema>

/** One actor's Pass@K, Seq@K and their gains: a point of the correlations. */
export const CorrelationPairSchema = z.object({
  benchmark: z.string(),
  actorId: z.string(),
  /** The mode this pair's Seq@k comes from (for "best non-binary", the one chosen). */
  mode: z.string(),
  k: Int,
  passAt: z.number(),
  seqAt: z.number(),
  /** Pass@k − Pass@1. */
  passGain: z.number(),
  /** Seq@k − Seq@1. */
  seqGain: z.number(),
})
export type CorrelationPair = z.infer<typeof CorrelationPairSchema>

/** The correlation section of the analysis: the points, and the correlations of levels and of gains. */
export const CorrelationsSchema = z.object({
  /** A mode name, or `best non-binary` (per pair the non-binary mode with the highest Seq@k, as in the paper). */
  feedback: z.string(),
  pairs: z.array(CorrelationPairSchema),
  /** Spearman of Pass@k vs Seq@k over the pairs. */
  levels: CorrelationSchema,
  /** Spearman of ΔPass@k vs ΔSeq@k: whether gaining from more draws predicts gaining from feedback. */
  gains: CorrelationSchema,
  note: z.string().nullable(),
})
export type Correlations = z.infer<typeof CorrelationsSchema>

// ── 3. Revision timing (paper Table 4) ────────────────────────────────────────────────────────

/** One actor's revision timing in the analysis: Seq@K, its gain, EGS and LGS, or why they are undefined. */
export const TimingRowSchema = z.object({
  benchmark: z.string(),
  actorId: z.string(),
  mode: z.string(),
  k: Int,
  seqAt1: Rate,
  seqAtK: Rate,
  /** ΔSeq@k = Seq@k − Seq@1. */
  gain: Rate,
  egs: Rate,
  lgs: Rate,
  /** Why EGS and LGS are null (e.g. ΔSeq@k ≤ 0, or the budget was disclosed). */
  reason: z.string().nullable(),
})
export type TimingRow = z.infer<typeof TimingRowSchema>

// ── 4. Cost–success (paper Figure 3) ──────────────────────────────────────────────────────────

export const CostSuccessPointSchema = z.object({
  actorId: z.string(),
  k: Int,
  /** Mean cost per task of a budget k, stopping at the first success (`costAtK[k-1]`). */
  cost: Rate,
  /** Pass@k (independent) or Seq@k (a feedback mode). */
  success: Rate,
  onFrontier: z.boolean(),
  /** Why the point is left out of the frontier (unpriced, or no rate), else null. */
  reason: z.string().nullable(),
})
/** One point of the cost–success chart as the analysis stores it. */
export type CostSuccessPointJson = z.infer<typeof CostSuccessPointSchema>

/** One actor's cost–success curve: a point per budget k. */
export const CostSuccessSeriesSchema = z.object({
  /** `independent`, or a feedback mode name. */
  protocol: z.string(),
  metric: z.enum(['Pass', 'Seq']),
  points: z.array(CostSuccessPointSchema),
  /** The protocol's Pareto frontier (cheapest first): no other point is as cheap and as good. */
  frontier: z.array(z.object({ actorId: z.string(), k: Int, cost: z.number(), success: z.number() })),
})
export type CostSuccessSeries = z.infer<typeof CostSuccessSeriesSchema>

/** One benchmark's cost–success series and their combined Pareto frontier. */
export const CostSuccessSchema = z.object({
  benchmark: z.string(),
  series: z.array(CostSuccessSeriesSchema),
  /** The frontier over every protocol's points together: which protocol gives the efficient choices. */
  combinedFrontier: z.array(
    z.object({ protocol: z.string(), actorId: z.string(), k: Int, cost: z.number(), success: z.number() }),
  ),
  note: z.string().nullable(),
})
export type CostSuccess = z.infer<typeof CostSuccessSchema>

// ── 4b. Revision annotation (paper §5.2.2, Figure 5b) ─────────────────────────────────────────

/** Who judged the revisions: the annotator, its rule or prompt version, and its model (null for the derived one). */
export const RevisionAnnotatorIdSchema = z.object({
  annotator: z.string(),
  version: z.string(),
  model: z.string().nullable(),
})
export type RevisionAnnotatorId = z.infer<typeof RevisionAnnotatorIdSchema>

/** A revision class's row: the same shape as a cell summary's (`RevisionClassSummarySchema`). */
export const RevisionClassRowSchema = RevisionClassSummarySchema
export type RevisionClassRow = z.infer<typeof RevisionClassRowSchema>

/** One actor and mode in the revision-annotation section: how many revisions were annotated, and their classes. */
export const RevisionAnnotationRowSchema = z.object({
  actorId: z.string(),
  mode: z.string(),
  /** The benchmarks whose revisions are counted: one, or several in a pooled row. */
  benchmarks: z.array(z.string()),
  annotator: RevisionAnnotatorIdSchema,
  /** Revisions (attempts t ≥ 2) in the counted trajectories. */
  revisions: Int,
  /** Revisions the annotator could judge. */
  annotatable: Int,
  /** Revisions annotated: all annotatable ones, or a sample (`sampled`). */
  annotated: Int,
  sampled: z.boolean(),
  /** Annotated revisions with a request their verdict did not report (counted as not satisfied). */
  unobserved: Int,
  classes: z.object({ unhelpful: RevisionClassRowSchema, some: RevisionClassRowSchema, all: RevisionClassRowSchema }),
})
export type RevisionAnnotationRow = z.infer<typeof RevisionAnnotationRowSchema>

/** The revision-annotation section of the analysis: did revisions address the feedback. */
export const RevisionAnnotationSectionSchema = z.object({
  /** One row per actor and feedback mode with annotated revisions. */
  rows: z.array(RevisionAnnotationRowSchema),
  /** Cells not annotated, annotators that differ (never pooled), benchmarks left out of a pool. */
  notes: z.array(z.string()),
})
export type RevisionAnnotationSection = z.infer<typeof RevisionAnnotationSectionSchema>

// ── 5. Model selection (paper Figure 2, Table 2) ──────────────────────────────────────────────

/** The model-selection result under one metric: the selection loss, the held-out result, the cost and the picks. */
export const ProtocolSelectionSchema = z.object({
  /** The calibration metric, e.g. `Pass@5` or `Seq@3`. */
  metric: z.string(),
  /** Best actor's held-out Seq@K minus the pick's (0 = the best was picked). */
  loss: IntervalSchema,
  /** The pick's held-out Seq@K. */
  heldout: IntervalSchema,
  /** Mean calibration cost per selection: every candidate actor on the n calibration tasks; null if any is unpriced. */
  cost: Rate,
  /** Share of selections that picked each actor. */
  picks: z.record(z.string(), z.number()),
})
export type ProtocolSelection = z.infer<typeof ProtocolSelectionSchema>

/** The model-selection results at one calibration size n: by Pass@K, by Seq@K, and the gain. */
export const SelectionSizeSchema = z.object({
  /** Calibration tasks drawn per selection. */
  n: Int,
  pass: ProtocolSelectionSchema,
  seq: ProtocolSelectionSchema,
  /** Held-out Seq@K of the Seq@k pick minus that of the Pass@K pick (= Pass loss − Seq loss), paired over the same draws. */
  gain: IntervalSchema,
})
export type SelectionSize = z.infer<typeof SelectionSizeSchema>

/** One protocol's model-selection experiment. */
export const SelectionSchema = z.object({
  benchmark: z.string(),
  /** Feedback mode of deployment (and of the Seq@k calibration). */
  mode: z.string(),
  actors: z.array(z.string()),
  /** K of the Pass@K calibration (the independent cells' budget). */
  passK: Int,
  /** k of the Seq@k calibration (read from the K-run by truncation). */
  calibrationK: Int,
  /** K of the held-out Seq@K deployment score (the mode cells' budget). */
  deployK: Int,
  draws: Int,
  seed: z.number(),
  groups: z.object({ a: z.array(z.string()), b: z.array(z.string()) }),
  excludedTasks: z.array(z.object({ taskId: z.string(), reason: z.string() })),
  /** Each actor's Seq@K on each group: what the picks are scored against. */
  heldoutByGroup: z.object({ a: z.record(z.string(), z.number()), b: z.record(z.string(), z.number()) }),
  /** Choosing an actor uniformly at random (no calibration, no cost). */
  random: z.object({ loss: IntervalSchema, heldout: IntervalSchema }),
  sizes: z.array(SelectionSizeSchema),
  notes: z.array(z.string()),
})
export type Selection = z.infer<typeof SelectionSchema>

/** A protocol the model-selection experiment skipped, and why. */
export const SelectionSkippedSchema = z.object({ benchmark: z.string(), mode: z.string(), reason: z.string() })
export type SelectionSkipped = z.infer<typeof SelectionSkippedSchema>

// ── The reports ───────────────────────────────────────────────────────────────────────────────

/** The schema id of `analysis.json` (`seqk analyze --json`). */
export const ANALYSIS_SCHEMA = 'seqk.analysis/1'
/** What `seqk analyze` writes: rankings, correlations, timing, cost–success and revision annotation across actors. */
export const AnalysisReportSchema = z.object({
  schema: z.literal(ANALYSIS_SCHEMA),
  sources: z.array(SourceSchema),
  options: z.object({ k: Int.nullable(), seed: z.number(), resamples: Int, draws: Int }),
  benchmarks: z.array(
    z.object({
      name: z.string(),
      actors: z.array(z.string()),
      modes: z.array(z.string()),
      rankings: z.array(RankingSchema),
      /** Per mode: the four numbers per actor and the rankings by each reliability metric against Seq@K. */
      reliability: z.array(ReliabilitySectionSchema),
      timing: z.array(TimingRowSchema),
      costSuccess: CostSuccessSchema,
      /** Each sequential cell against its actor's independent cell at equal spend per task (absent in older files). */
      equalCost: z.array(EqualCostSchema).optional(),
      /** Revisions by whether they addressed the feedback, per actor and mode (paper Figure 5b). */
      revisionAnnotation: RevisionAnnotationSectionSchema,
      /** Each cell's registered statistics (its summary's `statistics` map), as the run stored them. */
      statistics: z
        .array(z.object({ cellId: z.string(), statistics: z.record(z.string(), StatisticValueSchema) }))
        .optional(),
      selection: z.array(SelectionSchema),
      selectionSkipped: z.array(SelectionSkippedSchema),
      notes: z.array(z.string()),
    }),
  ),
  correlations: z.array(CorrelationsSchema),
  /** Each actor's revision classes pooled over benchmarks, per mode and annotator (the paper pools 842 revisions over four). */
  revisionAnnotationPooled: RevisionAnnotationSectionSchema,
  notes: z.array(z.string()),
})
export type AnalysisReport = z.infer<typeof AnalysisReportSchema>

/** The schema id of the report `seqk select` writes. */
export const SELECTION_SCHEMA = 'seqk.selection/1'
/** What `seqk select` writes: the model-selection experiment's results. */
export const SelectionReportSchema = z.object({
  schema: z.literal(SELECTION_SCHEMA),
  sources: z.array(SourceSchema),
  options: z.object({ k: Int.nullable(), seed: z.number(), resamples: Int, draws: Int, maxN: Int }),
  selections: z.array(SelectionSchema),
  notes: z.array(z.string()),
})
export type SelectionReport = z.infer<typeof SelectionReportSchema>
