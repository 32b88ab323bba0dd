/**
 * Verifiers: decide V_i(y) in {0,1} for a task and an answer, with diagnostics.
 *
 * @example
 * import { verifiers } from './verifiers/index.js'
 * const verifier = verifiers.pythonTests({ timeoutMs: 3000 })
 */
import { pythonTests } from './python-tests/python-tests.js'
import { rubric } from './rubric/index.js'

/** The built-in verifiers, by name. */
export const verifiers = { pythonTests, rubric }

export type { Verifier, AsyncVerifier, VerifyOptions, Verdict, Diagnostics, TestOutcome, CriterionVerdict } from './verifier.js'
export { VerdictSchema, DiagnosticsSchema, TestOutcomeSchema, CriterionVerdictSchema } from './verifier.js'
export { extractPythonCode } from './python-tests/extract.js'
export { PythonNotFoundError } from './python-tests/interpreter.js'
export type { PythonTestsOptions, PythonTestsStats, PythonTestsVerifier } from './python-tests/python-tests.js'
export { sanitisePythonCode, type SanitisedCode } from './python-tests/extract.js'
export { SandboxUnavailableError, type SandboxMode, type SandboxOption } from './python-tests/sandbox.js'
export { closeAllPools as closePythonWorkers } from './python-tests/pool.js'
export { CriterionSchema, CriterionCheckSchema, criteriaOf, satisfied, positionalId, RubricTaskError, RubricGraderError, RubricBenchmarkFileError, PromptFileError, decide, describePassRule, PassRuleSchema, runCheck, wordCount, rubricCriteria, verdictCalls, type Criterion, type CriterionCheck, type CriterionInput, type RubricTask, type RubricTaskInput, type PassRule, type GradingMode, type CriterionPredicate, type RubricVerifier, type RubricVerifierOptions, type RubricCriterionVerdict } from './rubric/index.js'
