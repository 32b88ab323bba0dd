import { simulatedActor } from './simulated.js'

/**
 * Actor constructors. Real providers (OpenAI, Anthropic, OpenAI-compatible servers) plug in
 * behind the same ChatModel interface.
 *
 * @example
 * actors: [actors.simulated({ profile: 'reviser' }), actors.simulated({ profile: 'stubborn' })]
 */
export const actors = { simulated: simulatedActor }
export { SIMULATED_PROFILES, type SimulatedActorOptions, type SimulatedProfile, type SimulatedProfileName } from './simulated.js'
export { addUsage, ZERO_USAGE, ChatMessageSchema, UsageSchema } from './chat-model.js'
export type { CallContext, ChatMessage, ChatModel, ChatRequest, ChatResponse, FinishReason, ModelDescriptor, ModelRole, Usage } from './chat-model.js'
