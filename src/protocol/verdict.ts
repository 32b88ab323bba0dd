/**
 * The verdict model: the one reading of whether a cell and a run passed, from which every output
 * derives its status, counts and reasons (the terminal table, Vitest's own result, summary.json,
 * pr-comment.md, the step summary, annotations, the report and the live view). Pure.
 *
 * - A failed check is counted once, whatever prints it: a missed threshold is one check, a failed
 *   baseline gate is one check (its lines are details of that check, not checks of their own).
 * - A cell that did not finish or measured nothing has that one root cause: the thresholds it
 *   could not judge follow from it and are not counted again.
 * - A cell that checked nothing (no threshold, no tolerated error rate, no compared baseline) is
 *   `no-thresholds`, never `pass`.
 * - A run fails when a cell fails, when an eval file failed to load, or on any other problem the
 *   run reports; it passes only when something was checked.
 */
import type { CellSummary, GateJson, RunSummary, ThresholdResult } from '../core/schemas.js'
import { CELL_STATUSES, STATUS_TEXT, type CellStatus, type CellVerdictStatus } from '../core/kinds.js'
import { couldNotSee, subjectChangeText } from './gate-notes.js'

export { CELL_STATUSES, STATUS_TEXT, type CellStatus }

/** One check of a cell: a threshold, the baseline gate, or the root cause of a cell that did not measure. */
export interface Check {
  kind: 'threshold' | 'gate' | 'finished' | 'measured'
  pass: boolean
  /** One line: what was checked and how it went. */
  message: string
  /** Further lines of the same check (the gate's other findings), never counted as checks. */
  details: string[]
  /**
   * Lines every output shows beside the check, pass or fail: the change of subject a baseline gate
   * compared across, before → after.
   */
  notes: string[]
  /**
   * A check that held but says less than a pass would: a baseline gate too small to see the drop
   * that matters (its message says what it could see). Outputs mark it ⚠️, never a bare ✅.
   */
  caution?: boolean
}

export interface CellVerdict {
  status: CellVerdictStatus
  /** The failed checks, each counted once: `failed.length` is the count every output prints. */
  failed: Check[]
  /** The checks that held (a met error-rate limit of zero with no error is no check). */
  passed: Check[]
  /** Thresholds a root cause kept from being judged (not counted). */
  unjudged: ThresholdResult[]
}

/** Whether a threshold asserts anything: a rate, or an error rate tolerated above zero (zero is the default). */
function asserts(t: ThresholdResult): boolean {
  return t.metric !== 'maxErrorRate' || t.limit > 0
}

function gateCheck(gate: GateJson): Check | undefined {
  if (gate.status === 'written' || gate.status === 'updated') return undefined
  const pass = gate.status === 'pass'
  const change = subjectChangeText(gate)
  const blind = couldNotSee(gate)
  // The change of subject is a note of its own; files written before it was one say it nowhere else.
  const [first, ...rest] = gate.messages.filter((m) => m !== change)
  // A gate that passed but could not see the drop that matters says so instead of "no regression" (older files too).
  const message = `baseline: ${blind ?? first ?? (pass ? 'no regression' : 'failed')}`
  const details = blind ? rest.filter((m) => m !== blind) : rest
  return { kind: 'gate', pass, message, details, notes: change ? [change] : [], ...(blind ? { caution: true } : {}) }
}

const check = (t: ThresholdResult): Check => ({
  kind: t.metric === 'finished' || t.metric === 'measured' ? t.metric : 'threshold',
  pass: t.pass,
  message: t.message,
  details: [],
  notes: [],
})

/**
 * A cell's verdict from its thresholds, its baseline gate and its shard.
 *
 * @example
 * const v = cellVerdict(cell)
 * v.status // => 'fail'
 * v.failed.map((c) => c.message) // => ['Seq@5 = 40.0%, below the required 50.0%']
 */
export function cellVerdict(cell: Pick<CellSummary, 'thresholds' | 'gate' | 'shard'>): CellVerdict {
  if (cell.shard) return { status: 'shard', failed: [], passed: [], unjudged: [] }
  const root = cell.thresholds.filter((t) => (t.metric === 'finished' || t.metric === 'measured') && !t.pass)
  if (root.length > 0) {
    return {
      status: 'fail',
      failed: root.map(check),
      passed: [],
      unjudged: cell.thresholds.filter((t) => !root.includes(t) && !t.pass),
    }
  }
  const checks = cell.thresholds.filter((t) => !t.pass || asserts(t)).map(check)
  const gate = cell.gate ? gateCheck(cell.gate) : undefined
  if (gate) checks.push(gate)
  const failed = checks.filter((c) => !c.pass)
  const passed = checks.filter((c) => c.pass)
  const status: CellVerdictStatus = failed.length > 0 ? 'fail' : passed.length > 0 ? 'pass' : 'no-thresholds'
  return { status, failed, passed, unjudged: [] }
}

/**
 * The `verdict` field a cell summary stores: its status, as {@link cellVerdict} reads it.
 *
 * @example
 * const summary = { ...cell, gate, verdict: storedVerdict({ ...cell, gate }) }
 */
export function storedVerdict(cell: Pick<CellSummary, 'thresholds' | 'gate' | 'shard'>): CellVerdictStatus {
  return cellVerdict(cell).status
}

/** The lines of a failed cell's reasons, each check's message then its details (for the terminal and the report). */
export function reasonLines(verdict: CellVerdict): string[] {
  return verdict.failed.flatMap((c) => [c.message, ...c.notes, ...c.details])
}

/** One entry of a run: a cell (with its verdict), a cell that did not run, or a file that failed to load. */
export type RunEntry =
  | { kind: 'cell'; file: string; benchmark: string; cellId: string; verdict: CellVerdict }
  | { kind: 'not-run'; file: string; benchmark: string; cellId: string; reason: string }
  | { kind: 'load-error'; file: string; error: string }

