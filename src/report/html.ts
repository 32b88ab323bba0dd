/**
 * The self-contained HTML report of one run: one file, no network (a Content-Security-Policy
 * forbids any fetch), charts as inline SVG rendered at build time, and a small hand-written script
 * for the trajectory viewer and the grid. Every number is shown next to its protocol.
 */
import { headlineCurve } from '../protocol/cell-metrics.js'
import { gateNoteLines } from '../protocol/gate-notes.js'
import { COMPARISON_HEADERS, COMPARISON_NUMERIC, comparisonDetail, comparisonValues } from './subject-comparisons.js'
import {
  robustnessDetail,
  robustnessValues,
  ROBUSTNESS_HEADERS,
  ROBUSTNESS_NUMERIC,
  ROBUSTNESS_TITLE,
} from './robustness-section.js'
import { cellInstrument, cellSubject } from '../core/instrument.js'
import { heldOutGapLine } from '../protocol/held-out-gap.js'
import { extendedLine } from '../protocol/resume.js'
import { verifierUnstableLine } from '../protocol/verifier-unstable.js'
import { createHash } from 'node:crypto'
import {
  errorPolicyOf,
  type CellSummary,
  type RunSummary,
  type RobustnessRow,
  type SubjectComparison,
  type Trajectory,
} from '../core/schemas.js'
import { rankingChanges, spendingLine } from './table.js'
import {
  actorColours,
  costGap,
  costSpec,
  curveRows,
  curvesGap,
  curvesSpec,
  MODE_SHAPES,
  rankGap,
  rankSpec,
  renderSvg,
  REVISION_CLASS_COLOURS,
  revisionShareSpec,
  revisionSuccessGap,
  revisionSuccessSpec,
  trendGap,
  trendSpec,
  type TrendRow,
} from './charts.js'
import { clientScript } from './client.js'
import type { ClientAnnotation, ClientAttempt, ClientTrajectory, ReportData } from './client-data.js'
import { annotateTrajectory } from '../protocol/revision-annotation.js'
import {
  costPoints,
  curveWithBands,
  rankRows,
  REVISION_CLASS_LABELS,
  revisionClassPoints,
  sandboxText,
  unannotatedReason,
  type RevisionClassName,
} from './data.js'
import { annotatorOf, annotatorText } from '../analysis/revision-annotation.js'
import { intervalMethodText } from '../metrics/index.js'
import { DIFFERENCE_ESTIMAND, RATE_ESTIMAND } from '../metrics/estimands.js'
import { errorIntervalNotes } from '../protocol/cell-summary.js'
import { percent, percentText, plural } from '../metrics/format.js'
import { diffLines, diffStats, encodeDiff } from './diff.js'
import { jsonForScript } from './escape.js'
import { html, htmlText, joinHtml, trustedHtml, type Html, type HtmlValue } from './html-template.js'
import { cellChanges, condenseChanges, headlineOf, isOwnEntry, type HistoryEntry } from './history.js'
import { REPORT_CSS } from './style.js'
import { cellColumns, curveOf, unknownUsageLine, verdictValue } from './columns.js'
import {
  cellVerdict,
  reasonLines,
  runCountsText,
  runVerdict,
  summaryVerdict,
  type RunVerdict,
} from '../protocol/verdict.js'
import { sumUsage } from '../core/contract.js'
import type { DisclosureCard } from '../core/disclosure.js'
import { disclosureSectionHtml } from './disclosure-section.js'
import { reliabilitySectionHtml } from './reliability-section.js'
import { agentSectionHtml } from './agent-section.js'
import { statisticsSectionHtml } from './statistics-section.js'
import { gPassSectionHtml } from './g-pass-section.js'
import { equalCostSectionHtml } from './equal-cost-section.js'
import { binaryScoreLine, disclosedScoreLine, SCORE_CURVE_MEANING, scoreRows } from './score-section.js'

/** What the HTML report is rendered from: the run summary, its trajectories, earlier runs and an analysis. */
export interface HtmlReportInput {
  summary: RunSummary
  trajectories: readonly Trajectory[]
  /** Earlier runs (`readHistory().entries`): a trend per cell and the change since the last run. */
  history?: readonly HistoryEntry[]
  /** Further analysis shown at the end: text (e.g. `renderAnalysis` from src/analysis, shown as is) or any JSON. */
  analysis?: unknown
  /** The run's disclosure card (`disclosure.json`): shown as a section after the benchmarks. */
  disclosure?: DisclosureCard
}

/** The options of the HTML report. */
export interface HtmlReportOptions {
  /** Page title (default "Seq@K report · <run id>"). */
  title?: string
  /** Longest answer kept per attempt, in characters (default 20 000); longer ones are cut with a note. */
  maxAnswerChars?: number
  /** Failing tests kept per attempt (default 20). */
  maxFailingTests?: number
  /**
   * Bytes of trajectories (answers, verdicts, feedback, diffs) the page embeds for its viewer
   * (default 2 000 000, about 2 MB): a big run keeps a sample of every cell (errors and revised
   * trajectories first) and says where the rest are, so the page stays small enough to open.
   */
  maxTrajectoryBytes?: number
  /** Tasks each benchmark's task × cell grid shows (default 500); the rest are counted under it. */
  maxGridTasks?: number
}

const settingsText = (settings: Record<string, unknown>): string =>
  Object.entries(settings)
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ')

/** The protocol of a cell as short chips: what its numbers are only defined together with. */
export function protocolChips(cell: CellSummary): string[] {
  const p = cell.protocol
  const chips: string[] = []
  if (p.kind === 'independent') chips.push('independent sampling')
  else {
    chips.push(`history ${p.history?.name ?? '—'}`)
    chips.push(
      p.feedback
        ? `${p.feedback.kind} feedback${p.feedback.name !== p.feedback.kind ? ` (${p.feedback.name})` : ''} v${p.feedback.version}`
        : 'no feedback',
    )
  }
  chips.push(`K=${cell.budget}`)
  if (p.kind === 'sequential') chips.push(p.budgetDisclosed ? 'budget disclosed' : 'budget hidden')
  chips.push(`fp ${cell.fingerprint}`)
  return chips
}

/** The run's or a benchmark's status and counts, as every output words them. */
function statusBadge(status: 'pass' | 'fail' | 'no-thresholds', counts: string): Html {
  const word = status === 'fail' ? 'fail' : status === 'pass' ? 'pass' : 'no thresholds'
  const tone = status === 'fail' ? 'fail' : status === 'pass' ? 'pass' : 'none'
  return html`<span class="badge ${tone}" data-status="${status}">${word}</span> <span class="counts">${counts}</span>`
}

/** What no cell row shows: files that failed to load, cells that did not run, the run's own problems. */
function runProblems(verdict: RunVerdict, summary: RunSummary): Html {
  const items = [
    ...verdict.loadErrors.map(
      (x) =>
        html`<li class="fail" data-load-error="${x.file}">✗ <code>${x.file}</code> failed to load: ${x.error}</li>`,
    ),
    ...(summary.notRun ?? []).map(
      (n) => html`<li class="none">${`${n.benchmark} › ${n.cellId}`} did not run: ${n.reason}</li>`,
    ),
    ...verdict.problems.map((p) => html`<li class="fail">✗ ${p}</li>`),
  ]
  if (items.length === 0) return html``
  return html`<section class="bench run-problems"><h2>Not in the tables</h2><div class="card"><ul class="reasons">${items}</ul></div></section>`
}

/** What a chart with nothing to show prints in its place: a sentence, never degenerate axes. */
const nothing = (chart: string, sentence: string): Html =>
  html`<p class="nothing" data-nothing="${chart}">${sentence}</p>`
const chipsHtml = (chips: readonly string[]): Html =>
  html`<span class="chips">${chips.map((c) => html`<span class="chip${c.startsWith('fp ') ? ' fp' : ''}">${c}</span>`)}</span>`
