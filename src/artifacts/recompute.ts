import type { CellRef } from '../protocol/gate-match.js'
import { plural } from '../metrics/format.js'
import type { CellSummary, GateJson, RunSummary, ThresholdResult, Trajectory } from '../core/schemas.js'
import { SUMMARY_SCHEMA } from '../core/schemas.js'
import type { CellEndRecord, CellStartRecord } from './cells-file.js'
import { summariseCell } from '../protocol/cell-summary.js'
import { historyComparisons } from '../protocol/history-comparison.js'
import { equalCostComparisons } from '../protocol/equal-cost.js'
import { variantComparisons } from '../protocol/subject-comparison.js'
import { shardOfTask } from '../protocol/shard.js'
import { storedVerdict } from '../protocol/verdict.js'

/** The threshold line of a cell that did not run to its end: failed, saying why and how far it got. */
export function unfinishedThreshold(why: string, ended: number, total: number): ThresholdResult {
  return {
    metric: 'finished',
    k: null,
    limit: total,
    actual: ended,
    pass: false,
    message: `the cell did not finish: ${why}; ${ended} of ${plural(total, 'trajectory', 'trajectories')} had ended (in trajectories.jsonl, and in the rates shown, which cover only them)`,
  }
}

/** A cell's trajectories in the order the cell reports them: its tasks as declared, then repeat. */
export function inCellOrder(trajectories: readonly Trajectory[], taskIds: readonly string[]): Trajectory[] {
  const position = new Map(taskIds.map((id, i) => [id, i]))
  return [...trajectories].sort(
    (a, b) => (position.get(a.taskId) ?? Infinity) - (position.get(b.taskId) ?? Infinity) || a.repeat - b.repeat,
  )
}

/**
 * One cell's summary from what it declared (`cells.jsonl`) and its trajectories alone: the same
 * function, on the same inputs, the cell's test ran. A cell with no end record, or fewer
 * trajectories than it declared, is failed as unfinished. `gate` applies its baseline, if any.
 */
export function recomputeCell(
  start: CellStartRecord,
  end: CellEndRecord | undefined,
  onFile: readonly Trajectory[],
  gate?: (summary: CellSummary) => GateJson,
): CellSummary {
  // A shard's cell ran its share of the declared tasks (see SEQK_SHARD), and is summarised as it was.
  const shard = start.shard
  const taskIds = shard ? start.taskIds.filter((id) => shardOfTask(id, shard.count) === shard.index) : start.taskIds
  const mine = inCellOrder(
    onFile.filter(
      (t) =>
        t.runId === start.runId &&
        t.benchmark === start.benchmark &&
        t.cellId === start.cellId &&
        t.fingerprint === start.fingerprint &&
        t.repeat < start.repeats,
    ),
    taskIds,
  )
  let summary = summariseCell({
    runId: start.runId,
    benchmark: start.benchmark,
    cellId: start.cellId,
    actorId: start.actorId,
    ...(start.variant !== undefined ? { variant: start.variant } : {}),
    mode: start.mode,
    protocol: start.protocol,
    fingerprint: start.fingerprint,
    taskIds,
    taskHashes: start.taskHashes,
    repeats: start.repeats,
    trajectories: mine,
    thresholds: start.thresholds,
    errors: start.errors,
    durationMs: end?.durationMs ?? 0,
    ...(start.knownUnstable ? { knownUnstable: start.knownUnstable } : {}),
  })
  const total = taskIds.length * start.repeats
  if (!end || end.unfinished !== undefined || mine.length < total) {
    const why =
      end?.unfinished ??
      (end
        ? 'trajectories are missing from trajectories.jsonl'
        : 'it has no end record (a timeout, a crash or a cancel)')
    return {
      ...summary,
      thresholds: [unfinishedThreshold(why, mine.length, total), ...summary.thresholds],
      verdict: 'fail',
      ...(shard ? { shard } : {}),
    }
  }
  // Its thresholds and baseline wait for the merge, as when it ran.
  if (shard) return { ...summary, thresholds: [], verdict: 'shard', shard }
  if (start.baseline && gate) {
    const result = gate(summary)
    summary = { ...summary, gate: result, verdict: storedVerdict({ ...summary, gate: result }) }
  }
  return summary
}

/**
 * Benchmarks in a stable order: by eval file, then as first seen in it (the order a file declares
 * them). The reporter and a recomputation order them alike, whatever order the files finished in.
 */
export function benchmarkBlocks(cells: readonly (CellSummary & { file: string })[]): RunSummary['benchmarks'] {
  const blocks = new Map<string, { name: string; file: string; cells: CellSummary[] }>()
  for (const { file, ...cell } of cells) {
    const key = `${file}\u0000${cell.benchmark}`
    if (!blocks.has(key)) blocks.set(key, { name: cell.benchmark, file, cells: [] })
    blocks.get(key)!.cells.push(cell)
  }
  return [...blocks.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
}

/**
 * A run's summary from its directory's files alone (`cells.jsonl` and `trajectories.jsonl`):
 * every cell recomputed as its test computed it, the benchmarks in the reporter's order, the
 * history comparisons between them.
 *
 * @example
 * const summary = recomputeRun({ runId, createdAt: new Date().toISOString(), cells: readCells(dir + '/cells.jsonl').cells, trajectories: readTrajectories(dir + '/trajectories.jsonl').trajectories })
 */
export function recomputeRun(input: {
  runId: string
  createdAt: string
  cells: readonly { start: CellStartRecord; end: CellEndRecord | undefined }[]
  trajectories: readonly Trajectory[]
  /** The baseline gate of a cell; `cells` are every cell of its benchmark in the run (see matchBaselineCell). */
  gate?: (start: CellStartRecord, summary: CellSummary, cells: readonly CellRef[]) => GateJson
}): RunSummary {
  const siblings = (benchmark: string): CellRef[] =>
    input.cells
      .filter((c) => c.start.benchmark === benchmark)
      .map((c) => ({ cellId: c.start.cellId, mode: c.start.mode }))
  const cells = input.cells.map(({ start, end }) => ({
    ...recomputeCell(
      start,
      end,
      input.trajectories,
      input.gate && ((summary) => input.gate!(start, summary, siblings(start.benchmark))),
    ),
    file: start.file,
  }))
  const benchmarks = benchmarkBlocks(cells)
  const comparisons = historyComparisons(benchmarks.flatMap((b) => b.cells))
  const variants = variantComparisons(benchmarks.flatMap((b) => b.cells))
  const equalCost = equalCostComparisons(benchmarks.flatMap((b) => b.cells))
  return {
    schema: SUMMARY_SCHEMA,
    runId: input.runId,
    createdAt: input.createdAt,
    benchmarks,
    ...(comparisons.length > 0 ? { historyComparisons: comparisons } : {}),
    ...(variants.length > 0 ? { variantComparisons: variants } : {}),
    ...(equalCost.length > 0 ? { equalCost } : {}),
  }
}