export interface RunVerdict {
  /** `fail` on any failed entry or problem; `pass` when something was checked and held; else `no-thresholds`. */
  status: 'pass' | 'fail' | 'no-thresholds'
  /** Cells by status (load errors apart). */
  cells: Record<CellStatus, number>
  /** Failed checks over every cell, plus one per file that failed to load. */
  failedChecks: number
  /** Files that failed to load or collect: each a failed entry of the run. */
  loadErrors: { file: string; error: string }[]
  entries: RunEntry[]
  /** Why the run failed, one line per failed entry or problem, in the order the outputs list them. */
  reasons: string[]
  /** The run's own problems among `reasons` (no cell's, no file's): a malformed record, an output not written. */
  problems: string[]
}

/**
 * The run's verdict: every cell's, the cells that did not run, the files that failed to load,
 * and `problems` the run itself found (records left out as malformed, an output that could not
 * be written). A run with no cell and no load error fails: an empty report is no pass.
 *
 * @example
 * const v = runVerdict(summary)
 * `${v.status} · ${v.cells.fail} of ${v.entries.length} failed` // => 'fail · 2 of 14 failed'
 */
export function runVerdict(
  summary: Pick<RunSummary, 'benchmarks' | 'loadErrors' | 'notRun'>,
  problems: readonly string[] = [],
): RunVerdict {
  const cells = Object.fromEntries(CELL_STATUSES.map((s) => [s, 0])) as Record<CellStatus, number>
  const entries: RunEntry[] = []
  const reasons: string[] = []
  const loadErrors = [...(summary.loadErrors ?? [])]
  for (const e of loadErrors) {
    entries.push({ kind: 'load-error', file: e.file, error: e.error })
    reasons.push(`${e.file} failed to load: ${e.error}`)
  }
  let failedChecks = loadErrors.length
  for (const b of summary.benchmarks) {
    for (const cell of b.cells) {
      const verdict = cellVerdict(cell)
      cells[verdict.status]++
      failedChecks += verdict.failed.length
      entries.push({ kind: 'cell', file: b.file, benchmark: b.name, cellId: cell.cellId, verdict })
      for (const c of verdict.failed) reasons.push(`${b.name} › ${cell.cellId}: ${c.message}`)
    }
  }
  for (const n of summary.notRun ?? []) {
    cells['not-run']++
    entries.push({ kind: 'not-run', ...n })
  }
  const ran = entries.some((e) => e.kind === 'cell')
  const own = [
    ...(!ran && loadErrors.length === 0 ? ['no cell ran, so nothing was measured: an empty run never passes'] : []),
    ...problems,
  ]
  reasons.push(...own)
  const status = reasons.length > 0 ? 'fail' : cells.pass > 0 ? 'pass' : 'no-thresholds'
  return { status, cells, failedChecks, loadErrors, entries, reasons, problems: own }
}

/**
 * The verdict of a written summary: {@link runVerdict} of its cells and files, with the problems
 * its stored `verdict` names beyond them (what the run found that no cell shows).
 *
 * @example
 * summaryVerdict(readSummary('summary.json')).status // => 'fail'
 */
export function summaryVerdict(
  summary: Pick<RunSummary, 'benchmarks' | 'loadErrors' | 'notRun' | 'verdict'>,
): RunVerdict {
  const derived = runVerdict(summary)
  const extra = (summary.verdict?.reasons ?? []).filter((r) => !derived.reasons.includes(r))
  return extra.length > 0 ? runVerdict(summary, extra) : derived
}

/** The `verdict` block a summary stores, from {@link runVerdict}. */
export function verdictBlock(v: RunVerdict): NonNullable<RunSummary['verdict']> {
  return { status: v.status, cells: v.cells, failedChecks: v.failedChecks, reasons: v.reasons }
}

/**
 * The run's counts in one phrase, as every output heads its verdict: `14 cells · 2 failed (3
 * checks) · 1 file failed to load · 3 no thresholds`.
 *
 * @example
 * runCountsText(runVerdict(summary)) // => '12 cells · all passed'
 */
export function runCountsText(
  v: Pick<RunVerdict, 'cells' | 'failedChecks'> & { loadErrors: readonly unknown[] },
): string {
  const total = CELL_STATUSES.reduce((n, s) => n + v.cells[s], 0)
  const parts = [`${total} ${total === 1 ? 'cell' : 'cells'}`]
  const cellChecks = v.failedChecks - v.loadErrors.length
  if (v.cells.fail > 0) parts.push(`${v.cells.fail} failed (${cellChecks} ${cellChecks === 1 ? 'check' : 'checks'})`)
  if (v.loadErrors.length > 0)
    parts.push(`${v.loadErrors.length} ${v.loadErrors.length === 1 ? 'file' : 'files'} failed to load`)
  if (
    v.cells.pass > 0 &&
    v.cells.fail === 0 &&
    v.cells['no-thresholds'] === 0 &&
    v.cells['not-run'] === 0 &&
    v.cells.shard === 0
  )
    parts.push('all passed')
  else if (v.cells.pass > 0) parts.push(`${v.cells.pass} passed`)
  if (v.cells['no-thresholds'] > 0) parts.push(`${v.cells['no-thresholds']} with no thresholds`)
  if (v.cells['not-run'] > 0) parts.push(`${v.cells['not-run']} not run`)
  if (v.cells.shard > 0)
    parts.push(`${v.cells.shard} shard ${v.cells.shard === 1 ? 'cell' : 'cells'} (checked at the merge)`)
  return parts.join(' · ')
}
