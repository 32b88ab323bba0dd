/**
 * vitest-seqk: declare LLM benchmark tasks as Vitest test files and measure them under sequential
 * feedback (Seq@K) next to independent sampling (Pass@K).
 *
 * This entry point holds what eval files and custom components are written with. Planning cells
 * without `seqEval` is `vitest-seqk/cells`, reading run directories `vitest-seqk/artifacts`,
 * rendering them `vitest-seqk/report`, the benchmark loaders' details `vitest-seqk/benchmarks`, cross-actor analyses `vitest-seqk/analysis`, the
 * math `vitest-seqk/metrics`, and the test server `vitest-seqk/testing`. `API.md` lists every
 * exported name of every entry point (a test keeps it true).
 *
 * @example
 * import { seqEval, actors, feedback, verifiers } from 'vitest-seqk'
 * seqEval('my benchmark', {
 *   tasks, actors: [actors.simulated({ profile: 'reviser' })], verifier: verifiers.pythonTests(),
 *   budget: 5, modes: { verifier: { feedback: feedback.verifier(), expect: { seqAt: { 5: 0.8 } } } },
 * })
 */

// Declaring evals.
export { seqEval, SeqkThresholdError } from './vitest/seq-eval.js'
export { SeqEvalOptionsError, type SeqEvalOptions } from './vitest/options.js'
export type { Thresholds } from './protocol/cell-summary.js'
export { seqkMatchers } from './vitest/matchers.js'
export { currentRun, type SeqkRun } from './vitest/run-context.js'
export { TaskSchema, type Task, type TaskInput } from './protocol/task.js'
export type { AnyTask } from './core/task.js'

// Models: actors, critics, graders and summarisers alike.
export {
  actorsFromEnv,
  actorFromSpec,
  SIMULATED_PROFILES,
  BUNDLED_PRICES,
  ProviderError,
  MissingApiKeyError,
  SimulationInCiError,
} from './models/index.js'
// Agents: `actors.agent` and the tools it calls.
export {
  actors,
  tool,
  type AgentOptions,
  type FaultOptions,
  type AgentTool,
  type ToolContext,
  type ToolOptions,
  type WorkspaceOptions,
  SIMULATED_AGENT_PROFILES,
  type RepairScript,
  type SimulatedAgentOptions,
  type SimulatedAgentProfile,
  type SimulatedAgentProfileName,
} from './agents/index.js'
export type { ToolCall, ToolDefinition, ToolTurn } from './models/tools.js'
export type { Episode, EpisodeEndReason, EpisodeTurn, ToolCallRecord } from './core/episode.js'
export type {
  SimulatedActorOptions,
  SimulatedProfile,
  SimulatedProfileName,
  Price,
  PriceTable,
  CassetteMode,
  RemoteOptions,
  AnthropicOptions,
  CompatibleOptions,
  OpenAIOptions,
  ActorsFromEnvOptions,
  ActorFunction,
  FromFunctionOptions,
  FunctionActorInput,
  FunctionActorResult,
  FunctionUsage,
} from './models/index.js'
export type {
  CallContext,
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  FinishReason,
  ModelCall,
  ModelDescriptor,
  ModelRole,
  Usage,
} from './models/index.js'
export { SimulationScriptSchema, type SimulationScript } from './models/simulated.js'

// Verifiers and feedback.
export { verifiers, PythonNotFoundError, SandboxUnavailableError, closePythonWorkers } from './verifiers/index.js'
export type {
  Verifier,
  AsyncVerifier,
  VerifyOptions,
  Verdict,
  Diagnostics,
  TestOutcome,
  CriterionVerdict,
  CheckVerdict,
  Check,
  WeightedOptions,
  ExactMatchOptions,
  ContainsOptions,
  RegexOptions,
  JsonOptions,
  StandardSchema,
  NumericOptions,
  OneOfOptions,
  ToolCallsOptions,
  ExpectedToolCall,
  PredicateOptions,
  PredicateResult,
  PredicateRule,
  PythonTestsOptions,
  PythonTestsVerifier,
  SandboxMode,
  SandboxOption,
  Criterion,
  CriterionCheck,
  CriterionInput,
  RubricTask,
  RubricTaskInput,
  PassRule,
  GradingMode,
  CriterionPredicate,
  RubricVerifier,
  RubricVerifierOptions,
} from './verifiers/index.js'
export { feedback, renderDiagnostics, criticPrompt } from './feedback/index.js'
export type {
  BinaryFeedbackOptions,
  CellMatchFeedbackOptions,
  CriticOptions,
  Feedback,
  FeedbackInput,
  FeedbackKind,
  FeedbackMode,
  AsyncFeedbackMode,
  VerifierFeedbackOptions,
} from './feedback/index.js'

// The loop: history policies, the prompt builder, one cell run without Vitest.
export {
  fullHistory,
  lastHistory,
  summaryHistory,
  type HistoryPolicy,
  type AsyncHistoryPolicy,
  type HistoryBuild,
  type Turn,
} from './protocol/history.js'
export { defaultPromptBuilder, type PromptBuilder } from './protocol/prompt-builder.js'
export {
  referencePromptBuilder,
  type LayoutPromptBuilder,
  type PastAttempt,
} from './protocol/prompt-builders/reference.js'
export { runCell, type CellResult, type CellSpec } from './protocol/cell.js'
export {
  measureStability,
  STABILITY_SCHEMA,
  type StabilityItem,
  type StabilityOptions,
  type StabilityReport,
  type TaskStability,
} from './protocol/stability.js'

// Checking a custom component against its contract (the loop checks every value it receives with these).
export { ComponentError, isComponentError, type ContractBreach, type ContractProblem } from './core/component-error.js'
export { ChatResponseSchema, checkChatResponse } from './models/chat-model.js'
export { VerdictSchema, checkVerdict } from './verifiers/verifier.js'
export { FeedbackSchema, checkFeedback } from './feedback/index.js'
export { HistoryBuildSchema, checkHistoryBuild } from './protocol/history.js'
export { checkPrompt, checkRevision } from './protocol/prompt-builder.js'
export { recordCall, withSpentCalls } from './models/chat-model.js'
export type { Awaitable } from './core/awaitable.js'

// Public benchmarks (their records, defects and simulations: vitest-seqk/benchmarks).
export {
  loadHumanEvalPro,
  loadMbppPro,
  loadCodeEvalPro,
  withCheckedSimulation,
  loadHealthBench,
  healthBenchVerifier,
  loadArcAgi2,
  arcGridVerifier,
  loadResearchRubrics,
  researchRubricsVerifier,
  loadAdvancedIf,
  advancedIfVerifier,
  loadClBench,
  clBenchVerifier,
} from './benchmarks/index.js'
export type {
  CodeEvalProOptions,
  CodeEvalProBenchmark,
  HealthBenchOptions,
  ArcAgi2Options,
  AdvancedIfOptions,
  AdvancedIfSubset,
  ClBenchOptions,
} from './benchmarks/index.js'
// Your own tasks from a JSON Lines or CSV file.
export {
  loadTasks,
  TaskFileError,
  type LoadTasksOptions,
  type TaskColumns,
  type TaskRow,
} from './benchmarks/load-tasks.js'
