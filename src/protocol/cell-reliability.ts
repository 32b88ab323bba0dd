/**
 * A cell's reliability block from its outcomes (pure): Cover@τ at the budget, Seq^k (sequential)
 * or pass^K (independent), outcome consistency over each task's tries and resource consistency
 * over its repeats. A try an infrastructure error hid enters as the cell's error policy says: under
 * `censored` (the default) with the chance the rates credit it and with the interval widened to
 * cover the figure whatever it hid ({@link censoredFigure}); as a failure; or left out.
 */
import type { ErrorPolicy, Reliability, Trajectory } from '../core/schemas.js'
import { coverCurveCensored, DEFAULT_COVER_TAUS, reachesShare } from '../metrics/cover-at.js'
import { consistencyValues, resourceConsistency } from '../metrics/consistency.js'
import { passHatK } from '../metrics/pass-hat-k.js'
import { allSolved } from '../metrics/seq-hat-k.js'
import { errorsAsFailures, errorsLeftOut, type CensoredTaskOutcomes } from '../metrics/censored.js'
import {
  censoredFigure,
  censoredTriesWithin,
  type CensoredFigure,
  type CensoredTries,
} from '../metrics/censored-tries.js'
import type { TaskOutcomes } from '../metrics/seq-at-k.js'
import { totals } from './attempt.js'
import { finiteOrNull, intervalJson } from './interval-json.js'

/** What {@link reliabilityOf} reads. */
export interface ReliabilityInput {
  K: number
  independent: boolean
  /** How errored trajectories enter the figures (the protocol's `errors`). */
  policy: ErrorPolicy
  /** Each task's repeats, errored ones censored where they stopped (sequential cells). */
  censored: readonly CensoredTaskOutcomes[]
  /** The cell's trajectories, grouped by task: independent cells' samples, and resource consistency (errored ones left out). */
  byTask: ReadonlyMap<string, readonly Trajectory[]>
  /** Cover@τ thresholds beyond the default 0.5 and 1. */
  taus?: readonly number[]
}

/** Repeats as plain tries: every outcome known (errors counted as failures or left out before). */
function knownTries(outcomes: readonly TaskOutcomes[], k: number): CensoredTries[] {
  return outcomes.map((task) => {
    const c = task.firstSuccess.filter((f) => f !== null && f <= k).length
    return { taskId: task.taskId, c, f: task.firstSuccess.length - c, hidden: [] }
  })
}

/**
 * A sequential cell's tries at budget k under an error policy: `censored` hides an errored repeat
 * where its error left it unknown ({@link censoredTriesWithin}); `failures` counts it failed;
 * `left-out` drops it (the task's figure is then over fewer repeats).
 *
 * @example
 * sequentialTries([{ taskId: 'a', repeats: [{ firstSuccess: 1 }, { censoredAt: 1 }] }], 2, 'failures')
 * // => [{ taskId: 'a', c: 1, f: 1, hidden: [] }]
 */
export function sequentialTries(
  censored: readonly CensoredTaskOutcomes[],
  k: number,
  policy: ErrorPolicy,
): CensoredTries[] {
  if (policy === 'censored') return censoredTriesWithin(censored, k)
  return knownTries(policy === 'failures' ? errorsAsFailures(censored) : errorsLeftOut(censored), k)
}

/**
 * An independent cell's tries: each task's samples. A sample an errored trajectory never drew is
 * hidden under `censored`, with the chance the task's drawn samples show; a failure under
 * `failures`; under `left-out` the errored trajectory's samples are all dropped.
 *
 * @example
 * independentTries(byTask, 5, 'censored') // => [{ taskId: 't/1', c: 7, f: 1, hidden: [0.875, 0.875] }, …]
 */
export function independentTries(
  byTask: ReadonlyMap<string, readonly Trajectory[]>,
  K: number,
  policy: ErrorPolicy,
): CensoredTries[] {
  return [...byTask].map(([taskId, all]) => {
    const ts = policy === 'left-out' ? all.filter((t) => t.status !== 'error') : all
    const drawn = ts.reduce((n, t) => n + t.attempts.length, 0)
    const c = ts.reduce((n, t) => n + t.attempts.filter((a) => a.verdict.pass).length, 0)
    const missing = Math.max(0, K * ts.length - drawn)
    if (policy === 'failures') return { taskId, c, f: drawn - c + missing, hidden: [] }
    return { taskId, c, f: drawn - c, hidden: new Array<number>(missing).fill(drawn === 0 ? Number.NaN : c / drawn) }
  })
}

