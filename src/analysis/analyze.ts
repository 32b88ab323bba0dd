/**
 * The whole cross-actor analysis of one or more runs, as plain JSON (validated by
 * `AnalysisReportSchema`): what `seqk analyze` prints and writes, and what the HTML report renders.
 */
import { heldOutGapLine } from '../protocol/held-out-gap.js'
import { verifierUnstableLine } from '../protocol/verifier-unstable.js'
import type { CellSummary } from '../core/schemas.js'
import {
  AnalysisInputError,
  INDEPENDENT,
  isIndependent,
  passAtFromCell,
  seqCurveFromCell,
  TruncationRefusedError,
} from './cell-scores.js'
import { assertComparable, ComparabilityError, crossProtocolNotes } from './comparability.js'
import { bestNonBinaryPairs, protocolCorrelations } from './correlations.js'
import { costSuccess } from './cost-success.js'
import { equalCostComparisons } from '../protocol/equal-cost.js'
import { asLoadedRuns, sourcedCells, type LoadedRun, type RunInput } from './load-runs.js'
import { modelSelection, selectionTable } from './model-selection.js'
import { compareRankings } from './rankings.js'
import { reliabilitySections } from './reliability.js'
import {
  ANALYSIS_SCHEMA,
  SELECTION_SCHEMA,
  type AnalysisReport,
  type CorrelationPair,
  type Correlations,
  type Ranking,
  type Selection,
  type SelectionReport,
  type SelectionSkipped,
  type Source,
} from './report-schema.js'
import { revisionTimingTable } from './revision-timing.js'
import { pooledRevisionAnnotation, revisionAnnotationSection } from './revision-annotation.js'

/** How `seqk select` calibrates: the Seq@k depth, the draws, the resamples and the largest calibration size. */
export interface SelectionSettings {
  /** Seq@k calibration depth (default min(3, K)). */
  k?: number
  /** Calibration draws per size and direction (default 200). */
  draws?: number
  /** Bootstrap resamples over tasks (default 200). */
  resamples?: number
  /** Largest calibration size (default 20). */
  maxN?: number
}

/** The options of `analyzeRuns`: the k compared, the seed, the resamples and the model-selection section. */
export interface AnalyzeOptions {
  /** Compare Pass@k with Seq@k at this k (default: each benchmark's budget K). */
  k?: number
  /** Seed of every bootstrap and draw (default 1). */
  seed?: number
  /** Bootstrap resamples for the correlations (default 1000). */
  resamples?: number
  /** The model-selection section: settings, or false to leave it out. */
  selection?: SelectionSettings | false
}

/** The options of `selectModels`: the selection settings and the seed. */
export interface SelectOptions extends SelectionSettings {
  seed?: number
  /** Only this feedback mode (default: every mode with independent cells beside it). */
  mode?: string
  /** Only this benchmark (default: all). */
  benchmark?: string
}

/** A benchmark's cells, split by protocol. */
interface BenchmarkCells {
  name: string
  cells: CellSummary[]
  actors: string[]
  independent: Map<string, CellSummary>
  /** Mode name → actor → cell, modes in order of appearance. */
  modes: Map<string, Map<string, CellSummary>>
  binaryModes: Set<string>
}

function byBenchmark(runs: readonly LoadedRun[]): BenchmarkCells[] {
  const out = new Map<string, BenchmarkCells>()
  for (const { cell } of sourcedCells(runs)) {
    let b = out.get(cell.benchmark)
    if (b === undefined)
      out.set(
        cell.benchmark,
        (b = {
          name: cell.benchmark,
          cells: [],
          actors: [],
          independent: new Map(),
          modes: new Map(),
          binaryModes: new Set(),
        }),
      )
    b.cells.push(cell)
    if (!b.actors.includes(cell.actorId)) b.actors.push(cell.actorId)
    if (isIndependent(cell)) b.independent.set(cell.actorId, cell)
    else {
      const mode = b.modes.get(cell.mode) ?? new Map<string, CellSummary>()
      mode.set(cell.actorId, cell)
      b.modes.set(cell.mode, mode)
      if (cell.protocol.feedback?.kind === 'binary') b.binaryModes.add(cell.mode)
    }
  }
  return [...out.values()]
}

/** The object without its undefined entries, so defaults spread before it are not erased. */
function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

function sources(runs: readonly LoadedRun[]): Source[] {
  return runs.map((r) => ({ path: r.path, runId: r.summary.runId, createdAt: r.summary.createdAt }))
}

function budgetOf(cells: Iterable<CellSummary>): number | null {
  for (const c of cells) return c.budget
  return null
}

/** The k at which a benchmark's mode is compared with its independent cells. */
function compareK(b: BenchmarkCells, mode: string, requested: number | undefined): number {
  const seqK = budgetOf((b.modes.get(mode) as Map<string, CellSummary>).values()) as number
  const passK = budgetOf(b.independent.values()) ?? seqK
  if (requested === undefined) return Math.min(passK, seqK)
  if (!Number.isInteger(requested) || requested < 1)
    throw new AnalysisInputError(`k must be an integer >= 1 (got ${String(requested)})`)
  if (requested > Math.min(passK, seqK))
    throw new AnalysisInputError(
      `k=${requested} exceeds the budget of ${b.name} (independent K=${passK}, ${mode} K=${seqK})`,
    )
  return requested
}

