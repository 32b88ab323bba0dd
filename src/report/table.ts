import { columnStatistics, readStatistic, statisticDetail } from '../protocol/statistics/index.js'
import type { RepairDetail } from '../protocol/statistics/criterion-repair.js'
import type { NextDetail } from '../protocol/statistics/next-attempt-success.js'
import { DISCLOSED_NOTE } from '../protocol/statistics/revision-timing.js'
import { heldOutGapLine } from '../protocol/held-out-gap.js'
import { faultRecoveryLines } from './fault-recovery-section.js'
import { extendedLine } from '../protocol/resume.js'
import { verifierUnstableLine } from '../protocol/verifier-unstable.js'
import { Chalk, type ChalkInstance } from 'chalk'
import type { CellSummary } from '../core/schemas.js'
import { competitionRanks } from '../metrics/ranks.js'
import { AGENT_METRICS } from '../metrics/agent-metrics.js'
import { intervalText, money, ordinal, percent, plural, signedPercent } from '../metrics/format.js'
import { intervalLegend } from '../metrics/estimands.js'
import { errorIntervalNotes } from '../protocol/cell-summary.js'
import { pad, TEXT_WIDTH, visibleLength, wrapLine } from '../core/text-layout.js'
import { binaryScoreLine, disclosedScoreLine, SCORE_CURVE_MEANING, scoreRows } from './score-section.js'
import { cellVerdict, reasonLines } from '../protocol/verdict.js'
import { couldNotSee, subjectChangeText } from '../protocol/gate-notes.js'
import {
  cellColumns,
  curveOf,
  tokensValue,
  unknownUsageLine,
  usageOfCells,
  type CellColumn,
  type Tone,
} from './columns.js'

/** The width every printed line fits by default (the text layout's, kept under the table's name). */
export const TABLE_WIDTH = TEXT_WIDTH

/** Options of {@link renderBenchmarkTable}. */
export interface TableOptions {
  /** ANSI colours (the text is the same without them). */
  color?: boolean
  /** Every column and every k, however wide (default: fit `width`, leaving out what does not fit and saying so). */
  wide?: boolean
  /** The width the narrow view fits (default {@link TABLE_WIDTH}). */
  width?: number
  /**
   * Where the notes that read the same for every benchmark go (the interval legend, the meaning of
   * Score@k, identical rows, columns not shown, small-N and consistency warnings): gathered here to
   * be printed once under every table ({@link RunNotes}); default: under this table.
   */
  runNotes?: RunNotes
}

/** A column of a plain-text table: its header, its values and whether it is right-aligned. */
export interface Column {
  header: string
  values: string[]
  /** Right-aligned (numbers). */
  numeric: boolean
}

/** Lays out columns two spaces apart after one leading space; the last column is not padded. */
function layout(columns: readonly Column[]): { widths: number[]; line: (i: number | 'header') => string } {
  const widths = columns.map((col) => Math.max(visibleLength(col.header), ...col.values.map(visibleLength)))
  const line = (i: number | 'header') =>
    ' ' +
    columns
      .map((col, j) => {
        const text = i === 'header' ? col.header : (col.values[i] ?? '')
        return j === columns.length - 1 && !col.numeric ? text : pad(text, widths[j]!, col.numeric)
      })
      .join('  ')
  return { widths, line }
}

function tableWidth(columns: readonly Column[]): number {
  return (
    1 +
    columns.reduce((n, col) => n + Math.max(visibleLength(col.header), ...col.values.map(visibleLength)), 0) +
    2 * (columns.length - 1)
  )
}

/**
 * Renders rows under a header within `width`: when the first column (cell ids) is what pushes it
 * past, a row whose id is too long prints the id on a line of its own and its numbers on the next.
 * `after(i)` adds lines under row i (failure reasons).
 */
export function fitRows(columns: Column[], width: number | null, after: (i: number) => string[] = () => []): string[] {
  const rows = columns[0]!.values.length
  const ids = columns[0]!.values
  let folded = new Set<number>()
  if (width !== null && tableWidth(columns) > width) {
    const rest = tableWidth(columns.slice(1)) + 2 - 1
    const room = Math.max(visibleLength(columns[0]!.header), width - rest - 1)
    folded = new Set(ids.map((id, i) => (visibleLength(id) > room ? i : -1)).filter((i) => i >= 0))
    columns = [{ ...columns[0]!, values: ids.map((id, i) => (folded.has(i) ? '' : id)) }, ...columns.slice(1)]
  }
  const { line } = layout(columns)
  const out = [line('header')]
  for (let i = 0; i < rows; i++) {
    if (folded.has(i)) out.push(...wrapLine(` ${ids[i]}`, width ?? Number.POSITIVE_INFINITY))
    out.push(line(i), ...after(i))
  }
  return out
}

/** The k a narrow table shows: every k up to 5, else 1, 2, the middle and the last two. */
function shownKs(K: number, wide: boolean): number[] {
  if (wide || K <= 5) return Array.from({ length: K }, (_, i) => i + 1)
  return [...new Set([1, 2, Math.ceil(K / 2), K - 1, K])].sort((a, b) => a - b)
}

/** Whether the cell measured nothing (every trajectory errored, or none ran): one root cause. */
function measuredNothing(cell: CellSummary): boolean {
  return cell.thresholds.some((t) => t.metric === 'measured' && !t.pass)
}

/**
 * Why a cell failed, one line per failed check (the verdict model counts each once): a cell that
 * did not finish or measured nothing says so once; otherwise each missed threshold, and the
 * baseline gate's findings (one check, its further lines under it).
 */
export function failureReasons(cell: CellSummary): string[] {
  return reasonLines(cellVerdict(cell))
}

