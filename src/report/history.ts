/**
 * Quality over time: one JSON line per cell per run in an append-only file (default
 * `.seqk/history.jsonl`), so a report or a pull request can say how Seq@K moved since the last run
 * of the same protocol. Lines are compared only when their protocol fingerprints match.
 */
import { headlineCurve } from '../protocol/cell-metrics.js'
import { headlineMetric } from '../metrics/registry.js'
import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'
import type { CellSummary, RunSummary } from '../core/schemas.js'
import { readJsonLines } from '../artifacts/jsonl.js'
import { percent } from '../metrics/format.js'
import { PROTOCOL_KINDS } from '../core/kinds.js'
import { cellInstrument, cellSubject } from '../core/instrument.js'

/** The schema id of each line of `.seqk/history.jsonl`. */
export const HISTORY_SCHEMA = 'seqk.history/1'
/** Default history file, relative to the project root. */
export const DEFAULT_HISTORY_FILE = '.seqk/history.jsonl'

const Rate = z.number().nullable()

/** One cell of one run, as the history file keeps it. */
export const HistoryEntrySchema = z.object({
  schema: z.literal(HISTORY_SCHEMA),
  runId: z.string(),
  createdAt: z.string(),
  /** Short git commit of the working tree the run measured (null outside git). */
  commit: z.string().nullable(),
  branch: z.string().optional(),
  benchmark: z.string(),
  cellId: z.string(),
  actorId: z.string().optional(),
  mode: z.string().optional(),
  kind: z.enum(PROTOCOL_KINDS).optional(),
  budget: z.number().int().positive().optional(),
  fingerprint: z.string(),
  /** The fingerprints of the cell's instrument and subject (absent in lines written before the split). */
  instrumentFingerprint: z.string().optional(),
  subjectFingerprint: z.string().optional(),
  /** Seq@k for k = 1..K (independent cells: solved by sample k). */
  seqAt: z.array(Rate),
  /** Unbiased Pass@k for k = 1..K (independent cells only). */
  passAt: z.array(Rate).nullable(),
  /** The 95% interval of the cell's headline rate at K (Seq@K, or Pass@K for independent cells). */
  interval: z.object({ lo: Rate, hi: Rate }).nullable().optional(),
  costUsd: Rate,
  /**
   * Set when the run measured only part of what its eval files declare (filtered with `-t`, a
   * watch-mode rerun, skipped cells), saying why. Partial lines are kept but left out of trends
   * and "since the last run": a filtered run's cells are not the benchmark's trend.
   */
  partial: z.string().optional(),
})
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>

/** Where a history entry comes from: the commit, the branch, and why the run is partial. */
export interface HistoryContext {
  commit: string | null
  branch?: string
  /** Why the run is partial (see `HistoryEntry.partial`); absent for a whole run. */
  partial?: string
}

/**
 * The history lines of a run: one per cell.
 *
 * @example
 * historyEntries(summary, { commit: 'a1b2c3d' }).map((e) => e.cellId)
 */
export function historyEntries(summary: RunSummary, context: HistoryContext): HistoryEntry[] {
  return summary.benchmarks.flatMap((b) =>
    b.cells.map((cell) => {
      const headline = headlineCurve(cell).interval
      return {
        schema: HISTORY_SCHEMA,
        runId: summary.runId,
        createdAt: summary.createdAt,
        commit: context.commit,
        ...(context.branch !== undefined ? { branch: context.branch } : {}),
        benchmark: cell.benchmark,
        cellId: cell.cellId,
        actorId: cell.actorId,
        mode: cell.mode,
        kind: cell.protocol.kind,
        budget: cell.budget,
        fingerprint: cell.fingerprint,
        instrumentFingerprint: cellInstrument(cell).fingerprint,
        subjectFingerprint: cellSubject(cell).fingerprint,
        seqAt: cell.seqAt,
        passAt: cell.passAt,
        interval: headline ? { lo: headline.lo, hi: headline.hi } : null,
        costUsd: cell.costUsd,
        ...(context.partial !== undefined ? { partial: context.partial } : {}),
      } satisfies HistoryEntry
    }),
  )
}

