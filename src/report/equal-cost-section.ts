/**
 * The report's equal-cost section of a benchmark: each sequential cell against its
 * actor's independent cell at equal spend per task, a small chart of the two curves (success
 * against mean tokens per task, or dollars when every budget has a price and one costs something)
 * and the verdict in tokens and in dollars. Read from summary.json's `equalCost`: an unknown spend
 * reads "unknown", never 0.
 */
import type { EqualCost, EqualCostCurves } from '../core/schemas.js'
import { percent } from '../metrics/format.js'
import { spendText } from '../protocol/equal-cost.js'
import { html, joinHtml, type Html } from './html-template.js'

const [W, H, PAD] = [300, 150, 28]
/** Sequential, independent: the colours of the report's other charts are not needed to tell two lines apart. */
const COLOUR = { seq: '#2563eb', ind: '#d97706' } as const

/** The unit a pair's chart is drawn in: dollars when known and not all $0, else tokens when known, else none. */
function chartUnit(pair: EqualCost): 'usd' | 'tokens' | null {
  const drawable = (c: EqualCostCurves) => c.verdict !== 'unknown' && c.verdict !== 'not-comparable'
  const spends = (c: EqualCostCurves) => [...c.sequential, ...c.independent].some((p) => (p.cost ?? 0) > 0)
  if (drawable(pair.usd) && spends(pair.usd)) return 'usd'
  return drawable(pair.tokens) ? 'tokens' : null
}

/** Two curves, success against spend, with the crossings marked. */
function chart(pair: EqualCost, unit: 'usd' | 'tokens'): Html {
  const c = pair[unit]
  const known = (ps: EqualCostCurves['sequential']) =>
    ps.filter((p): p is { k: number; cost: number; rate: number } => p.cost !== null && p.rate !== null)
  const [s, i] = [known(c.sequential), known(c.independent)]
  const maxCost = Math.max(...[...s, ...i].map((p) => p.cost), 0) || 1
  const x = (cost: number) => PAD + ((W - 2 * PAD) * cost) / maxCost
  const y = (rate: number) => H - PAD - (H - 2 * PAD) * rate
  const line = (ps: typeof s) => ps.map((p) => `${x(p.cost).toFixed(1)},${y(p.rate).toFixed(1)}`).join(' ')
  const dots = (ps: typeof s, cls: 'seq' | 'ind') =>
    ps.map(
      (p) =>
        html`<circle class="${cls}" fill="${COLOUR[cls]}" cx="${x(p.cost).toFixed(1)}" cy="${y(p.rate).toFixed(1)}" r="3"><title>${cls === 'seq' ? 'Seq' : 'Pass'}@${p.k}: ${percent(p.rate)}% at ${spendText(p.cost, unit)}</title></circle>`,
    )
  const marks = c.crossings.map(
    (m) =>
      html`<line class="crossing" stroke="#888" stroke-dasharray="2 2" x1="${x(m.cost).toFixed(1)}" x2="${x(m.cost).toFixed(1)}" y1="${PAD}" y2="${H - PAD}"><title>from ${spendText(m.cost, unit)} per task ${m.leader} is ahead</title></line>`,
  )
  return html`<svg class="equal-cost-chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-size="10" role="img" aria-label="Seq@k and Pass@k against mean ${unit === 'usd' ? 'dollars' : 'tokens'} per task: ${pair.actorId}">
<line class="axis" stroke="#999" x1="${PAD}" y1="${H - PAD}" x2="${W - PAD}" y2="${H - PAD}"></line><line class="axis" stroke="#999" x1="${PAD}" y1="${PAD}" x2="${PAD}" y2="${H - PAD}"></line>
<text x="${PAD - 4}" y="${PAD + 4}" text-anchor="end">100%</text><text x="${PAD - 4}" y="${H - PAD}" text-anchor="end">0</text>
<text x="${W - PAD}" y="${H - 8}" text-anchor="end">${spendText(maxCost, unit)} per task</text>
${marks}
<polyline class="seq" fill="none" stroke="${COLOUR.seq}" points="${line(s)}"></polyline><polyline class="ind" fill="none" stroke="${COLOUR.ind}" stroke-dasharray="4 3" points="${line(i)}"></polyline>
${dots(s, 'seq')}${dots(i, 'ind')}
</svg>`
}

/**
 * The section, or nothing when the run paired no sequential cell with an independent one.
 *
 * @example
 * equalCostSectionHtml(summary.equalCost ?? [], bench.name) // <h3>At equal cost</h3>… one row per pair
 */
export function equalCostSectionHtml(pairs: readonly EqualCost[], benchmark: string): Html {
  const rows = pairs.filter((p) => p.benchmark === benchmark)
  if (rows.length === 0) return html``
  const body = rows.map((p) => {
    const unit = chartUnit(p)
    return html`<tr data-pair="${p.sequential}"><td class="name">${p.actorId}</td><td>${p.mode}</td><td data-unit="tokens" data-verdict="${p.tokens.verdict}">${p.tokens.note}</td><td data-unit="usd" data-verdict="${p.usd.verdict}">${p.usd.note}</td><td>${unit ? chart(p, unit) : 'no curve: the spend is unknown'}</td></tr>`
  })
  return html`<h3>At equal cost: revising against sampling</h3>
<p class="hint">Each sequential cell against its actor's independent cell on the same tasks, at equal mean spend per task (Olausson et al.: repair pays only if it beats sampling at equal cost, not at equal attempts). Solid: Seq@k at the mean spend by attempt k, where a solved task stops spending, so late attempts are paid only by the tasks still unsolved. Dashed: Pass@k at k samples' spend, k times the mean spend per sample, an early pass included. Between two budgets the curve is the straight line (budget k on some tasks and k + 1 on the rest); the comparison starts where both can run (one attempt each) and beyond a curve's last point holds its rate at K (a larger budget was not run). Points are estimates: their intervals are the cells' own, and a crossing near where the curves touch may move with another run.</p>
<div class="card scroll"><table class="cells equal-cost"><thead><tr><th>actor</th><th>feedback</th><th>in tokens</th><th>in dollars</th><th>success against spend</th></tr></thead><tbody>${joinHtml(body, '\n')}</tbody></table></div>`
}