const swatch = (colour: string): Html => html`<span class="swatch" style="background:${colour}"></span>`
const modeTitle = (mode: string): string =>
  mode === 'independent' ? 'Independent sampling (Pass@k)' : `${mode} feedback (Seq@k)`
/** A chart's SVG, rendered by vega from our own spec: markup this package made. */
const svgBlock = (svg: string): Html => html`<div class="svg">${trustedHtml(svg)}</div>`
const callout = (lines: readonly string[]): Html =>
  lines.length > 0 ? html`<div class="callout">${lines.map((l) => html`<p>${l}</p>`)}</div>` : html``

/** Modes in the order they first appear, sequential ones first and independent sampling last. */
function modesOf(cells: readonly CellSummary[]): string[] {
  const modes = [...new Set(cells.map((c) => c.mode))]
  return [...modes.filter((m) => m !== 'independent'), ...modes.filter((m) => m === 'independent')]
}

// ---- Grid colours: an early first success is dark green, a late one pale, a miss soft red.
const RAMP: readonly [number, number, number][] = [
  [21, 128, 61],
  [124, 196, 111],
  [217, 239, 139],
]
const MISS = '#f6b3b3'
const ERROR = '#cbd5e1'
function ramp(t: number): string {
  const x = Math.min(Math.max(t, 0), 1) * (RAMP.length - 1)
  const i = Math.min(Math.floor(x), RAMP.length - 2)
  const f = x - i
  const [a, b] = [RAMP[i]!, RAMP[i + 1]!]
  return `rgb(${a.map((v, j) => Math.round(v + (b[j]! - v) * f)).join(',')})`
}
/** Colour of "first success at attempt k" for budget K. */
export function attemptColour(k: number, K: number): string {
  return ramp(K <= 1 ? 0 : (k - 1) / (K - 1))
}
const inkOn = (k: number, K: number): string => (K <= 1 || (k - 1) / (K - 1) < 0.45 ? '#fff' : '#1e293b')

interface Ctx {
  colours: Map<string, string>
  trajectories: readonly Trajectory[]
  history: readonly HistoryEntry[] | undefined
  summary: RunSummary
  cellIndex: Map<CellSummary, number>
  /** Trajectories by benchmark, cell and task, sorted by repeat. */
  byTask: Map<string, Trajectory[]>
  maxGridTasks: number
}

/**
 * A cell's infrastructure errors, one line per root cause: the recorded examples
 * (`summary.errors.examples`) grouped by message, each with where it happened, and how many
 * errors the summary did not keep an example of.
 */
export function errorReasons(cell: CellSummary): { message: string; where: string[] }[] {
  const groups = new Map<string, string[]>()
  for (const x of cell.errors.examples)
    groups.set(x.message, [...(groups.get(x.message) ?? []), `${x.taskId} repeat ${x.repeat}`])
  return [...groups].map(([message, where]) => ({ message, where }))
}

function verdictBadge(cell: CellSummary): Html {
  const { text, tone } = verdictValue(cell)
  return html`<span class="badge ${tone === 'pass' ? 'pass' : tone === 'fail' ? 'fail' : 'none'}">${text}</span>`
}

/** What goes under a cell's row: why it failed and its errors, visible, then its protocol in a details element. */
function cellDetail(cell: CellSummary, reasons: readonly string[], distinct: readonly string[], columns: number): Html {
  const lines: Html[] = []
  if (cell.verdict === 'fail') for (const r of reasons) lines.push(html`<li class="fail">✗ ${r}</li>`)
  // What a gate that held compared across and could not see, each line naming the cell.
  else for (const note of gateNoteLines(cell.cellId, cell.gate)) lines.push(html`<li class="caveat">⚠ ${note}</li>`)
  const errors = errorReasons(cell)
  for (const x of errors)
    lines.push(html`<li class="error">⚠ ${x.message} <span class="where">(${x.where.join(', ')})</span></li>`)
  const unlisted = cell.errors.count - cell.errors.examples.length
  if (unlisted > 0) {
    const kept = plural(cell.errors.examples.length, 'example')
    lines.push(html`<li class="error more">${plural(unlisted, 'more error')} (the summary keeps ${kept})</li>`)
  }
  for (const note of errorIntervalNotes(cell)) lines.push(html`<li class="error">⚠ ${note}</li>`)
  // Opened: the whole protocol the row's numbers are defined with, shared chips included.
  const p = cell.protocol
  const chips = [
    ...protocolChips(cell),
    `actor ${p.actor.provider}:${p.actor.model}`,
    `verifier ${p.verifier.name} v${p.verifier.version}`,
    `prompt ${p.promptBuilder}`,
    ...(p.instructions !== undefined
      ? [`instructions ${p.instructions.length > 60 ? `${p.instructions.slice(0, 57)}…` : p.instructions}`]
      : []),
    `errors ${errorPolicyOf(p)}`,
    `instrument ${cellInstrument(cell).fingerprint}`,
    `subject ${cellSubject(cell).fingerprint}`,
  ]
  const proto = html`<details class="proto"><summary>protocol${distinct.length > 0 && html` ${chipsHtml(distinct)}`}</summary>${chipsHtml(chips)}</details>`
  const list = lines.length > 0 && html`<ul class="reasons">${lines}</ul>`
  return html`<tr class="detail" data-detail="${cell.cellId}"><td colspan="${columns}">${list}${proto}</td></tr>`
}

function cellsTable(cells: readonly CellSummary[], ctx: Ctx): Html {
  const K = Math.max(...cells.map((c) => c.budget))
  // Chips every row shares go above the table once; each row's details keep what sets it apart (always its fingerprint).
  const sharedChips = protocolChips(cells[0]!).filter(
    (chip) => !chip.startsWith('fp ') && cells.every((c) => protocolChips(c).includes(chip)),
  )
  // The same columns, headers and texts as the terminal table and the Markdown summary.
  const columns = cellColumns(K).filter((c) => c.outputs.includes('html'))
  const head = columns.map((c) => html`<th${c.numeric && html` class="n"`}>${c.header}</th>`)
  const toneClass = (tone: string | undefined) => (tone === 'warn' ? ' warn' : '')
  const rows = cells.map((cell) => {
    const verdict = cellVerdict(cell)
    const reasons = reasonLines(verdict)
    const thresholds = cell.thresholds.map((t) => `${t.pass ? '✓' : '✗'} ${t.message}`).join('\n')
    const distinct = protocolChips(cell).filter((chip) => !sharedChips.includes(chip))
    const tds = columns.map((c) => {
      const v = c.value(cell, verdict)
      if (c.id === 'cell') return html`<td class="name">${swatch(ctx.colours.get(cell.actorId)!)}${v.text}</td>`
      if (c.id === 'verdict') return html`<td title="${thresholds}">${verdictBadge(cell)}</td>`
      const cls = [c.numeric ? 'n' : '', c.id === `k${K}` ? 'at-k' : '', c.id === 'ci' ? 'ci' : '']
        .filter(Boolean)
        .join(' ')
      const classes = `${cls}${toneClass(v.tone)}`
      return html`<td${classes !== '' && html` class="${classes}"`}>${v.text}</td>`
    })
    return html`<tr class="cell" data-cell="${cell.cellId}">${tds}</tr>\n${cellDetail(cell, reasons, distinct, columns.length)}`
  })
  const caption = sharedChips.length > 0 && html`<p class="note">Every cell: ${chipsHtml(sharedChips)}</p>`
  return html`<div class="card scroll">${caption}<table class="cells main"><thead><tr>${head}</tr></thead><tbody>${joinHtml(rows, '\n')}</tbody></table></div>`
}