function rankingsAndPairs(
  b: BenchmarkCells,
  k: number | undefined,
): { rankings: Ranking[]; pairs: Map<string, CorrelationPair[]> } {
  const rankings: Ranking[] = []
  const pairs = new Map<string, CorrelationPair[]>()
  if (b.independent.size === 0) return { rankings, pairs }
  for (const [mode, cells] of b.modes) {
    const kk = compareK(b, mode, k)
    const pass = new Map<string, number | null>()
    const seq = new Map<string, number | null>()
    const modePairs: CorrelationPair[] = []
    for (const [actorId, ind] of b.independent) pass.set(actorId, passAtFromCell(ind, kk))
    for (const [actorId, cell] of cells) {
      const curve = seqCurveFromCell(cell, kk)
      seq.set(actorId, curve[kk - 1] ?? null)
      const ind = b.independent.get(actorId)
      const passAt = ind ? passAtFromCell(ind, kk) : null
      const pass1 = ind ? passAtFromCell(ind, 1) : null
      const seqAt = curve[kk - 1] ?? null
      const seq1 = curve[0] ?? null
      if (passAt !== null && pass1 !== null && seqAt !== null && seq1 !== null) {
        modePairs.push({
          benchmark: b.name,
          actorId,
          mode,
          k: kk,
          passAt,
          seqAt,
          passGain: passAt - pass1,
          seqGain: seqAt - seq1,
        })
      }
    }
    rankings.push(compareRankings({ benchmark: b.name, mode, k: kk, pass, seq }))
    pairs.set(mode, modePairs)
  }
  return { rankings, pairs }
}

/** Model selection for one benchmark and mode; refusals propagate. */
function selectFor(b: BenchmarkCells, mode: string, settings: SelectionSettings, seed: number): Selection {
  const table = selectionTable({
    benchmark: b.name,
    mode,
    independent: [...b.independent.values()],
    sequential: [...(b.modes.get(mode) as Map<string, CellSummary>).values()],
    k: settings.k,
  })
  return modelSelection(table, { draws: settings.draws, resamples: settings.resamples, maxN: settings.maxN, seed })
}

/**
 * Analyses runs the way the paper compares actors: rankings and gaps under Pass@k and Seq@k per
 * feedback mode (Table 3), Spearman correlations of levels and gains over actor × benchmark pairs
 * (Figure 4), revision timing (Table 4), whether revisions addressed the feedback (Figure 5b, per
 * benchmark and pooled over benchmarks, never across annotators), cost–success points and Pareto frontiers (Figure 3), and
 * the model-selection experiment (Figure 2, Table 2; skipped with the reason where it cannot run).
 *
 * @throws ComparabilityError when cells to be compared differ in protocol beyond the actor (the
 *   error names every differing field), or one actor was measured twice.
 * @throws TruncationRefusedError when `k` < K on a run whose actor was told its budget.
 * @throws AnalysisInputError when `k` exceeds a budget.
 * @example
 * const report = analyzeRuns(loadRuns(['.seqk/runs/latest']).runs)
 * report.benchmarks[0]?.rankings[0]?.reversals // pairs whose order flips from Pass@K to Seq@K
 */
