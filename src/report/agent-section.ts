/**
 * The report's agent section of a benchmark: for cells whose attempts are episodes of tool calls
 * (`actors.agent`), the agent metrics of the registry (`AGENT_METRICS`) and how the episodes
 * ended, read from the cell summaries (summary.json), so the page says what the file says.
 */
import type { CellSummary } from '../core/schemas.js'
import { AGENT_METRICS } from '../metrics/agent-metrics.js'
import { html, joinHtml, type Html } from './html-template.js'
import { endedByText } from './table.js'
import { faultRecoveryLines } from './fault-recovery-section.js'

/**
 * The section, or nothing when no cell ran episodes.
 *
 * @example
 * agentSectionHtml(bench.cells) // <h3>Agents</h3>… one row per agent cell
 */
export function agentSectionHtml(cells: readonly CellSummary[]): Html {
  const rows = cells.filter((c) => c.agent)
  if (rows.length === 0) return html``
  const head = AGENT_METRICS.map((m) => html`<th class="n" title="${m.description}">${m.header}</th>`)
  const body = rows.map((c) => {
    const a = c.agent!
    const values = AGENT_METRICS.map((m) => html`<td class="n" data-metric="${m.id}">${m.format(m.value(a))}</td>`)
    return html`<tr data-cell="${c.cellId}"><td class="name">${c.cellId}</td><td class="n">${a.episodes}</td>${values}<td class="n">${a.consistency.tasks}</td><td>${endedByText(a.endedBy)}</td></tr>`
  })
  return html`<h3>Agents</h3>
<p class="hint">Per attempt (one episode of tool calls): model turns and tool calls; the share of tool calls that failed (pooled over calls, in %); the cell's cost over its successes; and trajectory consistency over the successful repeats of each task (a sequential cell's solved trajectories, an independent cell's passing samples): 1 − normalised edit distance of their action sequences, and 1 − Jensen–Shannon distance of their action frequencies, the mean over tasks with at least two successes (0 to 1; 1: the same actions, in the same order).</p>
<div class="card scroll"><table class="cells agent-metrics"><thead><tr><th>cell</th><th class="n">episodes</th>${head}<th class="n">tasks in consistency</th><th>ended by</th></tr></thead><tbody>${joinHtml(body, '\n')}</tbody></table></div>
${faultRecoveryLines(cells).map((line) => html`<p class="note fault-recovery">${line}</p>`)}`
}