/** The variants of the benchmark's subject compared pairwise, as the terminal and the Markdown show them. */
function variantsTable(rows: readonly SubjectComparison[]): Html | false {
  if (rows.length === 0) return false
  const cell = (v: string, i: number) => html`<td${COMPARISON_NUMERIC.has(i) && html` class="n"`}>${v}</td>`
  const body = rows.map(
    (r) =>
      html`<tr data-variant-pair="${r.a.cellId} → ${r.b.cellId}">${[...comparisonValues(r), comparisonDetail(r)].map(cell)}</tr>`,
  )
  const head = [...COMPARISON_HEADERS, 'what changed'].map(
    (h, i) => html`<th${COMPARISON_NUMERIC.has(i) && html` class="n"`}>${h}</th>`,
  )
  return html`<h3>Variants compared</h3>
<p class="hint">B − A, paired over the tasks both measured (points, 95% interval over tasks): the same statistics as the baseline gate.</p>
<div class="card scroll"><table class="cells variants"><thead><tr>${head}</tr></thead><tbody>${joinHtml(body, '\n')}</tbody></table></div>`
}

/** Each rewording (`perturb`) and each faulted agent against its original: the same values as the terminal. */
function robustnessTable(rows: readonly RobustnessRow[]): Html | false {
  if (rows.length === 0) return false
  const cell = (v: string, i: number) => html`<td${ROBUSTNESS_NUMERIC.has(i) && html` class="n"`}>${v}</td>`
  const body = rows.map(
    (r) =>
      html`<tr data-robustness="${r.originalCellId} → ${r.condition}">${[...robustnessValues(r), robustnessDetail(r)].map(cell)}</tr>`,
  )
  const head = [...ROBUSTNESS_HEADERS, 'flipped'].map(
    (h, i) => html`<th${ROBUSTNESS_NUMERIC.has(i) && html` class="n"`}>${h}</th>`,
  )
  return html`<h3>Robustness</h3>
<p class="hint">${ROBUSTNESS_TITLE.replace(/^robustness: /, '').replace(/:$/, '.')} The ratio's interval is Fieller's over tasks; “∞”: unbounded above. Faults: the same agent with a share of its tool calls failing, timing out or cut short.</p>
<div class="card scroll"><table class="cells robustness"><thead><tr>${head}</tr></thead><tbody>${joinHtml(body, '\n')}</tbody></table></div>`
}

/**
 * The score curve (Score@k) of the cells with soft scores, beside their solved rate at K, or the
 * line saying it is the solved rate when every verdict scored 1 or 0 (the same words as the
 * terminal and Markdown, from report/score-section.ts).
 */
function scoreCurveHtml(cells: readonly CellSummary[]): Html {
  const rows = scoreRows(cells)
  if (rows.length === 0) {
    const line = binaryScoreLine(cells)
    return html`${line && html`<p class="note score-binary">${line}</p>`}`
  }
  const K = Math.max(...cells.map((c) => c.budget))
  const ks = Array.from({ length: K }, (_, i) => i + 1)
  const disclosed = disclosedScoreLine(rows)
  const head = ks.map((k) => html`<th class="n">Score@${k}</th>`)
  const body = rows.map(
    (r) =>
      html`<tr data-cell="${r.cellId}"><td class="name">${r.cellId}</td>${r.at.map((v) => html`<td class="n">${v}</td>`)}<td class="n ci">${r.ci}</td><td class="n">${r.solved}</td></tr>`,
  )
  return html`<h3>Score curve</h3>
<p class="hint">${SCORE_CURVE_MEANING}. In %; the interval is at K, over tasks.</p>
<div class="card scroll"><table class="cells score-curve"><thead><tr><th>cell</th>${head}<th class="n">95% CI @${K}</th><th class="n">solved @K</th></tr></thead><tbody>${joinHtml(body, '\n')}</tbody></table></div>
${disclosed && html`<p class="note">${disclosed}</p>`}`
}

async function curvesPanels(cells: readonly CellSummary[], ctx: Ctx): Promise<Html> {
  const figures = await Promise.all(
    modesOf(cells).map(async (mode) => {
      const modeCells = cells.filter((c) => c.mode === mode)
      const metric = headlineCurve(modeCells[0]!).label
      const K = Math.max(...modeCells.map((c) => c.budget))
      const curves = modeCells.map((cell) => ({ cell, curve: curveWithBands(cell) }))
      const rows = curves.flatMap(({ cell, curve }) =>
        curveRows(cell.actorId, cell.fingerprint, curve.label, curve.points),
      )
      const gap = curvesGap(rows, K)
      const svg =
        gap === null
          ? svgBlock(await renderSvg(curvesSpec(rows, { budget: K, metric, colours: ctx.colours })))
          : nothing('curves', gap)
      const legend = curves.map(({ cell, curve }) => {
        const last = curve.points[curve.points.length - 1]
        const ci =
          last &&
          last.lo !== null &&
          last.hi !== null &&
          html`<span class="ci">95% CI ${percent(last.lo)}–${percent(last.hi)}</span>`
        return html`<li>${swatch(ctx.colours.get(cell.actorId)!)}<span>${cell.actorId}</span><span class="value">${metric}@${cell.budget} ${percentText(last?.value)}</span>${ci}<span class="chip fp">fp ${cell.fingerprint}</span></li>`
      })
      const shared = protocolChips(modeCells[0]!).filter((c) => !c.startsWith('fp '))
      return html`<figure class="curves" data-mode="${mode}" data-lines="${modeCells.length}">
<figcaption><div class="title">${modeTitle(mode)}</div>${chipsHtml(shared)}</figcaption>
${svg}<ul class="legend">${legend}</ul></figure>`
    }),
  )
  return html`<div class="panels">${joinHtml(figures, '\n')}</div>`
}

async function rankFigure(cells: readonly CellSummary[], ctx: Ctx): Promise<Html> {
  const rows = rankRows(cells)
  const lines = rankingChanges(cells)
  const gap = rankGap(rows)
  if (gap !== null)
    return html`<figure class="rank wide"><figcaption><div class="title">Rank change, Pass@K → Seq@K</div></figcaption>${nothing('rank', gap)}${callout(lines)}</figure>`
  const svg = await renderSvg(rankSpec(rows, { colours: ctx.colours }))
  const K = Math.max(...cells.map((c) => c.budget))
  const fps = [...new Set(rows.map((r) => r.actor))].map(
    (a) =>
      html`<li>${swatch(ctx.colours.get(a)!)}<span>${a}</span>${rows
        .filter((r) => r.actor === a)
        .map((r) => html`<span class="chip fp" title="${r.column}">${r.column}: ${r.fingerprint}</span>`)}</li>`,
  )
  const histories = [...new Set(cells.map((c) => c.protocol.history?.name).filter(Boolean))].join(', ') || '—'
  return html`<figure class="rank wide">
<figcaption><div class="title">Rank change, Pass@${K} → Seq@${K}</div>${chipsHtml([`K=${K}`, `history ${histories}`, 'ties share the better rank'])}</figcaption>
<div class="side-by-side">${svgBlock(svg)}<div>${callout(lines)}<ul class="legend">${fps}</ul></div></div></figure>`
}

