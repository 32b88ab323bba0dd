/**
 * The report's reliability section of a benchmark: not only "can it", but "does it, every time".
 * A Cover@τ curve over τ per cell (the share of tasks whose success share over their tries
 * reaches τ), the cells' reliability figures with their intervals, a strip per cell of which
 * tasks passed always, sometimes or never over their tries, and the four numbers per actor. Every
 * figure is read from the cell summaries (summary.json), so the page says what the file says; a
 * figure the run did not measure reads "unknown", never 0.
 */
import type { TopLevelSpec } from 'vega-lite'
import type { CellSummary, IntervalJson } from '../core/schemas.js'
import type { SampleCounts } from '../metrics/pass-at-k.js'
import { percent, plural } from '../metrics/format.js'
import { fourNumbers, type FourNumber } from '../protocol/four-numbers.js'
import { renderSvg } from './charts.js'
import { html, joinHtml, trustedHtml, type Html } from './html-template.js'

/** A task's outcome over its tries: passed every try, some, none, or no try measured. */
export type TaskConsistency = 'always' | 'sometimes' | 'never' | 'unknown'

/** The colours of the consistency strip (the grid's miss and error colours for never and unknown). */
export const CONSISTENCY_COLOURS: Readonly<Record<TaskConsistency, string>> = {
  always: '#1a9850',
  sometimes: '#f4a340',
  never: '#f6b3b3',
  unknown: '#cbd5e1',
}

/**
 * Each task's tries as the cell's reliability figures count them: a sequential cell's repeats,
 * each solved within its budget or not (`perTask[].firstSuccess`), an independent cell's samples
 * (`perTask[].samples`, `passes`).
 *
 * @example
 * cellTries(cell) // => [{ taskId: 't/1', n: 3, c: 2 }, …]
 */
export function cellTries(cell: Pick<CellSummary, 'perTask' | 'budget' | 'protocol'>): SampleCounts[] {
  return cell.perTask.map((t) =>
    cell.protocol.kind === 'independent'
      ? { taskId: t.taskId, n: t.samples ?? 0, c: t.passes ?? 0 }
      : {
          taskId: t.taskId,
          n: t.firstSuccess.length,
          c: t.firstSuccess.filter((f) => f !== null && f <= cell.budget).length,
        },
  )
}

/**
 * How many of a task's tries an error hid under `errors: 'censored'` (the reliability block counts
 * them, see `reliability.basis`): repeats errored within the budget, or an independent cell's
 * trajectories that errored. 0 under the other policies, which decide them.
 */
function hiddenTries(
  cell: Pick<CellSummary, 'errors' | 'protocol' | 'budget'>,
  t: CellSummary['perTask'][number],
): number {
  if ((cell.errors.policy ?? 'left-out') !== 'censored') return 0
  if (cell.protocol.kind === 'independent') return t.errors
  return (t.censoredAt ?? []).filter((c) => c <= cell.budget).length
}

/**
 * Whether a task passed always, sometimes or never over its tries (unknown without one).
 *
 * @example
 * taskConsistency({ taskId: 'a', n: 3, c: 2 }) // => 'sometimes'
 */
export function taskConsistency(t: SampleCounts): TaskConsistency {
  if (t.n === 0) return 'unknown'
  return t.c === t.n ? 'always' : t.c === 0 ? 'never' : 'sometimes'
}

/** One vertex of a drawn Cover@τ step curve; `i` keeps the drawing order (a step has two vertices at one τ). */
export interface CoverVertex {
  tau: number
  cover: number
  i: number
}

/**
 * The vertices of a Cover@τ step curve over τ in (0, 1] from a summary's `coverCurve` (Cover(τ) =
 * `cover` for τ up to each step's `tau`; 0 past the last one), for a line drawn in order.
 *
 * @example
 * coverVertices([{ tau: 0.5, cover: 0.8 }, { tau: 1, cover: 0.4 }])
 * // => (0, 0.8) (0.5, 0.8) (0.5, 0.4) (1, 0.4)
 */
