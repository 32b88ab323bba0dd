/**
 * The cost–success Pareto frontier (paper section 5.1.3, Figure 3): the configurations (actor,
 * protocol, budget k) that no other configuration beats on both cost and success.
 */

/** A configuration's mean cost per task and its success rate. */
export interface CostSuccessPoint {
  cost: number
  success: number
}

/**
 * Whether `a` dominates `b`: at most as costly, at least as successful, and strictly better on
 * one of the two. Identical points do not dominate each other (both stay on a frontier).
 *
 * @example
 * dominates({ cost: 1, success: 0.9 }, { cost: 2, success: 0.9 }) // => true
 * dominates({ cost: 1, success: 0.9 }, { cost: 1, success: 0.9 }) // => false
 */
export function dominates(a: CostSuccessPoint, b: CostSuccessPoint): boolean {
  return a.cost <= b.cost && a.success >= b.success && (a.cost < b.cost || a.success > b.success)
}

/**
 * For each point, whether it is on the Pareto frontier (dominated by no other point).
 *
 * O(n log n) sweep instead of comparing every pair: points are grouped by cost, cheapest first;
 * a point survives when it has its group's best success and beats every strictly cheaper point.
 *
 * @throws RangeError on a non-finite cost or success (unpriced points must be left out by the
 *   caller, with a reason, rather than priced at 0 or Infinity here).
 * @example
 * paretoMask([{ cost: 1, success: 0.5 }, { cost: 2, success: 0.4 }, { cost: 3, success: 0.9 }])
 * // => [true, false, true]
 */
export function paretoMask(points: readonly CostSuccessPoint[]): boolean[] {
  for (const [i, p] of points.entries()) {
    if (!Number.isFinite(p.cost) || !Number.isFinite(p.success)) {
      throw new RangeError(
        `point ${i} must have a finite cost and success (got cost ${String(p.cost)}, success ${String(p.success)})`,
      )
    }
  }
  const order = points
    .map((_, i) => i)
    .sort((a, b) => (points[a] as CostSuccessPoint).cost - (points[b] as CostSuccessPoint).cost)
  const mask = new Array<boolean>(points.length).fill(false)
  let bestCheaper = Number.NEGATIVE_INFINITY
  let start = 0
  while (start < order.length) {
    const cost = (points[order[start] as number] as CostSuccessPoint).cost
    let end = start
    while (end + 1 < order.length && (points[order[end + 1] as number] as CostSuccessPoint).cost === cost) end++
    let groupBest = Number.NEGATIVE_INFINITY
    for (let i = start; i <= end; i++)
      groupBest = Math.max(groupBest, (points[order[i] as number] as CostSuccessPoint).success)
    for (let i = start; i <= end; i++) {
      const index = order[i] as number
      const success = (points[index] as CostSuccessPoint).success
      mask[index] = success === groupBest && success > bestCheaper
    }
    bestCheaper = Math.max(bestCheaper, groupBest)
    start = end + 1
  }
  return mask
}

/**
 * The points on the Pareto frontier, cheapest first (ties in cost keep their input order).
 *
 * @example
 * paretoFrontier([{ cost: 2, success: 0.4, id: 'x' }, { cost: 1, success: 0.5, id: 'y' }])
 * // => [{ cost: 1, success: 0.5, id: 'y' }]
 */
export function paretoFrontier<T extends CostSuccessPoint>(points: readonly T[]): T[] {
  const mask = paretoMask(points)
  return points.filter((_, i) => mask[i]).sort((a, b) => a.cost - b.cost)
}
