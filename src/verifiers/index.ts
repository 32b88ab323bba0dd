/**
 * Verifiers: decide V_i(y) in {0,1} for a task and an answer, with diagnostics.
 *
 * @example
 * import { verifiers } from './verifiers/index.js'
 * const verifier = verifiers.pythonTests({ timeoutMs: 3000 })
 */
import { all, any, weighted } from './composed.js'
import { contains } from './contains.js'
import { exactMatch } from './exact-match.js'
import { json } from './json.js'
import { numeric } from './numeric.js'
import { oneOf } from './one-of.js'
import { predicate } from './predicate.js'
import { pythonTests } from './python-tests/python-tests.js'
import { regex } from './regex.js'
import { rubric } from './rubric/index.js'
import { toolCalls } from './tool-calls.js'

/**
 * The built-in verifiers, by name: `pythonTests` (hidden Python tests), `rubric` (criteria by
 * code, predicate or grader model), `exactMatch` (the task's `expected` answer), `contains`
 * (phrases the answer must hold), `regex` (a pattern it must match), `json` (valid JSON, a JSON
 * Schema or a zod schema), `numeric` (a number within a tolerance), `oneOf` (one of a closed set of
 * choices), `toolCalls` (an agent called the expected tools with the expected arguments) and `predicate` (your own rule). A custom verifier is any object meeting the Verifier
 * contract (README). Several checks on one answer compose: `all` (every check passes), `any` (one
 * does) and `weighted` (the passing checks' weight reaches a threshold).
 */
export const verifiers = {
  pythonTests,
  rubric,
  exactMatch,
  contains,
  regex,
  json,
  numeric,
  oneOf,
  predicate,
  toolCalls,
  all,
  any,
  weighted,
}

export type {
  Verifier,
  AsyncVerifier,
  VerifyOptions,
  Verdict,
  Diagnostics,
  TestOutcome,
  CriterionVerdict,
  CheckVerdict,
} from './verifier.js'
export {
  VerdictSchema,
  DiagnosticsSchema,
  TestOutcomeSchema,
  CriterionVerdictSchema,
  CheckVerdictSchema,
  checkVerdict,
  isPlainVerdict,
  VERDICT_CONTRACT,
} from './verifier.js'
export { normaliseExact, type ExactMatchOptions, type ExactMatchSettings } from './exact-match.js'
export type { PredicateOptions, PredicateResult, PredicateRule } from './predicate.js'
export type { ContainsOptions } from './contains.js'
export type { Check, WeightedOptions } from './composed.js'
export type { RegexOptions } from './regex.js'
export type { JsonOptions, StandardSchema } from './json.js'
export { numbersIn, type NumericOptions } from './numeric.js'
export type { OneOfOptions } from './one-of.js'
export type { ExpectedToolCall, ToolCallsOptions } from './tool-calls.js'
export { extractPythonCode } from './python-tests/extract.js'
export { PythonNotFoundError } from './python-tests/interpreter.js'
export type { PythonTestsOptions, PythonTestsStats, PythonTestsVerifier } from './python-tests/python-tests.js'
export { sanitisePythonCode, type SanitisedCode } from './python-tests/extract.js'
export { SandboxUnavailableError, type SandboxMode, type SandboxOption } from './python-tests/sandbox.js'
export { closeAllPools as closePythonWorkers } from './python-tests/pool.js'
export {
  CriterionSchema,
  CriterionCheckSchema,
  criteriaOf,
  positionalId,
  RubricTaskError,
  RubricGraderError,
  RubricBenchmarkFileError,
  PromptFileError,
  decide,
  describePassRule,
  PassRuleSchema,
  runCheck,
  wordCount,
  rubricCriteria,
  verdictCalls,
  type Criterion,
  type CriterionCheck,
  type CriterionInput,
  type RubricTask,
  type RubricTaskInput,
  type PassRule,
  type GradingMode,
  type CriterionPredicate,
  type RubricVerifier,
  type RubricVerifierOptions,
  type RubricCriterionVerdict,
} from './rubric/index.js'
export {
  arcGridVerifier,
  parseGrids,
  compareGrids,
  gridStatus,
  GridSchema,
  ArcGridTaskFieldsSchema,
  type Grid,
  type GridComparison,
  type ParsedGrids,
} from './arc-grid.js'
