/**
 * The report's charts as Vega-Lite specs, rendered to static SVG strings in Node at build time
 * (no browser): the page needs no chart library and no network to show them.
 */
import type { TopLevelSpec } from 'vega-lite'
// Type-only: the encoding type is not re-exported from vega-lite's main entry.
import type { Field, PositionDef } from 'vega-lite/types_unstable/channeldef.js'
import {
  REVISION_CLASS_LABELS,
  type CostPoint,
  type CurvePoint,
  type RankRow,
  type RevisionClassPoint,
} from './data.js'
import { paretoMask } from '../analysis/pareto.js'
import { compactCount, money, percent, plural } from '../metrics/format.js'

const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, sans-serif'
const INK = '#1e293b'
const MUTED = '#64748b'
const GRID = '#e2e8f0'

/** Colour-blind-safe categorical colours (Okabe–Ito, yellow left out: it vanishes on white). */
export const ACTOR_COLOURS: readonly string[] = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#000000',
  '#8C6D31',
  '#7A5195',
  '#3F7F5F',
]

/** A stable colour per actor (in first-seen order), shared by every chart and legend of a report. */
export function actorColours(actors: readonly string[]): Map<string, string> {
  return new Map([...new Set(actors)].map((a, i) => [a, ACTOR_COLOURS[i % ACTOR_COLOURS.length]!]))
}

const CONFIG = {
  font: FONT,
  view: { stroke: null },
  axis: {
    labelColor: MUTED,
    titleColor: INK,
    gridColor: GRID,
    domainColor: '#cbd5e1',
    tickColor: '#cbd5e1',
    labelFontSize: 11,
    titleFontSize: 11,
    titleFontWeight: 600,
    titlePadding: 8,
  },
  title: { color: INK, fontSize: 12, fontWeight: 600 },
  text: { font: FONT },
} as const

/** What every chart shares: the schema, its size, a transparent background and the house style. */
function frame(width: number | { step: number }, height: number) {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width,
    height,
    background: 'transparent',
    config: CONFIG,
  } as const
}

type Position = PositionDef<Field>
type Scale = { domain: string[]; range: string[] }
const colourScale = (colours: ReadonlyMap<string, string>): Scale => ({
  domain: [...colours.keys()],
  range: [...colours.values()],
})
const pctText = (v: number | null): string => (v === null ? '—' : `${percent(v)}%`)

export interface CurveRow extends CurvePoint {
  actor: string
  fingerprint: string
  label: string
}

/** Rows of one curves panel: one cell's curve per actor, with a tooltip text per point. */
export function curveRows(
  actor: string,
  fingerprint: string,
  metric: 'Seq' | 'Pass',
  points: readonly CurvePoint[],
): CurveRow[] {
  return points.map((p) => ({
    ...p,
    actor,
    fingerprint,
    label: `${actor} · ${metric}@${p.k} = ${pctText(p.value)} (95% CI ${pctText(p.lo)}–${pctText(p.hi)}) · fp ${fingerprint}`,
  }))
}

/**
 * One panel of success curves (one feedback mode, or independent sampling): a line per actor over
 * k = 1..K on a fixed 0–100% axis, with its 95% bootstrap band.
 */
export function curvesSpec(
  rows: readonly CurveRow[],
  options: {
    budget: number
    metric: 'Seq' | 'Pass'
    colours: ReadonlyMap<string, string>
    width?: number
    height?: number
  },
): TopLevelSpec {
  const K = options.budget
  const y = (field: string): Position => ({
    field,
    type: 'quantitative',
    scale: { domain: [0, 1], nice: false },
    axis: { format: '.0%', title: `${options.metric}@k`, tickCount: 5 },
  })
  return {
    ...frame(options.width ?? 320, options.height ?? 210),
    data: { values: rows as unknown as Record<string, unknown>[] },
    encoding: {
      x: {
        field: 'k',
        type: 'quantitative',
        scale: { domain: [1, Math.max(K, 2)], nice: false },
        axis: {
          values: Array.from({ length: K }, (_, i) => i + 1),
          format: 'd',
          title: options.metric === 'Seq' ? 'attempt k' : 'samples k',
          grid: false,
        },
      },
      color: { field: 'actor', type: 'nominal', scale: colourScale(options.colours), legend: null },
    },
    layer: [
      {
        transform: [{ filter: 'isValid(datum.lo) && isValid(datum.hi)' }],
        mark: { type: 'area', opacity: 0.13, clip: true },
        encoding: { y: y('lo'), y2: { field: 'hi' } },
      },
      {
        transform: [{ filter: 'isValid(datum.value)' }],
        mark: { type: 'line', strokeWidth: 2.25 },
        encoding: { y: y('value') },
      },
      {
        transform: [{ filter: 'isValid(datum.value)' }],
        mark: { type: 'point', filled: true, size: 42, opacity: 1 },
        encoding: { y: y('value'), description: { field: 'label' } },
      },
    ],
  }
}

