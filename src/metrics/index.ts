// The public face of `vitest-seqk/metrics`: pure, synchronous math over plain data. Internal
// helpers (argument checks, the shared per-task curve) are deliberately not re-exported.
export type { Rng } from './random.js'
export { createRng, seedFrom } from './random.js'
export type { TaskOutcomes } from './seq-at-k.js'
export { seqAt, seqAtCurve, seqAtInterval } from './seq-at-k.js'
export type { CensoredTaskOutcomes, RepeatOutcome } from './censored.js'
export {
  errorsAsFailures,
  errorsAsSuccesses,
  errorsLeftOut,
  seqAtCurveCensored,
  seqAtIntervalCensored,
} from './censored.js'
export type { SampleCounts } from './pass-at-k.js'
export { passAtCurve, passAtInterval, passAtK } from './pass-at-k.js'
export { passHatCurve, passHatInterval, passHatK } from './pass-hat-k.js'
export { DEFAULT_G_PASS_TAUS, gPassAtK, gPassCurve, gPassInterval, gPassThreshold } from './g-pass-at-k.js'
export type { CostRatePoint, EqualCostLeader, EqualCostReading } from './equal-cost.js'
export { compareAtEqualCost, rateAtCost } from './equal-cost.js'
export type { CoverStep } from './cover-at.js'
export { coverAt, coverAtInterval, coverCurve, DEFAULT_COVER_TAUS, passAtFromCover, triesWithin } from './cover-at.js'
export { seqHatCurve, seqHatInterval } from './seq-hat-k.js'
export type { OutcomeConsistency } from './consistency.js'
export { coefficientOfVariation, outcomeConsistency, outcomeConsistencyOf, resourceConsistency } from './consistency.js'
export type { MetricDefinition, MetricId, MetricProtocol } from './registry.js'
export { headlineMetric, measures, METRIC_IDS, METRICS, reliabilityMetric } from './registry.js'
export { gain } from './gains.js'
export type { VerdictAgreement } from './verdict-agreement.js'
export { cohensKappa, verdictAgreement } from './verdict-agreement.js'
export type { RevisionTiming } from './revision-timing.js'
export { revisionTiming } from './revision-timing.js'
export type { UnmodifiedRevisions } from './unmodified-revisions.js'
export { countUnmodified, unmodifiedRevisions } from './unmodified-revisions.js'
export type { CriteriaAttempts, CriterionRepair } from './criterion-repair.js'
export { criterionRepair } from './criterion-repair.js'
export type { BootstrapInterval, BootstrapOptions, PairedInterval } from './bootstrap.js'
export type { DifferenceInterval, Interval, IntervalOptions } from './intervals.js'
export {
  DIFFERENCE_INTERVAL_METHOD,
  RATE_INTERVAL_METHOD,
  differenceInterval,
  intervalMethodText,
  rateInterval,
} from './intervals.js'
export { bootstrapInterval, pairedBootstrap } from './bootstrap.js'
export type { ScoredRepeat, TaskScores } from './score-curve.js'
export { bestScoreCurve, binaryScores, scoreCurve, scoreInterval, taskBestScores } from './score-curve.js'
export type { TaskRow } from './task-rates.js'
export { censoredRow, firstRepeats, hasCensored, repeatsOf, taskRate, taskRates, taskTrials } from './task-rates.js'
export type {
  AgentActivity,
  AgentMetricDefinition,
  AgentSummaryValues,
  EpisodeCounts,
  TrajectoryConsistency,
} from './agent-metrics.js'
export {
  AGENT_METRICS,
  agentActivity,
  costPerSolved,
  frequencySimilarity,
  levenshtein,
  sequenceSimilarity,
  trajectoryConsistency,
} from './agent-metrics.js'
