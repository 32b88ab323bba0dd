/**
 * Every registered statistic of a benchmark's cells, read from their `statistics` map through the
 * registry (protocol/statistics/): one row per cell, one column per statistic some cell has, each
 * value as its module prints it with its interval and what it is over. The report, the PR comment
 * and `seqk analyze` print this one listing, so a new statistic shows in each with no change here.
 */
import type { CellSummary } from '../core/schemas.js'
import { presentStatistics, readStatistic, statisticValueText } from '../protocol/statistics/index.js'
import { html, joinHtml, type Html } from './html-template.js'

/**
 * The report's statistics section of a benchmark, or nothing when no cell has a statistic.
 *
 * @example
 * statisticsSectionHtml(bench.cells) // <h3>Statistics</h3>… one row per cell
 */
export function statisticsSectionHtml(cells: readonly CellSummary[]): Html {
  const present = presentStatistics(cells)
  if (present.length === 0) return html``
  const head = present.map((s) => html`<th class="n" title="${s.description}">${s.label}</th>`)
  const body = cells.map((c) => {
    const values = present.map(
      (s) => html`<td class="n" data-statistic="${s.id}">${statisticValueText(s, readStatistic(c, s.id))}</td>`,
    )
    return html`<tr data-cell="${c.cellId}"><td class="name">${c.cellId}</td>${values}</tr>`
  })
  const defs = present.map((s) => html`<li><b>${s.label}</b>: ${s.description}</li>`)
  return html`<h3>Statistics</h3>
<p class="hint">Each registered statistic of the cells (summary.json <code>statistics</code>), in % unless its definition says otherwise; [lo–hi] its 95% interval, n what it is over; — where it does not apply.</p>
<div class="card scroll"><table class="cells statistics"><thead><tr><th>cell</th>${head}</tr></thead><tbody>${joinHtml(body, '\n')}</tbody></table></div>
<ul class="hint statistic-definitions">${defs}</ul>`
}