export function analyzeRuns(inputs: readonly RunInput[], options: AnalyzeOptions = {}): AnalysisReport {
  const runs = asLoadedRuns(inputs)
  const cells = sourcedCells(runs)
  assertComparable(cells)
  const seed = options.seed ?? 1
  const resamples = options.resamples ?? 1000
  const selection =
    options.selection === false ? false : { draws: 200, resamples: 200, ...defined(options.selection ?? {}) }
  const notes = crossProtocolNotes(cells)
  if (cells.length === 0) notes.push('the runs hold no cells')
  const pairsByMode = new Map<string, CorrelationPair[]>()
  const binaryModes = new Set<string>()
  const grouped = byBenchmark(runs)
  const benchmarks: AnalysisReport['benchmarks'] = grouped.map((b) => {
    const bNotes: string[] = []
    const { rankings, pairs } = rankingsAndPairs(b, options.k)
    if (b.independent.size === 0)
      bNotes.push('no independent cells: there is no Pass@K to rank, correlate or calibrate against')
    if (b.modes.size === 0) bNotes.push('no feedback-mode cells: there is no Seq@K to rank, time or deploy with')
    for (const [mode, modePairs] of pairs) pairsByMode.set(mode, [...(pairsByMode.get(mode) ?? []), ...modePairs])
    for (const mode of b.binaryModes) binaryModes.add(mode)
    const reliability = reliabilitySections(b.name, b.independent, b.modes)
    const selections: Selection[] = []
    const skipped: SelectionSkipped[] = []
    if (selection !== false && b.independent.size > 0) {
      for (const mode of b.modes.keys()) {
        try {
          selections.push(selectFor(b, mode, selection, seed))
        } catch (error) {
          // In the overview a selection that cannot run is reported, not fatal; `seqk select` refuses.
          if (
            error instanceof TruncationRefusedError ||
            error instanceof AnalysisInputError ||
            error instanceof ComparabilityError
          )
            skipped.push({ benchmark: b.name, mode, reason: error.message })
          else throw error
        }
      }
    }
    return {
      name: b.name,
      actors: b.actors,
      modes: [...b.modes.keys()],
      rankings,
      reliability,
      timing: revisionTimingTable(b.cells, options.k),
      costSuccess: costSuccess(b.name, b.cells),
      equalCost: equalCostComparisons(b.cells),
      revisionAnnotation: revisionAnnotationSection(b.cells),
      statistics: b.cells.map((c) => ({ cellId: c.cellId, statistics: c.statistics })),
      selection: selections,
      selectionSkipped: skipped,
      notes: [
        ...bNotes,
        ...b.cells.flatMap((cell) => heldOutGapLine(cell) ?? []),
        ...b.cells.flatMap((cell) => verifierUnstableLine(cell) ?? []),
      ],
    }
  })
  const correlations: Correlations[] = [...pairsByMode].map(([mode, pairs]) =>
    protocolCorrelations(mode, pairs, { seed, resamples }),
  )
  const nonBinary = [...pairsByMode.keys()].filter((m) => !binaryModes.has(m))
  if (nonBinary.length > 1)
    correlations.push(
      protocolCorrelations('best non-binary', bestNonBinaryPairs(pairsByMode, binaryModes), { seed, resamples }),
    )
  return {
    schema: ANALYSIS_SCHEMA,
    sources: sources(runs),
    options: { k: options.k ?? null, seed, resamples, draws: selection === false ? 0 : selection.draws },
    benchmarks,
    correlations,
    revisionAnnotationPooled: pooledRevisionAnnotation(grouped),
    notes,
  }
}

/**
 * The model-selection experiment alone (`seqk select`), for every benchmark and feedback mode
 * with independent cells beside it, or the ones asked for.
 *
 * @throws TruncationRefusedError when the Seq@k calibration would read a truncated run whose actor
 *   knew its budget; ComparabilityError as {@link analyzeRuns}; AnalysisInputError for an unknown
 *   benchmark or mode, a k out of range, or nothing to select from.
 * @example
 * const report = selectModels(loadRuns(['.seqk/runs/latest']).runs, { k: 3, draws: 200, seed: 1 })
 * report.selections[0]?.sizes.at(-1)?.gain // held-out Seq@K gained by calibrating with Seq@3
 */
export function selectModels(inputs: readonly RunInput[], options: SelectOptions = {}): SelectionReport {
  const runs = asLoadedRuns(inputs)
  assertComparable(sourcedCells(runs))
  const seed = options.seed ?? 1
  const settings = { draws: 200, resamples: 200, maxN: 20, ...defined(options) }
  let benchmarks = byBenchmark(runs)
  if (options.benchmark !== undefined) {
    const names = benchmarks.map((b) => b.name)
    benchmarks = benchmarks.filter((b) => b.name === options.benchmark)
    if (benchmarks.length === 0)
      throw new AnalysisInputError(
        `no benchmark named "${options.benchmark}" in these runs (found: ${names.map((n) => `"${n}"`).join(', ') || 'none'})`,
      )
  }
  const selections: Selection[] = []
  const notes: string[] = []
  for (const b of benchmarks) {
    if (b.independent.size === 0) {
      notes.push(`${b.name}: no independent cells, so no Pass@K calibration to compare with`)
      continue
    }
    const modes =
      options.mode === undefined ? [...b.modes.keys()] : [...b.modes.keys()].filter((m) => m === options.mode)
    if (options.mode !== undefined && modes.length === 0) {
      throw new AnalysisInputError(
        `${b.name} has no "${options.mode}" cells (modes: ${[...b.modes.keys()].map((m) => `"${m}"`).join(', ') || 'none'}${b.independent.size > 0 ? `; "${INDEPENDENT}" is the Pass@K side` : ''})`,
      )
    }
    for (const mode of modes) {
      try {
        selections.push(selectFor(b, mode, settings, seed))
      } catch (error) {
        if (error instanceof TruncationRefusedError && options.mode === undefined && b.modes.size > 1) {
          throw new TruncationRefusedError(
            `${error.message}\n(choose another mode with --mode, or calibrate with k = K)`,
          )
        }
        // Too few actors or tasks in one place is not a reason to drop the others; refusals are.
        if (error instanceof AnalysisInputError) notes.push(error.message)
        else throw error
      }
    }
  }
  if (selections.length === 0) {
    throw new AnalysisInputError(
      `nothing to select from: model selection needs, on one benchmark, an independent cell and a feedback mode's cell for each of at least 2 actors, on at least 2 common tasks${notes.length > 0 ? `\n${notes.map((n) => `  - ${n}`).join('\n')}` : ''}`,
    )
  }
  return {
    schema: SELECTION_SCHEMA,
    sources: sources(runs),
    options: { k: options.k ?? null, seed, resamples: settings.resamples, draws: settings.draws, maxN: settings.maxN },
    selections,
    notes,
  }
}
