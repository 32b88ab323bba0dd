/**
 * The report's G-Pass@k_τ table of a benchmark: for independent cells, how often at least a share
 * τ of K tries pass, between Pass@K (at least one, τ → 0⁺) and pass^K (all, τ = 1), each with its
 * interval. Read from the cell summaries (summary.json): a figure the run did not measure reads
 * "—", never 0.
 */
import type { CellSummary } from '../core/schemas.js'
import { intervalText, percent } from '../metrics/format.js'
import { gPassThreshold } from '../metrics/g-pass-at-k.js'
import { html, joinHtml, type Html } from './html-template.js'

/**
 * The section, or nothing when no cell carries G-Pass@k_τ (no independent cell, or an older file).
 *
 * @example
 * gPassSectionHtml(bench.cells) // <h3>At least a share τ of K tries</h3>… one row per independent cell
 */
export function gPassSectionHtml(cells: readonly CellSummary[]): Html {
  const rows = cells.filter((c) => c.gPass && c.gPass.length > 0)
  if (rows.length === 0) return html``
  const taus = [...new Set(rows.flatMap((c) => c.gPass!.map((g) => g.tau)))].sort((a, b) => a - b)
  const K = Math.max(...rows.map((c) => c.budget))
  const head = taus.map(
    (tau) => html`<th class="n" title="at least ${gPassThreshold(K, tau)} of ${K} tries pass">G-Pass@K τ=${tau}</th>`,
  )
  const body = rows.map((c) => {
    const at = (curve: readonly (number | null)[] | null) => curve?.[c.budget - 1] ?? null
    const cellsOfTau = taus.map((tau) => {
      const g = c.gPass!.find((x) => x.tau === tau)
      return html`<td class="n" data-tau="${tau}">${percent(g?.atK.point)} <span class="ci">${intervalText(g?.atK.lo, g?.atK.hi)}</span></td>`
    })
    const hat = c.reliability?.hatInterval
    return html`<tr data-cell="${c.cellId}"><td class="name">${c.cellId}</td><td class="n">${percent(at(c.passAt))} <span class="ci">${intervalText(c.passAtInterval?.lo, c.passAtInterval?.hi)}</span></td>${cellsOfTau}<td class="n">${percent(at(c.passHat))} <span class="ci">${intervalText(hat?.lo, hat?.hi)}</span></td></tr>`
  })
  return html`<h3>At least a share τ of K tries (G-Pass@K<sub>τ</sub>)</h3>
<p class="hint">Independent cells: the chance that at least ⌈τK⌉ of K tries pass, estimated without bias from every sample (the hypergeometric tail), with its 95% interval over tasks. Pass@K is τ → 0⁺ (at least one try), pass^K is τ = 1 (every try): a model whose G-Pass falls far below its Pass@K solves tasks sometimes, not reliably.</p>
<div class="card scroll"><table class="cells g-pass"><thead><tr><th>cell</th><th class="n">Pass@K (τ→0⁺)</th>${head}<th class="n">pass^K (τ=1)</th></tr></thead><tbody>${joinHtml(body, '\n')}</tbody></table></div>`
}