/** What a row's outcome is: fields that come from the trajectories' outcomes, not their cost. */
function outcomeKey(cell: CellSummary): string {
  const { curve, interval } = curveOf(cell)
  return JSON.stringify([
    curve,
    interval?.lo,
    interval?.hi,
    cell.statistics,
    cell.errors.count,
    cell.perTask.map((p) => p.firstSuccess),
  ])
}

/**
 * Feedback modes whose rows are identical for an actor (every rate, interval and per-task first
 * success), said once with why: the actor answered both modes' feedback the same way. For the
 * simulated actors that is by design (they read only whether the feedback names what failed).
 */
export function identicalRowsNote(all: readonly CellSummary[]): string | null {
  // A cell that measured nothing has no outcome to be identical in (every row of it is dashes).
  const cells = all.filter((c) => !measuredNothing(c))
  const pairs = new Map<string, { actors: string[]; of: number }>()
  const actors = [...new Set(cells.map((c) => c.actorId))]
  for (const actor of actors) {
    const mine = cells.filter((c) => c.actorId === actor && c.mode !== 'independent')
    for (let i = 0; i < mine.length; i++) {
      for (let j = i + 1; j < mine.length; j++) {
        const key = `${mine[i]!.mode} = ${mine[j]!.mode}`
        const entry = pairs.get(key) ?? { actors: [], of: 0 }
        entry.of++
        if (outcomeKey(mine[i]!) === outcomeKey(mine[j]!)) entry.actors.push(actor)
        pairs.set(key, entry)
      }
    }
  }
  const same = [...pairs].filter(([, e]) => e.actors.length > 0)
  if (same.length === 0) return null
  // Pairs that hold for the same actors are said together: "critic-aware = verifier and critic-blind = binary for every actor".
  const byWho = new Map<string, string[]>()
  for (const [key, e] of same) {
    const who = e.actors.length === e.of && e.of > 1 ? 'every actor' : e.actors.join(', ')
    byWho.set(who, [...(byWho.get(who) ?? []), key])
  }
  const parts = [...byWho].map(
    ([who, keys]) => `${keys.length > 1 ? `${keys.slice(0, -1).join(', ')} and ${keys.at(-1)}` : keys[0]} for ${who}`,
  )
  const simulated = same.every(([, e]) =>
    e.actors.every((a) => cells.find((c) => c.actorId === a)?.protocol.actor.provider === 'simulated'),
  )
  const why = simulated
    ? 'a simulated actor draws the same random numbers under every mode and reads only whether the feedback names what failed'
    : 'the actor revised alike under both feedback modes'
  return `identical rows: ${parts.join('; ')} (the same first success in every trajectory): ${why}`
}

/**
 * Renders one benchmark's cells as a table (one row per cell), its notes under it. Pure: colour
 * is on only when asked, and the table reads the same without it. By default every line fits
 * `width` (120) columns at K = 5: the table leaves out the columns that do not fit (EGS, LGS,
 * unmod, tokens, cost, in that order of priority, cost kept first when it is not $0 everywhere)
 * and names them with how to see them (`wide`, or SEQK_WIDE=1); notes are wrapped.
 */
