/**
 * Cost against success for every actor, protocol and budget k = 1..K (paper section 5.1.3,
 * Figure 3): deploying K parallel tries (Pass@k) or revising with feedback up to k times (Seq@k).
 * Sequential attempts carry history and cost more each, but often succeed sooner, so the frontier
 * of Seq@k can lie above that of Pass@k.
 */
import { headlineCurve } from '../protocol/cell-metrics.js'
import { headlineMetric } from '../metrics/registry.js'
import type { CellSummary } from '../core/schemas.js'
import { INDEPENDENT, isIndependent } from './cell-scores.js'
import { paretoMask } from './pareto.js'
import type { CostSuccess, CostSuccessPointJson, CostSuccessSeries } from './report-schema.js'

function pointsOf(cell: CellSummary): CostSuccessPointJson[] {
  const independent = isIndependent(cell)
  return Array.from({ length: cell.budget }, (_, i) => {
    const k = i + 1
    const cost = cell.costAtK[i] ?? null
    const success = headlineCurve(cell).curve[i] ?? null
    let reason: string | null = null
    if (success === null) {
      reason = independent
        ? `Pass@${k} undefined (fewer than ${k} samples per task)`
        : cell.protocol.budgetDisclosed && k < cell.budget
          ? `budget disclosed to the actor: only Seq@${cell.budget} is valid`
          : `Seq@${k} undefined (no measured trajectory)`
    } else if (cost === null) {
      reason = 'unpriced: some calls have no known price'
    }
    return { actorId: cell.actorId, k, cost, success, onFrontier: false, reason }
  })
}

function mark(points: CostSuccessPointJson[]): void {
  const valid = points.filter((p) => p.reason === null)
  const mask = paretoMask(valid.map((p) => ({ cost: p.cost as number, success: p.success as number })))
  valid.forEach((p, i) => (p.onFrontier = mask[i] as boolean))
}

/**
 * One benchmark's cost–success points (mean cost per task from `costAtK`, success Pass@k or
 * Seq@k) for k = 1..K, the Pareto frontier of each protocol, and the frontier of all protocols
 * together. Points without a price or a rate are kept, marked with the reason, and left out of
 * every frontier (an unknown cost is never 0).
 *
 * @example
 * const figure = costSuccess('HumanEval Pro', cells)
 * figure.series.find((s) => s.protocol === 'verifier')?.frontier // cheapest first
 */
export function costSuccess(benchmark: string, cells: readonly CellSummary[]): CostSuccess {
  const protocols = [...new Set(cells.map((c) => (isIndependent(c) ? INDEPENDENT : c.mode)))].sort((a, b) =>
    a === INDEPENDENT ? -1 : b === INDEPENDENT ? 1 : 0,
  )
  const series: CostSuccessSeries[] = protocols.map((protocol) => {
    const points = cells.filter((c) => (isIndependent(c) ? INDEPENDENT : c.mode) === protocol).flatMap(pointsOf)
    mark(points)
    const frontier = points
      .filter((p) => p.onFrontier)
      .map((p) => ({ actorId: p.actorId, k: p.k, cost: p.cost as number, success: p.success as number }))
      .sort((a, b) => a.cost - b.cost || b.success - a.success)
    return { protocol, metric: headlineMetric(protocol === INDEPENDENT).family as 'Seq' | 'Pass', points, frontier }
  })
  const all = series.flatMap((s) =>
    s.points
      .filter((p) => p.reason === null)
      .map((p) => ({
        protocol: s.protocol,
        actorId: p.actorId,
        k: p.k,
        cost: p.cost as number,
        success: p.success as number,
      })),
  )
  const mask = paretoMask(all)
  const combinedFrontier = all.filter((_, i) => mask[i]).sort((a, b) => a.cost - b.cost || b.success - a.success)
  let note: string | null = null
  const unpriced = series.flatMap((s) => s.points).filter((p) => p.reason?.startsWith('unpriced')).length
  if (all.length === 0) note = 'no point has both a known cost and a rate: there is no frontier to draw'
  else if (all.every((p) => p.cost === 0))
    note =
      'every configuration cost $0 (simulated actors, or models priced at zero): the frontier is only the highest success rate'
  else if (unpriced > 0) note = `${unpriced} points are unpriced and left out of the frontiers`
  return { benchmark, series, combinedFrontier, note }
}