/**
 * Appends a run's cells to the history file (created with its folder if missing), all lines in one
 * write so an interrupted run leaves at most one cut-off line at the end, which
 * {@link readHistory} tolerates. Lines the file already holds for this run, with the same numbers,
 * are not written again (a finished run resumed).
 *
 * @returns the entries written.
 * @example
 * appendHistory('.seqk/history.jsonl', summary, { commit: gitInfo().commit })
 */
export function appendHistory(
  path: string = DEFAULT_HISTORY_FILE,
  summary: RunSummary,
  context: HistoryContext = { commit: null },
): HistoryEntry[] {
  // A run appended again (a resumed run that had finished, recomputed) adds no line it already has.
  const had = new Set(
    readHistory(path)
      .entries.filter((e) => e.runId === summary.runId)
      .map(sameNumbers),
  )
  const entries = historyEntries(summary, context).filter((e) => !had.has(sameNumbers(e)))
  if (entries.length === 0) return entries
  mkdirSync(dirname(path), { recursive: true })
  appendFileSync(path, entries.map((e) => `${JSON.stringify(e)}\n`).join(''))
  return entries
}

/** The cell of a run a line is about: a later line of the same cell (a resume that changed its numbers) replaces it. */
const cellOfRun = (e: HistoryEntry): string => JSON.stringify([e.runId, e.benchmark, e.cellId, e.fingerprint])
/** A line's cell and numbers: the same line again says nothing new. */
const sameNumbers = (e: HistoryEntry): string =>
  JSON.stringify([cellOfRun(e), e.seqAt, e.passAt, e.interval ?? null, e.costUsd, e.partial ?? null])

/** What `readHistory` returns: the history entries, and a cut-off last line. */
export interface ReadHistory {
  entries: HistoryEntry[]
  /** The last line was cut off mid-write (a crash): skipped, not fatal. */
  truncatedTail: boolean
}

/**
 * Reads and validates a history file, one line per cell of a run (the last, when a resumed run
 * wrote it again). A missing file is an empty history (the first run has none); a malformed line throws an error naming the file and line, except an unterminated last
 * line, which a crash mid-write can leave.
 *
 * @example
 * const { entries } = readHistory('.seqk/history.jsonl')
 */
export function readHistory(path: string = DEFAULT_HISTORY_FILE): ReadHistory {
  if (!existsSync(path)) return { entries: [], truncatedTail: false }
  const { items, truncatedTail } = readJsonLines(path, HistoryEntrySchema, 'history entry')
  // One point per cell of a run: a resumed run's later line of a cell replaces its earlier one.
  const last = new Map<string, number>()
  items.forEach((e, i) => last.set(cellOfRun(e), i))
  return { entries: items.filter((e, i) => last.get(cellOfRun(e)) === i), truncatedTail }
}

/** Seq@K for sequential cells and Pass@K for independent ones: the number a cell is judged by. */
export function headlineOf(entry: Pick<HistoryEntry, 'seqAt' | 'passAt' | 'kind'>): {
  label: 'Seq' | 'Pass'
  k: number
  value: number | null
  curve: (number | null)[]
} {
  const independent = entry.kind === 'independent' || (entry.kind === undefined && entry.passAt !== null)
  const metric = headlineMetric(independent)
  const curve = (metric.id === 'passAt' ? entry.passAt : entry.seqAt) ?? []
  return {
    label: metric.family as 'Seq' | 'Pass',
    curve,
    k: curve.length,
    value: curve[curve.length - 1] ?? null,
  }
}

function headlineOfCell(cell: CellSummary) {
  return headlineOf({ seqAt: cell.seqAt, passAt: cell.passAt, kind: cell.protocol.kind })
}

/**
 * Whether a history entry was written by `summary`'s own run. The run id alone is not enough: with
 * `SEQK_RUN_DIR` it is the directory's name, which a CI workflow reuses on every run.
 */
export function isOwnEntry(
  entry: Pick<HistoryEntry, 'runId' | 'createdAt'>,
  summary: Pick<RunSummary, 'runId' | 'createdAt'>,
): boolean {
  return entry.runId === summary.runId && entry.createdAt === summary.createdAt
}

