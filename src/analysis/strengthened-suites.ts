/**
 * Original against strengthened tests: the same actors under the same protocol, once on a
 * benchmark's own tests and once on its strengthened copy (`seqk strengthen`), Seq@k and Pass@k
 * side by side with the drop and a paired interval over tasks. Seq@K is re-measured, never
 * rescored: with a stronger suite a trajectory that stopped at a weak pass would have gone on,
 * with other feedback, so only a run on the strengthened suite says what Seq@K is there.
 */
import { headlineMetric } from '../metrics/registry.js'
import type { CellSummary } from '../core/schemas.js'
import { pairedBootstrap } from '../metrics/bootstrap.js'
import { passAtK } from '../metrics/pass-at-k.js'
import { protocolDifferences } from '../core/fingerprint.js'
import { intervalText, percentText, signedPercent } from '../metrics/format.js'
import { cellLabel, type SourcedCell } from './comparability.js'

/** Which benchmark of the runs is the original suite and which its strengthened copy. */
export interface SuitePair {
  original: string
  strengthened: string
}

/** The options of {@link compareSuites}. */
export interface CompareSuitesOptions {
  /** Compare at this k (default: each cell pair's budget K). */
  k?: number
  /** Seed of the paired bootstrap (default 1). */
  seed?: number
  /** Bootstrap resamples (default 2000). */
  resamples?: number
}

/** One actor × protocol on both suites. Rates are shares in [0, 1]; null is unknown, never zero. */
export interface SuiteRow {
  actorId: string
  /** Feedback mode, or `independent`. */
  mode: string
  /** `Seq@k` for sequential cells, `Pass@k` for independent ones. */
  metric: string
  k: number
  original: number | null
  strengthened: number | null
  /** `strengthened − original` (negative: the stronger tests caught answers the original passed). */
  change: number | null
  /** 95% paired percentile bootstrap over tasks of `change`; null with `intervalNote` saying why. */
  interval: { lo: number; hi: number; resamples: number; seed: number } | null
  intervalNote: string | null
  tasks: number
}

/** The side-by-side comparison of a benchmark's original and strengthened suites. */
export interface SuiteComparison {
  original: string
  strengthened: string
  rows: SuiteRow[]
  /** Cells found on one side only (by actor and mode): not compared. */
  unpaired: string[]
}

/** Thrown when the two suites' cells may not be set side by side; the message names the fields or tasks. */
export class SuiteComparisonError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SuiteComparisonError'
  }
}

const isIndependent = (cell: CellSummary) => cell.protocol.kind === 'independent'

