/**
 * A cell's agent block from its trajectories (pure): for cells whose attempts are episodes
 * (`actors.agent`), steps and tool calls per attempt, the tool error rate, how episodes ended,
 * cost per success, and trajectory consistency over successful repeats.
 */
import type { AgentSummary, Trajectory } from '../core/schemas.js'
import { agentActivity, costPerSolved, trajectoryConsistency } from '../metrics/agent-metrics.js'
import { finiteOrNull } from './interval-json.js'
import { faultRecoveryOf } from './fault-recovery.js'

type Attempt = Trajectory['attempts'][number]

/** The tool names an attempt's episode called, in order. */
function actionsOf(attempt: Attempt): string[] {
  return attempt.episode?.turns.flatMap((t) => t.toolCalls.map((c) => c.name)) ?? []
}

/**
 * The agent block of a cell summary, or undefined when no attempt ran an episode. A repeat is a
 * trajectory (sequential: its actions over every attempt, in order) or a sample (independent:
 * one attempt's actions); consistency pairs the successful repeats of each task and averages
 * over the tasks that have at least two. Cost per success is the cell's cost (`costUsd`) over its
 * solved trajectories or passing samples.
 *
 * @example
 * agentSummaryOf(trajectories, false, 0.12)?.consistency.sequence
 */
export function agentSummaryOf(
  trajectories: readonly Trajectory[],
  independent: boolean,
  costUsd: number | null,
): AgentSummary | undefined {
  const episodes = trajectories.flatMap((t) => t.attempts.flatMap((a) => (a.episode ? [a.episode] : [])))
  if (episodes.length === 0) return undefined
  const activity = agentActivity(
    episodes.map((e) => {
      const calls = e.turns.flatMap((t) => t.toolCalls)
      return {
        steps: e.turns.length,
        toolCalls: calls.length,
        toolErrors: calls.filter((c) => c.error !== null).length,
      }
    }),
  )
  const endedBy: AgentSummary['endedBy'] = {}
  for (const e of episodes) endedBy[e.endedBy] = (endedBy[e.endedBy] ?? 0) + 1
  // Successful repeats of each task, as action sequences.
  const byTask = new Map<string, string[][]>()
  let solved = 0
  for (const t of trajectories) {
    if (t.status === 'error' || t.status === 'capped') continue
    const successes = independent
      ? t.attempts.filter((a) => a.verdict.pass).map(actionsOf)
      : t.status === 'solved'
        ? [t.attempts.flatMap(actionsOf)]
        : []
    solved += successes.length
    if (successes.length > 0) byTask.set(t.taskId, [...(byTask.get(t.taskId) ?? []), ...successes])
  }
  const perTask = [...byTask.values()].filter((r) => r.length >= 2).map((r) => trajectoryConsistency(r))
  const mean = (read: (c: (typeof perTask)[number]) => number) =>
    perTask.length === 0 ? null : finiteOrNull(perTask.reduce((n, c) => n + read(c), 0) / perTask.length)
  const perSolved = costPerSolved(costUsd, solved)
  const injecting = Object.keys(trajectories[0]?.protocol.actor.params ?? {}).some((k) => k.startsWith('faults.'))
  const faults = faultRecoveryOf(trajectories, injecting)
  return {
    episodes: activity.episodes,
    meanSteps: finiteOrNull(activity.meanSteps),
    meanToolCalls: finiteOrNull(activity.meanToolCalls),
    toolErrorRate: finiteOrNull(activity.toolErrorRate),
    endedBy,
    solved,
    costPerSolvedUsd: perSolved === null ? null : finiteOrNull(perSolved),
    consistency: { sequence: mean((c) => c.sequence), frequency: mean((c) => c.frequency), tasks: perTask.length },
    ...(faults ? { faults } : {}),
  }
}
