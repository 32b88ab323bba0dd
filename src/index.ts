/**
 * vitest-seqk: declare LLM benchmark tasks as Vitest test files and measure them under sequential
 * feedback (Seq@K) next to independent sampling (Pass@K).
 *
 * @example
 * import { seqEval, actors, feedback, verifiers } from 'vitest-seqk'
 * seqEval('my benchmark', {
 *   tasks, actors: [actors.simulated({ profile: 'reviser' })], verifier: verifiers.pythonTests(),
 *   budget: 5, modes: { verifier: { feedback: feedback.verifier(), expect: { seqAt: { 5: 0.8 } } } },
 * })
 */
export { seqEval, SeqkThresholdError, planCells, cellId, type CellPlan } from './vitest/seq-eval.js'
export { resolveOptions, SeqEvalOptionsError, SeqEvalOptionsSchema, ThresholdsSchema, type SeqEvalOptions, type ResolvedOptions } from './vitest/options.js'
export { seqkMatchers } from './vitest/matchers.js'
export { currentRun, type SeqkRun } from './vitest/run-context.js'
export { renderBenchmarkTable, rankingChanges } from './report/table.js'

export * from './models/index.js'
export { ChatResponseSchema, checkChatResponse, isPlainChatResponse } from './models/chat-model.js'
export { ComponentError, isComponentError, type ContractBreach, type ContractProblem } from './models/component-error.js'

export { feedback, renderDiagnostics, criticPrompt, criterionSatisfied, FeedbackSchema, checkFeedback, type BinaryFeedbackOptions, type CriticOptions, type Feedback, type FeedbackInput, type FeedbackKind, type FeedbackMode, type AsyncFeedbackMode, type VerifierFeedbackOptions } from './feedback/index.js'
export * from './verifiers/index.js'

export { runCell, cellProtocol, type CellResult, type CellSpec } from './protocol/cell.js'
export { isPromiseLike, type Awaitable } from './core/awaitable.js'
export { summariseCell, type Thresholds } from './protocol/cell-summary.js'
export { runSequential, type SequentialInput, type TrajectoryOutcome } from './protocol/sequential.js'
export { runIndependent, type IndependentInput } from './protocol/independent.js'
export { fullHistory, lastHistory, summaryHistory, HistoryBuildSchema, checkHistoryBuild, isPlainHistoryBuild, type HistoryPolicy, type AsyncHistoryPolicy, type HistoryBuild, type Turn } from './protocol/history.js'
export { defaultPromptBuilder, checkPrompt, checkRevision, type PromptBuilder } from './protocol/prompt-builder.js'
export { protocolFingerprint, protocolDifferences, benchmarkContentHash, canonicalJson } from './protocol/fingerprint.js'
export { TaskSchema, SimulationScriptSchema, taskMessages, type Task, type TaskInput, type SimulationScript } from './protocol/task.js'

export * from './artifacts/index.js'
export * from './analysis/index.js'
export {
  loadHumanEvalPro,
  loadMbppPro,
  loadCodeEvalPro,
  referenceAnswer,
  referenceCode,
  selfInvokingPrompt,
  SELF_INVOKING_INSTRUCTION,
  PROMPT_DEFECTS,
  CodeEvalProFileError,
  CodeEvalProRecordSchema,
  entryPointFromTests,
  detectDefects,
  simulationFromReference,
  breakReference,
  withCheckedSimulation,
  REFERENCE_BREAKS,
  type CodeEvalProOptions,
  type CodeEvalProEntry,
  type CodeEvalProRecord,
  type CodeEvalProDefect,
  type CodeEvalProDefects,
  type CodeEvalProBenchmark,
  type ReferenceBreak,
  type CheckedSimulationOptions,
  loadHealthBench,
  loadHealthBenchEntries,
  healthBenchTask,
  healthBenchVerifier,
  HealthBenchRecordSchema,
  type HealthBenchRecord,
  type HealthBenchEntry,
  type HealthBenchOptions,
  loadAdvancedIf,
  loadAdvancedIfEntries,
  advancedIfTask,
  advancedIfSubset,
  advancedIfVerifier,
  ADVANCEDIF_SUBSETS,
  AdvancedIfRecordSchema,
  type AdvancedIfRecord,
  type AdvancedIfEntry,
  type AdvancedIfOptions,
  type AdvancedIfSubset,
  loadClBench,
  loadClBenchEntries,
  clBenchTask,
  clBenchScore,
  clBenchVerifier,
  ClBenchRecordSchema,
  type ClBenchRecord,
  type ClBenchEntry,
  type ClBenchOptions,
} from './benchmarks/index.js'
export { compareToBaseline, type BaselineCell, type GateOptions, type GateResult, type GateComparison } from './protocol/gate.js'
export { applyBaseline, updateMode, type UpdateMode } from './vitest/baseline.js'
export { BaselineFileSchema, BaselineCellSchema, readBaselineFile, writeBaselineCell, type BaselineFile } from './artifacts/baseline-file.js'
export {
  renderHtmlReport,
  renderMarkdownSummary,
  githubAnnotations,
  seqCurvesMermaid,
  appendHistory,
  readHistory,
  changeSinceLast,
  cellChanges,
  condenseChanges,
  HistoryEntrySchema,
  DEFAULT_HISTORY_FILE,
  diffLines,
  type HtmlReportInput,
  type HtmlReportOptions,
  type MarkdownOptions,
  type GateResult as MarkdownGate,
  type CellChange,
  type HistoryEntry,
} from './report/index.js'