/**
 * The rank-change (slope) chart: each actor's rank under Pass@K and under Seq@K per feedback mode,
 * 1 at the top, with the rate at each point and the actor's name at the right end.
 */
export function rankSpec(rows: readonly RankRow[], options: { colours: ReadonlyMap<string, string> }): TopLevelSpec {
  const columns = [...new Map(rows.map((r) => [r.order, r.column])).entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, c]) => c)
  const n = new Set(rows.map((r) => r.actor)).size
  const last = columns[columns.length - 1]
  const data = rows.map((r) => ({
    ...r,
    pct: pctText(r.value),
    end: r.column === last,
    label: `${r.actor} · ${r.column} = ${pctText(r.value)} · rank ${r.rank} · fp ${r.fingerprint}`,
  }))
  const x: Position = {
    field: 'column',
    type: 'ordinal',
    sort: columns,
    scale: { paddingOuter: 0.35 },
    axis: {
      orient: 'top',
      labelAngle: 0,
      title: null,
      domain: false,
      ticks: false,
      labelFontWeight: 600,
      labelColor: INK,
      labelPadding: 10,
    },
  }
  const y: Position = {
    field: 'rank',
    type: 'quantitative',
    scale: { domain: [0.6, n + 0.4], reverse: true, nice: false },
    axis: {
      values: Array.from({ length: n }, (_, i) => i + 1),
      format: 'd',
      title: 'rank (1 = best)',
      grid: false,
      domain: false,
    },
  }
  return {
    ...frame({ step: 150 }, Math.max(130, 46 * n)),
    data: { values: data },
    encoding: { x, y, color: { field: 'actor', type: 'nominal', scale: colourScale(options.colours), legend: null } },
    layer: [
      { mark: { type: 'line', strokeWidth: 2.5, opacity: 0.85 }, encoding: { detail: { field: 'actor' } } },
      { mark: { type: 'point', filled: true, size: 90, opacity: 1 }, encoding: { description: { field: 'label' } } },
      {
        mark: { type: 'text', dy: -12, fontSize: 10, color: MUTED },
        encoding: { text: { field: 'pct' }, color: { value: MUTED } },
      },
      {
        transform: [{ filter: 'datum.end' }],
        mark: { type: 'text', align: 'left', dx: 12, fontSize: 11, fontWeight: 600 },
        encoding: { text: { field: 'actor' } },
      },
    ],
  }
}

/**
 * One protocol's cost–success chart: each actor's (cost, success) at budgets k = 1..K joined by a
 * thin line, and the protocol's Pareto frontier (no point both cheaper and better) as a dashed
 * staircase.
 */
