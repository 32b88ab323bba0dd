/**
 * What a budget of k spends per task under a cell's own protocol, in tokens and in dollars: the
 * cost axis of the equal-cost comparison (Olausson et al., "Is self-repair a silver bullet?":
 * repair pays only if it beats sampling at equal cost, not at equal attempts).
 *
 * - Sequential: a trajectory stops at its first success, so a solved task stops spending; the
 *   spend by attempt k is what its attempts up to min(k, first success) cost, helpers included.
 * - Independent: k samples are k samples, whether one passed early or not; the spend of k is k
 *   times the task's mean spend per sample (over every sample drawn, so it is the expected spend
 *   of any k of them, as Pass@k's estimator is the mean over every k of them).
 *
 * Each is the mean over the tasks measured. A call whose reply reported no usage (tokens) or has
 * no known price (dollars) makes the value unknown: null, never a smaller number and never 0.
 */
import type { ModelCall } from '../core/contract.js'
import type { CellSummary, Trajectory } from '../core/schemas.js'

/** A spend that is unknown (NaN) as soon as one of its parts is. */
interface Spend {
  tokens: number
  usd: number
}

const callSpend = (call: Pick<ModelCall, 'usage' | 'costUsd'>): Spend => ({
  tokens: call.usage === null ? Number.NaN : call.usage.inputTokens + call.usage.outputTokens,
  usd: call.costUsd ?? Number.NaN,
})

const add = (a: Spend, b: Spend): Spend => ({ tokens: a.tokens + b.tokens, usd: a.usd + b.usd })
const ZERO: Spend = { tokens: 0, usd: 0 }

/** An attempt's spend: the actor's call and its helpers (summariser, critic, grader). */
function attemptSpend(attempt: Trajectory['attempts'][number]): Spend {
  return attempt.helperCalls.reduce((s, call) => add(s, callSpend(call)), callSpend(attempt))
}

/** What the attempt that failed part way had billed before it failed. */
function failedSpend(trajectory: Trajectory): Spend {
  return (trajectory.error?.calls ?? []).reduce((s, call) => add(s, callSpend(call)), ZERO)
}

/** A sequential trajectory's spend by attempt k = 1..K, stopping at its first success. */
function sequentialCurve(trajectory: Trajectory, K: number): Spend[] {
  const out: Spend[] = []
  for (let k = 1; k <= K; k++) {
    const stop = Math.min(k, trajectory.firstSuccess ?? k)
    let spent = trajectory.attempts.filter((a) => a.index <= stop).reduce((s, a) => add(s, attemptSpend(a)), ZERO)
    if (trajectory.error && trajectory.error.attempt <= stop) spent = add(spent, failedSpend(trajectory))
    out.push(spent)
  }
  return out
}

/** A task's mean spend per sample drawn (a sample that failed part way counts, with what it billed). */
function perSample(trajectories: readonly Trajectory[]): Spend | null {
  let samples = 0
  let spent = ZERO
  for (const t of trajectories) {
    samples += t.attempts.length + (t.error ? 1 : 0)
    spent = t.attempts.reduce((s, a) => add(s, attemptSpend(a)), add(spent, failedSpend(t)))
  }
  return samples === 0 ? null : { tokens: spent.tokens / samples, usd: spent.usd / samples }
}

const mean = (values: readonly number[]): number | null => {
  if (values.length === 0) return null
  const m = values.reduce((a, b) => a + b, 0) / values.length
  return Number.isFinite(m) ? m : null
}

/**
 * The summary's `spendAtK` of a cell from the trajectories its rates count, grouped by task:
 * mean tokens and dollars per task of a budget of k, k = 1..K, under the cell's protocol.
 *
 * @example
 * spendAtK(byTask, 'sequential', 3).tokens // => [812, 1430, 1655]: solved tasks stop spending
 */
export function spendAtK(
  byTask: ReadonlyMap<string, readonly Trajectory[]>,
  kind: 'sequential' | 'independent',
  K: number,
): NonNullable<CellSummary['spendAtK']> {
  const tasks = [...byTask.values()].filter((ts) => ts.length > 0)
  const ks = Array.from({ length: K }, (_, i) => i + 1)
  if (kind === 'independent') {
    const each = tasks.map(perSample).filter((s): s is Spend => s !== null)
    return {
      tokens: ks.map((k) => mean(each.map((s) => k * s.tokens))),
      usd: ks.map((k) => mean(each.map((s) => k * s.usd))),
    }
  }
  const curves = tasks.map((ts) => {
    const all = ts.map((t) => sequentialCurve(t, K))
    return ks.map((k) => {
      const at = all.map((c) => c[k - 1]!)
      return {
        tokens: at.reduce((n, s) => n + s.tokens, 0) / at.length,
        usd: at.reduce((n, s) => n + s.usd, 0) / at.length,
      }
    })
  })
  return {
    tokens: ks.map((k) => mean(curves.map((c) => c[k - 1]!.tokens))),
    usd: ks.map((k) => mean(curves.map((c) => c[k - 1]!.usd))),
  }
}