export function renderBenchmarkTable(
  benchmark: string,
  cells: readonly CellSummary[],
  options: TableOptions = {},
): string {
  const c: ChalkInstance = new Chalk({ level: options.color ? 1 : 0 })
  if (cells.length === 0) return ''
  const wide = options.wide ?? false
  const width = wide ? null : (options.width ?? TABLE_WIDTH)
  const wrap = (line: string) => (width === null ? [line] : wrapLine(line, width))
  const K = Math.max(...cells.map((x) => x.budget))
  const first = cells[0]!
  const history = cells.find((x) => x.protocol.history)?.protocol.history?.name ?? '—'
  const ks = shownKs(K, wide)
  const verdicts = cells.map((cell) => cellVerdict(cell))
  const paint: Record<NonNullable<Tone>, (t: string) => string> = {
    pass: c.green,
    fail: (t) => c.red(t.toUpperCase()),
    muted: c.dim,
    warn: c.yellow,
  }
  const defs = cellColumns(K, ks).filter((d) => d.outputs.includes('terminal') && (wide || !d.wideOnly))
  const toColumn = (d: CellColumn): Column & { def: CellColumn } => ({
    def: d,
    header: d.header,
    numeric: d.numeric,
    values: cells.map((cell, i) => {
      const v = d.value(cell, verdicts[i]!)
      return v.tone ? paint[v.tone](v.text) : v.text
    }),
  })
  const ordered = defs.map(toColumn)
  const byId = (id: string) => ordered.find((x) => x.def.id === id)!
  const cellCol = byId('cell')
  const costCol = byId('cost')
  const tokensCol = byId('tokens')
  const egsCol = byId('egs')
  const free = cells.every((x) => x.costUsd === 0)
  let shown = new Set<Column>(ordered)
  if (width !== null) {
    // Required first, then the optional columns by priority while they fit (cell ids may fold).
    shown = new Set(ordered.filter((x) => !x.def.optional))
    const minimal = (set: Set<Column>) =>
      tableWidth(ordered.filter((x) => set.has(x)).map((x) => (x === cellCol ? { ...x, values: [] } : x)))
    const cellRoom = (set: Set<Column>) => width - minimal(set)
    const longest = Math.max(...cells.map((x) => visibleLength(x.cellId)))
    // A column's group goes in together (EGS and LGS split one gain: both or neither); cost only where it is not $0 everywhere.
    const groups = [
      ...new Set(
        ordered
          .filter((x) => x.def.optional && !(x === costCol && free))
          .sort((a, b) => a.def.optional!.priority - b.def.optional!.priority)
          .map((x) => x.def.optional!.group),
      ),
    ]
    for (const group of groups) {
      const next = new Set([...shown, ...ordered.filter((x) => x.def.optional?.group === group)])
      // An optional column never forces a cell id to fold.
      if (cellRoom(next) >= longest) shown = next
    }
  }
  const columns = ordered.filter((x) => shown.has(x))
  const under = (i: number) =>
    verdicts[i]!.status !== 'fail'
      ? []
      : verdicts[i]!.failed.flatMap((check) => [
          ...wrap(`   ✗ ${check.message}`),
          ...[...check.notes, ...check.details].flatMap((d) => wrap(`     ${d}`)),
        ]).map((l) => c.red(l))
  const body = fitRows(columns, width, under)
  const shares = shown.has(egsCol) ? 'rates and shares in %' : 'rates in %'
  const title = `${benchmark} — K=${K}, ${plural(first.tasks, 'task')} × ${plural(first.repeats, 'repeat')}, history ${history}, ${shares}`
  const out = [
    ...wrap(title).map((l, i) => (i === 0 ? l.replace(benchmark, c.bold(benchmark)) : l)),
    c.dim(body[0]!),
    ...body.slice(1),
  ]
  const note = (line: string, paint: (s: string) => string = (s) => c.dim(s)) =>
    out.push(...wrap(` ${line}`).map((l) => paint(l)))
  // A note every benchmark may say alike goes to the run's notes when there are some, said once there.
  const runNote = (line: string, tone: RunNoteTone = 'muted') =>
    options.runNotes ? options.runNotes.add(benchmark, line, tone) : note(line, TONE_PAINT(c)[tone])
  const measured = cells.filter((x) => !measuredNothing(x))
  for (const line of condensedRanking(cells)) note(line, (s) => s)
  for (const line of scoreCurveTable(cells, ks, width)) out.push(line)
  for (const line of revisionTable(cells, width)) out.push(line)
  for (const line of revisionAnnotationTable(cells, width)) out.push(line)
  for (const line of agentTable(cells, width)) out.push(line)
  for (const line of faultRecoveryLines(cells)) note(line, (s) => s)
  for (const line of cells.map(heldOutGapLine)) if (line) note(line, (s) => s)
  for (const line of cells.map(extendedLine)) if (line) note(line, (s) => s)
  for (const line of cells.map(verifierUnstableLine)) if (line) note(line, (l) => c.yellow(l))
  const binaryScores = binaryScoreLine(cells)
  if (binaryScores) runNote(binaryScores)
  const identical = identicalRowsNote(cells)
  if (identical) runNote(identical)
  const spending = spendingLine(cells)
  if (spending) note(spending)
  const unknownUsage = unknownUsageLine(cells)
  if (unknownUsage) note(unknownUsage, (l) => c.yellow(l))
  // Why a statistic shown in a column is undefined (its entries' notes, each said once).
  const said = new Set<string>()
  for (const s of columnStatistics().filter((x) => shown.has(byId(x.id)))) {
    const byNote = new Map<string, string[]>()
    for (const cell of measured) {
      const text = readStatistic(cell, s.id)?.note
      if (text !== undefined && !said.has(text)) byNote.set(text, [...(byNote.get(text) ?? []), cell.cellId])
    }
    const applies = cells.filter((x) => s.protocols.includes(x.protocol.kind)).length
    const every = s.protocols.includes('independent') ? 'every cell' : 'every feedback cell'
    for (const [text, ids] of byNote) {
      said.add(text)
      runNote(`note: ${text} (${ids.length === applies ? every : ids.join(', ')})`)
    }
  }
  // The budget note explains dashes in the @k columns, which are always shown.
  const disclosed = cells.some((x) => x.protocol.kind === 'sequential' && x.protocol.budgetDisclosed)
  if (disclosed && !said.has(DISCLOSED_NOTE)) runNote(`note: ${DISCLOSED_NOTE}`)
  for (const line of errorBoundLines(measured)) note(line, (l) => c.yellow(l))
  // Each naming its cell (two cells' notes read alike); none for a cell that measured nothing: its ✗ line says why.
  for (const cell of measured)
    for (const line of errorIntervalNotes(cell)) note(`${cell.cellId}: ${line}`, (l) => c.yellow(l))
  if (options.runNotes) options.runNotes.cells(benchmark, measured, width)
  else {
    for (const line of intervalNotes(measured)) note(line)
    const inconsistent = lowConsistencyLine(measured)
    if (inconsistent) note(inconsistent, (l) => c.yellow(l))
  }
  runNote(intervalLegend(K))
  for (const line of baselineLines(cells, { failures: false })) note(line)
  const hidden = ordered.filter((x) => !shown.has(x))
  const hiddenKs = K - ks.length
  if (hidden.length > 0 || hiddenKs > 0) {
    const names = hidden.map((x) => {
      if (x === costCol && free) return 'cost ($0 everywhere)'
      if (x === tokensCol)
        return options.runNotes ? TOKENS_IN_ALL : `tokens (${tokensValue(usageOfCells(cells)).text} in all)`
      return x.header
    })
    if (hiddenKs > 0) names.unshift(`${plural(hiddenKs, 'rate')} @k between`)
    if (options.runNotes) options.runNotes.hidden(names, cells)
    else note(`not shown at ${width} columns: ${names.join(', ')}; wide view: SEQK_WIDE=1`)
  }
  return out.join('\n')
}

/** How a note is painted: dim, as it is, or yellow for a warning. */
export type RunNoteTone = 'muted' | 'plain' | 'warn'

const TONE_PAINT = (c: ChalkInstance): Record<RunNoteTone, (s: string) => string> => ({
  muted: (s) => c.dim(s),
  plain: (s) => s,
  warn: (s) => c.yellow(s),
})

