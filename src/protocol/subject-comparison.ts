/**
 * Two subjects on one instrument, compared paired by task: the variants of one run (seqEval's
 * `variants`: two instructions, two models, two app versions), or a cell of two runs (`seqk compare
 * <run A> <run B>`, `compareRuns`). Both go through {@link compareSubjects}, which is the baseline
 * gate's own comparison ({@link compareToBaseline}): so a variant table, `seqk compare` and the gate
 * give the same difference and interval for the same two subjects. Pure.
 */
import { headlineCurve } from './cell-metrics.js'
import { cellSubject } from '../core/instrument.js'
import type { CellSummary, RunSummary, SubjectComparison } from '../core/schemas.js'
import { headlineMetric } from '../metrics/registry.js'
import { finiteOrNull } from './interval-json.js'
import { compareToBaseline } from './gate.js'
import { pairRunCells } from './gate-match.js'

const rateAtK = (cell: CellSummary): number | null => {
  const curve = headlineCurve(cell).curve
  return curve[cell.budget - 1] ?? null
}

const side = (cell: CellSummary): SubjectComparison['a'] => ({
  cellId: cell.cellId,
  subject: cell.variant ?? cell.actorId,
  fingerprint: cellSubject(cell).fingerprint,
  rate: rateAtK(cell),
})

/**
 * B against A, paired over the tasks both measured with the same content: the difference of the
 * headline rate at K (Seq@K, or Pass@K for independent cells), its 95% interval and the one-sided
 * p-value of a drop, as the baseline gate computes them; what differs between the subjects; and,
 * when the instruments differ, no comparison and the fields that differ.
 *
 * @example
 * const row = compareSubjects(mainCell, branchCell)
 * row.diff // => { point: -0.1, lo: -0.18, hi: -0.03 }
 */
export function compareSubjects(a: CellSummary, b: CellSummary): SubjectComparison {
  const result = compareToBaseline(
    {
      fingerprint: a.fingerprint,
      protocol: a.protocol,
      perTask: a.perTask,
      seqAt: a.seqAt,
      passAt: a.passAt,
      recordedAt: '',
    },
    b,
    { power: false },
  )
  const atK = result.comparisons.find((c) => c.k === b.budget)
  const base = {
    benchmark: b.benchmark,
    mode: b.mode,
    a: side(a),
    b: side(b),
    metric: headlineMetric(b.protocol.kind).id,
    k: b.budget,
    tasks: 0,
    subjectChanges: result.subjectChanges,
    instrumentChanges: result.instrumentChanges,
  }
  if (!atK)
    return {
      ...base,
      diff: null,
      p: null,
      verdict: 'not-comparable',
      ...(result.reasons[0] ? { note: result.reasons[0] } : {}),
    }
  const diff = { point: finiteOrNull(atK.diff.point), lo: finiteOrNull(atK.diff.lo), hi: finiteOrNull(atK.diff.hi) }
  const verdict =
    diff.hi !== null && diff.hi < 0 ? 'worse' : diff.lo !== null && diff.lo > 0 ? 'better' : 'no-difference-seen'
  return { ...base, tasks: result.tasks, diff, p: finiteOrNull(atK.p), verdict }
}

/**
 * The variants of each benchmark compared pairwise, per mode, in the order they were declared
 * (each later variant against each earlier one: B − A). Shards' cells are left out (compared once merged).
 *
 * @example
 * variantComparisons(summary.benchmarks.flatMap((b) => b.cells)) // one row per pair of variants per mode
 */
export function variantComparisons(cells: readonly CellSummary[]): SubjectComparison[] {
  const groups = new Map<string, CellSummary[]>()
  // A shard's cells cover a share of the tasks: its variants are compared once merged.
  // A rewording (`perturb`) is compared with its original in the run's `robustness`, not pairwise here.
  for (const cell of cells.filter((c) => c.variant !== undefined && c.perturbation === undefined && !c.shard)) {
    const key = JSON.stringify([cell.benchmark, cell.mode])
    groups.set(key, [...(groups.get(key) ?? []), cell])
  }
  return [...groups.values()].flatMap((group) =>
    group.flatMap((a, i) => group.slice(i + 1).map((b) => compareSubjects(a, b))),
  )
}

/**
 * Every cell of run B against its cell in run A (a main run and a branch run): the same id, else the
 * one of the same mode whose subject's id changed (see matchBaselineCell). Cells with no counterpart,
 * or an ambiguous one, are listed apart, each with why.
 *
 * @example
 * const { rows } = compareRuns(readSummary('main/summary.json'), readSummary('branch/summary.json'))
 */
export function compareRuns(a: RunSummary, b: RunSummary): { rows: SubjectComparison[]; unmatched: string[] } {
  const { pairs, unpaired } = pairRunCells(a, b)
  return {
    rows: pairs.map((p) => compareSubjects(p.earlier, p.later)),
    unmatched: unpaired.map(
      (u) => `${u.benchmark} · ${u.cellId}: ${u.ambiguous ?? (u.side === 'later' ? 'only in run B' : 'only in run A')}`,
    ),
  }
}