/** How one cell moved since its last recorded run, and the line that says it. */
export interface CellChange {
  /** `changed` and `unchanged` compare two runs of the same protocol (unchanged: the same to 0.1 point). */
  kind: 'changed' | 'unchanged' | 'protocol-changed' | 'budget-changed' | 'first'
  line: string
  /**
   * Set when the single try (Pass@1; Seq@1 for a cell with feedback, the same first attempt) moved
   * against the headline rate at K: `fell` when it fell while the rate at K rose, `rose` the reverse.
   */
  singleShot?: 'fell' | 'rose'
}

/** A change in points, rounded first so its sign agrees with the printed digits (null: unknown). */
function pointsMoved(before: number | null | undefined, now: number | null | undefined): number | null {
  if (before === null || before === undefined || now === null || now === undefined) return null
  return Math.round((now - before) * 1000) / 10
}

/**
 * Whether the single try moved against the rate at K between two runs of a cell: its first
 * point (Pass@1, or Seq@1) and its last (Pass@K, or Seq@K), each moved by at least 0.1 point.
 *
 * @example
 * singleShotShift([0.6, 0.8], [0.5, 0.9]) // => { direction: 'fell', first: -10, last: 10 }
 */
export function singleShotShift(
  before: readonly (number | null)[],
  now: readonly (number | null)[],
): { direction: 'fell' | 'rose'; first: number; last: number } | null {
  if (before.length < 2 || before.length !== now.length) return null
  const first = pointsMoved(before[0], now[0])
  const last = pointsMoved(before[before.length - 1], now[now.length - 1])
  if (first === null || last === null) return null
  if (first < 0 && last > 0) return { direction: 'fell', first, last }
  if (first > 0 && last < 0) return { direction: 'rose', first, last }
  return null
}

/**
 * How each cell of `summary` moved since the last earlier run with the same protocol fingerprint
 * (its headline rate: Seq@K, or Pass@K for independent cells). A cell whose protocol changed since
 * its last recorded run says so instead of comparing; a cell never recorded says that. Entries of
 * the summary's own run are ignored, so it may be called before or after {@link appendHistory}.
 *
 * @example
 * cellChanges(readHistory().entries, summary)
 * // => [{ kind: 'changed', line: 'simulated:reviser · verifier: Seq@5 92.3 → 100.0 (+7.7)' }, …]
 */
export function cellChanges(history: readonly HistoryEntry[], summary: RunSummary): CellChange[] {
  const several = summary.benchmarks.length > 1
  const out: CellChange[] = []
  for (const b of summary.benchmarks) {
    for (const cell of b.cells) {
      const name = several ? `${cell.benchmark} › ${cell.cellId}` : cell.cellId
      const now = headlineOfCell(cell)
      const label = `${now.label}@${now.k}`
      const earlier = history.filter(
        (e) => !isOwnEntry(e, summary) && e.benchmark === cell.benchmark && e.cellId === cell.cellId,
      )
      const same = earlier.filter((e) => e.fingerprint === cell.fingerprint)
      const last = same[same.length - 1]
      if (last) {
        const before = headlineOf(last)
        if (before.k !== now.k) {
          out.push({
            kind: 'budget-changed',
            line: `${name}: ${label} ${percent(now.value)} (the last run of this protocol had K=${before.k}; not compared)`,
          })
          continue
        }
        // Rounded first, so the sign always agrees with the printed digits.
        const delta =
          now.value !== null && before.value !== null ? Math.round((now.value - before.value) * 1000) / 10 : null
        const sign = delta === null ? '' : delta > 0 ? '+' : delta < 0 ? '-' : '±'
        const change = delta === null ? '' : ` (${sign}${Math.abs(delta).toFixed(1)})`
        const unchanged = delta === 0 || (delta === null && now.value === before.value)
        const before1 = headlineOf({ ...last, kind: cell.protocol.kind }).curve
        const shift = singleShotShift(before1, now.curve)
        const one = `${now.label}@1`
        const shot = !shift
          ? ''
          : `; ${one}, the single try, ${shift.direction} ${percent(before1[0])} → ${percent(now.curve[0])} while ${label} ${shift.direction === 'fell' ? 'rose' : 'fell'}`
        out.push({
          kind: unchanged ? 'unchanged' : 'changed',
          line: `${name}: ${label} ${percent(before.value)} → ${percent(now.value)}${change}${shot}`,
          ...(shift ? { singleShot: shift.direction } : {}),
        })
      } else if (earlier.length > 0) {
        const previous = earlier[earlier.length - 1]!
        const [instrument, subject] = [cellInstrument(cell).fingerprint, cellSubject(cell).fingerprint]
        // Which part changed, where the last line says (lines written before the split do not).
        const what =
          previous.instrumentFingerprint === undefined
            ? `protocol changed since the last run (fingerprint ${previous.fingerprint} → ${cell.fingerprint})`
            : previous.instrumentFingerprint === instrument
              ? `subject changed since the last run (subject ${previous.subjectFingerprint} → ${subject}; the baseline gate and seqk compare compare it task by task)`
              : `instrument changed since the last run (instrument ${previous.instrumentFingerprint} → ${instrument})`
        out.push({
          kind: 'protocol-changed',
          line: `${name}: ${what}; ${label} ${percent(now.value)} is not compared`,
        })
      } else {
        out.push({ kind: 'first', line: `${name}: ${label} ${percent(now.value)} (first recorded run)` })
      }
    }
  }
  return out
}