/** Stands for the run's token total in a hidden-columns list until the run's notes know every cell. */
const TOKENS_IN_ALL = '\u0000tokens'

/**
 * The notes of a run's tables said once, under the last table, instead of once per benchmark
 * (four small benchmarks printed 72 note lines, the same legend four times): a note that
 * reads the same for several benchmarks is printed once naming them; the small-N and consistency
 * warnings are said over every cell that measured something, each cell named with its benchmark;
 * the columns left out, once, with the run's token total.
 *
 * @example
 * const notes = new RunNotes()
 * const tables = summary.benchmarks.map((b) => renderBenchmarkTable(b.name, b.cells, { runNotes: notes }))
 * console.log([...tables, notes.render()].join('\n\n'))
 */
export class RunNotes {
  private readonly said = new Map<string, { tone: RunNoteTone; benchmarks: string[] }>()
  private readonly measured: { benchmark: string; cell: CellSummary }[] = []
  private readonly all: CellSummary[] = []
  private readonly names: string[] = []
  private readonly benchmarks: string[] = []
  private width: number | null = null

  /** A note of `benchmark`'s table. */
  add(benchmark: string, text: string, tone: RunNoteTone): void {
    this.seen(benchmark)
    const entry = this.said.get(text) ?? { tone, benchmarks: [] }
    if (!entry.benchmarks.includes(benchmark)) entry.benchmarks.push(benchmark)
    this.said.set(text, entry)
  }

  /**
   * The cells of `benchmark` that measured something, for the warnings said over the run's cells,
   * and the width its table fits (null: the wide view).
   */
  cells(benchmark: string, measured: readonly CellSummary[], width: number | null): void {
    this.seen(benchmark)
    this.width = width
    this.measured.push(...measured.map((cell) => ({ benchmark, cell })))
  }

  /** The columns `benchmark`'s table left out at `width`. */
  hidden(names: readonly string[], cells: readonly CellSummary[]): void {
    this.all.push(...cells)
    for (const n of names) if (!this.names.includes(n)) this.names.push(n)
  }

  private seen(benchmark: string): void {
    if (!this.benchmarks.includes(benchmark)) this.benchmarks.push(benchmark)
  }

  /** The notes, each once, wrapped to the tables' width; '' when there are none. */
  render(options: { color?: boolean } = {}): string {
    const c: ChalkInstance = new Chalk({ level: options.color ? 1 : 0 })
    const paint = TONE_PAINT(c)
    const wrap = (line: string) => (this.width === null ? [` ${line}`] : wrapLine(` ${line}`, this.width))
    const several = this.benchmarks.length > 1
    const out: string[] = []
    for (const [text, { tone, benchmarks }] of this.said) {
      // Said of every benchmark: no need to name them; of some: which.
      const where = !several || benchmarks.length === this.benchmarks.length ? '' : ` [${benchmarks.join(', ')}]`
      out.push(...wrap(`${text}${where}`).map(paint[tone]))
    }
    // Named with their benchmark when the run has several: two benchmarks have cells of one id.
    const cells = this.measured.map(({ benchmark, cell }) =>
      several ? { ...cell, cellId: `${benchmark} › ${cell.cellId}` } : cell,
    )
    for (const line of intervalNotes(cells)) out.push(...wrap(line).map(paint.muted))
    const inconsistent = lowConsistencyNote(this.measured, several)
    if (inconsistent) out.push(...wrap(inconsistent).map(paint.warn))
    if (this.names.length > 0) {
      const names = this.names.map((n) =>
        n === TOKENS_IN_ALL ? `tokens (${tokensValue(usageOfCells(this.all)).text} in all)` : n,
      )
      out.push(
        ...wrap(`not shown at ${this.width} columns: ${names.join(', ')}; wide view: SEQK_WIDE=1`).map(paint.muted),
      )
    }
    return out.length === 0
      ? ''
      : [several ? c.dim('notes on the tables above:') : '', ...out].filter((l) => l !== '').join('\n')
  }
}

/**
 * The ranking lines for the terminal: modes whose change reads the same are said in one line
 * (`(critic-aware, verifier)`), so four identical lines become one.
 */
function condensedRanking(cells: readonly CellSummary[]): string[] {
  const byText = new Map<string, string[]>()
  for (const { mode, text } of rankingByMode(cells)) byText.set(text, [...(byText.get(text) ?? []), mode])
  return [...byText].map(([text, modes]) => text.replace('\u0000', modes.join(', ')))
}

/**
 * For cells with errored trajectories: the rate at K under the cell's error policy, next to the
 * bounds whatever the errors hid (errors as failures, as successes) and the rate with them left out.
 */
export function errorBoundLines(cells: readonly CellSummary[]): string[] {
  const out: string[] = []
  for (const cell of cells) {
    const bounds = cell.errors.bounds
    if (!bounds || cell.errors.count === 0) continue
    const K = cell.budget
    const { label, curve } = curveOf(cell)
    const policy = cell.errors.policy ?? (cell.errors.countedAsFailures ? 'failures' : 'left-out')
    const how =
      policy === 'censored'
        ? 'censored from their error on'
        : policy === 'failures'
          ? 'counted as failures'
          : 'left out'
    out.push(
      `${cell.cellId}: ${cell.errors.count} errored ${cell.errors.count === 1 ? 'trajectory' : 'trajectories'} ${how}: ${label}@${K} ${percent(curve[K - 1] ?? null)} (${percent(bounds.asFailures[K - 1] ?? null)} with errors as failures, ${bounds.asSuccesses ? `${percent(bounds.asSuccesses[K - 1] ?? null)} as successes, ` : ''}${percent(bounds.leftOut[K - 1] ?? null)} left out)`,
    )
  }
  return out
}

