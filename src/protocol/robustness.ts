/**
 * A run's robustness rows: each reworded cell (seqEval's `perturb`) against its original cell, each
 * subject's rewordings pooled (`all rewordings`), and each agent cell with injected faults against
 * the same agent without them (`actors.agent({ faults })`), on the same tasks and instrument. A row
 * says both rates at K (Seq@K, or Pass@K for independent cells), their ratio with its 95% interval
 * (`metrics/robustness-ratio.ts`), and which tasks flipped. Pure: a function of the cells alone.
 */
import { cellInstrument } from '../core/instrument.js'
import type { CellSummary, RobustnessRow } from '../core/schemas.js'
import { headlineMetric } from '../metrics/registry.js'
import { RATIO_INTERVAL_METHOD, robustnessRatio, taskFlips, type PairedRates } from '../metrics/robustness-ratio.js'
import { taskRate } from '../metrics/task-rates.js'
import { finiteOrNull } from './interval-json.js'

/** A cell's rate at K per task and its content hash, by task id (tasks not measured left out). */
function ratesAtK(cell: CellSummary): Map<string, { rate: number; hash: string | undefined }> {
  const metric = headlineMetric(cell.protocol.kind).id
  const rates = new Map<string, { rate: number; hash: string | undefined }>()
  for (const row of cell.perTask) {
    const rate = taskRate(row, cell.budget, metric, cell.budget)
    if (Number.isFinite(rate)) rates.set(row.taskId, { rate, hash: row.contentHash })
  }
  return rates
}

/** The tasks measured in both, with the same content on both sides. */
function paired(original: CellSummary, others: readonly CellSummary[]): PairedRates[] {
  const base = ratesAtK(original)
  const sides = others.map(ratesAtK)
  const out: PairedRates[] = []
  for (const [taskId, { rate, hash }] of base) {
    const values = sides.map((s) => s.get(taskId))
    // The same task only: its content (prompt, tests) unchanged on both sides.
    if (values.some((v) => v === undefined || v.hash !== hash)) continue
    out.push({ taskId, original: rate, perturbed: values.reduce((s, v) => s + v!.rate, 0) / values.length })
  }
  return out
}

const rateOf = (pairs: readonly PairedRates[], side: 'original' | 'perturbed') =>
  pairs.length === 0 ? null : pairs.reduce((s, p) => s + p[side], 0) / pairs.length

/** One row: the original cell against one cell (or the mean of several) on the same instrument. */
function row(
  original: CellSummary,
  others: readonly CellSummary[],
  condition: string,
  kind: RobustnessRow['kind'],
): RobustnessRow {
  const base = {
    benchmark: original.benchmark,
    mode: original.mode,
    subject: original.variant ?? original.actorId,
    condition,
    kind,
    originalCellId: original.cellId,
    cellIds: others.map((c) => c.cellId),
    metric: headlineMetric(original.protocol.kind).id,
    k: original.budget,
    method: RATIO_INTERVAL_METHOD,
  }
  const instrument = cellInstrument(original).fingerprint
  if (others.some((c) => cellInstrument(c).fingerprint !== instrument || c.budget !== original.budget))
    return {
      ...base,
      tasks: 0,
      original: null,
      perturbed: null,
      ratio: null,
      lost: [],
      gained: [],
      note: 'another instrument (tasks, verifier, feedback, budget or repeats differ): not compared',
    }
  const pairs = paired(original, others)
  const r = robustnessRatio(pairs)
  const flips = taskFlips(pairs)
  return {
    ...base,
    tasks: pairs.length,
    original: rateOf(pairs, 'original'),
    perturbed: rateOf(pairs, 'perturbed'),
    ratio: Number.isNaN(r.point)
      ? null
      : { point: r.point, lo: r.lo, hi: r.bounded ? finiteOrNull(r.hi) : null, bounded: r.bounded },
    lost: flips.lost,
    gained: flips.gained,
    ...(Number.isNaN(r.point)
      ? {
          note:
            pairs.length < 2
              ? 'fewer than two tasks measured on both sides'
              : 'no task passed on the original: the ratio is undefined',
        }
      : {}),
  }
}

/** An agent's descriptor without its fault injector: the agent that the faulted one is compared with. */
function withoutFaults(cell: CellSummary): string {
  const { params, ...rest } = cell.protocol.actor
  const kept = Object.fromEntries(Object.entries(params).filter(([k]) => !k.startsWith('faults.')))
  return JSON.stringify([rest, Object.entries(kept).sort(([a], [b]) => (a < b ? -1 : 1))])
}

const hasFaults = (cell: CellSummary) => Object.keys(cell.protocol.actor.params).some((k) => k.startsWith('faults.'))

/**
 * Every robustness row of a run's cells: per benchmark and mode, each rewording against its
 * original, each subject's rewordings pooled when it has more than one, and each faulted agent
 * against the same agent without faults. Shards' cells are left out (compared once merged).
 *
 * @example
 * robustnessRows(summary.benchmarks.flatMap((b) => b.cells)).map((r) => [r.condition, r.ratio?.point])
 */
export function robustnessRows(cells: readonly CellSummary[]): RobustnessRow[] {
  const whole = cells.filter((c) => !c.shard)
  const rows: RobustnessRow[] = []
  const groups = new Map<string, CellSummary[]>()
  for (const cell of whole) {
    const key = JSON.stringify([cell.benchmark, cell.mode])
    groups.set(key, [...(groups.get(key) ?? []), cell])
  }
  for (const group of groups.values()) {
    const originals = group.filter((c) => c.perturbation === undefined)
    for (const original of originals) {
      const subject = original.variant ?? original.actorId
      const reworded = group.filter((c) => c.perturbation?.of === subject)
      for (const cell of reworded) rows.push(row(original, [cell], cell.perturbation!.name, cell.perturbation!.kind))
      if (reworded.length > 1) rows.push(row(original, reworded, 'all rewordings', 'all'))
    }
    for (const faulted of originals.filter(hasFaults)) {
      const key = withoutFaults(faulted)
      const clean = originals.filter((c) => !hasFaults(c) && withoutFaults(c) === key)
      if (clean.length === 1) rows.push({ ...row(clean[0]!, [faulted], 'faults', 'faults') })
    }
  }
  return rows
}
