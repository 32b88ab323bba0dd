import type { CellSummary } from '../core/schemas.js'
import type { CellResult } from '../protocol/cell.js'
import { percentText } from '../metrics/format.js'
import type { RateMetric } from '../core/kinds.js'

type Subject = CellSummary | CellResult

function summaryOf(received: unknown): CellSummary | undefined {
  if (typeof received !== 'object' || received === null) return undefined
  const r = received as { summary?: CellSummary; schema?: string }
  if (r.schema === 'seqk.cell/1') return r as CellSummary
  if (r.summary?.schema === 'seqk.cell/1') return r.summary
  return undefined
}

function rateMatcher(metric: RateMetric, label: string) {
  return function (this: { isNot: boolean }, received: unknown, k: number, min: number) {
    const summary = summaryOf(received)
    if (!summary) return { pass: false, message: () => `expected a seqk cell result (from runCell) or cell summary, got ${typeof received}` }
    const curve = summary[metric]
    if (!curve) return { pass: false, message: () => `${summary.cellId} did not measure ${label}@k (${metric === 'passAt' ? 'run it with independent sampling' : 'run it with a feedback mode'})` }
    if (!Number.isInteger(k) || k < 1 || k > summary.budget) return { pass: false, message: () => `k must be an integer in 1..${summary.budget} (the budget), got ${k}` }
    const actual = curve[k - 1] ?? null
    const pass = actual !== null && actual >= min
    // Fail closed: an undefined rate (nothing measured up to k) never reaches a threshold.
    const shown = actual === null ? `undefined (no measured trajectory gives ${label}@${k}, so the threshold cannot be judged)` : percentText(actual)
    return {
      pass,
      message: () => (this.isNot ? `expected ${summary.cellId} not to reach ${label}@${k} ≥ ${percentText(min)}, but it is ${shown}` : `expected ${summary.cellId} to reach ${label}@${k} ≥ ${percentText(min)}, but it is ${shown}`),
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
  toReachSeqAt: rateMatcher('seqAt', 'Seq'),
  toReachPassAt: rateMatcher('passAt', 'Pass'),
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- must match Vitest's own declaration
  interface Matchers<T = any> {
    /** The cell's Seq@k is at least `min`. */
    toReachSeqAt(k: number, min: number): T
    /** The cell's unbiased Pass@k is at least `min` (independent cells). */
    toReachPassAt(k: number, min: number): T
  }
}

export type { Subject as SeqkMatcherSubject }