export function coverVertices(steps: readonly { tau: number; cover: number }[]): CoverVertex[] {
  const out: { tau: number; cover: number }[] = []
  let previous = 0
  for (const step of steps) {
    out.push({ tau: previous, cover: step.cover }, { tau: step.tau, cover: step.cover })
    previous = step.tau
  }
  if (previous < 1) out.push({ tau: previous, cover: 0 }, { tau: 1, cover: 0 })
  return out.map((v, i) => ({ ...v, i }))
}

/** Whether a cell measured its reliability at all (a task with a try): else every figure is unknown. */
const measuredReliability = (cell: CellSummary) => cell.reliability != null && cell.reliability.tries > 0

const known = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v)

/** A figure as a table cell: its value and interval, or "unknown". */
function figureTd(i: IntervalJson | null | undefined, what: string): Html {
  if (!known(i?.point)) return html`<td class="n unknown" data-figure="${what}">unknown</td>`
  const ci = known(i.lo) && known(i.hi) && html` <span class="ci">${percent(i.lo)}–${percent(i.hi)}</span>`
  return html`<td class="n" data-figure="${what}">${percent(i.point)}${ci}</td>`
}

/**
 * Seq^K and pass^K in columns of their own: Seq^K's exponent is the repeats (every one of r repeats
 * solves the task within K), pass^K's the K samples (all K pass). A cell measures one of them.
 */
function hatTds(cell: CellSummary, r: CellSummary['reliability'] | null): Html {
  const none = html`<td class="n sub" title="this protocol does not measure it">—</td>`
  const own = figureTd(r?.hatInterval, 'hat')
  return cell.protocol.kind === 'independent' ? html`${none}${own}` : html`${own}${none}`
}

/** The line of each feedback mode in the Cover@τ chart, in first-seen order, with its name for the legend. */
const DASHES: readonly { dash: number[]; name: string }[] = [
  { dash: [1, 0], name: 'solid' },
  { dash: [6, 3], name: 'dashed' },
  { dash: [2, 2], name: 'dotted' },
  { dash: [8, 3, 2, 3], name: 'dash-dot' },
]

/** The Vega-Lite spec of the Cover@τ curves: a step line per cell, colour by actor, dash by mode. */
export function coverSpec(
  rows: readonly (CoverVertex & { cell: string; actor: string; mode: string })[],
  colours: ReadonlyMap<string, string>,
): TopLevelSpec {
  const modes = [...new Set(rows.map((r) => r.mode))]
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 360,
    height: 210,
    background: 'transparent',
    config: {
      font: 'system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, sans-serif',
      view: { stroke: null },
      axis: {
        labelColor: '#64748b',
        titleColor: '#1e293b',
        gridColor: '#e2e8f0',
        labelFontSize: 11,
        titleFontSize: 11,
      },
    },
    data: { values: rows as unknown as Record<string, unknown>[] },
    mark: { type: 'line', strokeWidth: 2, clip: true },
    encoding: {
      x: {
        field: 'tau',
        type: 'quantitative',
        scale: { domain: [0, 1], nice: false },
        axis: { format: '.0%', title: 'τ: share of its tries a task passes', tickCount: 5, grid: false },
      },
      y: {
        field: 'cover',
        type: 'quantitative',
        scale: { domain: [0, 1], nice: false },
        axis: { format: '.0%', title: 'Cover@τ: tasks reaching τ', tickCount: 5 },
      },
      color: {
        field: 'actor',
        type: 'nominal',
        scale: { domain: [...colours.keys()], range: [...colours.values()] },
        legend: null,
      },
      strokeDash: {
        field: 'mode',
        type: 'nominal',
        scale: { domain: modes, range: modes.map((_, i) => DASHES[i % DASHES.length]!.dash) },
        legend: null,
      },
      detail: { field: 'cell', type: 'nominal' },
      order: { field: 'i', type: 'quantitative' },
    },
  }
}