async function costPanels(cells: readonly CellSummary[], ctx: Ctx): Promise<Html> {
  const { unit, points } = costPoints(cells, ctx.trajectories)
  const whole = costGap(points, unit)
  // Nothing to show for the whole benchmark (every cost 0: a server that reports no usage): one sentence, not a panel per mode.
  if (whole !== null && (points.length === 0 || points.every((p) => p.cost === 0))) return nothing('cost', whole)
  const maxCost = Math.max(...points.map((p) => p.cost))
  const minValue = Math.min(...points.map((p) => p.value))
  const figures = await Promise.all(
    modesOf(cells).map(async (mode) => {
      const modeCells = cells.filter((c) => c.mode === mode)
      const metric = headlineCurve(modeCells[0]!).label
      const mine = points.filter((p) => p.mode === mode)
      const gap = costGap(mine, unit)
      const svg =
        gap === null
          ? svgBlock(await renderSvg(costSpec(mine, { unit, metric, maxCost, minValue, colours: ctx.colours })))
          : nothing('cost', gap)
      const legend = modeCells.map(
        (c) =>
          html`<li>${swatch(ctx.colours.get(c.actorId)!)}<span>${c.actorId}</span><span class="chip fp">fp ${c.fingerprint}</span></li>`,
      )
      const shared = protocolChips(modeCells[0]!).filter((c) => !c.startsWith('fp '))
      return html`<figure class="cost" data-mode="${mode}">
<figcaption><div class="title">Cost vs success · ${mode}</div>${chipsHtml(shared)}</figcaption>
${svg}<ul class="legend">${legend}</ul></figure>`
    }),
  )
  const unitNote =
    unit === 'usd'
      ? 'x: mean cost per task (USD) of running with budget k and stopping at the first success.'
      : 'x: mean tokens per task (input + output, helpers included) with budget k, stopping at the first success: the models of this run have no price, so tokens stand in for cost.'
  return html`<p class="hint">${unitNote} Numbers next to points are k. Dashed staircase: the protocol's Pareto frontier (ringed points: nothing is both cheaper and better).</p><div class="panels">${joinHtml(figures, '\n')}</div>`
}

async function trendPanels(benchmark: string, cells: readonly CellSummary[], ctx: Ctx): Promise<Html> {
  const history = ctx.history ?? []
  const earlier = (cell: CellSummary) =>
    history.filter(
      (h) =>
        !isOwnEntry(h, ctx.summary) &&
        h.benchmark === benchmark &&
        h.cellId === cell.cellId &&
        h.fingerprint === cell.fingerprint,
    )
  if (!cells.some((c) => earlier(c).length > 0)) {
    return ctx.history
      ? html`<p class="note">No earlier run of these protocols (same fingerprint) in the history file yet.</p>`
      : html`<p class="note">No history given: pass the entries of <code>.seqk/history.jsonl</code> to draw a trend per cell.</p>`
  }
  const figures = await Promise.all(
    modesOf(cells).map(async (mode) => {
      const modeCells = cells.filter((c) => c.mode === mode)
      const rows: TrendRow[] = modeCells.flatMap((cell) => {
        const { interval } = curveOf(cell)
        const past = earlier(cell).map((h): TrendRow => {
          const head = headlineOf(h)
          return {
            actor: cell.actorId,
            runId: h.runId,
            createdAt: h.createdAt,
            commit: h.commit,
            value: head.value,
            lo: h.interval?.lo ?? null,
            hi: h.interval?.hi ?? null,
            current: false,
            label: '',
          }
        })
        const now = headlineOf({ seqAt: cell.seqAt, passAt: cell.passAt, kind: cell.protocol.kind })
        past.push({
          actor: cell.actorId,
          runId: ctx.summary.runId,
          createdAt: ctx.summary.createdAt,
          commit: null,
          value: now.value,
          lo: interval?.lo ?? null,
          hi: interval?.hi ?? null,
          current: true,
          label: '',
        })
        return past.map((r) => ({
          ...r,
          label: `${cell.cellId} · ${now.label}@${now.k} = ${percentText(r.value)} · run ${r.runId}${r.commit ? ` @ ${r.commit}` : ''}${r.current ? ' (this run)' : ''} · fp ${cell.fingerprint}`,
        }))
      })
      const metric = `${headlineCurve(modeCells[0]!).label}@${modeCells[0]!.budget}`
      const gap = trendGap(rows)
      const svg =
        gap === null
          ? svgBlock(await renderSvg(trendSpec(rows, { metric, colours: ctx.colours })))
          : nothing('trend', gap)
      const legend = modeCells.map(
        (c) =>
          html`<li>${swatch(ctx.colours.get(c.actorId)!)}<span>${c.actorId}</span><span class="note">${plural(earlier(c).length, 'earlier run')}</span><span class="chip fp">fp ${c.fingerprint}</span></li>`,
      )
      return html`<figure class="trend" data-mode="${mode}"><figcaption><div class="title">${metric} over runs · ${mode}</div></figcaption>${svg}<ul class="legend">${legend}</ul></figure>`
    }),
  )
  return html`<p class="hint">Only runs with the same protocol fingerprint are joined; the diamond is this run; vertical rules are 95% intervals.</p><div class="panels">${joinHtml(figures, '\n')}</div>`
}

/** What an annotator reads as a request and who decides, for the revision figure's caption. */
function annotatorCaption(a: NonNullable<CellSummary['revisionAnnotation']>): string {
  const id = annotatorOf(a)
  const how =
    id.annotator === 'derived'
      ? "derived from the verdicts: the requests are the failed tests, criteria and checks the feedback named, satisfied when the revision's verdict shows them passing"
      : `${id.model ?? 'a model'} read the task, the previous answer, the feedback and the revision, and said which requests it satisfied`
  return `${annotatorText(id)}: ${how}`
}

/**
 * The revision analysis of a benchmark (paper §5.2.2, Figure 5b): for the cells whose revisions
 * were annotated, a stacked bar per cell of the classes' shares and next-attempt success by class
 * with its interval, then the numbers; cells without annotation are named with the reason.
 */