/** Below this mean outcome consistency a cell solves its tasks some of the time rather than every time. */
export const LOW_CONSISTENCY = 0.5

/**
 * One line for the cells whose outcome consistency is low: they pass a task on some tries and
 * fail it on others, so a rate hides that they cannot be relied on task by task.
 */
export function lowConsistencyLine(cells: readonly CellSummary[]): string | null {
  const low = cells.filter((cell) => (cell.reliability?.outcome.mean.point ?? 1) < LOW_CONSISTENCY)
  if (low.length === 0) return null
  const each = low.map((cell) => {
    const r = cell.reliability!
    return `${cell.cellId} ${percent(r.outcome.mean.point)} (${percent(r.outcome.inconsistent.point)}% of tasks pass on some tries only)`
  })
  return `low outcome consistency (below ${percent(LOW_CONSISTENCY)}): ${each.join(', ')}; Cover@1 and Seq^K / pass^K in the wide view (SEQK_WIDE=1)`
}

/**
 * {@link lowConsistencyLine} over a run's cells: each cell with its figures while there are at most
 * three, else the cells named with the range of their figures (a run of many cells would list them
 * over many lines).
 */
function lowConsistencyNote(
  measured: readonly { benchmark: string; cell: CellSummary }[],
  several: boolean,
): string | null {
  const low = measured.filter(({ cell }) => (cell.reliability?.outcome.mean.point ?? 1) < LOW_CONSISTENCY)
  if (low.length <= 3)
    return lowConsistencyLine(
      low.map(({ benchmark, cell }) => (several ? { ...cell, cellId: `${benchmark} › ${cell.cellId}` } : cell)),
    )
  const range = (xs: number[]) => {
    const [lo, hi] = [Math.min(...xs), Math.max(...xs)]
    return lo === hi ? percent(lo) : `${percent(lo)}–${percent(hi)}`
  }
  const mean = range(low.map(({ cell }) => cell.reliability!.outcome.mean.point!))
  const some = range(low.map(({ cell }) => cell.reliability!.outcome.inconsistent.point!))
  // The cells by benchmark: "arithmetic (a · independent, b · independent), capitals (…)".
  const byBenchmark = new Map<string, string[]>()
  for (const { benchmark, cell } of low)
    byBenchmark.set(benchmark, [...(byBenchmark.get(benchmark) ?? []), cell.cellId])
  const which = several
    ? [...byBenchmark].map(([b, ids]) => `${b} (${ids.join(', ')})`).join(', ')
    : low.map(({ cell }) => cell.cellId).join(', ')
  return `low outcome consistency (below ${percent(LOW_CONSISTENCY)}) in ${low.length} of ${plural(measured.length, 'cell')}, ${mean} (${some}% of tasks pass on some tries only): ${which}; Cover@1 and Seq^K / pass^K in the wide view (SEQK_WIDE=1)`
}

/** One line for the cells whose interval at K is too wide to be useful, and what would narrow it. */
function intervalNotes(cells: readonly CellSummary[]): string[] {
  const wide = cells.filter((cell) => curveOf(cell).interval?.note)
  if (wide.length === 0) return []
  const widths = wide.map((cell) => {
    const i = curveOf(cell).interval!
    return Math.round(((i.hi ?? 0) - (i.lo ?? 0)) * 100)
  })
  const names = wide.length <= 3 ? ` (${wide.map((c) => c.cellId).join(', ')})` : ''
  const which =
    wide.length === cells.length
      ? cells.length === 1
        ? 'the cell'
        : `all ${cells.length} cells`
      : `${wide.length} of ${plural(cells.length, 'cell')}${names}`
  const [lo, hi] = [Math.min(...widths), Math.max(...widths)]
  return [
    `small-N warning: the 95% interval at K is ${lo === hi ? lo : `${lo}–${hi}`} points wide in ${which}, too wide to tell close models apart; more tasks narrow it (about √2 per doubling), more repeats much less`,
  ]
}

/**
 * Where actors' order under Pass@K differs from their order under Seq@K for a feedback mode: the
 * paper's headline finding, stated in one line per mode. Rates of one count that differ in their
 * last bits tie (metrics/ranks.ts), so rounding never reads as a change of order.
 */
export function rankingChanges(cells: readonly CellSummary[]): string[] {
  return rankingByMode(cells).map(({ mode, text }) => text.replace('\u0000', mode))
}

/** {@link rankingChanges} per mode, the mode's place in the text held by a NUL. */
function rankingByMode(all: readonly CellSummary[]): { mode: string; text: string }[] {
  // Actors are ranked on the prompt as written: a rewording (`perturb`) is read in the robustness table.
  const cells = all.filter((c) => c.perturbation === undefined)
  if (cells.length === 0) return []
  const K = Math.max(...cells.map((x) => x.budget))
  const pass = new Map(
    cells
      .filter((x) => x.mode === 'independent' && x.passAt?.[K - 1] != null)
      .map((x) => [x.actorId, x.passAt![K - 1]!]),
  )
  if (pass.size < 2) return []
  const out: { mode: string; text: string }[] = []
  const modes = [...new Set(cells.filter((x) => x.mode !== 'independent').map((x) => x.mode))]
  for (const mode of modes) {
    const seq = new Map(
      cells
        .filter((x) => x.mode === mode && pass.has(x.actorId) && x.seqAt[K - 1] != null)
        .map((x) => [x.actorId, x.seqAt[K - 1]!]),
    )
    if (seq.size < 2) continue
    const passRanks = competitionRanks(new Map([...pass].filter(([id]) => seq.has(id))))
    const seqRanks = competitionRanks(seq)
    const moved = [...seqRanks].filter(([id, r]) => passRanks.get(id) !== r)
    if (moved.length === 0) out.push({ mode, text: `ranking: the same under Pass@${K} and Seq@${K} (\u0000)` })
    else
      out.push({
        mode,
        text: `ranking changes from Pass@${K} to Seq@${K} (\u0000): ${moved.map(([id, r]) => `${id} ${ordinal(passRanks.get(id)!)} → ${ordinal(r)}`).join(', ')}`,
      })
  }
  return out
}

