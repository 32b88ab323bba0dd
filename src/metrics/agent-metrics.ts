/**
 * Agent metrics over plain numbers and action lists (pure, no I/O): how many turns and tool calls
 * an episode takes, how often its tool calls fail, what a solved task costs, and how consistent
 * an agent's behaviour is across repeats of one task (the same actions, in the same order).
 */
import { editDistance } from '../core/edit-distance.js'

/** What one episode did: model turns, tool calls, and the calls that failed. */
export interface EpisodeCounts {
  steps: number
  toolCalls: number
  toolErrors: number
}

/** Per-episode means and the pooled tool error rate; NaN where undefined (no episodes, no calls). */
export interface AgentActivity {
  meanSteps: number
  meanToolCalls: number
  /** Failed calls over all calls (pooled, so a long episode weighs by its calls); NaN with no call. */
  toolErrorRate: number
  episodes: number
}

/**
 * Means over episodes and the pooled tool error rate.
 *
 * @example
 * agentActivity([{ steps: 2, toolCalls: 3, toolErrors: 1 }, { steps: 4, toolCalls: 1, toolErrors: 0 }])
 * // => { meanSteps: 3, meanToolCalls: 2, toolErrorRate: 0.25, episodes: 2 }
 */
export function agentActivity(episodes: readonly EpisodeCounts[]): AgentActivity {
  let steps = 0
  let calls = 0
  let errors = 0
  for (const e of episodes) {
    if (
      ![e.steps, e.toolCalls, e.toolErrors].every((n) => Number.isInteger(n) && n >= 0) ||
      e.toolErrors > e.toolCalls
    ) {
      throw new RangeError(
        `episode counts must be whole numbers >= 0 with toolErrors <= toolCalls (got ${JSON.stringify(e)})`,
      )
    }
    steps += e.steps
    calls += e.toolCalls
    errors += e.toolErrors
  }
  const n = episodes.length
  return {
    meanSteps: n ? steps / n : NaN,
    meanToolCalls: n ? calls / n : NaN,
    toolErrorRate: calls ? errors / calls : NaN,
    episodes: n,
  }
}

/**
 * What a solved task cost: the total over solved tasks; null when the cost is unknown (never $0),
 * NaN when nothing was solved.
 *
 * @example
 * costPerSolved(0.3, 3) // => 0.1
 * costPerSolved(null, 3) // => null
 */
export function costPerSolved(totalCostUsd: number | null, solved: number): number | null {
  if (totalCostUsd === null) return null
  return solved > 0 ? totalCostUsd / solved : NaN
}

/** Edit distance between two action sequences (insert, delete, substitute one action: cost 1 each). */
export function levenshtein(a: readonly string[], b: readonly string[]): number {
  return editDistance(a, b)
}

/**
 * 1 − normalised edit distance between two action sequences: 1 for the same actions in the same
 * order, 0 when no action lines up. Two empty sequences are the same (1).
 *
 * @example
 * sequenceSimilarity(['read', 'edit', 'test'], ['read', 'test']) // => 1 - 1/3
 */
export function sequenceSimilarity(a: readonly string[], b: readonly string[]): number {
  const longest = Math.max(a.length, b.length)
  return longest === 0 ? 1 : 1 - levenshtein(a, b) / longest
}

/**
 * 1 − Jensen–Shannon distance (base 2, so in [0, 1]) between the action frequencies of two
 * sequences: 1 for the same mix of actions in any order, 0 for disjoint ones. Two empty sequences
 * are the same (1); an empty and a non-empty one share nothing (0).
 *
 * @example
 * frequencySimilarity(['read', 'test'], ['test', 'read']) // => 1
 */
export function frequencySimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 1 : 0
  const p = frequencies(a)
  const q = frequencies(b)
  let divergence = 0
  for (const action of new Set([...p.keys(), ...q.keys()])) {
    const pi = p.get(action) ?? 0
    const qi = q.get(action) ?? 0
    const mi = (pi + qi) / 2
    if (pi > 0) divergence += (pi / 2) * Math.log2(pi / mi)
    if (qi > 0) divergence += (qi / 2) * Math.log2(qi / mi)
  }
  // Rounding can leave a hair below 0 or above 1.
  return 1 - Math.sqrt(Math.min(1, Math.max(0, divergence)))
}

function frequencies(actions: readonly string[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const action of actions) out.set(action, (out.get(action) ?? 0) + 1 / actions.length)
  return out
}

/** Trajectory consistency of one task: mean pairwise similarities over its (successful) repeats. */
export interface TrajectoryConsistency {
  /** Mean pairwise {@link sequenceSimilarity}; NaN with fewer than two repeats. */
  sequence: number
  /** Mean pairwise {@link frequencySimilarity}; NaN with fewer than two repeats. */
  frequency: number
  pairs: number
}

