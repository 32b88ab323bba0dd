// Agents: actors whose attempt is an episode of tool calls, and the tools they call.
import { actors as modelActors } from '../models/index.js'
import { agentActor } from './agent.js'
import { simulatedAgent } from './simulated-agent.js'

/**
 * Every actor: the providers and the simulated actor, `agent`, whose attempt is an episode of
 * tool calls driven by one of the providers, and `simulatedAgent`, a seeded stand-in for such a
 * provider in offline agent evals.
 *
 * @example
 * actors: [actors.agent({ model: actors.openai({ model: 'gpt-4.1-mini' }), tools: [add], maxSteps: 8 })]
 */
export const actors = { ...modelActors, agent: agentActor, simulatedAgent }
export { agentActor, type AgentOptions } from './agent.js'
export type { FaultOptions } from './faults.js'
export { tool, type AgentTool, type ToolContext, type ToolOptions } from './tool.js'
export { Workspace, WorkspaceTaskFieldsSchema, workspaceTools, type WorkspaceOptions } from './workspace.js'
export {
  simulatedAgent,
  RepairScriptSchema,
  SIMULATED_AGENT_PROFILES,
  type RepairScript,
  type SimulatedAgentOptions,
  type SimulatedAgentProfile,
  type SimulatedAgentProfileName,
} from './simulated-agent.js'