/**
 * One line on money when there is something to say: the total, what helpers (critics,
 * summarisers, graders) cost, the prompt-cache share and saving, what the batch APIs saved
 * against list price, and replayed calls.
 */
export function spendingLine(cells: readonly CellSummary[]): string | null {
  const parts: string[] = []
  const known = cells.every((x) => x.costUsd !== null)
  const total = cells.reduce((n, x) => n + (x.costUsd ?? 0), 0)
  if (total > 0 || !known) parts.push(`cost ${money(known ? total : null)}${known ? '' : ' (some models unpriced)'}`)
  const helpers = cells.reduce(
    (n, x) =>
      n +
      Object.entries(x.byRole)
        .filter(([role]) => role !== 'actor')
        .reduce((m, [, r]) => m + (r.costUsd ?? 0), 0),
    0,
  )
  if (helpers > 0) parts.push(`helpers ${money(helpers)}`)
  const input = cells.reduce((n, x) => n + (x.usage?.inputTokens ?? 0), 0)
  const cached = cells.reduce((n, x) => n + (x.usage?.cacheReadTokens ?? 0), 0)
  if (cached > 0) {
    const saved = cells.reduce((n, x) => n + (x.cache.savedUsd ?? 0), 0)
    parts.push(`${percent(cached / input, { digits: 0 })}% of input tokens from prompt cache, saving ${money(saved)}`)
  }
  const batched = cells.filter((x) => x.batch)
  if (batched.length > 0) {
    const calls = batched.reduce((n, x) => n + x.batch!.calls, 0)
    const list = batched.every((x) => x.batch!.listCostUsd !== null)
      ? batched.reduce((n, x) => n + x.batch!.listCostUsd!, 0)
      : null
    const paid = batched.every((x) => x.batch!.costUsd !== null)
      ? batched.reduce((n, x) => n + x.batch!.costUsd!, 0)
      : null
    const saving =
      list !== null && paid !== null && list > 0
        ? `, saving ${money(list - paid)} (${percent((list - paid) / list)}%) against ${money(list)} at list price`
        : ''
    parts.push(`${plural(calls, 'call')} through a batch API${saving}`)
  }
  const replayed = cells.reduce((n, x) => n + x.replayedCalls, 0)
  // Replays matter to money only: where every cost is $0 there is no nominal cost to explain.
  if (replayed > 0 && (total > 0 || !known))
    parts.push(
      `${replayed} of ${cells.reduce((n, x) => n + x.calls, 0)} calls served without a new request (a cassette, or the rubric grader's cache; nominal cost shown)`,
    )
  return parts.length > 0 ? parts.join('; ') : null
}

/** What the baseline gate said about a benchmark's cells: failures one by one, the rest in a line. */
export function baselineLines(cells: readonly CellSummary[], options: { failures?: boolean } = {}): string[] {
  const gated = cells.filter((x) => x.gate)
  if (gated.length === 0) return []
  const out: string[] = []
  // Gates that passed but could not see the drop that matters: one line each, or one line naming them all.
  const blind = gated.filter((x) => couldNotSee(x.gate!) !== null)
  for (const cell of gated) {
    const gate = cell.gate!
    // The terminal table prints a failed gate's reasons under the cell's row instead.
    if (gate.status === 'fail' || gate.status === 'missing') {
      if (options.failures !== false) for (const m of gate.messages) out.push(`✗ ${cell.cellId}: baseline: ${m}`)
    }
    // A passing gate still says what it compared across and could not see, and which tasks it
    // could not compare (added, removed, changed), each line naming its cell.
    else {
      const change = subjectChangeText(gate)
      if (change) out.push(`${cell.cellId}: baseline: ${change}`)
      if (blind.length === 1 && blind[0] === cell) out.push(`${cell.cellId}: baseline: ${couldNotSee(gate)}`)
      for (const m of gate.messages.filter((x) => /^\d+ tasks? |^the baseline has up to/.test(x)))
        out.push(`${cell.cellId}: baseline: ${m}`)
    }
  }
  if (blind.length > 1) {
    const each = blind.map((x) => {
      const drop = x.gate!.power!.detectableDrop
      return `${x.cellId} (${drop === null ? 'not even a drop to zero' : `≥ ${Math.round(drop * 100)} points`})`
    })
    out.push(
      `baseline: no drop the gate could see in ${blind.length} cells, each with the smallest drop it catches 80% of the time: ${each.join(', ')}`,
    )
  }
  const files = [...new Set(gated.map((x) => x.gate!.file))].join(', ')
  const count = (status: string) => gated.filter((x) => x.gate!.status === status).length
  const parts = [
    count('pass') > 0 ? `${plural(count('pass'), 'cell')} passed` : '',
    count('written') > 0 ? `${count('written')} written` : '',
    count('updated') > 0 ? `${count('updated')} updated` : '',
    count('fail') + count('missing') > 0 ? `${count('fail') + count('missing')} failed` : '',
  ].filter(Boolean)
  out.push(`baseline ${files}: ${parts.join(', ')}${powerText(gated.filter((x) => x.gate!.status === 'pass'))}`)
  return out
}