async function revisionSection(cells: readonly CellSummary[], ctx: Ctx): Promise<Html> {
  const sequential = cells.filter((c) => c.protocol.kind === 'sequential')
  if (sequential.length === 0) return html``
  const annotated = sequential.flatMap((cell) => {
    const points = revisionClassPoints(cell)
    return points ? [{ cell, points, a: cell.revisionAnnotation! }] : []
  })
  const without = sequential.filter((c) => !annotated.some((x) => x.cell === c))
  const reasons = new Map<string, string[]>()
  for (const c of without) reasons.set(unannotatedReason(c), [...(reasons.get(unannotatedReason(c)) ?? []), c.cellId])
  const withoutNote =
    without.length > 0 &&
    html`<p class="note" data-unannotated="${without.length}">Not annotated: ${joinHtml(
      [...reasons].map(([why, ids]) => html`${ids.join(', ')}: ${why}`),
      '; ',
    )}.</p>`
  const head = html`<h3>Revision analysis: did the revision address the feedback?</h3>`
  if (annotated.length === 0)
    return html`${head}<p class="note revision-none">No revision of these cells was annotated, so there is no class to chart.</p>${withoutNote}`
  const points = annotated.flatMap((x) => x.points)
  const modes = [...new Set(points.map((p) => p.mode))]
  const successGap = revisionSuccessGap(points)
  const [shares, success] = await Promise.all([
    renderSvg(revisionShareSpec(points)).then(svgBlock),
    successGap === null
      ? renderSvg(revisionSuccessSpec(points, { colours: ctx.colours })).then(svgBlock)
      : nothing('revision-success', successGap),
  ])
  const captions = [...new Set(annotated.map((x) => annotatorCaption(x.a)))]
  const sampled = annotated.filter((x) => x.a.sampled)
  const cellNotes = annotated.flatMap((x) => {
    const note = (x.a as { note?: unknown }).note
    const errors = (x.a as { errors?: unknown }).errors
    return [
      ...(typeof note === 'string' ? [`${x.cell.cellId}: ${note}`] : []),
      ...(typeof errors === 'number' && errors > 0
        ? [`${x.cell.cellId}: ${plural(errors, 'annotation')} failed (in no class)`]
        : []),
    ]
  })
  const chips = [
    `annotator ${annotated.length > 1 && new Set(annotated.map((x) => annotatorText(annotatorOf(x.a)))).size > 1 ? 'differs by cell: not comparable across annotators' : annotatorText(annotatorOf(annotated[0]!.a))}`,
    sampled.length > 0 ? `a sample in ${plural(sampled.length, 'cell')}` : 'every annotatable revision',
    '95% intervals clustered by task',
  ]
  const classes = Object.keys(REVISION_CLASS_LABELS) as RevisionClassName[]
  type Share = { point: number | null; lo: number | null; hi: number | null }
  const shareCell = (k: { share: Share }) =>
    html`<td class="n">${percent(k.share.point)} <span class="ci">${percent(k.share.lo)}–${percent(k.share.hi)}</span></td>`
  const successCell = (k: { revisions: number; solved: number; success: Share }) =>
    k.revisions === 0
      ? html`<td class="n">—</td>`
      : html`<td class="n" title="${k.solved} of ${k.revisions} passed">${percent(k.success.point)} <span class="ci">${percent(k.success.lo)}–${percent(k.success.hi)}</span></td>`
  // The annotator is in the chips when every cell shares it; under each cell's name only when they differ (a column would not fit 1280 px).
  const byAnnotator = new Set(annotated.map((x) => annotatorText(annotatorOf(x.a)))).size > 1
  const rows = annotated.map(({ cell, a }) => {
    const count = a.sampled ? `${a.annotated} of ${a.annotatable}` : String(a.annotated)
    const by = byAnnotator && html`<div class="sub annotator">annotator ${annotatorText(annotatorOf(a))}</div>`
    return html`<tr data-cell="${cell.cellId}"><td class="name">${swatch(ctx.colours.get(cell.actorId)!)}${cell.cellId}${by}</td><td class="n">${count}</td>${classes.map((k) => shareCell(a.classes[k]))}${classes.map((k) => successCell(a.classes[k]))}</tr>`
  })
  const classSwatch = (k: RevisionClassName) =>
    html`<span class="swatch" style="background:${REVISION_CLASS_COLOURS[k]}"></span>`
  const classHead = classes.map((k) => html`<th class="n">${classSwatch(k)}${REVISION_CLASS_LABELS[k]}</th>`)
  const table = html`<div class="card scroll"><table class="cells revision-classes"><thead><tr><th></th><th></th><th class="n" colspan="3">share of annotated revisions (95% CI)</th><th class="n" colspan="3">next attempt passed (95% CI)</th></tr><tr><th>cell${byAnnotator && ' · annotator'}</th><th class="n">annotated</th>${classHead}${classHead}</tr></thead><tbody>${joinHtml(rows, '\n')}</tbody></table></div>`
  const shareLegend = classes.map((k) => html`<li>${classSwatch(k)}<span>${REVISION_CLASS_LABELS[k]}</span></li>`)
  const successLegend = annotated.map(({ cell }) => {
    const shape =
      modes.length > 1 && html`<span>${MODE_SHAPES[modes.indexOf(cell.mode) % MODE_SHAPES.length]!.glyph}</span>`
    return html`<li>${swatch(ctx.colours.get(cell.actorId)!)}${shape}<span>${cell.cellId}</span><span class="chip fp">fp ${cell.fingerprint}</span></li>`
  })
  return html`${head}
<p class="hint">A revision answers the previous attempt's feedback: <b>unhelpful</b> when it satisfies none of the feedback's requests, <b>addressed some</b> when at least one but not all, <b>addressed all</b> when every one. Shares are of the annotated revisions, pooled over revisions; next-attempt success is the share of a class's revisions that passed (addressing all and still failing: it broke something the feedback did not name). Annotator ${captions.join('; ')}.</p>
<div class="panels"><figure class="revision-shares" data-cells="${annotated.length}"><figcaption><div class="title">Revision classes per cell</div>${chipsHtml(chips)}</figcaption>${shares}<ul class="legend">${shareLegend}</ul></figure>
<figure class="revision-success" data-cells="${annotated.length}"><figcaption><div class="title">Next-attempt success by class</div>${chipsHtml(['error bars: 95% interval', 'no point: no revision in the class'])}</figcaption>${success}<ul class="legend">${successLegend}</ul></figure></div>
${table}
${callout(cellNotes)}${withoutNote}`
}

function gridHtml(benchIndex: number, cells: readonly CellSummary[], ctx: Ctx): Html {
  const K = Math.max(...cells.map((c) => c.budget))
  const modes = modesOf(cells)
  const actors = [...new Set(cells.map((c) => c.actorId))]
  const columns = actors.flatMap((a) => modes.flatMap((m) => cells.filter((c) => c.actorId === a && c.mode === m)))
  const allTasks = [...new Set(columns.flatMap((c) => c.perTask.map((t) => t.taskId)))]
  const tasks = allTasks.slice(0, ctx.maxGridTasks)
  const perTask = new Map(columns.map((c) => [c, new Map(c.perTask.map((t) => [t.taskId, t]))]))
  const actorHead = actors.map((a) => {
    const span = columns.filter((c) => c.actorId === a).length
    return html`<th colspan="${span}" style="--c:${ctx.colours.get(a)}">${swatch(ctx.colours.get(a)!)}${a}</th>`
  })
  const modeHead = columns.map(
    (c) => html`<th title="${c.cellId}">${c.mode === 'independent' ? 'indep.' : c.mode}</th>`,
  )
  const body = tasks.map((taskId) => {
    const tds = columns.map((cell) => {
      const task = perTask.get(cell)!.get(taskId)
      const c = ctx.cellIndex.get(cell)!
      const attrs = html`class="gc" data-gc="${c}" data-t="${taskId}" tabindex="0"`
      if (!task)
        return html`<td ${attrs} title="${`${cell.cellId} › ${taskId}: not run`}"><span class="avg" style="background:${ERROR}">·</span></td>`
      const firsts = task.firstSuccess
      const solved = firsts.filter((f): f is number => f !== null && f <= cell.budget)
      const meanAttempt = solved.length > 0 ? solved.reduce((a, b) => a + b, 0) / solved.length : null
      const solvedShare = firsts.length === 0 ? 0 : solved.length / firsts.length
      const fill = meanAttempt === null ? MISS : attemptColour(meanAttempt, K)
      const background =
        solvedShare >= 1 || meanAttempt === null
          ? fill
          : `linear-gradient(90deg, ${fill} ${(solvedShare * 100).toFixed(0)}%, ${MISS} ${(solvedShare * 100).toFixed(0)}%)`
      const ink = meanAttempt !== null && solvedShare >= 0.5 ? inkOn(meanAttempt, K) : '#7f1d1d'
      const label =
        meanAttempt === null
          ? firsts.length === 0
            ? '!'
            : '✗'
          : solvedShare < 1
            ? `${solved.length}/${firsts.length}`
            : Number.isInteger(meanAttempt)
              ? String(meanAttempt)
              : meanAttempt.toFixed(1)
      // Per repeat from the trajectories (errored repeats included); from the summary when there are none.
      const recorded = ctx.byTask.get(`${cell.benchmark}\u0000${cell.cellId}\u0000${taskId}`)
      const reps = recorded
        ? recorded.map((t) => ({
            r: t.repeat,
            f: t.firstSuccess,
            error: t.status === 'error',
            capped: t.status === 'capped',
          }))
        : firsts.map((f, r) => ({ r, f, error: false, capped: false }))
      const squares = reps.map(({ r, f, error, capped }) => {
        // The cell's title lists every repeat: a title per square would double the grid's size.
        if (error) return html`<i data-r="${r}" style="background:${ERROR}">!</i>`
        // Stopped at a cost cap: unfinished, neither a pass nor a miss.
        if (capped) return html`<i data-r="${r}" data-capped="" style="background:#e5e7eb;color:#374151">…</i>`
        if (f === null) return html`<i data-r="${r}" style="background:${MISS};color:#7f1d1d">✗</i>`
        return html`<i data-r="${r}" style="background:${attemptColour(f, K)};color:${inkOn(f, K)}">${f}</i>`
      })
      const title = `${cell.cellId} › ${taskId}: ${firsts.map((f) => (f === null ? '✗' : `@${f}`)).join(' ')}${task.errors > 0 ? ` (${task.errors} errored)` : ''} · fp ${cell.fingerprint}`
      return html`<td ${attrs} title="${title}"><span class="avg" style="background:${background};color:${ink}">${label}</span><span class="reps">${squares}</span></td>`
    })
    return html`<tr><th title="${taskId}">${taskId}</th>${tds}</tr>`
  })
  const id = `grid-${benchIndex}`
  const legend = [
    ...Array.from(
      { length: K },
      (_, i) => html`<span><i style="background:${attemptColour(i + 1, K)}"></i>${i + 1}</span>`,
    ),
    html`<span><i style="background:${MISS}"></i>not solved</span>`,
    html`<span><i style="background:${ERROR}"></i>error</span>`,
  ]
  const more =
    allTasks.length > tasks.length &&
    html`<p class="note" data-grid-more="${allTasks.length - tasks.length}">The grid shows the first ${tasks.length} of ${allTasks.length} tasks; every task's first successes are in summary.json (perTask).</p>`
  return html`<div class="grid-controls">
<span><label><input type="radio" name="${id}-view" value="average" data-grid-view="${id}" checked> averaged over repeats</label>
<label><input type="radio" name="${id}-view" value="repeats" data-grid-view="${id}"> per repeat</label></span>
<span class="grid-legend">first success at attempt ${legend}</span></div>
<p class="hint">Averaged: the mean attempt of the first success over the repeats that succeeded; a red part is the share of repeats never solved (n/m = solved/repeats). Click a square to open its trajectory.</p>
<div class="card scroll"><table class="grid" id="${id}" data-view="average" data-tasks="${tasks.length}" data-cells="${columns.length}"><thead><tr><th></th>${actorHead}</tr><tr><th>task</th>${modeHead}</tr></thead><tbody>${joinHtml(body, '\n')}</tbody></table></div>
${more}`
}

