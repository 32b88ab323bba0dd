import { fromFunction } from './function-actor.js'
import { simulatedActor } from './simulated.js'
import { anthropicModel } from './providers/anthropic.js'
import { openaiCompatibleModel, openaiModel } from './providers/openai.js'

/**
 * Model constructors. The same constructors serve every role: actor, critic, grader, summariser.
 *
 * `fromFunction` makes your own async function (an app with its own models, tools and retrieval)
 * the actor.
 *
 * @example
 * actors: [actors.simulated({ profile: 'reviser' }), actors.openai({ model: 'gpt-4.1-mini' })]
 */
export const actors = {
  simulated: simulatedActor,
  openai: openaiModel,
  anthropic: anthropicModel,
  openaiCompatible: openaiCompatibleModel,
  fromFunction,
}
export type {
  ActorFunction,
  FromFunctionOptions,
  FunctionActorInput,
  FunctionActorResult,
  FunctionUsage,
} from './function-actor.js'
export { SimulationInCiError } from './simulation-policy.js'
export {
  SIMULATED_PROFILES,
  type SimulatedActorOptions,
  type SimulatedProfile,
  type SimulatedProfileName,
} from './simulated.js'
export {
  addUsage,
  recordCall,
  spentCalls,
  withSpentCalls,
  ZERO_USAGE,
  ChatMessageSchema,
  UsageSchema,
} from './chat-model.js'
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
} from './chat-model.js'
export { actorFromSpec, actorsFromEnv, type ActorsFromEnvOptions } from './actors-from-env.js'
export { withCassette, resolveCassette, keyDifferences, type CassetteMode, type CassetteOptions } from './cassette.js'
export {
  BUNDLED_PRICES,
  costOf,
  findPrice,
  uncachedCostOf,
  PriceSchema,
  type Price,
  type PriceTable,
} from './pricing.js'
export { AdaptiveLimiter } from './rate-limit.js'
export {
  classifyFailure,
  ProviderError,
  retryAfterFailure,
  retryAfterMs,
  retryDelay,
  withRetries,
  type FailureClass,
  type RetryCall,
  type RetryOptions,
} from './retry.js'
export { MissingApiKeyError, type RemoteOptions } from './providers/remote.js'
export { anthropicRequest, type AnthropicOptions } from './providers/anthropic.js'
export type { CompatibleOptions, OpenAIOptions } from './providers/openai.js'