/**
 * What the passing gates could see, in one clause: the range of drops they catch 80% of the time,
 * and how many are too small to catch any (a green gate there means little).
 */
function powerText(passed: readonly CellSummary[]): string {
  const powers = passed.flatMap((x) => (x.gate?.power ? [x.gate.power] : []))
  if (powers.length === 0) return ''
  const drops = powers.flatMap((p) => (p.detectableDrop === null ? [] : [Math.round(p.detectableDrop * 100)]))
  const blind = powers.length - drops.length
  const parts: string[] = []
  if (drops.length > 0) {
    const [lo, hi] = [Math.min(...drops), Math.max(...drops)]
    parts.push(`at these sizes they catch a drop of ${lo === hi ? lo : `${lo}–${hi}`} points 80% of the time`)
  }
  if (blind > 0) parts.push(`${blind} ${blind === 1 ? 'is' : 'are'} too small to catch even a drop to zero`)
  return `; ${parts.join(', and ')} (npx seqk power says what more tasks or repeats would buy)`
}

/**
 * For rubric tasks (verdicts with criteria): per cell, the share of criteria failed in attempt 1
 * that the best later attempt met, the criteria that passed earlier and broke later, and the
 * success of revisions that changed the answer versus those that did not (paper §5.2–5.3).
 */
export function revisionTable(cells: readonly CellSummary[], width: number | null = TABLE_WIDTH): string[] {
  const rows = cells.flatMap((c) => {
    const repair = statisticDetail<RepairDetail>(c, 'criterionRepair')
    return repair ? [{ c, r: repair, next: statisticDetail<NextDetail>(c, 'nextAttemptSuccess') }] : []
  })
  if (rows.length === 0) return []
  const header = ['cell', 'criteria repaired', 'broken later', 'next attempt: changed', 'unchanged']
  const frac = (n: number, d: number, rate: number | null | undefined) =>
    d === 0 ? '—' : `${percent(rate)} (${n}/${d})`
  const body = rows.map(({ c, r, next }) => {
    return [
      c.cellId,
      frac(r.repaired, r.failedFirst, r.repairRate),
      frac(r.broken, r.passedEarlier, r.brokenRate),
      next ? frac(next.changed.solved, next.changed.revisions, next.changed.rate) : '—',
      next ? frac(next.unchanged.solved, next.unchanged.revisions, next.unchanged.rate) : '—',
    ]
  })
  return [
    ' revision analysis (criteria, %):',
    ...fitRows(
      header.map((h, i) => ({ header: h, values: body.map((r) => r[i]!), numeric: i > 0 })),
      width,
    ),
  ]
}

/**
 * The score curve of the cells whose verdicts scored between 0 and 1 (rubrics): Score@k at each k
 * shown, its interval at K and the solved rate at K beside it, so a reader sees which number is
 * which. Nothing when every verdict scored 1 or 0 (the curve is then the solved rate).
 *
 * @example
 * scoreCurveTable(rubricCells, [1, 2, 3, 4, 5]) // [' score curve (…):', ' cell  Score@1 …', …]
 */
export function scoreCurveTable(
  cells: readonly CellSummary[],
  ks: readonly number[],
  width: number | null = TABLE_WIDTH,
): string[] {
  const rows = scoreRows(cells, ks)
  if (rows.length === 0) return []
  const K = Math.max(...cells.map((c) => c.budget))
  const columns: Column[] = [
    { header: 'cell', values: rows.map((r) => r.cellId), numeric: false },
    ...ks.map((k, i) => ({ header: `Score@${k}`, values: rows.map((r) => r.at[i]!), numeric: true })),
    { header: `95% CI @${K}`, values: rows.map((r) => r.ci), numeric: true },
    { header: 'solved @K', values: rows.map((r) => r.solved), numeric: true },
  ]
  const disclosed = disclosedScoreLine(rows)
  const wrap = (line: string) => (width === null ? [line] : wrapLine(line, width))
  return [
    ...wrap(` score curve, in % (${SCORE_CURVE_MEANING}):`),
    ...fitRows(columns, width),
    ...(disclosed ? wrap(` ${disclosed}`) : []),
  ]
}

/** How a cell's episodes ended, most common first: `answer 40 · steps 2`. */
export function endedByText(endedBy: Readonly<Record<string, number>>): string {
  return Object.entries(endedBy)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([reason, n]) => `${reason} ${n}`)
    .join(' · ')
}

/**
 * Per agent cell (attempts that are episodes of tool calls): the agent metrics of the registry
 * (`AGENT_METRICS`: steps and tool calls per attempt, tool error rate, cost per solved task,
 * trajectory consistency by sequence and by frequency, over successful repeats) and how its
 * episodes ended. Nothing for cells without episodes.
 *
 * @example
 * agentTable(cells) // [' agents (…):', ' cell  steps/att  calls/att …', …]
 */
export function agentTable(cells: readonly CellSummary[], width: number | null = TABLE_WIDTH): string[] {
  const rows = cells.filter((c) => c.agent)
  if (rows.length === 0) return []
  const columns: Column[] = [
    { header: 'cell', values: rows.map((c) => c.cellId), numeric: false },
    ...AGENT_METRICS.map((m) => ({
      header: m.header,
      values: rows.map((c) => m.format(m.value(c.agent!))),
      numeric: true,
    })),
    { header: 'ended by', values: rows.map((c) => endedByText(c.agent!.endedBy)), numeric: false },
  ]
  return [
    ' agents (per attempt; tool errors in %; consistency 0–1 over the successful repeats of each task):',
    ...fitRows(columns, width),
  ]
}

/** What each annotator reads as a request, for the title of the revision annotation lines. */
const ANNOTATOR_TEXT: Readonly<Record<string, string>> = {
  derived: 'derived annotator: the requests are the failed tests, criteria and checks the feedback named',
  llm: 'LLM annotator: a model judged each revision against its feedback',
}