export function costSpec(
  points: readonly CostPoint[],
  options: {
    unit: 'usd' | 'tokens'
    metric: 'Seq' | 'Pass'
    maxCost: number
    minValue?: number
    colours: ReadonlyMap<string, string>
    width?: number
    height?: number
  },
): TopLevelSpec {
  // The same frontier as `seqk analyze` (src/analysis/pareto.ts): no point both cheaper and better.
  const mask = paretoMask(points.map((p) => ({ cost: p.cost, success: p.value })))
  const frontier = points.filter((_, i) => mask[i])
  const fmt = (c: number) => (options.unit === 'usd' ? money(c) : `${Math.round(c)} tokens`)
  const lastK = new Map<string, number>()
  for (const p of points) lastK.set(p.cellId, Math.max(lastK.get(p.cellId) ?? 0, p.k))
  const rows = points.map((p) => ({
    ...p,
    onFrontier: frontier.includes(p),
    last: lastK.get(p.cellId) === p.k,
    kLabel: `k=${p.k}`,
    label: `${p.actor} · ${options.metric}@${p.k} = ${pctText(p.value)} at ${fmt(p.cost)} per task · fp ${p.fingerprint}`,
  }))
  const x: Position = {
    field: 'cost',
    type: 'quantitative',
    scale: { domain: [0, options.maxCost > 0 ? options.maxCost * 1.08 : 1], nice: false, zero: true },
    axis: {
      title: options.unit === 'usd' ? 'mean cost per task (USD)' : 'mean tokens per task',
      format: options.unit === 'usd' ? '$.3~f' : '~s',
      tickCount: 5,
    },
  }
  // Success axis from a round step below the lowest point of the benchmark to 100%: the points
  // of good models crowd the top of a 0–100% axis.
  const floor = Math.max(0, Math.floor(((options.minValue ?? 0) - 0.05) * 10) / 10)
  const y: Position = {
    field: 'value',
    type: 'quantitative',
    scale: { domain: [floor, 1], nice: false, zero: false },
    axis: { format: '.0%', title: `${options.metric}@k`, tickCount: 5 },
  }
  const frontierRows = frontier.map((p) => ({ cost: p.cost, value: p.value }))
  // The staircase runs on to the right edge: beyond the costliest frontier point nothing does better.
  const lastFrontier = frontierRows[frontierRows.length - 1]
  if (lastFrontier)
    frontierRows.push({ cost: options.maxCost > 0 ? options.maxCost * 1.08 : 1, value: lastFrontier.value })
  return {
    ...frame(options.width ?? 320, options.height ?? 210),
    layer: [
      {
        data: { values: frontierRows },
        mark: {
          type: 'line',
          interpolate: 'step-after',
          color: INK,
          strokeWidth: 1.25,
          strokeDash: [5, 3],
          opacity: 0.7,
        },
        encoding: { x, y },
      },
      {
        data: { values: rows },
        layer: [
          {
            mark: { type: 'line', strokeWidth: 1.25, opacity: 0.45 },
            encoding: {
              x,
              y,
              color: { field: 'actor', type: 'nominal', scale: colourScale(options.colours), legend: null },
              order: { field: 'k' },
            },
          },
          {
            transform: [{ filter: 'datum.onFrontier' }],
            mark: { type: 'point', size: 150, strokeWidth: 1.5, color: INK, filled: false },
            encoding: { x, y },
          },
          {
            mark: { type: 'point', filled: true, size: 44, opacity: 1 },
            encoding: {
              x,
              y,
              color: { field: 'actor', type: 'nominal', scale: colourScale(options.colours), legend: null },
              description: { field: 'label' },
            },
          },
          // k only where it matters (the frontier and each actor's last budget): every label would pile up.
          {
            transform: [{ filter: 'datum.onFrontier || datum.last' }],
            mark: { type: 'text', dx: 8, dy: 9, fontSize: 10, align: 'left', color: MUTED },
            encoding: { x, y, text: { field: 'kLabel' } },
          },
        ],
      },
    ],
  }
}

export interface TrendRow {
  actor: string
  runId: string
  createdAt: string
  commit: string | null
  value: number | null
  lo: number | null
  hi: number | null
  current: boolean
  label: string
}

/** One mode's trend: an actor's headline rate at K over the runs of the same protocol fingerprint. */
export function trendSpec(
  rows: readonly TrendRow[],
  options: { metric: string; colours: ReadonlyMap<string, string>; width?: number; height?: number },
): TopLevelSpec {
  const x: Position = {
    field: 'createdAt',
    type: 'temporal',
    axis: { title: 'run', labelOverlap: true, grid: false, format: '%b %d %H:%M' },
  }
  const y = (field: string): Position => ({
    field,
    type: 'quantitative',
    scale: { domain: [0, 1], nice: false },
    axis: { format: '.0%', title: options.metric, tickCount: 5 },
  })
  return {
    ...frame(options.width ?? 320, options.height ?? 170),
    data: { values: rows as unknown as Record<string, unknown>[] },
    encoding: { x, color: { field: 'actor', type: 'nominal', scale: colourScale(options.colours), legend: null } },
    layer: [
      {
        transform: [{ filter: 'isValid(datum.lo) && isValid(datum.hi)' }],
        mark: { type: 'rule', strokeWidth: 1, opacity: 0.45 },
        encoding: { y: y('lo'), y2: { field: 'hi' } },
      },
      {
        transform: [{ filter: 'isValid(datum.value)' }],
        mark: { type: 'line', strokeWidth: 2 },
        encoding: { y: y('value') },
      },
      {
        transform: [{ filter: 'isValid(datum.value)' }],
        mark: { type: 'point', filled: true, size: 40, opacity: 1 },
        encoding: {
          y: y('value'),
          description: { field: 'label' },
          shape: { condition: { test: 'datum.current', value: 'diamond' }, value: 'circle' },
        },
      },
    ],
  }
}