/** The four numbers' cell: value (with interval at K), marked when it came from another protocol's cell. */
function numberTd(n: FourNumber | null, what: string, label: string, suffix?: string): Html {
  if (!n || !known(n.value)) return html`<td class="n unknown" data-four="${what}">unknown</td>`
  const ci =
    n.interval && known(n.interval.lo) && known(n.interval.hi)
      ? html` <span class="ci">${percent(n.interval.lo)}–${percent(n.interval.hi)}</span>`
      : ''
  return html`<td class="n" data-four="${what}" title="${`${label} of ${n.cellId}`}">${percent(n.value)}${ci}${suffix && html` <span class="sub">${suffix}</span>`}</td>`
}

/**
 * The reliability section of one benchmark's cells (an h3 and its parts inside the benchmark's
 * section), or nothing when no cell has a reliability block (summaries from before it existed).
 *
 * @example
 * htmlText(await reliabilitySectionHtml(bench.cells, { colours: actorColours(ids) })) // => '<h3>Reliability…'
 */
export async function reliabilitySectionHtml(
  cells: readonly CellSummary[],
  options: { colours: ReadonlyMap<string, string>; maxTasks?: number },
): Promise<Html> {
  if (!cells.some((c) => c.reliability)) return html``
  const colour = (cell: CellSummary) => options.colours.get(cell.actorId) ?? '#64748b'
  const swatch = (cell: CellSummary) => html`<span class="swatch" style="background:${colour(cell)}"></span>`
  const drawn = cells.filter(measuredReliability)
  const rows = drawn.flatMap((cell) =>
    coverVertices(cell.reliability!.coverCurve).map((v) => ({
      ...v,
      cell: cell.cellId,
      actor: cell.actorId,
      mode: cell.mode,
    })),
  )
  const chart =
    drawn.length === 0
      ? html`<p class="note" data-nothing="cover">No cell measured a task, so there is no Cover@τ curve to draw.</p>`
      : html`<div class="svg">${trustedHtml(await renderSvg(coverSpec(rows, options.colours)))}</div>`
  // Colour is the actor, the line the mode (the spec's order: modes as the drawn cells first show them).
  const actorsSeen = [...new Set(cells.map((c) => c.actorId))]
  const modesDrawn = [...new Set(drawn.map((c) => c.mode))]
  const undrawn = cells.filter((c) => !measuredReliability(c))
  const legend = html`<li>${actorsSeen.map((a) => html`<span>${html`<span class="swatch" style="background:${options.colours.get(a) ?? '#64748b'}"></span>`}${a}</span>`)}</li><li>${modesDrawn.map((m, i) => html`<span>${DASHES[i % DASHES.length]!.name} ${m}</span>`)}</li>${undrawn.length > 0 && html`<li class="note">not drawn, unknown: no task measured (${undrawn.map((c) => c.cellId).join(', ')})</li>`}`
  const tries = (cell: CellSummary) =>
    cell.protocol.kind === 'independent' ? 'samples' : `repeats, solved within ${cell.budget}`
  const K = Math.max(...cells.map((c) => c.budget))

  const tableRows = cells.map((cell) => {
    const r = measuredReliability(cell) ? cell.reliability! : null
    const at = (tau: number) => r?.coverAt.find((c) => Math.abs(c.tau - tau) < 1e-9)?.interval
    const resource = (i: IntervalJson | undefined) => (known(i?.point) ? percent(i.point) : 'unknown')
    const res = r
      ? `${resource(r.resource.attempts)} · ${resource(r.resource.tokens)} · ${resource(r.resource.costUsd)}`
      : 'unknown'
    return html`<tr data-cell="${cell.cellId}"><td class="name">${swatch(cell)}${cell.cellId}</td><td class="n" title="${tries(cell)}" data-hidden="${r?.basis?.hidden ?? 0}">${r ? r.tries : 'unknown'}${r?.basis && r.basis.hidden > 0 ? html` <span class="sub">${r.basis.hidden} of ${r.basis.tries} hidden by errors</span>` : ''}</td>${figureTd(at(0.5), 'cover50')}${figureTd(at(1), 'cover100')}${hatTds(cell, r)}${figureTd(r?.outcome.mean, 'consistency')}${figureTd(r?.outcome.inconsistent, 'inconsistent')}<td class="n" data-figure="resource">${res}</td></tr>`
  })
  const table = html`<div class="card scroll"><table class="cells reliability"><thead><tr><th>cell</th><th class="n">tries</th><th class="n">Cover@0.5</th><th class="n">Cover@1</th><th class="n" title="every one of a task's repeats solves it within K">Seq^${K}<br><span class="sub">all r repeats</span></th><th class="n" title="all K of K independent samples pass">pass^${K}<br><span class="sub">all K samples</span></th><th class="n">outcome<br>consistency</th><th class="n">inconsistent<br>tasks</th><th class="n">resource consistency<br>attempts · tokens · cost</th></tr></thead><tbody>${joinHtml(tableRows, '\n')}</tbody></table></div>`

  // The strip: the benchmark's tasks in one order for every cell, so a column is one task.
  const allTasks = [...new Set(cells.flatMap((c) => c.perTask.map((t) => t.taskId)))]
  const shown = allTasks.slice(0, options.maxTasks ?? 500)
  const strips = cells.map((cell) => {
    const byId = new Map(cellTries(cell).map((t) => [t.taskId, t]))
    // Tries an error hid (censored errors): a task that passed, or failed, every try that ended is not
    // known to do so every time, so it is unknown rather than always or never.
    const hidden = new Map(cell.perTask.map((t) => [t.taskId, hiddenTries(cell, t)]))
    const counts: Record<TaskConsistency, number> = { always: 0, sometimes: 0, never: 0, unknown: 0 }
    const squares = shown.map((taskId) => {
      const t = byId.get(taskId)
      const unseen = hidden.get(taskId) ?? 0
      const seen = t ? taskConsistency(t) : 'unknown'
      const kind = unseen > 0 && seen !== 'sometimes' ? 'unknown' : seen
      counts[kind]++
      const title =
        t && t.n > 0
          ? `${taskId}: ${t.c} of ${t.n} passed${unseen > 0 ? `, ${unseen} hidden by an error` : ''}`
          : `${taskId}: no try measured`
      return html`<i class="${kind}" style="background:${CONSISTENCY_COLOURS[kind]}" title="${title}"></i>`
    })
    const attrs = html`data-cell="${cell.cellId}" data-always="${counts.always}" data-sometimes="${counts.sometimes}" data-never="${counts.never}" data-unknown="${counts.unknown}"`
    const said = [
      `${counts.always} always`,
      `${counts.sometimes} sometimes`,
      `${counts.never} never`,
      ...(counts.unknown > 0 ? [`${counts.unknown} unknown`] : []),
    ].join(' · ')
    return html`<tr class="strip" ${attrs}><td class="name">${swatch(cell)}${cell.cellId}</td><td class="tasks"><span class="squares">${squares}</span></td><td class="n counts">${said}</td></tr>`
  })
  const stripLegend = (Object.keys(CONSISTENCY_COLOURS) as TaskConsistency[]).map(
    (k) =>
      html`<span><i style="background:${CONSISTENCY_COLOURS[k]}"></i>${k === 'unknown' ? 'no try measured' : `passed ${k}`}</span>`,
  )
  const more =
    allTasks.length > shown.length &&
    html`<p class="note">The strips show the first ${shown.length} of ${allTasks.length} tasks; every task's tries are in summary.json (perTask).</p>`
  const strip = html`<div class="grid-legend">each square a task, over its tries: ${stripLegend}</div><div class="scroll"><table class="consistency-strips" data-tasks="${shown.length}"><tbody>${joinHtml(strips, '\n')}</tbody></table></div>${more}`

  const four = fourNumbers(cells)
  const seqModes = [...new Set(four.flatMap((f) => f.seqAtK.map((s) => s.mode)))]
  const fourRows = four.map((f) => {
    const swatchOf = html`<span class="swatch" style="background:${options.colours.get(f.actorId) ?? '#64748b'}"></span>`
    const single = f.singleTry
    const singleLabel = single ? `${single.source}${single.deterministic ? ' at temperature 0' : ''}` : 'a single try'
    const seq = seqModes.map((m) =>
      numberTd(f.seqAtK.find((s) => s.mode === m)?.number ?? null, `seq-${m}`, `Seq@K (${m})`),
    )
    return html`<tr data-actor="${f.actorId}"><td class="name">${swatchOf}${f.actorId}</td>${numberTd(single, 'single', singleLabel, single?.deterministic ? 'T=0' : single?.source === 'Seq@1' ? 'Seq@1' : undefined)}${numberTd(f.passAtK, 'passAtK', `Pass@${f.passAtK?.k ?? K}`)}${numberTd(f.passHatK, 'passHatK', `pass^${f.passHatK?.k ?? K}`)}${seq}</tr>`
  })
  const fourTable = html`<div class="card scroll"><table class="cells four-numbers"><thead><tr><th>actor</th><th class="n">single try (Pass@1)</th><th class="n">coverage Pass@${K}</th><th class="n">pass^${K}</th>${seqModes.map((m) => html`<th class="n">Seq@${K} ${m}</th>`)}</tr></thead><tbody>${joinHtml(fourRows, '\n')}</tbody></table></div>`

  const oneTry = cells.filter((c) => measuredReliability(c) && c.reliability!.tries < 2)
  const oneTryNote =
    oneTry.length > 0 &&
    html`<p class="note">${plural(oneTry.length, 'cell')} had one try per task (${oneTry.map((c) => c.cellId).join(', ')}): one try shows no spread, so its consistency is unknown and a task is "always" or "never" by that one try.</p>`

  return html`<h3 class="reliability">Reliability: does it solve a task every time?</h3>
<p class="hint">A task's tries are its repeats, each solved within K or not (sequential cells), or its samples (independent cells). <b>Cover@τ</b> (Dragoi et al. 2025): the share of tasks whose success share over their tries reaches τ, their estimate of the share of tasks solved with a chance of at least τ; over n tries it depends on n (Cover@1 over n tries is the chance that all n pass), so compare it only at equal tries. <b>Seq^K</b>: the chance that every one of a task's r repeats solves it within K (sequential cells); <b>pass^K</b>: that K independent samples all pass (independent cells). <b>Outcome consistency</b>: 1 − 4·p̂(1 − p̂) per task, 1 when every try ends alike. <b>Resource consistency</b>: the mean over tasks of exp(−coefficient of variation) of attempts, tokens and cost across a task's repeats. A try an error hid counts: its interval holds the figure whatever it hid. Every figure is for tasks like these at the tries the run had; 95% intervals over tasks.</p>
<div class="panels reliability"><figure class="cover" data-lines="${drawn.length}"><figcaption><div class="title">Cover@τ over τ</div></figcaption>${chart}<ul class="legend">${legend}</ul></figure>
<figure class="strips"><figcaption><div class="title">Consistency per task</div></figcaption>${strip}</figure></div>
<h4>The four numbers per actor</h4>
${fourTable}
<p class="note">A single try (Pass@1, at temperature 0 when the actor ran so; else a sequential cell's first attempt, before any feedback), coverage at the largest k run, pass^K, and Seq@K under the run's budget. Unknown: the run measured no such cell.</p>
<h4>Reliability per cell</h4>
${table}
${oneTryNote}`
}