/**
 * How consistently a task's repeats act: the mean over every pair of repeats of the sequence and
 * the frequency similarity of their action names. Pass the successful repeats only, to measure
 * the consistency of what works; fewer than two leave it undefined (NaN), never 1.
 *
 * @example
 * trajectoryConsistency([['read', 'edit', 'test'], ['read', 'edit', 'test'], ['edit', 'read', 'test']])
 */
export function trajectoryConsistency(repeats: readonly (readonly string[])[]): TrajectoryConsistency {
  let sequence = 0
  let frequency = 0
  let pairs = 0
  for (let i = 0; i < repeats.length; i++) {
    for (let j = i + 1; j < repeats.length; j++) {
      sequence += sequenceSimilarity(repeats[i]!, repeats[j]!)
      frequency += frequencySimilarity(repeats[i]!, repeats[j]!)
      pairs++
    }
  }
  return { sequence: pairs ? sequence / pairs : NaN, frequency: pairs ? frequency / pairs : NaN, pairs }
}

/**
 * A cell's agent metrics as summaries keep them (the `agent` block of a cell summary): its
 * episodes' activity, how they ended, what a solved task cost, and the trajectory consistency of
 * its successful repeats. Null where undefined (NaN does not survive JSON).
 */
export interface AgentSummaryValues {
  /** Attempts that ran an episode. */
  episodes: number
  meanSteps: number | null
  meanToolCalls: number | null
  toolErrorRate: number | null
  /** Episodes by why they ended (`answer`, or the limit that ended them); reasons with none are left out. */
  endedBy: Readonly<Record<string, number>>
  /** Successes (solved trajectories, or passing independent samples) the cost is shared by. */
  solved: number
  /** The cell's cost over its successes; null when a cost is unknown or nothing was solved. */
  costPerSolvedUsd: number | null
  /** Trajectory consistency over successful repeats, the mean over tasks with at least two of them. */
  consistency: { sequence: number | null; frequency: number | null; tasks: number }
}

/** One agent metric, as the table and the report read it from a cell's `agent` block. */
export interface AgentMetricDefinition {
  readonly id: 'meanSteps' | 'meanToolCalls' | 'toolErrorRate' | 'costPerSolvedUsd' | 'sequence' | 'frequency'
  /** Its column header. */
  readonly header: string
  /** What it is, for legends. */
  readonly description: string
  value(agent: AgentSummaryValues): number | null
  format(value: number | null): string
}

const oneDecimal = (v: number | null) => (v === null || !Number.isFinite(v) ? '—' : v.toFixed(1))
const share = (v: number | null) => (v === null || !Number.isFinite(v) ? '—' : (v * 100).toFixed(1))
const usd = (v: number | null) =>
  v === null || !Number.isFinite(v) ? '—' : v === 0 ? '$0' : v < 0.01 ? `$${v.toPrecision(2)}` : `$${v.toFixed(2)}`
const twoDecimals = (v: number | null) => (v === null || !Number.isFinite(v) ? '—' : v.toFixed(2))

/**
 * The agent metrics in the order every output shows them: steps and tool calls per attempt, the
 * tool error rate (in %), cost per solved task, and the two trajectory consistencies (0 to 1).
 *
 * @example
 * AGENT_METRICS.map((m) => `${m.header} ${m.format(m.value(cell.agent))}`)
 */
export const AGENT_METRICS: readonly AgentMetricDefinition[] = [
  {
    id: 'meanSteps',
    header: 'steps/att',
    description: 'model turns per attempt',
    value: (a) => a.meanSteps,
    format: oneDecimal,
  },
  {
    id: 'meanToolCalls',
    header: 'calls/att',
    description: 'tool calls per attempt',
    value: (a) => a.meanToolCalls,
    format: oneDecimal,
  },
  {
    id: 'toolErrorRate',
    header: 'tool err %',
    description: 'share of tool calls that failed (pooled over calls)',
    value: (a) => a.toolErrorRate,
    format: share,
  },
  {
    id: 'costPerSolvedUsd',
    header: '$/solved',
    description: "the cell's cost over its successes",
    value: (a) => a.costPerSolvedUsd,
    format: usd,
  },
  {
    id: 'sequence',
    header: 'consist. seq',
    description:
      'trajectory consistency: mean pairwise 1 − normalised edit distance of the action sequences of successful repeats',
    value: (a) => a.consistency.sequence,
    format: twoDecimals,
  },
  {
    id: 'frequency',
    header: 'consist. freq',
    description:
      'trajectory consistency: mean pairwise 1 − Jensen–Shannon distance of the action frequencies of successful repeats',
    value: (a) => a.consistency.frequency,
    format: twoDecimals,
  },
]