/**
 * The revision classes' colours: a slate ramp, darker the more of the feedback was addressed. Not
 * hues: the actors own those (the success chart colours its points by actor).
 */
export const REVISION_CLASS_COLOURS: Readonly<Record<keyof typeof REVISION_CLASS_LABELS, string>> = {
  unhelpful: '#cbd5e1',
  some: '#7b8ba1',
  all: '#1e3a5f',
}
const classScale = (): Scale => ({
  domain: Object.values(REVISION_CLASS_LABELS),
  range: Object.values(REVISION_CLASS_COLOURS),
})
const ciText = (lo: number | null, hi: number | null): string =>
  lo === null || hi === null ? '' : ` (95% CI ${pctText(lo)}–${pctText(hi)})`

/** The longest `provider:` prefix all ids share ('' when any id would be left empty). */
function commonPrefix(ids: readonly string[]): string {
  const first = ids[0] ?? ''
  const colon = first.indexOf(':')
  if (colon < 0) return ''
  const prefix = first.slice(0, colon + 1)
  return ids.every((id) => id.startsWith(prefix) && id.length > prefix.length) ? prefix : ''
}

/** Point shapes per feedback mode in the success chart, in the order the page's legend names them. */
export const MODE_SHAPES: readonly { shape: string; glyph: string }[] = [
  { shape: 'circle', glyph: '●' },
  { shape: 'square', glyph: '■' },
  { shape: 'triangle-up', glyph: '▲' },
  { shape: 'diamond', glyph: '◆' },
  { shape: 'cross', glyph: '✚' },
]

/**
 * The stacked bar of revision classes: one bar per cell (rows in the order given), its segments
 * the shares of annotated revisions that were unhelpful, addressed some or all of the feedback,
 * each labelled with its percentage when wide enough; the intervals are in each segment's
 * tooltip and the table beside the chart, the legend in the page (as every chart's).
 */
export function revisionShareSpec(
  points: readonly RevisionClassPoint[],
  options: { width?: number } = {},
): TopLevelSpec {
  const cellIds = [...new Set(points.map((p) => p.cellId))]
  // Bars are labelled by actor, with the mode only when the cells' modes differ: cell ids are long.
  const modes = new Set(points.map((p) => p.mode))
  // A provider prefix every actor shares (`simulated:`) says nothing on a bar.
  const prefix = commonPrefix(points.map((p) => p.actor))
  const actor = (p: RevisionClassPoint) => p.actor.slice(prefix.length)
  const short = (p: RevisionClassPoint) => (modes.size > 1 ? `${actor(p)} · ${p.mode}` : actor(p))
  const labels = [...new Map(points.map((p) => [p.cellId, short(p)])).values()]
  let x0 = 0
  let cell = ''
  const rows = points.map((p) => {
    if (p.cellId !== cell) [cell, x0] = [p.cellId, 0]
    const share = p.share ?? 0
    const row = {
      ...p,
      bar: short(p),
      label: REVISION_CLASS_LABELS[p.cls],
      x0,
      x1: x0 + share,
      mid: x0 + share / 2,
      pct: share >= 0.12 ? pctText(share) : '',
      ink: p.cls === 'unhelpful' ? INK : '#fff',
      tip: `${p.cellId} · ${REVISION_CLASS_LABELS[p.cls]}: ${pctText(p.share)} of ${p.annotated} revisions${ciText(p.shareLo, p.shareHi)} · fp ${p.fingerprint}`,
    }
    x0 += share
    return row
  })
  const y: Position = {
    field: 'bar',
    type: 'nominal',
    sort: labels,
    axis: { title: null, labelLimit: 200, labelColor: INK, labelFontSize: 11, domain: false, ticks: false },
  }
  return {
    ...frame(options.width ?? 250, Math.max(1, cellIds.length) * 34),
    data: { values: rows },
    encoding: { y },
    layer: [
      {
        mark: { type: 'bar', height: { band: 0.72 }, stroke: '#fff', strokeWidth: 1 },
        encoding: {
          x: {
            field: 'x0',
            type: 'quantitative',
            scale: { domain: [0, 1], nice: false },
            axis: { format: '.0%', title: 'share of annotated revisions', tickCount: 5 },
          },
          x2: { field: 'x1' },
          color: { field: 'label', type: 'nominal', scale: classScale(), legend: null },
          description: { field: 'tip' },
        },
      },
      {
        mark: { type: 'text', fontSize: 10.5, fontWeight: 600 },
        encoding: {
          x: { field: 'mid', type: 'quantitative' },
          text: { field: 'pct' },
          color: { field: 'ink', type: 'nominal', scale: null },
        },
      },
    ],
  }
}