/**
 * Per cell with annotated revisions (paper §5.2.2, Figure 5b): the share of revisions that
 * addressed none, some or all of the feedback they answered, and the next-attempt success of each
 * class, pooled over revisions; their intervals (clustered by task) are in summary.json. One
 * table per annotator: classes from different annotators are not the same measurement.
 *
 * @example
 * revisionAnnotationTable(cells)
 * // ['revision annotation (derived annotator: …; %):', 'cell  annotated  unhelpful …', …]
 */
export function revisionAnnotationTable(cells: readonly CellSummary[], width: number | null = TABLE_WIDTH): string[] {
  const rows = cells.filter((c) => c.revisionAnnotation)
  if (rows.length === 0) return []
  const header = ['cell', 'annotated', 'unhelpful', 'some', 'all', 'solved: unhelpful', 'some', 'all']
  const success = (k: { revisions: number; solved: number; success: { point: number | null } }) =>
    k.revisions === 0 ? '—' : `${percent(k.success.point)} (${k.solved}/${k.revisions})`
  const out: string[] = []
  for (const annotator of [...new Set(rows.map((c) => c.revisionAnnotation!.annotator))]) {
    const mine = rows.filter((c) => c.revisionAnnotation!.annotator === annotator)
    const body = mine.map((c) => {
      const a = c.revisionAnnotation!
      const { unhelpful, some, all } = a.classes
      return [
        c.cellId,
        a.sampled ? `${a.annotated} of ${a.annotatable}` : String(a.annotated),
        percent(unhelpful.share.point),
        percent(some.share.point),
        percent(all.share.point),
        success(unhelpful),
        success(some),
        success(all),
      ]
    })
    const models = [...new Set(mine.flatMap((c) => (c.revisionAnnotation!.model ? [c.revisionAnnotation!.model] : [])))]
    const title = ` revision annotation (${ANNOTATOR_TEXT[annotator] ?? `${annotator} annotator`}${models.length > 0 ? `, ${models.join(', ')}` : ''}; %):`
    out.push(
      ...(width === null ? [title] : wrapLine(title, width)),
      ...fitRows(
        header.map((h, i) => ({ header: h, values: body.map((r) => r[i]!), numeric: i > 0 })),
        width,
      ),
    )
  }
  return out
}

type HistoryComparisonLine = {
  actorId: string
  mode: string
  baseline: { history: string; seqAtK: number | null }
  other: { history: string; seqAtK: number | null }
  diff: { point: number | null; lo: number | null; hi: number | null }
  commonTasks: number
}

/**
 * The paired effect of summarising the history, per pair of policies: a heading, one row per
 * cell whose Seq@K moved, and the cells with no difference (a point estimate that prints as
 * +0.0) in one line, grouped by actor, with the widest interval among them. Within `width`.
 *
 * @example
 * historyComparisonLines(summary.historyComparisons ?? [])
 * // ['history summary vs full, Seq@K on 12 common tasks (points, paired 95% CI):', ' simulated:reviser · critic-aware  97.2 → 94.4  -2.8 (-13.2 to +8.4)', …]
 */
export function historyComparisonLines(
  comparisons: readonly HistoryComparisonLine[],
  width: number | null = TABLE_WIDTH,
): string[] {
  const out: string[] = []
  const wrap = (line: string) => (width === null ? [line] : wrapLine(line, width))
  const groups = new Map<string, HistoryComparisonLine[]>()
  for (const c of comparisons) {
    const key = `${c.other.history} vs ${c.baseline.history}`
    groups.set(key, [...(groups.get(key) ?? []), c])
  }
  for (const [key, list] of groups) {
    const tasks = [...new Set(list.map((c) => c.commonTasks))]
    const onTasks = tasks.length === 1 ? ` on ${plural(tasks[0]!, 'common task')}` : ''
    out.push(...wrap(`history ${key}: Seq@K${onTasks}, difference in points (paired 95% CI):`))
    const zero = list.filter((c) => signedPercent(c.diff.point) === '+0.0')
    const moved = list.filter((c) => !zero.includes(c))
    if (moved.length > 0) {
      const rows = moved.map((c) => [
        `${c.actorId} · ${c.mode}`,
        `${percent(c.baseline.seqAtK)} → ${percent(c.other.seqAtK)}`,
        signedPercent(c.diff.point),
        intervalText(c.diff.lo, c.diff.hi, { signed: true }),
        ...(onTasks ? [] : [`on ${plural(c.commonTasks, 'common task')}`]),
      ])
      const header = [
        'cell',
        `${moved[0]!.baseline.history} → ${moved[0]!.other.history}`,
        'diff',
        '95% CI',
        ...(onTasks ? [] : ['tasks']),
      ]
      out.push(
        ...fitRows(
          header.map((h, i) => ({ header: h, values: rows.map((r) => r[i]!), numeric: i === 1 || i === 2 })),
          width,
        ),
      )
    }
    if (zero.length > 0) {
      const byActor = new Map<string, string[]>()
      for (const c of zero) byActor.set(c.actorId, [...(byActor.get(c.actorId) ?? []), c.mode])
      const bound = Math.max(...zero.flatMap((c) => [Math.abs(c.diff.lo ?? 0), Math.abs(c.diff.hi ?? 0)]))
      const who = [...byActor].map(([actor, modes]) => `${actor} (${modes.join(', ')})`).join(', ')
      out.push(
        ...wrap(` no difference (+0.0, 95% CI within ±${percent(bound)}) for ${plural(zero.length, 'cell')}: ${who}`),
      )
    }
  }
  return out
}