async function benchmarkSection(bench: RunSummary['benchmarks'][number], index: number, ctx: Ctx): Promise<Html> {
  const cells = bench.cells
  if (cells.length === 0) return html``
  const first = cells[0]!
  const p = first.protocol
  const K = Math.max(...cells.map((c) => c.budget))
  const histories = [...new Set(cells.map((c) => c.protocol.history?.name).filter((h): h is string => h !== undefined))]
  const verifierSettings = Object.keys(p.verifier.settings).length > 0 ? ` (${settingsText(p.verifier.settings)})` : ''
  const sandbox = sandboxText(cells)
  const lede: HtmlValue[] = [
    html`<code>${bench.file}</code>`,
    `K=${K}`,
    `${plural(first.tasks, 'task')} × ${plural(first.repeats, 'repeat')}`,
    `history ${histories.join(', ') || '—'}`,
    `verifier ${p.verifier.name} v${p.verifier.version}${verifierSettings}`,
    `prompt ${p.promptBuilder}`,
    html`tasks hash <span class="fp">${p.benchmark.contentHash}</span>`,
    cells.some((c) => c.protocol.budgetDisclosed)
      ? 'budget disclosed to the actor: only Seq@K is valid'
      : 'budget not disclosed (Seq@k for k < K read by truncation)',
    ...(sandbox === '' ? [] : [sandbox]),
  ]
  // The benchmark's verdict in the words of every output (the verdict model): never "pass" for cells that checked nothing.
  const bv = runVerdict({ benchmarks: [bench] })
  const ranking = rankingChanges(cells)
  const changes = ctx.history ? condenseChanges(cellChanges(ctx.history, { ...ctx.summary, benchmarks: [bench] })) : []
  const [curves, rank, revisions, cost, trend, reliability] = await Promise.all([
    curvesPanels(cells, ctx),
    rankFigure(cells, ctx),
    revisionSection(cells, ctx),
    costPanels(cells, ctx),
    trendPanels(bench.name, cells, ctx),
    reliabilitySectionHtml(cells, { colours: ctx.colours, maxTasks: ctx.maxGridTasks }),
  ])
  const boot = first.seqAtInterval
  const spending = spendingLine(cells)
  const unknownUsage = unknownUsageLine(cells)
  return html`<section class="bench" id="bench-${index}">
<h2>${bench.name} ${statusBadge(bv.status, runCountsText(bv))}</h2>
<p class="lede">${joinHtml(lede, ' · ')}</p>
${callout(ranking)}
<h3>Cells</h3>
${cellsTable(cells, ctx)}
${scoreCurveHtml(cells)}
${spending && html`<p class="hint spending">${spending}</p>`}
${unknownUsage && html`<p class="note unknown-usage">${unknownUsage}</p>`}
${cells.flatMap((c) => heldOutGapLine(c) ?? []).map((line) => html`<p class="note held-out">${line}</p>`)}
${cells.flatMap((c) => extendedLine(c) ?? []).map((line) => html`<p class="note extended">${line}</p>`)}
${cells.flatMap((c) => verifierUnstableLine(c) ?? []).map((line) => html`<p class="note verifier-unstable">${line}</p>`)}
${variantsTable((ctx.summary.variantComparisons ?? []).filter((r) => r.benchmark === bench.name))}
${robustnessTable((ctx.summary.robustness ?? []).filter((r) => r.benchmark === bench.name))}
${changes.length > 0 && html`<h3>Since the last run</h3><div class="card"><ul class="changes">${changes.map((c) => html`<li>${c}</li>`)}</ul></div>`}
<h3>Success by attempt</h3>
<p class="hint">Seq@k: share of tasks solved by attempt k when the actor revises after feedback (one K-run read by truncation). Pass@k: unbiased estimate from K independent samples. Bands: ${percent(boot.level, { digits: 0 })}% interval at every k (${intervalMethodText(boot.method)}; repeats stay with their task), for ${RATE_ESTIMAND}; a baseline's difference is for ${DIFFERENCE_ESTIMAND}.</p>
${curves}
${revisions}
${reliability}
${gPassSectionHtml(cells)}
${agentSectionHtml(cells)}
${statisticsSectionHtml(cells)}
<h3>Rank change</h3>
<div class="panels">${rank}</div>
<h3>Cost vs success</h3>
${cost}
${equalCostSectionHtml(ctx.summary.equalCost ?? [], bench.name)}
<h3>Trend</h3>
${trend}
<h3>Tasks × cells</h3>
${gridHtml(index, cells, ctx)}
</section>`
}

/** Interns strings into a table, returning each one's index. */
class StringTable {
  readonly strings: string[] = []
  private readonly index = new Map<string, number>()
  add(text: string): number {
    let i = this.index.get(text)
    if (i === undefined) {
      i = this.strings.length
      this.strings.push(text)
      this.index.set(text, i)
    }
    return i
  }
}

