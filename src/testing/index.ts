// The public face of `vitest-seqk/testing`: a local server speaking the OpenAI Chat Completions,
// OpenAI Responses and Anthropic Messages wire protocols, for testing LLM code offline with the
// real SDKs. Wire modules, the fault queue and the cache simulator stay internal.
export { startTestServer, type TestServerOptions } from './server.js'
export { echo, rules, scripted, type ResponderRule } from './responders.js'
export { approxTokens } from './usage.js'
export type { RateLimitOptions } from './rate-limit.js'
export type {
  Fault,
  FaultSpec,
  Responder,
  TestServer,
  TestServerApi,
  TestServerReply,
  TestServerRequest,
  TestServerToolCall,
} from './types.js'
export {
  rubricGrader,
  rubricCritic,
  ruleSummariser,
  ruleAnnotator,
  rubricRules,
  scriptedGrader,
  ruleJudge,
  parseRubricRequest,
  parseCriteria,
  testServerModel,
  BLIND_CRITIQUE,
  GENERIC_REQUEST,
  type CriterionJudge,
  type RuleOptions,
  type ScriptedGrading,
  type RubricRequest,
  type PromptCriterion,
} from './rubric-responders.js'
export type { BatchOptions, TestServerBatch } from './batches.js'
