// Agents: actors whose attempt is an episode of tool calls, and the tools they call.
import { actors as modelActors } from '../models/index.js'
import { agentActor } from './agent.js'

/**
 * Every actor: the providers and the simulated actor, and `agent`, whose attempt is an episode of
 * tool calls driven by one of the providers.
 *
 * @example
 * actors: [actors.agent({ model: actors.openai({ model: 'gpt-4.1-mini' }), tools: [add], maxSteps: 8 })]
 */
export const actors = { ...modelActors, agent: agentActor }
export { agentActor, type AgentOptions } from './agent.js'
export { tool, type AgentTool, type ToolContext, type ToolOptions } from './tool.js'
export { Workspace, WorkspaceTaskFieldsSchema, workspaceTools, type WorkspaceOptions } from './workspace.js'
