/**
 * The run's equal-cost comparisons (Olausson et al. 2024): each sequential cell against
 * the independent cell of the same benchmark and actor, Seq@k at the mean spend per task by
 * attempt k against Pass@k at the mean spend of k samples, in tokens and in dollars, with where
 * one starts to beat the other. Read from the cell summaries (`spendAtK`, `seqAt`, `passAt`).
 */
import type { CellSummary, EqualCost, EqualCostCurves } from '../core/schemas.js'
import { compareAtEqualCost, type CostRatePoint } from '../metrics/equal-cost.js'
import { compactCount, money } from '../metrics/format.js'
import { headlineCurve } from './cell-metrics.js'

type Unit = 'tokens' | 'usd'

/**
 * A mean spend per task as the outputs print it: tokens compact, dollars as money.
 *
 * @example
 * spendText(1234.4, 'tokens') // => '1.2k tokens'
 * spendText(0.0042, 'usd') // => '$0.0042'
 */
export function spendText(value: number | null, unit: Unit): string {
  if (value === null) return 'unknown'
  return unit === 'usd' ? money(value) : `${compactCount(Math.round(value))} tokens`
}

/**
 * A verdict in a few words, for tables: who dominates, or who leads from which spend on.
 *
 * @example
 * equalCostShort(pair.tokens, 'tokens') // => 'independent ahead, sequential from 775 tokens'
 */
export function equalCostShort(curves: EqualCostCurves, unit: Unit): string {
  if (curves.verdict !== 'crossing') return curves.verdict.replace('-', ' ')
  const first = curves.crossings[0]!.leader === 'sequential' ? 'independent' : 'sequential'
  return `${first} ahead, ${curves.crossings.map((c) => `${c.leader} from ${spendText(c.cost, unit)}`).join(', ')}`
}

const measuredTasks = (cell: CellSummary): string[] =>
  cell.perTask
    .filter((t) => (t.samples ?? t.firstSuccess.length) > 0)
    .map((t) => t.taskId)
    .sort()

function pointsOf(cell: CellSummary, unit: Unit): EqualCost['tokens']['sequential'] {
  // The cell's headline curve: Seq@k for a sequential cell, Pass@k for an independent one.
  const rates = headlineCurve(cell).curve
  const spend = cell.spendAtK?.[unit] ?? []
  return Array.from({ length: cell.budget }, (_, i) => ({ k: i + 1, cost: spend[i] ?? null, rate: rates[i] ?? null }))
}

const who = { sequential: 'sequential revision', independent: 'independent sampling' } as const

/** The verdict in one sentence. */
function noteOf(curves: Omit<EqualCostCurves, 'note'>, unit: Unit, K: { seq: number; ind: number }): string {
  const span = `from ${spendText(curves.from, unit)} to ${spendText(curves.to, unit)} per task`
  switch (curves.verdict) {
    case 'sequential-dominates':
      return `sequential dominates: at every equal spend ${span}, Seq@k is at least Pass@k`
    case 'independent-dominates':
      return `independent dominates: at every equal spend ${span}, Pass@k is at least Seq@k`
    case 'equal':
      return `equal: the two curves agree at every equal spend ${span}`
    case 'crossing':
      return `crossing: ${curves.crossings
        .map((c) => `from ${spendText(c.cost, unit)} per task ${who[c.leader]} is ahead`)
        .join('; ')} (compared ${span}; budgets Seq@${K.seq}, Pass@${K.ind})`
    default:
      return ''
  }
}

function curvesOf(seq: CellSummary, ind: CellSummary, unit: Unit): EqualCostCurves {
  const sequential = pointsOf(seq, unit)
  const independent = pointsOf(ind, unit)
  const base = { sequential, independent, crossings: [], from: null, to: null }
  if (measuredTasks(seq).join('\n') !== measuredTasks(ind).join('\n'))
    return { ...base, verdict: 'not-comparable', note: 'not compared: the two cells did not measure the same tasks' }
  // A budget whose rate is undefined (Seq@k of a cell told its budget, k < K) is no point; a
  // budget with a rate and no known spend makes the comparison unknown, never a spend of 0.
  const rated = (ps: typeof sequential) => ps.filter((p) => p.rate !== null)
  const unknownSpend = [...rated(sequential), ...rated(independent)].some((p) => p.cost === null)
  const [s, p] = [rated(sequential), rated(independent)]
  if (unknownSpend || s.length === 0 || p.length === 0) {
    const why = unknownSpend
      ? `the ${unit === 'usd' ? 'dollars' : 'tokens'} spent are unknown (` +
        (unit === 'usd' ? 'a model has no price' : 'a reply reported no usage') +
        `${seq.spendAtK && ind.spendAtK ? '' : ', or the summary is older than spendAtK'})`
      : 'a cell has no measured rate'
    return { ...base, verdict: 'unknown', note: `unknown: ${why}; unknown is not 0` }
  }
  const reading = compareAtEqualCost(s as CostRatePoint[], p as CostRatePoint[])!
  const curves = { ...base, verdict: reading.verdict, crossings: reading.crossings, from: reading.from, to: reading.to }
  // Every budget at $0 (simulated or free models): the only equal spend is $0, where each protocol
  // has its best rate; the verdict compares those, and says so rather than a span "from $0 to $0".
  const free = [...s, ...p].every((q) => q.cost === 0)
  const note = free
    ? `${curves.verdict.replace('-', ' ')}: every budget spent $0 (simulated or free models), ` +
      'so only the best rates at $0 compare; the tokens tell the protocols apart'
    : noteOf(curves, unit, { seq: seq.budget, ind: ind.budget })
  return { ...curves, note }
}

/**
 * Each sequential cell against its actor's independent cell in the same benchmark (the one with
 * the largest budget, then the first cell id), in tokens and dollars. Empty without such pairs.
 *
 * @example
 * equalCostComparisons(summary.benchmarks.flatMap((b) => b.cells))[0]?.tokens.verdict // => 'crossing'
 */
export function equalCostComparisons(cells: readonly CellSummary[]): EqualCost[] {
  const out: EqualCost[] = []
  const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  for (const seq of cells) {
    if (seq.protocol.kind === 'independent') continue
    const ind = cells
      .filter((c) => c.protocol.kind === 'independent' && c.benchmark === seq.benchmark && c.actorId === seq.actorId)
      .sort((a, b) => b.budget - a.budget || byCodeUnits(a.cellId, b.cellId))[0]
    if (!ind) continue
    out.push({
      benchmark: seq.benchmark,
      actorId: seq.actorId,
      mode: seq.mode,
      sequential: seq.cellId,
      independent: ind.cellId,
      tokens: curvesOf(seq, ind, 'tokens'),
      usd: curvesOf(seq, ind, 'usd'),
    })
  }
  return out
}