function clip(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}\n… [${text.length - max} more characters not kept in the report]`
}

/**
 * A request as the feedback text names it: `test:1` is shown as `test_2`, `criterion:c3` as `c3`.
 *
 * @example
 * requestLabel('test:1') // => 'test_2'
 */
export function requestLabel(request: string): string {
  const test = /^test:(\d+)$/.exec(request)
  if (test) return `test_${Number(test[1]) + 1}`
  return request.startsWith('criterion:') ? request.slice('criterion:'.length) : request
}

/** What an attempt may store: the LLM annotator's record or its failure (absent under the derived annotator). */
interface StoredAnnotation {
  annotator: string
  version: string
  model?: string
  requests?: string[]
  satisfied?: string[]
  partly?: string[]
  unobserved?: string[]
  class?: 'unhelpful' | 'some' | 'all'
  reason?: string
  error?: string
  sample?: unknown
}

/**
 * Each revision's annotation as the viewer shows it, by attempt index: the one the cell's summary
 * counted. Under the derived annotator it is recomputed from the verdicts (it is not stored);
 * under another it is the record stored on the attempt.
 */
function clientAnnotations(
  t: Trajectory,
  cell: CellSummary | undefined,
  str: (text: string) => number,
): Map<number, ClientAnnotation> {
  const out = new Map<number, ClientAnnotation>()
  const summary = cell?.revisionAnnotation
  if (!summary) return out
  const records: StoredAnnotation[] =
    summary.annotator === 'derived'
      ? annotateTrajectory(t)
      : t.attempts.flatMap((a) => {
          const stored = (a as { annotation?: StoredAnnotation }).annotation
          return stored ? [{ ...stored, attempt: a.index }] : []
        })
  for (const r of records) {
    const attempt = (r as { attempt?: number }).attempt
    if (attempt === undefined) continue
    const by = annotatorText({ annotator: r.annotator, version: r.version, model: r.model ?? null })
    const ann: ClientAnnotation = {
      by,
      req: (r.requests ?? []).map(requestLabel),
      sat: (r.satisfied ?? []).map(requestLabel),
    }
    if (r.class) ann.k = r.class
    if (r.partly && r.partly.length > 0) ann.part = r.partly.map(requestLabel)
    if (r.unobserved && r.unobserved.length > 0) ann.un = r.unobserved.map(requestLabel)
    if (r.reason) ann.why = str(r.reason)
    if (r.error) ann.err = str(r.error)
    if (r.sample) ann.smp = true
    out.set(attempt, ann)
  }
  return out
}

/** The compact trajectory records the viewer reads: the verified code is stored as a slice of the answer when it is one, and diffs as run lengths. */
function clientTrajectory(
  t: Trajectory,
  c: number,
  cell: CellSummary | undefined,
  options: Required<HtmlReportOptions>,
  table: StringTable,
): ClientTrajectory {
  const str = (text: string) => table.add(text)
  const annotations = clientAnnotations(t, cell, str)
  let previousCode: string | null = null
  const attempts = t.attempts.map((a): ClientAttempt => {
    const answer = clip(a.answer, options.maxAnswerChars)
    const extracted = a.verdict.extracted === undefined ? undefined : clip(a.verdict.extracted, options.maxAnswerChars)
    const code = extracted ?? answer
    const out: ClientAttempt = {
      i: a.index,
      a: str(answer),
      p: a.verdict.pass,
      o: a.verdict.diagnostics.outcome,
      s: str(a.verdict.diagnostics.summary),
      f: a.feedback ? { k: a.feedback.kind, t: str(a.feedback.text) } : null,
      u: a.unmodified,
      tok: attemptTokens(a),
      cost: a.costUsd,
      fin: a.finishReason,
    }
    if (extracted !== undefined && extracted !== answer) {
      const at = answer.indexOf(extracted)
      out.x = at >= 0 ? [at, at + extracted.length] : str(extracted)
    }
    if (a.verdict.diagnostics.error) out.er = str(clip(a.verdict.diagnostics.error, 4000))
    if (a.episode) {
      const turns = a.episode.turns.map((turn) => ({
        x: str(clip(turn.text, 4000)),
        tok: turn.usage ? turn.usage.inputTokens + turn.usage.outputTokens : null,
        cost: turn.costUsd,
        c: turn.toolCalls.map((c) => ({
          n: c.name,
          a: str(clip(c.arguments, 2000)),
          ...(c.result !== null ? { r: str(clip(c.result, 2000)) } : {}),
          ...(c.error !== null ? { er: str(clip(c.error, 2000)) } : {}),
          ms: Math.round(c.durationMs),
        })),
      }))
      out.ep = { e: a.episode.endedBy, t: turns }
    }
    const tests = a.verdict.diagnostics.tests
    if (tests) {
      out.n = tests.length
      const failing = tests.filter((x) => !x.pass)
      out.ft = failing.slice(0, options.maxFailingTests).map((x) => ({
        // The source only when there is no call to show (it repeats the call and expected value).
        ...(x.call !== undefined ? { call: str(clip(x.call, 2000)) } : { src: str(clip(x.source, 2000)) }),
        ...(x.expected !== undefined ? { exp: str(clip(x.expected, 2000)) } : {}),
        ...(x.actual !== undefined ? { got: str(clip(x.actual, 2000)) } : {}),
        ...(x.error !== undefined ? { err: str(clip(x.error, 2000)) } : {}),
      }))
      if (failing.length > options.maxFailingTests) out.more = failing.length - options.maxFailingTests
    }
    if (previousCode !== null) {
      const ops = diffLines(previousCode, code)
      const stats = diffStats(ops)
      out.d = encodeDiff(ops)
      out.ds = [stats.added, stats.removed]
    }
    const ann = annotations.get(a.index)
    if (ann) out.ann = ann
    previousCode = code
    return out
  })
  return {
    c,
    t: t.taskId,
    r: t.repeat,
    s: t.status,
    f: t.firstSuccess,
    e: t.error ? str(`${t.error.stage} failed at attempt ${t.error.attempt}: ${t.error.message}`) : null,
    a: attempts,
  }
}

/** An attempt's tokens, helper calls included; null when a call of it reported no usage. */
function attemptTokens(a: Trajectory['attempts'][number]): number | null {
  const { usage, unknownCalls } = sumUsage([a.usage, ...a.helperCalls.map((h) => h.usage)])
  return usage === null || unknownCalls > 0 ? null : usage.inputTokens + usage.outputTokens
}

/** How the viewer's trajectories are ranked for a page of limited size: errors, then revised ones, then the rest. */
const embedRank = (t: Trajectory): number => (t.status === 'error' ? 0 : t.attempts.length > 1 ? 1 : 2)

/**
 * The trajectories the page embeds, within `maxBytes` of JSON (strings counted once): the one the
 * viewer opens with, then every cell in turn, each its errors and revised trajectories first, so
 * every cell keeps examples however big the run. `of` is how many there were.
 */
function embeddedTrajectories(
  trajectories: readonly Trajectory[],
  cellOf: (t: Trajectory) => number | undefined,
  start: { c: number; t: string; r: number } | null,
  maxBytes: number,
  encode: (t: Trajectory, c: number) => ClientTrajectory,
  table: StringTable,
): { traj: ClientTrajectory[]; of: number } {
  const byCell = new Map<number, Trajectory[]>()
  for (const t of trajectories) {
    const c = cellOf(t)
    if (c === undefined) continue
    if (!byCell.has(c)) byCell.set(c, [])
    byCell.get(c)!.push(t)
  }
  const of = [...byCell.values()].reduce((n, ts) => n + ts.length, 0)
  const queues = [...byCell.entries()].map(([c, ts]) => ({
    c,
    ts: [...ts].sort((a, b) => embedRank(a) - embedRank(b)),
    next: 0,
  }))
  if (start) {
    const q = queues.find((x) => x.c === start.c)
    const at = q ? q.ts.findIndex((t) => t.taskId === start.t && t.repeat === start.r) : -1
    if (q && at > 0) q.ts.unshift(...q.ts.splice(at, 1))
  }
  const traj: ClientTrajectory[] = []
  let bytes = 0
  let stringBytes = 0
  for (let open = queues.length; open > 0;) {
    open = 0
    for (const q of queues) {
      if (q.next >= q.ts.length) continue
      open++
      const before = table.strings.length
      const encoded = encode(q.ts[q.next++]!, q.c)
      const added = table.strings.slice(before).reduce((n, text) => n + text.length + 3, 0)
      const size = JSON.stringify(encoded).length + 1
      if (traj.length > 0 && bytes + stringBytes + size + added > maxBytes) return { traj, of }
      traj.push(encoded)
      bytes += size
      stringBytes += added
    }
  }
  return { traj, of }
}

/** The trajectory the viewer opens with: a revised and finally solved one with verifier feedback if there is one. */
function startingPoint(
  trajectories: readonly Trajectory[],
  cellOf: (t: Trajectory) => number | undefined,
): { c: number; t: string; r: number } | null {
  const score = (t: Trajectory) =>
    (t.protocol.kind === 'sequential' ? 4 : 0) +
    (t.attempts[0]?.feedback?.kind === 'verifier' ? 2 : 0) +
    (t.status === 'solved' ? 1 : 0) +
    Math.min(t.attempts.length, 4) * 2
  let best: Trajectory | null = null
  for (const t of trajectories) if (cellOf(t) !== undefined && (best === null || score(t) > score(best))) best = t
  return best ? { c: cellOf(best)!, t: best.taskId, r: best.repeat } : null
}

/**
 * Renders one run as a single self-contained HTML page: per benchmark the cell table, Seq@k and
 * Pass@k curves with per-k 95% bootstrap bands, the rank change from Pass@K to Seq@K, cost vs
 * success with each protocol's Pareto frontier, the trend over earlier runs of the same protocol,
 * a task × cell grid; then a trajectory viewer (attempts, verdicts, failing tests, feedback, line
 * diffs). All model and user text is escaped; the page loads nothing from the network.
 *
 * @example
 * const html = await renderHtmlReport({ summary: readSummary(dir + '/summary.json'), trajectories: readTrajectories(dir + '/trajectories.jsonl').trajectories })
 * writeFileSync(dir + '/report.html', html)
 */
export async function renderHtmlReport(input: HtmlReportInput, options: HtmlReportOptions = {}): Promise<string> {
  const resolved: Required<HtmlReportOptions> = {
    title: options.title ?? `Seq@K report · ${input.summary.runId}`,
    maxAnswerChars: options.maxAnswerChars ?? 20_000,
    maxFailingTests: options.maxFailingTests ?? 20,
    maxTrajectoryBytes: options.maxTrajectoryBytes ?? 2_000_000,
    maxGridTasks: options.maxGridTasks ?? 500,
  }
  const { summary } = input
  const allCells = summary.benchmarks.flatMap((b) => b.cells)
  const cellIndex = new Map(allCells.map((c, i) => [c, i]))
  const cellKey = new Map(allCells.map((c, i) => [`${c.benchmark}\u0000${c.cellId}`, i]))
  const byTask = new Map<string, Trajectory[]>()
  for (const t of input.trajectories) {
    const key = `${t.benchmark}\u0000${t.cellId}\u0000${t.taskId}`
    if (!byTask.has(key)) byTask.set(key, [])
    byTask.get(key)!.push(t)
  }
  for (const ts of byTask.values()) ts.sort((a, b) => a.repeat - b.repeat)
  const ctx: Ctx = {
    colours: actorColours(allCells.map((c) => c.actorId)),
    trajectories: input.trajectories,
    history: input.history,
    summary,
    cellIndex,
    byTask,
    maxGridTasks: resolved.maxGridTasks,
  }
  const sections = []
  for (const [i, b] of summary.benchmarks.entries()) sections.push(await benchmarkSection(b, i, ctx))

  const cellOf = (t: Trajectory) => cellKey.get(`${t.benchmark}\u0000${t.cellId}`)
  const table = new StringTable()
  const start = startingPoint(input.trajectories, cellOf)
  const { traj, of } = embeddedTrajectories(
    input.trajectories,
    cellOf,
    start,
    resolved.maxTrajectoryBytes,
    (t, c) => clientTrajectory(t, c, allCells[c], resolved, table),
    table,
  )
  const data: ReportData = {
    cells: allCells.map((c) => ({
      b: summary.benchmarks.findIndex((b) => b.cells.includes(c)),
      id: c.cellId,
      actor: c.actorId,
      mode: c.mode,
      kind: c.protocol.kind,
      K: c.budget,
      fp: c.fingerprint,
      colour: ctx.colours.get(c.actorId),
      proto: protocolChips(c),
    })),
    benchmarks: summary.benchmarks.map((b) => ({
      name: b.name,
      tasks: [...new Set(b.cells.flatMap((c) => c.perTask.map((t) => t.taskId)))],
    })),
    traj,
    strings: table.strings,
    start,
    ...(traj.length < of ? { kept: { shown: traj.length, of, maxBytes: resolved.maxTrajectoryBytes } } : {}),
  }

  const cellOptions = summary.benchmarks.map(
    (b) =>
      html`<optgroup label="${b.name}">${b.cells.map((c) => html`<option value="${cellIndex.get(c)}">${`${c.cellId} — ${b.name}`}</option>`)}</optgroup>`,
  )
  const totalTrajectories = allCells.reduce((n, c) => n + c.trajectories, 0)
  const verdict = summaryVerdict(summary)
  const script = clientScript()
  if (script.toLowerCase().includes('</script')) throw new Error('report script must not contain </script')
  const scriptHash = createHash('sha256').update(script).digest('base64')
  // The page may run only its own script and load nothing: a policy, not just a habit.
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${scriptHash}'; base-uri 'none'; form-action 'none'`
  const nav = [
    ...summary.benchmarks.map((b, i) => html`<a href="#bench-${i}">${b.name}</a>`),
    html`<a href="#trajectories">Trajectories</a>`,
    input.analysis !== undefined && html`<a href="#analysis">Analysis</a>`,
  ]
  const analysisText =
    typeof input.analysis === 'string' ? input.analysis : (JSON.stringify(input.analysis, null, 2) ?? 'undefined')
  const analysis =
    input.analysis !== undefined &&
    html`<section class="analysis" id="analysis"><h2>Analysis</h2><div class="card"><pre>${analysisText}</pre></div></section>`
  const embedded = data.kept
    ? `${data.traj.length} of ${data.kept.of} trajectories in this page: the rest are in the file`
    : `${data.traj.length} trajectories`

  // Trusted, unescaped: the policy (quotes are part of its syntax), the stylesheet, the data block
  // (escaped for a script element by jsonForScript) and the bundled script (checked above).
  return htmlText(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${trustedHtml(csp)}">
<meta name="generator" content="vitest-seqk">
<title>${resolved.title}</title>
<style>${trustedHtml(REPORT_CSS)}</style>
</head>
<body>
<header class="top"><div class="wrap">
<h1>${resolved.title} ${statusBadge(verdict.status, runCountsText(verdict))}</h1>
<p class="meta">run <span class="fp">${summary.runId}</span> · ${summary.createdAt} · ${plural(summary.benchmarks.length, 'benchmark')} · ${plural(allCells.length, 'cell')} · ${plural(totalTrajectories, 'trajectory', 'trajectories')} · a Seq@K number is only defined together with its protocol: every number here carries its history policy, feedback mode, budget and fingerprint</p>
<nav class="toc">${nav}</nav>
</div></header>
<main class="wrap">
${runProblems(verdict, summary)}
${joinHtml(sections, '\n')}
${input.disclosure && disclosureSectionHtml(input.disclosure)}
<section class="viewer" id="trajectories">
<h2>Trajectories</h2>
<p class="lede">Pick a cell, a task and a repeat (or click a square in a grid above): every attempt with its verdict, the failing tests, the feedback the actor got next, and a line diff against the previous attempt's code.</p>
<div class="card">
<div class="tv-controls">
<label>cell<select id="tv-cell">${cellOptions}</select></label>
<label>task<select id="tv-task"></select></label>
<label>repeat<select id="tv-repeat"></select></label>
</div>
<div id="tv-head"></div>
<div id="tv-attempts"><noscript><p class="note">The trajectory viewer needs JavaScript.</p></noscript></div>
</div>
</section>
${analysis}
<footer>Generated by vitest-seqk from <code>summary.json</code> (${summary.schema}) and <code>trajectories.jsonl</code> (${embedded}). Self-contained: no network access is needed or allowed.</footer>
</main>
<script type="application/json" id="seqk-data">${trustedHtml(jsonForScript(data))}</script>
<script>${trustedHtml(script)}</script>
</body>
</html>
`)
}
