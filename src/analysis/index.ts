// The cross-actor analyses of the Seq@K paper, over run summaries: pure functions named after the
// paper's concepts, the report builders behind `seqk analyze` / `seqk select`, and the report schema.
export {
  analyzeRuns,
  selectModels,
  type AnalyzeOptions,
  type SelectOptions,
  type SelectionSettings,
} from './analyze.js'
export { renderAnalysis, renderSelection, renderSelectionBlock, type RenderOptions } from './render.js'
export { loadRuns, resolveSummaryPath, asLoadedRuns, RunLoadError, type LoadedRun, type RunInput } from './load-runs.js'
export {
  assertComparable,
  comparabilityProblems,
  crossProtocolNotes,
  differencesBesidesActor,
  ComparabilityError,
  type ComparabilityProblem,
  type SourcedCell,
} from './comparability.js'
export {
  AnalysisInputError,
  TruncationRefusedError,
  passAtFromCell,
  seqAtFromCell,
  seqCurveFromCell,
  truncationProblem,
} from './cell-scores.js'
export { averageRanks, pearson, spearman } from './spearman.js'
export { compareRankings, competitionRanks, performanceGaps, type CompareRankingsInput } from './rankings.js'
export { bestNonBinaryPairs, protocolCorrelations, type CorrelationOptions } from './correlations.js'
export { revisionTimingRow, revisionTimingTable } from './revision-timing.js'
export {
  annotatorOf,
  annotatorText,
  pooledRevisionAnnotation,
  pooledStrata,
  revisionAnnotationSection,
  STRATIFIED_INTERVAL_METHOD,
} from './revision-annotation.js'
export { dominates, paretoFrontier, paretoMask, type CostSuccessPoint } from './pareto.js'
export { costSuccess } from './cost-success.js'
export {
  modelSelection,
  selectionTable,
  splitTaskGroups,
  type ModelSelectionOptions,
  type SelectionTable,
  type SelectionTableInput,
} from './model-selection.js'
export { simulateRun, type SimulatedActorSpec, type SimulatedRunOptions } from './simulated-runs.js'
export * from './report-schema.js'
