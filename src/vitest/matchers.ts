import { CELL_SUMMARY_SCHEMA, type CellSummary } from '../core/schemas.js'
import type { CellResult } from '../protocol/cell.js'
import { percentText } from '../metrics/format.js'
import type { RateMetric } from '../core/kinds.js'
import { readMetric } from '../protocol/cell-metrics.js'

type Subject = CellSummary | CellResult

function summaryOf(received: unknown): CellSummary | undefined {
  if (typeof received !== 'object' || received === null) return undefined
  const r = received as { summary?: CellSummary; schema?: string }
  if (r.schema === CELL_SUMMARY_SCHEMA) return r as CellSummary
  if (r.summary?.schema === CELL_SUMMARY_SCHEMA) return r.summary
  return undefined
}

function rateMatcher(metric: RateMetric) {
  return function (this: { isNot: boolean }, received: unknown, at: number, min: number) {
    const summary = summaryOf(received)
    if (!summary)
      return {
        pass: false,
        message: () => `expected a seqk cell result (from runCell) or cell summary, got ${typeof received}`,
      }
    const reading = readMetric(summary, metric, at)
    const { label, index, protocols } = reading.metric
    const how =
      protocols.length > 1
        ? 'run it with a feedback mode or independent sampling'
        : protocols[0] === 'independent'
          ? 'run it with independent sampling'
          : 'run it with a feedback mode'
    if (!reading.curve)
      return {
        pass: false,
        message: () => `${summary.cellId} did not measure ${label(index === 'k' ? 'k' : 'τ')} (${how})`,
      }
    if (index === 'k' && (!Number.isInteger(at) || at < 1 || at > summary.budget))
      return { pass: false, message: () => `k must be an integer in 1..${summary.budget} (the budget), got ${at}` }
    if (index === 'tau' && !(at > 0 && at <= 1))
      return { pass: false, message: () => `τ must be a share in (0, 1], got ${at}` }
    const actual = reading.value
    const pass = actual !== null && actual >= min
    // Fail closed: an undefined rate (nothing measured up to k) never reaches a threshold.
    const why =
      index === 'tau'
        ? `the cell reports Cover@τ at τ = ${reading.curve.length === 0 ? 'none' : summary.reliability?.coverAt.map((c) => c.tau).join(', ')}; name τ in expect.coverAt to have it computed`
        : `no measured trajectory gives ${label(at)}`
    const shown = actual === null ? `undefined (${why}, so the threshold cannot be judged)` : percentText(actual)
    return {
      pass,
      message: () =>
        this.isNot
          ? `expected ${summary.cellId} not to reach ${label(at)} ≥ ${percentText(min)}, but it is ${shown}`
          : `expected ${summary.cellId} to reach ${label(at)} ≥ ${percentText(min)}, but it is ${shown}`,
    }
  }
}

/**
 * Matchers for users who run cells themselves; registered by `vitest-seqk/setup`.
 *
 * @example
 * const result = await runCell(spec)
 * expect(result).toReachSeqAt(5, 0.8)
 */
export const seqkMatchers = {
  toReachSeqAt: rateMatcher('seqAt'),
  toReachPassAt: rateMatcher('passAt'),
  toReachSeqHat: rateMatcher('seqHat'),
  toReachPassHat: rateMatcher('passHat'),
  toReachCoverAt: rateMatcher('coverAt'),
  toReachScoreAt: rateMatcher('scoreAt'),
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- must match Vitest's own declaration
  interface Matchers<T = any> {
    /** The cell's Seq@k is at least `min`. */
    toReachSeqAt(k: number, min: number): T
    /** The cell's unbiased Pass@k is at least `min` (independent cells). */
    toReachPassAt(k: number, min: number): T
    /** The cell's Seq^k (every repeat solved within k) is at least `min` (feedback cells). */
    toReachSeqHat(k: number, min: number): T
    /** The cell's pass^k (k tries all pass) is at least `min` (independent cells). */
    toReachPassHat(k: number, min: number): T
    /** The cell's Cover@τ at its budget (tasks whose success share reaches τ) is at least `min`. */
    toReachCoverAt(tau: number, min: number): T
    /** The cell's Score@k (the mean over tasks of the best verdict score by attempt k) is at least `min`. */
    toReachScoreAt(k: number, min: number): T
  }
}

export type { Subject as SeqkMatcherSubject }
