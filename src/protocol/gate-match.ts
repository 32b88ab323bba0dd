/**
 * Which cell of a baseline (or of an earlier run) a cell is compared with. A cell's id is its
 * subject's id and its mode (`openai:gpt-4.1-mini · verifier`), so a change of model usually
 * changes the id: matching by id alone would find no baseline for exactly the change a pull
 * request wants gated. The rule, in order:
 *
 * 1. the baseline's cell with the same id;
 * 2. else, within the same mode, the baseline's cells that no cell of this run has by id, and the
 *    cells of this run that have no baseline cell by id: when there is exactly one of each, they
 *    are the same cell under a new subject (the eval has one subject per mode, or changed one);
 * 3. several on either side is ambiguous (which actor did the new one replace?): the gate fails
 *    closed and says how to settle it (a stable `id` on the actor, or `-u`);
 * 4. none in the baseline: the cell is new.
 *
 * Pure; used by the baseline gate of an eval file, `seqk merge`, `gateSummaries` and `seqk compare`.
 */

import type { CellSummary, RunSummary } from '../core/schemas.js'

/** A cell as matching sees it: its id and its mode (`independent` for independent sampling). */
export interface CellRef {
  cellId: string
  mode: string
}

/** The outcome of {@link matchBaselineCell}. */
export type BaselineMatch =
  | { kind: 'same-id'; cellId: string }
  | { kind: 'by-mode'; cellId: string }
  | { kind: 'none' }
  | { kind: 'ambiguous'; baseline: string[]; run: string[] }

/**
 * A stored cell's mode: its own field, or (files written before cells stored it) the part of its id
 * after the last ` · `, as seqEval names cells.
 *
 * @example
 * modeOfCell({ cellId: 'simulated:reviser · verifier' }) // => 'verifier'
 */
export function modeOfCell(cell: { cellId: string; mode?: string }): string {
  if (cell.mode !== undefined) return cell.mode
  const at = cell.cellId.lastIndexOf(' · ')
  return at < 0 ? cell.cellId : cell.cellId.slice(at + ' · '.length)
}

/**
 * The baseline cell `cell` is compared with (see the module comment for the rule).
 *
 * @param baseline - the baseline's cells of the same benchmark.
 * @param run - every cell of this run's benchmark (`cell` among them).
 * @example
 * matchBaselineCell({ cellId: 'b · verifier', mode: 'verifier' }, [{ cellId: 'a · verifier', mode: 'verifier' }], [{ cellId: 'b · verifier', mode: 'verifier' }])
 * // => { kind: 'by-mode', cellId: 'a · verifier' }
 */
export function matchBaselineCell(
  cell: CellRef,
  baseline: readonly { cellId: string; mode?: string }[],
  run: readonly CellRef[],
): BaselineMatch {
  if (baseline.some((b) => b.cellId === cell.cellId)) return { kind: 'same-id', cellId: cell.cellId }
  const ids = new Set(baseline.map((b) => b.cellId))
  const runIds = new Set([cell.cellId, ...run.map((r) => r.cellId)])
  const unclaimed = baseline.filter((b) => modeOfCell(b) === cell.mode && !runIds.has(b.cellId)).map((b) => b.cellId)
  if (unclaimed.length === 0) return { kind: 'none' }
  const unmatched = [
    ...new Set([cell, ...run].filter((r) => r.mode === cell.mode && !ids.has(r.cellId)).map((r) => r.cellId)),
  ]
  if (unclaimed.length === 1 && unmatched.length === 1) return { kind: 'by-mode', cellId: unclaimed[0]! }
  return { kind: 'ambiguous', baseline: unclaimed.sort(), run: unmatched.sort() }
}

/**
 * Why an ambiguous match cannot be gated, and how to settle it.
 *
 * @example
 * ambiguityText({ cellId: 'c · verifier', mode: 'verifier' }, match) // => 'this cell's id is not in the baseline, and …'
 */
export function ambiguityText(cell: CellRef, match: Extract<BaselineMatch, { kind: 'ambiguous' }>): string {
  const quoted = (ids: readonly string[]) => ids.map((id) => JSON.stringify(id)).join(', ')
  return `this cell's id is not in the baseline, and which of the baseline's ${match.baseline.length === 1 ? 'cell' : 'cells'} in mode ${JSON.stringify(cell.mode)} (${quoted(match.baseline)}) it replaces is ambiguous: this run has ${match.run.length === 1 ? 'one new cell' : `${match.run.length} new cells`} in that mode (${quoted(match.run)}). Give each actor a stable id (e.g. actors.openai({ model, id: 'assistant' })) so a new model keeps its cell's id, or accept the new cells with \`vitest run -u\`.`
}

/** A cell of one run that {@link pairRunCells} could not pair: on which side, and why when it was ambiguous. */
export interface UnpairedCell {
  benchmark: string
  cellId: string
  /** `earlier`: only in the earlier run (the baseline, run A); `later`: only in the later one. */
  side: 'earlier' | 'later'
  /** Set when a counterpart could not be told apart from another: why, and how to settle it. */
  ambiguous?: string
}

/**
 * Every cell of the later run with its cell in the earlier one, by benchmark, by the rule of
 * {@link matchBaselineCell}; and the cells of either run left unpaired.
 *
 * @example
 * const { pairs, unpaired } = pairRunCells(mainSummary, branchSummary)
 */
export function pairRunCells(
  earlier: RunSummary,
  later: RunSummary,
): {
  pairs: { benchmark: string; earlier: CellSummary; later: CellSummary }[]
  unpaired: UnpairedCell[]
} {
  const pairs: { benchmark: string; earlier: CellSummary; later: CellSummary }[] = []
  const unpaired: UnpairedCell[] = []
  const used = new Set<string>()
  for (const bench of later.benchmarks) {
    const before = earlier.benchmarks.filter((x) => x.name === bench.name).flatMap((x) => x.cells)
    const refs = bench.cells.map((c) => ({ cellId: c.cellId, mode: c.mode }))
    for (const cell of bench.cells) {
      const match = matchBaselineCell({ cellId: cell.cellId, mode: cell.mode }, before, refs)
      if (match.kind === 'none') unpaired.push({ benchmark: bench.name, cellId: cell.cellId, side: 'later' })
      else if (match.kind === 'ambiguous')
        unpaired.push({
          benchmark: bench.name,
          cellId: cell.cellId,
          side: 'later',
          ambiguous: ambiguityText(cell, match),
        })
      else {
        used.add(JSON.stringify([bench.name, match.cellId]))
        pairs.push({ benchmark: bench.name, earlier: before.find((c) => c.cellId === match.cellId)!, later: cell })
      }
    }
  }
  for (const bench of earlier.benchmarks)
    for (const cell of bench.cells)
      if (!used.has(JSON.stringify([bench.name, cell.cellId])))
        unpaired.push({ benchmark: bench.name, cellId: cell.cellId, side: 'earlier' })
  return { pairs, unpaired }
}
