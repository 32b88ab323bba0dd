// The public face of `vitest-seqk/gate`: the baseline gate and its power, callable from a script
// (two summary.json files, a cell and its baseline, or a planned size), with no Vitest around it.
import type { CellSummary, RunSummary } from '../core/schemas.js'
import { RunSummaryFileSchema } from '../core/summary-upgrade.js'
import { describeZodError } from '../core/zod-errors.js'
import { compareToBaseline, gateMetricOf, type BaselineCell, type GateOptions, type GateResult } from './gate.js'
import { pairRunCells } from './gate-match.js'

export { compareToBaseline, GATE_PROTOCOL, gateMetricOf, protocolChanges } from './gate.js'
export { matchBaselineCell, pairRunCells, type BaselineMatch, type CellRef, type UnpairedCell } from './gate-match.js'
export { couldNotSee, gateNoteLines, subjectChangeText } from './gate-notes.js'
export { compareRuns, compareSubjects, variantComparisons } from './subject-comparison.js'
export type { SubjectComparison } from '../core/schemas.js'
export type { BaselineCell, GateComparison, GateMetric, GateOptions, GatePower, GateResult, GateRule } from './gate.js'
export { ALTERNATIVES, detectableDrop, gatePower, powerAnswer, TARGET_POWER } from './gate-power.js'
export type { Alternative, AlternativePower, PowerQuestion, SpreadSource } from './gate-power.js'
export { decideGate } from './gate-rule.js'

/**
 * A cell summary as a baseline keeps it: its protocol, fingerprint and per-task outcomes, enough to
 * recompute every number it is compared on.
 *
 * @param recordedAt - when the baseline run was made (a summary's `createdAt`); the gate does not read it.
 * @example
 * const run = readSummary('main/summary.json')
 * const baseline = baselineOf(run.benchmarks[0].cells[0], run.createdAt)
 */
export function baselineOf(cell: CellSummary, recordedAt = ''): BaselineCell {
  return {
    fingerprint: cell.fingerprint,
    protocol: cell.protocol,
    mode: cell.mode,
    perTask: cell.perTask,
    seqAt: cell.seqAt,
    passAt: cell.passAt,
    recordedAt,
  }
}

/**
 * The gate on one cell against the same cell of an earlier run: {@link compareToBaseline} with the
 * earlier summary as the baseline.
 *
 * @example
 * const result = compareCells(mainCell, branchCell, { maxDrop: 0.05 })
 * if (!result.pass) console.error(result.reasons.join('\n'))
 */
export function compareCells(baseline: CellSummary, current: CellSummary, options: GateOptions = {}): GateResult {
  return compareToBaseline(baselineOf(baseline), current, options)
}

/** The gate over every cell of two runs, matched by benchmark and cell id, else by mode (see matchBaselineCell). */
export interface SummaryGate {
  /** Every cell of the baseline has a counterpart that passed, and no cell is without a baseline. */
  pass: boolean
  /** Each compared cell; `baselineCellId` is the baseline's cell it was matched with (another id when its subject's id changed). */
  cells: { benchmark: string; cellId: string; baselineCellId: string; result: GateResult }[]
  /** Cells of one run with no counterpart in the other, one sentence each (they fail the gate). */
  unmatched: string[]
  /** Why the gate failed, one sentence each, prefixed with the cell. */
  reasons: string[]
}

function checked(summary: unknown, which: 'baseline' | 'current'): RunSummary {
  const parsed = RunSummaryFileSchema.safeParse(summary)
  if (!parsed.success)
    throw new Error(
      `gateSummaries: the ${which} summary is not a seqk summary: ${describeZodError(parsed.error)}; pass the parsed summary.json (readSummary from vitest-seqk/artifacts reads one)`,
    )
  return parsed.data
}

/**
 * Gates a run against an earlier one, as the baseline gate of an eval file does, from their
 * summary.json files: every cell of each benchmark is compared with the cell of the same id in the
 * baseline, else with the one of its mode whose subject's id changed (a new model: see
 * matchBaselineCell), paired over the common tasks under the same instrument, with what the gate
 * could see. A changed subject is compared and said (`result.subjectChanges`, before → after); a
 * changed instrument fails naming the field. Fails closed: a cell on one side only, or one whose
 * match is ambiguous, cannot show it did not regress, so it fails the gate and says so.
 *
 * @param baseline - the earlier run's summary (e.g. from the main branch).
 * @param current - this run's summary.
 * With `metric: 'reliability'` every cell is gated on its own protocol's "every time" rate
 * (Seq^K with feedback, pass^K for independent sampling) against the same cell of the baseline.
 *
 * @throws Error when either is not a valid summary, naming which and the field, or when
 *   `options.metric` names neither a metric nor a role.
 * @example
 * import { readSummary } from 'vitest-seqk/artifacts'
 * import { gateSummaries } from 'vitest-seqk/gate'
 *
 * const gate = gateSummaries(readSummary('main/summary.json'), readSummary('.seqk/runs/latest/summary.json'))
 * for (const cell of gate.cells) console.log(cell.cellId, cell.result.power?.sentence)
 * if (!gate.pass) {
 *   console.error(gate.reasons.join('\n'))
 *   process.exitCode = 1
 * }
 */
export function gateSummaries(baseline: RunSummary, current: RunSummary, options: GateOptions = {}): SummaryGate {
  const [before, now] = [checked(baseline, 'baseline'), checked(current, 'current')]
  // A bad setting is the caller's to fix before any cell is judged (not a failed gate per cell).
  gateMetricOf(options.metric, 'sequential', 'gateSummaries: options.metric')
  const gate: SummaryGate = { pass: true, cells: [], unmatched: [], reasons: [] }
  const { pairs, unpaired } = pairRunCells(before, now)
  for (const { benchmark, earlier, later } of pairs) {
    const result = compareToBaseline(baselineOf(earlier, before.createdAt), later, options)
    gate.cells.push({ benchmark, cellId: later.cellId, baselineCellId: earlier.cellId, result })
    const named = earlier.cellId === later.cellId ? later.cellId : `${later.cellId} (against ${earlier.cellId})`
    if (!result.pass) gate.reasons.push(...result.reasons.map((r) => `${benchmark} · ${named}: ${r}`))
  }
  for (const u of unpaired)
    gate.unmatched.push(
      `${u.benchmark} · ${u.cellId}: ${
        u.ambiguous ??
        (u.side === 'later'
          ? 'not in the baseline run, so nothing says it did not regress'
          : 'in the baseline run but not in this one')
      }`,
    )
  gate.reasons.push(...gate.unmatched)
  gate.pass = gate.reasons.length === 0
  return gate
}