/**
 * Next-attempt success by revision class (paper Figure 5b): for each class, a point per cell at
 * the share of its revisions whose verdict passed, with the interval as an error bar; colour is
 * the actor, shape the feedback mode ({@link MODE_SHAPES}, in first-seen order). An empty class has
 * no point (no revision to succeed).
 */
export function revisionSuccessSpec(
  points: readonly RevisionClassPoint[],
  options: { colours: ReadonlyMap<string, string>; width?: number; height?: number },
): TopLevelSpec {
  const cellIds = [...new Set(points.map((p) => p.cellId))]
  const rows = points
    .filter((p) => p.success !== null)
    .map((p) => ({
      ...p,
      label: REVISION_CLASS_LABELS[p.cls],
      tip: `${p.cellId} · ${REVISION_CLASS_LABELS[p.cls]}: next attempt passed ${p.solved} of ${p.revisions} = ${pctText(p.success)}${ciText(p.successLo, p.successHi)} · fp ${p.fingerprint}`,
    }))
  const modes = [...new Set(points.map((p) => p.mode))]
  const colour: Scale = {
    domain: cellIds,
    range: cellIds.map((id) => options.colours.get(points.find((p) => p.cellId === id)!.actor) ?? INK),
  }
  const x: Position = {
    field: 'label',
    type: 'nominal',
    sort: Object.values(REVISION_CLASS_LABELS),
    scale: { domain: Object.values(REVISION_CLASS_LABELS), paddingInner: 0.3 },
    axis: { title: 'revision class', labelAngle: 0, labelColor: INK, grid: false },
  }
  const y = (field: string): Position => ({
    field,
    type: 'quantitative',
    scale: { domain: [0, 1], nice: false },
    axis: { format: '.0%', title: 'next attempt passed', tickCount: 5 },
  })
  return {
    ...frame(options.width ?? 290, options.height ?? 190),
    data: { values: rows },
    encoding: {
      x,
      xOffset: { field: 'cellId', type: 'nominal', sort: cellIds, scale: { domain: cellIds } },
      color: { field: 'cellId', type: 'nominal', scale: colour, legend: null },
    },
    layer: [
      {
        transform: [{ filter: 'isValid(datum.successLo) && isValid(datum.successHi)' }],
        mark: { type: 'rule', strokeWidth: 1.5, opacity: 0.7 },
        encoding: { y: y('successLo'), y2: { field: 'successHi' } },
      },
      {
        transform: [{ filter: 'isValid(datum.successLo) && isValid(datum.successHi)' }],
        mark: { type: 'tick', thickness: 1.5, size: 8, opacity: 0.7 },
        encoding: { y: y('successLo') },
      },
      {
        transform: [{ filter: 'isValid(datum.successLo) && isValid(datum.successHi)' }],
        mark: { type: 'tick', thickness: 1.5, size: 8, opacity: 0.7 },
        encoding: { y: y('successHi') },
      },
      {
        mark: { type: 'point', filled: true, size: 52, opacity: 1 },
        // Colour is the actor; the shape tells one actor's modes apart.
        encoding: {
          y: y('success'),
          description: { field: 'tip' },
          shape: {
            field: 'mode',
            type: 'nominal',
            scale: { domain: modes, range: modes.map((_, i) => MODE_SHAPES[i % MODE_SHAPES.length]!.shape) },
            legend: null,
          },
        },
      },
    ],
  }
}

// ---- Charts with nothing to show say so: each returns the sentence the page prints instead of
// drawing degenerate axes (every point at x = 0, one point, a flat tie), or null when the chart
// has something to show.

/**
 * Why a panel of success curves has no curve to draw: no rate defined at any k (every trajectory
 * errored), or no cell with a rate at two k (K = 1, or a disclosed budget: only Seq@K is valid).
 *
 * @example
 * curvesGap(rows, 1) // => 'K = 1: one attempt per task, so no curve over k (the rate at k = 1 is in the table).'
 */