/**
 * One line per cell of `summary` (see {@link cellChanges}).
 *
 * @example
 * changeSinceLast(readHistory().entries, summary)
 * // => ['simulated:reviser · verifier: Seq@5 92.3 → 100.0 (+7.7)', …]
 */
export function changeSinceLast(history: readonly HistoryEntry[], summary: RunSummary): string[] {
  return cellChanges(history, summary).map((c) => c.line)
}

/**
 * What a reader needs of the changes: every cell that moved or cannot be compared, one line each;
 * the cells that did not move and those recorded for the first time, one count each. A rerun of an
 * unchanged eval prints one line instead of one per cell.
 *
 * @example
 * condenseChanges(cellChanges(history, summary))
 * // => ['sim:b · verifier: Seq@4 90.0 → 80.0 (-10.0)', '44 cells unchanged']
 */
export function condenseChanges(changes: readonly CellChange[]): string[] {
  const shown = changes.filter((c) => c.kind !== 'unchanged' && c.kind !== 'first').map((c) => c.line)
  const unchanged = changes.filter((c) => c.kind === 'unchanged').length
  const firsts = changes.filter((c) => c.kind === 'first').length
  const cells = (n: number) => `${n} ${n === 1 ? 'cell' : 'cells'}`
  // "all 1 cell" reads oddly: a lone cell is just unchanged.
  if (unchanged > 0)
    shown.push(
      shown.length === 0 && firsts === 0 && unchanged > 1
        ? `all ${cells(unchanged)} unchanged`
        : `${cells(unchanged)} unchanged`,
    )
  if (firsts > 0) shown.push(`${cells(firsts)} recorded for the first time`)
  return shown
}

/**
 * The git commit (short) and branch of `cwd`, for history lines; nulls outside a git work tree or
 * without git. In GitHub Actions the branch of a pull request comes from `GITHUB_HEAD_REF`
 * (the checkout there is a detached merge commit).
 *
 * @example
 * appendHistory(undefined, summary, gitInfo())
 */
export function gitInfo(cwd: string = process.cwd()): { commit: string | null; branch?: string } {
  const git = (args: string[]): string | null => {
    try {
      return (
        execFileSync('git', args, {
          cwd,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
          timeout: 5000,
        }).trim() || null
      )
    } catch {
      return null
    }
  }
  const commit = git(['rev-parse', '--short', 'HEAD'])
  const branch =
    process.env.GITHUB_HEAD_REF || process.env.GITHUB_REF_NAME || git(['rev-parse', '--abbrev-ref', 'HEAD'])
  return branch && branch !== 'HEAD' ? { commit, branch } : { commit }
}
