/**
 * Rubric tasks and their verifier: criteria judged by code, by predicates or by a grader model,
 * and a pass rule.
 *
 * @example
 * import { rubric } from './verifiers/rubric/index.js'
 * const verifier = rubric({ grader, gradingMode: 'all-at-once', passRule: 'all' })
 */
export {
  rubric,
  rubricCriteria,
  verdictCalls,
  type CriterionPredicate,
  type RubricCriterionVerdict,
  type RubricVerifier,
  type RubricVerifierOptions,
} from './rubric-verifier.js'
export {
  CriterionSchema,
  CriterionCheckSchema,
  criteriaOf,
  positionalId,
  RubricTaskError,
  type Criterion,
  type CriterionCheck,
  type CriterionInput,
  type RubricTask,
  type RubricTaskInput,
} from './criteria.js'
export { runCheck, wordCount, jsonBody, type CriterionJudgement } from './checks.js'
export {
  decide,
  describePassRule,
  PassRuleSchema,
  softScore,
  SOFT_SCORE_RULES,
  safetyCritical,
  SAFETY_STEMS,
  HEALTHBENCH_REFERENCE_THRESHOLD,
  type Decision,
  type PassRule,
  type SoftScoreRule,
} from './pass-rule.js'
export {
  extractJsonObject,
  gradeAll,
  gradeOne,
  graderPrompt,
  parseAllReply,
  parseOneReply,
  RubricGraderError,
  type GradeRequest,
  type GradeResult,
  type GradingMode,
} from './grader.js'
export {
  loadPromptTemplate,
  PromptFileError,
  renderConversation,
  renderCriterion,
  type PromptTemplate,
} from './prompt-template.js'
export { RubricBenchmarkFileError, parseCsv, parseJsonLines } from './benchmark-files.js'