export function curvesGap(rows: readonly CurveRow[], budget: number): string | null {
  if (!rows.some((r) => r.value !== null))
    return 'No rate is defined at any k (no trajectory was measured: see the reasons under the cells), so there is no curve to draw.'
  if (budget <= 1) return 'K = 1: one attempt per task, so no curve over k (the rate at k = 1 is in the table).'
  const defined = new Map<string, number>()
  for (const r of rows) if (r.value !== null) defined.set(r.actor, (defined.get(r.actor) ?? 0) + 1)
  if (![...defined.values()].some((n) => n >= 2))
    return 'Only one k has a defined rate in each cell (with the budget disclosed, only the rate at K is valid), so there is no curve over k: the rate is in the table.'
  return null
}

/**
 * Why a cost–success chart has nothing to show: no point, every cost 0 (no price and no token
 * usage reported), a single point, or every point at the same cost (no trade-off to draw).
 *
 * @example
 * costGap(points, 'tokens') // => 'Every cost is 0: the models have no price and the server reported no token usage, so there is no cost to set success against.'
 */
export function costGap(points: readonly CostPoint[], unit: 'usd' | 'tokens'): string | null {
  if (points.length === 0) return 'No point to draw: no cell has both a cost and a defined rate at any k.'
  if (points.every((p) => p.cost === 0)) {
    return unit === 'usd'
      ? 'Every cost is $0 (free or replayed calls), so there is no cost to set success against.'
      : 'Every cost is 0: the models have no price and the server reported no token usage, so there is no cost to set success against.'
  }
  if (points.length === 1) return 'A single point (one cell at one budget): no trade-off to draw.'
  const costs = new Set(points.map((p) => p.cost))
  if (costs.size === 1)
    return `Every point costs the same (${unit === 'usd' ? money(points[0]!.cost) : `${compactCount(Math.round(points[0]!.cost))} tokens`} per task), so there is no trade-off to draw.`
  return null
}

/**
 * Why the rank-change chart has nothing to show: fewer than two actors with both kinds of cell, or
 * every actor tied in every column (no rank to change).
 */
export function rankGap(rows: readonly RankRow[]): string | null {
  if (rows.length === 0) return 'Needs at least two actors with an independent cell and a sequential one.'
  if (rows.every((r) => r.rank === 1))
    return `Every actor ties in every column (${plural(new Set(rows.map((r) => r.actor)).size, 'actor')} at rank 1): no rank to change.`
  return null
}

/** Why a trend panel has nothing to show: no run with a defined rate, or only one. */
export function trendGap(rows: readonly TrendRow[]): string | null {
  const valued = rows.filter((r) => r.value !== null)
  if (valued.length === 0) return 'No run of these protocols has a defined rate, so there is no trend to draw.'
  if (new Set(valued.map((r) => r.createdAt)).size < 2)
    return 'Only one run of these protocols has a defined rate: no trend yet.'
  return null
}

/** Why the next-attempt success chart has nothing to show: no class with a revision. */
export function revisionSuccessGap(points: readonly RevisionClassPoint[]): string | null {
  return points.some((p) => p.success !== null)
    ? null
    : 'No revision class holds a revision, so there is no next-attempt success to draw.'
}

/**
 * Renders a Vega-Lite spec to an SVG string (no browser, no network). Points get a `<title>` from
 * their description, so the static chart still shows a tooltip on hover. Vega and Vega-Lite are
 * loaded on first use: a reporter that never writes HTML does not pay for them.
 *
 * @example
 * const svg = await renderSvg(curvesSpec(rows, { budget: 5, metric: 'Seq', colours }))
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')])
  const compiled = vl.compile(spec, { logger: vega.logger(vega.Error) }).spec
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logLevel: vega.Error })
  try {
    const svg = await view.toSVG()
    return withTitles(svg)
  } finally {
    view.finalize()
  }
}

/** Adds `<title>` (a native tooltip) to every symbol and bar that has an aria-label; the label is already attribute-escaped, which is also valid text. */
export function withTitles(svg: string): string {
  return svg.replace(
    /<path((?:(?!\/>)[^>])*?aria-label="([^"]*)"(?:(?!\/>)[^>])*?aria-roledescription="(?:point|circle|symbol|bar)"(?:(?!\/>)[^>])*)\/>/g,
    '<path$1><title>$2</title></path>',
  )
}
