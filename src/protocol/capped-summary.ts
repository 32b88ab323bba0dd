/**
 * The summary of a cell a cost cap stopped. Its capped trajectories never ended, so they are
 * neither passes nor failures: the rates cover the trajectories that ended, the 95% interval at
 * every reported k is widened to cover the capped ones counted as failures and as passes (what
 * the cell cannot see, said as a range), the spend counts every call made, and one `finished`
 * check fails the cell with the cap's sentence (its thresholds are not judged on a part).
 */
import type { Attempt, CellSummary, IntervalJson, ThresholdResult, Trajectory } from '../core/schemas.js'
import { capMessage } from './cost-cap.js'
import type { SummariseInput } from './cell-summary.js'

/** How a capped cell's interval is built: the union of the ended-only interval and the two bounds. */
export const CAP_BOUNDS_INTERVAL_METHOD = 'cap-bounds-union/1'

/** A sample that stands for one the cap kept from being drawn, in a bound (never stored). */
function standIn(index: number, pass: boolean): Attempt {
  return {
    index,
    answer: '',
    verdict: {
      pass,
      diagnostics: {
        outcome: pass ? 'passed' : 'failed',
        summary: 'stand-in for a sample the cost cap kept from being drawn',
      },
    },
    feedback: null,
    finishReason: 'other',
    usage: null,
    latencyMs: 0,
    costUsd: 0,
    costUsdWithoutCache: 0,
    replayed: false,
    helperCalls: [],
    unmodified: null,
  }
}

/**
 * A capped trajectory as if it had ended every way it could: `pass` solves it at its next
 * attempt (sequential) or passes every missing sample (independent); otherwise it fails them all.
 */
function endedAs(t: Trajectory, budget: number, independent: boolean, pass: boolean): Trajectory {
  if (independent) {
    const missing = Array.from({ length: budget - t.attempts.length }, (_, i) =>
      standIn(t.attempts.length + i + 1, pass),
    )
    const attempts = [...t.attempts, ...missing]
    const first = attempts.find((a) => a.verdict.pass)
    return { ...t, status: first ? 'solved' : 'failed', firstSuccess: first?.index ?? null, attempts }
  }
  return pass
    ? { ...t, status: 'solved', firstSuccess: t.attempts.length + 1 }
    : { ...t, status: 'failed', firstSuccess: null }
}

/** The ended-only interval widened to both bounds' (null bounds skipped; null when none is known). */
function widened(rated: IntervalJson | null, bounds: readonly (IntervalJson | null)[]): IntervalJson | null {
  const all = [rated, ...bounds].filter((i): i is IntervalJson => i !== null)
  const los = all.map((i) => i.lo).filter((v): v is number => v !== null)
  const his = all.map((i) => i.hi).filter((v): v is number => v !== null)
  const base = rated ?? all[0]
  if (!base) return null
  const note = 'covers the trajectories the cost cap stopped counted as failures and as passes'
  return {
    ...base,
    point: rated?.point ?? null,
    lo: los.length > 0 ? Math.min(...los) : null,
    hi: his.length > 0 ? Math.max(...his) : null,
    method: CAP_BOUNDS_INTERVAL_METHOD,
    note,
  }
}

/**
 * A cell's summary when some trajectories are `capped` (pure). `summariseEnded` is the summary of
 * a cell with none, called over the ended trajectories and over the two bounds.
 *
 * @example
 * const summary = summariseCapped(input, summariseEnded)
 * summary.thresholds[0].message // => 'stopped at the cost cap (cell maxCostUsd $0.010, …'
 */
export function summariseCapped(
  input: SummariseInput,
  summariseEnded: (input: SummariseInput) => CellSummary,
): CellSummary {
  const all = input.trajectories
  const capped = all.filter((t) => t.status === 'capped')
  const ended = all.filter((t) => t.status !== 'capped')
  const K = input.protocol.budget
  const independent = input.protocol.kind === 'independent'
  const rated = summariseEnded({ ...input, trajectories: ended })
  const over = (pass: boolean) =>
    summariseEnded({
      ...input,
      trajectories: all.map((t) => (t.status === 'capped' ? endedAs(t, K, independent, pass) : t)),
    })
  const low = over(false)
  const high = over(true)
  // Every call made, the capped trajectories' included: their status does not change what they spent.
  const spent = summariseEnded({
    ...input,
    trajectories: all.map((t) => (t.status === 'capped' ? { ...t, status: 'failed' as const } : t)),
  })
  const stop = capped[0]!.capped ?? {
    scope: 'cell' as const,
    limit: 'maxCostUsd' as const,
    cap: 1,
    spent: null,
    afterAttempt: 0,
  }
  // An episode stopped before its first attempt ended started all the same: its turns are on its error record.
  const notStarted = capped.filter((t) => t.attempts.length === 0 && !t.error?.calls?.length).length
  const finished: ThresholdResult = {
    metric: 'finished',
    k: null,
    limit: all.length,
    actual: ended.length,
    pass: false,
    message: capMessage(stop, { capped: capped.length, notStarted, total: all.length }),
  }
  const { usageUnknownCalls: _unknown, batch: _batch, ...ratedRest } = rated
  return {
    ...ratedRest,
    trajectories: all.length,
    seqAtInterval: widened(rated.seqAtInterval, [low.seqAtInterval, high.seqAtInterval]) ?? rated.seqAtInterval,
    passAtInterval:
      rated.passAtInterval || low.passAtInterval
        ? widened(rated.passAtInterval, [low.passAtInterval, high.passAtInterval])
        : null,
    usage: spent.usage,
    ...(spent.usageUnknownCalls ? { usageUnknownCalls: spent.usageUnknownCalls } : {}),
    costUsd: spent.costUsd,
    byRole: spent.byRole,
    costPerTrajectory: spent.costPerTrajectory,
    cache: spent.cache,
    ...(spent.batch ? { batch: spent.batch } : {}),
    replayedCalls: spent.replayedCalls,
    calls: spent.calls,
    costCap: { stop, capped: capped.length, notStarted },
    // The cap is the one root cause: "nothing measured" follows from it and is not counted again.
    thresholds: [finished, ...rated.thresholds.filter((t) => t.metric !== 'measured')],
    verdict: 'fail',
  }
}
