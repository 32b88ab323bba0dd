/**
 * An agent's attempt as data: the episode of model turns and tool calls that produced its answer.
 * Every tool call keeps its name, arguments, capped result or error, and duration; every turn its
 * tokens and cost, so a trace can be replayed, read and scored without running anything again.
 */
import { z } from 'zod'
import { CallUsageSchema } from './contract.js'

/**
 * Why an episode ended: the model answered without calling a tool (`answer`), or a limit of the
 * agent was reached first (`steps`, `tokens`, `time`, `cost`).
 */
export const EPISODE_END_REASONS = ['answer', 'steps', 'tokens', 'time', 'cost'] as const
/** Why an episode ended (see {@link EPISODE_END_REASONS}). */
export type EpisodeEndReason = (typeof EPISODE_END_REASONS)[number]

/**
 * Faults an agent's fault injector can put on a tool call (`actors.agent({ faults })`): `error`
 * (not run, an error), `timeout` (not run, a time-out), `truncate` (run, its result cut short).
 */
export const TOOL_FAULT_KINDS = ['error', 'timeout', 'truncate'] as const
/** An injected tool fault (see {@link TOOL_FAULT_KINDS}). */
export type ToolFaultKind = (typeof TOOL_FAULT_KINDS)[number]

/** One tool call of a turn, as it ran. */
export const ToolCallRecordSchema = z.object({
  /** The provider's call id. */
  id: z.string(),
  name: z.string(),
  /** The arguments as the model wrote them (JSON text, possibly malformed). */
  arguments: z.string(),
  /** What went back to the model, cut at the agent's `maxResultChars`; null when the call failed. */
  result: z.string().nullable(),
  /** The result was longer and cut at this many characters. */
  resultCutAtChars: z.number().int().positive().optional(),
  /** Why the call failed (unknown tool, invalid arguments, the tool threw); null when it ran. */
  error: z.string().nullable(),
  durationMs: z.number().nonnegative(),
  /** The fault the agent's injector put on this call (`actors.agent({ faults })`); absent on a call left alone. */
  fault: z.enum(TOOL_FAULT_KINDS).optional(),
})
/** One tool call of a turn, as it ran: name, arguments, capped result or error, duration. */
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>

/** One model turn of an episode: what it said, the calls it made, and what the turn cost. */
export const EpisodeTurnSchema = z.object({
  /** 1-based. */
  index: z.number().int().positive(),
  text: z.string(),
  toolCalls: z.array(ToolCallRecordSchema),
  /** Null when the reply reported no usage. */
  usage: CallUsageSchema,
  costUsd: z.number().nullable(),
  latencyMs: z.number().nonnegative(),
  replayed: z.boolean(),
})
/** One model turn of an episode: its text, tool calls, tokens, cost and latency. */
export type EpisodeTurn = z.infer<typeof EpisodeTurnSchema>

/** An agent's attempt: its turns in order and why it ended. */
export const EpisodeSchema = z.object({
  turns: z.array(EpisodeTurnSchema),
  endedBy: z.enum(EPISODE_END_REASONS),
})
/** An agent's attempt: its turns in order and why it ended. */
export type Episode = z.infer<typeof EpisodeSchema>

/**
 * An agent's workspace at the end of its episode: every regular file (symlinks, other
 * entries and Python's `__pycache__` directories left out), by path relative to the workspace, as UTF-8 text. What
 * `verifiers.pythonTests({ workspace: true })` judges. `tooLarge`: the files were over the
 * snapshot's limit (or the workspace over its size limit), so none are given and the verdict fails.
 */
export const WorkspaceSnapshotSchema = z.object({
  files: z.record(z.string(), z.string()),
  tooLarge: z.boolean().optional(),
})
/** An agent's workspace at the end of its episode (see {@link WorkspaceSnapshotSchema}). */
export type WorkspaceSnapshot = z.infer<typeof WorkspaceSnapshotSchema>
