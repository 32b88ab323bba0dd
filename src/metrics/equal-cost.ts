/**
 * Sequential revision against independent sampling at equal cost (Olausson et al. 2024, "Is
 * self-repair a silver bullet?"): each protocol's success rate as a function of what it spends per
 * task, and where one starts to beat the other. Pure functions over points (cost, rate), one per
 * budget k = 1..K: Seq@k at the mean spend by attempt k (solved tasks stop spending), Pass@k at the
 * mean spend of k samples.
 *
 * Between two budgets the curve is the straight line joining them: running budget k on a share of
 * the tasks and k + 1 on the rest spends and succeeds in proportion, so every point of the line is
 * reachable. Below a protocol's cheapest point (one attempt) it cannot run at all, so the
 * comparison starts where both can; beyond its dearest point (budget K) its rate is held at K's,
 * the best the budgets run reached (a larger budget was not run and might do better).
 */

/** One budget of one protocol: mean spend per task and success rate. */
export interface CostRatePoint {
  cost: number
  rate: number
}

/** Which protocol is ahead. */
export type EqualCostLeader = 'sequential' | 'independent'

/** How the two curves compare over the spend both can reach. */
export interface EqualCostReading {
  /**
   * `sequential-dominates`: at every equal spend compared, sequential is at least as high and
   * somewhere higher; `independent-dominates` the reverse; `equal`: the same everywhere; `crossing`:
   * the lead changes at `crossings`.
   */
  verdict: 'sequential-dominates' | 'independent-dominates' | 'equal' | 'crossing'
  /** Where the lead changes, in increasing cost: from `cost` on, `leader` is ahead. */
  crossings: { cost: number; leader: EqualCostLeader }[]
  /** Who is ahead at the cheapest spend compared (null when equal there and everywhere after). */
  firstLeader: EqualCostLeader | null
  /** The spend compared: from the dearer of the two cheapest points to the dearer of the two dearest. */
  from: number
  to: number
}

/** Rates closer than this are equal: estimates from the same counts can differ by rounding alone. */
const SAME = 1e-9

/** The points in increasing cost, each at the best rate reached at that spend or less (a frontier). */
function frontier(points: readonly CostRatePoint[]): CostRatePoint[] {
  const sorted = [...points].sort((a, b) => a.cost - b.cost || a.rate - b.rate)
  const out: CostRatePoint[] = []
  for (const p of sorted) {
    const best = Math.max(p.rate, out.at(-1)?.rate ?? -Infinity)
    if (out.length > 0 && out.at(-1)!.cost === p.cost) out[out.length - 1] = { cost: p.cost, rate: best }
    else out.push({ cost: p.cost, rate: best })
  }
  return out
}

function assertPoints(points: readonly CostRatePoint[], which: string): void {
  for (const p of points)
    if (!Number.isFinite(p.cost) || p.cost < 0 || !Number.isFinite(p.rate))
      throw new RangeError(
        `${which}: every point needs a finite cost >= 0 and a finite rate ` +
          `(got cost ${p.cost}, rate ${p.rate}); leave unknown points out`,
      )
}

/**
 * A protocol's success rate at mean spend `cost` per task: on the line between the two budgets
 * around it, the rate of its dearest budget beyond it, NaN below its cheapest (it cannot run
 * there).
 *
 * @example
 * rateAtCost([{ cost: 100, rate: 0.4 }, { cost: 300, rate: 0.6 }], 200) // => 0.5
 * rateAtCost([{ cost: 100, rate: 0.4 }], 50) // => NaN
 */
export function rateAtCost(points: readonly CostRatePoint[], cost: number): number {
  const f = frontier(points)
  if (f.length === 0 || cost < f[0]!.cost) return Number.NaN
  for (let i = 0; i + 1 < f.length; i++) {
    const [a, b] = [f[i]!, f[i + 1]!]
    if (cost <= b.cost) return a.rate + ((b.rate - a.rate) * (cost - a.cost)) / (b.cost - a.cost)
  }
  return f.at(-1)!.rate
}

/**
 * Compares sequential and independent at equal spend: over the spend both reach, where each is
 * ahead and where the lead changes. Both curves are straight between their points, so their
 * difference is straight between the points of either, and its sign changes only at a root of
 * one of those pieces.
 *
 * @returns null when either side has no point.
 * @throws RangeError when a point has an unknown (non-finite) or negative cost or rate.
 * @example
 * compareAtEqualCost(
 *   [{ cost: 100, rate: 0.3 }, { cost: 180, rate: 0.6 }],
 *   [{ cost: 100, rate: 0.4 }, { cost: 200, rate: 0.55 }],
 * ) // => { verdict: 'crossing', firstLeader: 'independent',
 * //      crossings: [{ cost: ≈144.4, leader: 'sequential' }], … }
 */
export function compareAtEqualCost(
  sequential: readonly CostRatePoint[],
  independent: readonly CostRatePoint[],
): EqualCostReading | null {
  assertPoints(sequential, 'sequential')
  assertPoints(independent, 'independent')
  if (sequential.length === 0 || independent.length === 0) return null
  const [s, p] = [frontier(sequential), frontier(independent)]
  const from = Math.max(s[0]!.cost, p[0]!.cost)
  const to = Math.max(s.at(-1)!.cost, p.at(-1)!.cost)
  const xs = [...new Set([from, to, ...[...s, ...p].map((q) => q.cost).filter((c) => c > from && c < to)])].sort(
    (a, b) => a - b,
  )
  const diff = (x: number) => {
    const d = rateAtCost(s, x) - rateAtCost(p, x)
    return Math.abs(d) < SAME ? 0 : d
  }
  const leaderOf = (d: number): EqualCostLeader => (d > 0 ? 'sequential' : 'independent')
  // Where each lead begins: at the first point compared, at a root inside a piece, or at the last
  // point where the two were equal.
  const starts: { cost: number; leader: EqualCostLeader }[] = []
  let previous = diff(xs[0]!)
  let lastZero = xs[0]!
  if (previous !== 0) starts.push({ cost: xs[0]!, leader: leaderOf(previous) })
  for (let i = 1; i < xs.length; i++) {
    const [x0, x1] = [xs[i - 1]!, xs[i]!]
    const d = diff(x1)
    if (d === 0) lastZero = x1
    else if (previous === 0) starts.push({ cost: lastZero, leader: leaderOf(d) })
    else if (Math.sign(previous) !== Math.sign(d))
      // The difference is straight between x0 and x1: its root is where the lead changes.
      starts.push({ cost: x0 + ((x1 - x0) * previous) / (previous - d), leader: leaderOf(d) })
    previous = d
  }
  const crossings = starts.filter((x, i) => i > 0 && x.leader !== starts[i - 1]!.leader)
  const firstLeader = starts[0]?.leader ?? null
  const verdict: EqualCostReading['verdict'] =
    firstLeader === null
      ? 'equal'
      : crossings.length > 0
        ? 'crossing'
        : firstLeader === 'sequential'
          ? 'sequential-dominates'
          : 'independent-dominates'
  return { verdict, crossings, firstLeader, from, to }
}