/** One task's rate at k: Pass@k from its samples, or the share of its repeats solved by attempt k. */
function taskRate(cell: CellSummary, task: CellSummary['perTask'][number], k: number): number {
  if (isIndependent(cell)) {
    const n = task.samples ?? 0
    return n >= k ? passAtK(n, task.passes ?? 0, k) : Number.NaN
  }
  const repeats = task.firstSuccess
  if (repeats.length === 0) return Number.NaN
  return repeats.filter((f) => f !== null && f <= k).length / repeats.length
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
const known = (v: number | null | undefined): number | null =>
  v === null || v === undefined || Number.isNaN(v) ? null : v

/**
 * Seq@k and Pass@k of every actor × mode on a benchmark's original and strengthened suites. The
 * two cells of a row must agree in every protocol field but `benchmark.name` and
 * `benchmark.contentHash` (the tests), and hold the same task ids; otherwise it refuses. The
 * values are the cells' own headline numbers; the interval pairs tasks by id, and is left out
 * (with a note) when a cell had errored trajectories, whose per-task rates would not add up to it.
 *
 * @throws SuiteComparisonError when a pair's protocols differ elsewhere, its task ids differ, or a benchmark is absent.
 * @example
 * const cmp = compareSuites(sourcedCells(runs), { original: 'HumanEval Pro', strengthened: 'HumanEval Pro+' })
 * cmp.rows[0] // { actorId: 'gpt', mode: 'verifier', metric: 'Seq@5', original: 0.8, strengthened: 0.7, change: -0.1, … }
 */
export function compareSuites(
  cells: readonly SourcedCell[],
  pair: SuitePair,
  options: CompareSuitesOptions = {},
): SuiteComparison {
  if (pair.original === pair.strengthened)
    throw new SuiteComparisonError(`the original and the strengthened suite are one benchmark ("${pair.original}")`)
  const side = (name: string) => cells.filter((c) => c.cell.benchmark === name)
  const original = side(pair.original)
  const strengthened = side(pair.strengthened)
  const names = [...new Set(cells.map((c) => c.cell.benchmark))].map((n) => `"${n}"`).join(', ')
  for (const [name, found] of [
    [pair.original, original],
    [pair.strengthened, strengthened],
  ] as const)
    if (found.length === 0) throw new SuiteComparisonError(`no cells of benchmark "${name}" (the runs hold ${names})`)
  const key = (c: SourcedCell) => `${c.cell.actorId}\u0000${c.cell.mode}`
  const byKey = new Map(strengthened.map((c) => [key(c), c]))
  const paired = new Set<string>()
  const rows: SuiteRow[] = []
  for (const a of original) {
    const b = byKey.get(key(a))
    if (b === undefined) continue
    paired.add(key(a))
    const fields = protocolDifferences(a.cell.protocol, b.cell.protocol).filter(
      (f) => f !== 'benchmark.name' && f !== 'benchmark.contentHash',
    )
    if (fields.length > 0)
      throw new SuiteComparisonError(
        `${cellLabel(a)} and ${cellLabel(b)} differ in ${fields.join(', ')}: only the tests may differ between the two suites`,
      )
    const idsA = a.cell.perTask.map((t) => t.taskId).sort()
    const idsB = new Set(b.cell.perTask.map((t) => t.taskId))
    if (idsA.length !== idsB.size || idsA.some((id) => !idsB.has(id)))
      throw new SuiteComparisonError(
        `${cellLabel(a)} and ${cellLabel(b)} are not on the same tasks: a strengthened copy keeps every task id`,
      )
    const k = options.k ?? a.cell.budget
    if (k > a.cell.budget || k > b.cell.budget)
      throw new SuiteComparisonError(`k = ${k} is past the budget of ${cellLabel(a)} or ${cellLabel(b)}`)
    const value = (c: CellSummary) => known(isIndependent(c) ? c.passAt?.[k - 1] : c.seqAt[k - 1])
    const o = value(a.cell)
    const s = value(b.cell)
    let interval: SuiteRow['interval'] = null
    let intervalNote: string | null = null
    if (a.cell.errors.count > 0 || b.cell.errors.count > 0)
      intervalNote = 'errored trajectories: no paired interval (the per-task rates do not add up to the headline)'
    else if (o === null || s === null) intervalNote = 'a value is unknown'
    else {
      const units = (c: CellSummary) => c.perTask.map((t) => ({ id: t.taskId, rate: taskRate(c, t, k) }))
      const ua = units(a.cell)
      const ub = units(b.cell)
      if ([...ua, ...ub].some((u) => Number.isNaN(u.rate))) intervalNote = `a task has fewer than ${k} samples`
      else {
        const seed = options.seed ?? 1
        const resamples = options.resamples ?? 2000
        const diff = pairedBootstrap(
          ua,
          ub,
          (u) => u.id,
          (sample) => mean(sample.map((u) => u.rate)),
          { seed, resamples },
        )
        interval = { lo: diff.lo, hi: diff.hi, resamples, seed }
      }
    }
    rows.push({
      actorId: a.cell.actorId,
      mode: a.cell.mode,
      metric: headlineMetric(isIndependent(a.cell)).label(k),
      k,
      original: o,
      strengthened: s,
      change: o === null || s === null ? null : s - o,
      interval,
      intervalNote,
      tasks: idsA.length,
    })
  }
  const unpaired = [...original, ...strengthened].filter((c) => !paired.has(key(c))).map(cellLabel)
  return { original: pair.original, strengthened: pair.strengthened, rows, unpaired }
}

/**
 * The comparison as terminal lines: one row per actor × mode with both values, the change in
 * points and its interval; unknown values print as `—`, never as zero.
 *
 * @example
 * renderSuites(compareSuites(cells, pair)).join('\n')
 */
export function renderSuites(cmp: SuiteComparison): string[] {
  const header = ['actor', 'mode', 'metric', 'original', 'strengthened', 'change, points (95% CI)']
  const rows = cmp.rows.map((r) => [
    r.actorId,
    r.mode,
    r.metric,
    percentText(r.original),
    percentText(r.strengthened),
    r.interval
      ? `${signedPercent(r.change)} (${intervalText(r.interval.lo, r.interval.hi, { signed: true })})`
      : `${signedPercent(r.change)}${r.intervalNote ? ` (${r.intervalNote})` : ''}`,
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cols: string[]) =>
    `  ${cols.map((c, i) => (i >= 3 && i < 5 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')}`.trimEnd()
  const tasks = cmp.rows[0]?.tasks
  return [
    `Original vs strengthened tests: "${cmp.original}" and "${cmp.strengthened}"${tasks === undefined ? '' : ` (${tasks} tasks)`}`,
    ...(cmp.rows.length === 0 ? ['  no actor and mode measured on both suites'] : [line(header), ...rows.map(line)]),
    ...cmp.unpaired.map((u) => `  not compared (on one suite only): ${u}`),
  ]
}
