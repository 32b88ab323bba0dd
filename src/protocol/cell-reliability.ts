/**
 * A cell's reliability block from its outcomes (pure): Cover@τ at the budget, Seq^k (sequential)
 * or pass^K's interval (independent), outcome consistency over each task's tries and resource
 * consistency over its repeats.
 */
import type { Reliability, Trajectory } from '../core/schemas.js'
import { coverAtInterval, coverCurve, DEFAULT_COVER_TAUS, triesWithin } from '../metrics/cover-at.js'
import { outcomeConsistencyOf, resourceConsistency } from '../metrics/consistency.js'
import { passHatInterval } from '../metrics/pass-hat-k.js'
import { seqHatCurve, seqHatInterval } from '../metrics/seq-hat-k.js'
import type { SampleCounts, TaskOutcomes } from '../metrics/index.js'
import { totals } from './attempt.js'
import { finiteOrNull, intervalJson } from './interval-json.js'

/** What {@link reliabilityOf} reads. */
export interface ReliabilityInput {
  K: number
  independent: boolean
  /** Each task's repeats as the rates count them (sequential cells). */
  outcomes: readonly TaskOutcomes[]
  /** Each task's samples (independent cells). */
  samples: readonly SampleCounts[]
  /** The cell's trajectories, grouped by task, for resource consistency (errored ones are left out). */
  byTask: ReadonlyMap<string, readonly Trajectory[]>
  /** Cover@τ thresholds beyond the default 0.5 and 1. */
  taus?: readonly number[]
}

/** A trajectory's tokens (input and output), null when a call reported none. */
function tokensOf(t: Trajectory): number | null {
  const spent = totals(t.attempts, t.error?.calls ?? [])
  return spent.usage === null || spent.usageUnknownCalls > 0 ? null : spent.usage.inputTokens + spent.usage.outputTokens
}

/**
 * The reliability block of a cell summary.
 *
 * @example
 * reliabilityOf({ K: 3, independent: false, outcomes, samples: [], byTask }).coverAt[1]?.interval.point // Cover@1
 */
export function reliabilityOf(input: ReliabilityInput): Reliability {
  const { K, independent } = input
  const tries = independent ? input.samples : triesWithin(input.outcomes, K)
  const taus = [...new Set([...DEFAULT_COVER_TAUS, ...(input.taus ?? [])])].sort((a, b) => a - b)
  const complete = [...input.byTask.values()].map((ts) => ts.filter((t) => t.status !== 'error'))
  const resource = (read: (t: Trajectory) => number | null) =>
    intervalJson(resourceConsistency(complete.map((ts) => ts.map(read))))
  const outcome = outcomeConsistencyOf(tries)
  return {
    tries: tries.reduce((m, t) => Math.max(m, t.n), 0),
    seqHat: independent ? null : seqHatCurve(input.outcomes, K).map(finiteOrNull),
    hatInterval: intervalJson(independent ? passHatInterval(input.samples, K) : seqHatInterval(input.outcomes, K)),
    coverAt: taus.map((tau) => ({ tau, interval: intervalJson(coverAtInterval(tries, tau)) })),
    coverCurve: coverCurve(tries),
    outcome: { mean: intervalJson(outcome.mean), inconsistent: intervalJson(outcome.inconsistent) },
    resource: {
      attempts: resource((t) => t.attempts.length),
      tokens: resource(tokensOf),
      costUsd: resource((t) => totals(t.attempts, t.error?.calls ?? []).costUsd),
    },
  }
}