/** The figures of the reliability block before they are written down. */
export interface ReliabilityFigures {
  /** Seq^K (sequential) or pass^K (independent). */
  hat: CensoredFigure
  /** Seq^k for k = 1..K (sequential cells), null for independent ones. */
  hatCurve: number[] | null
  coverAt: { tau: number; figure: CensoredFigure }[]
  consistency: CensoredFigure
  inconsistent: CensoredFigure
  /** The tries at K the figures read. */
  tries: CensoredTries[]
}

/** The figures every cell reports from its tries at K, and the "every time" one it is given. */
function figuresOf(tries: CensoredTries[], taus: readonly number[], hat: CensoredFigure) {
  return {
    hat,
    coverAt: taus.map((tau) => ({ tau, figure: censoredFigure(tries, reachesShare(tau)) })),
    consistency: censoredFigure(tries, consistencyValues.mean),
    inconsistent: censoredFigure(tries, consistencyValues.inconsistent),
    tries,
  }
}

/**
 * The reliability figures of a sequential cell's repeats (pure, as the summary computes them).
 *
 * @example
 * reliabilityFigures(outcomes, 5, [0.5, 1]).hat.interval.point // Seq^5
 */
export function reliabilityFigures(
  censored: readonly CensoredTaskOutcomes[],
  K: number,
  taus: readonly number[],
  policy: ErrorPolicy = 'censored',
): ReliabilityFigures {
  const byK = Array.from({ length: K }, (_, i) => sequentialTries(censored, i + 1, policy))
  const curve = byK.map((tries) => censoredFigure(tries, allSolved))
  return { ...figuresOf(byK[K - 1]!, taus, curve[K - 1]!), hatCurve: curve.map((f) => f.interval.point) }
}

/**
 * The reliability figures of an independent cell's samples: pass^K's point is its unbiased
 * estimator over the samples drawn (missing ones at random leave it unbiased); its bounds take the
 * missing ones as failures and as passes.
 *
 * @example
 * independentReliabilityFigures(tries, 5, [0.5, 1]).hat.interval.point // pass^5
 */
export function independentReliabilityFigures(
  tries: CensoredTries[],
  K: number,
  taus: readonly number[],
): ReliabilityFigures {
  const hat = censoredFigure(tries, (n, c) => (n < K ? Number.NaN : passHatK(n, c, K)), {
    point: (t) => (t.c + t.f < K ? Number.NaN : passHatK(t.c + t.f, t.c, K)),
    trials: (t) => Math.floor((t.c + t.f + t.hidden.length) / K),
  })
  return { ...figuresOf(tries, taus, hat), hatCurve: null }
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
 * reliabilityOf({ K: 3, independent: false, policy: 'censored', censored, byTask }).coverAt[1]?.interval.point // Cover@1
 */
export function reliabilityOf(input: ReliabilityInput): Reliability {
  const { K, independent } = input
  const taus = [...new Set([...DEFAULT_COVER_TAUS, ...(input.taus ?? [])])].sort((a, b) => a - b)
  const figures = independent
    ? independentReliabilityFigures(independentTries(input.byTask, K, input.policy), K, taus)
    : reliabilityFigures(input.censored, K, taus, input.policy)
  const complete = [...input.byTask.values()].map((ts) => ts.filter((t) => t.status !== 'error'))
  const resource = (read: (t: Trajectory) => number | null) =>
    intervalJson(resourceConsistency(complete.map((ts) => ts.map(read))))
  const n = (t: CensoredTries) => t.c + t.f + t.hidden.length
  return {
    tries: figures.tries.reduce((m, t) => Math.max(m, n(t)), 0),
    basis: {
      tries: figures.tries.reduce((s, t) => s + n(t), 0),
      hidden: figures.tries.reduce((s, t) => s + t.hidden.length, 0),
    },
    seqHat: figures.hatCurve?.map(finiteOrNull) ?? null,
    hatInterval: intervalJson(figures.hat.interval),
    coverAt: figures.coverAt.map(({ tau, figure }) => ({ tau, interval: intervalJson(figure.interval) })),
    coverCurve: coverCurveCensored(figures.tries),
    outcome: {
      mean: intervalJson(figures.consistency.interval),
      inconsistent: intervalJson(figures.inconsistent.interval),
    },
    resource: {
      attempts: resource((t) => t.attempts.length),
      tokens: resource(tokensOf),
      costUsd: resource((t) => totals(t.attempts, t.error?.calls ?? []).costUsd),
    },
  }
}
