/**
 * The live view's HTML page, rendered on the server with the run's state at request time (so a
 * screenshot, a slow machine or a page without script shows the run, never an empty frame), with
 * that state as a JSON block the browser script (`../client/live.ts`, inlined) starts from before
 * it follows the event stream. The page loads nothing: its only script is allowed by hash, and it
 * may connect only to its own origin (the event stream and the trajectory pages).
 */
import { createHash } from 'node:crypto'
import { liveScript } from '../client.js'
import { jsonForScript } from '../escape.js'
import { html, htmlText, trustedHtml, type Html } from '../html-template.js'
import { REPORT_CSS } from '../style.js'
import type { LiveSnapshot } from './events.js'
import { liveView, type LiveView } from './view.js'

const LIVE_CSS = `
.live-state.running { color: var(--accent); background: #eef4ff; }
.live-state.waiting, .live-state.offline { color: var(--muted); background: var(--line); }
.live-ended { margin-top: 20px; }
.live-ended a { font-weight: 600; }
table.live { width: 100%; border-collapse: collapse; font-size: 13px; }
table.live th, table.live td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.live td.num, table.live th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.live progress { width: 120px; vertical-align: middle; margin-right: 6px; }
table.live tr.page td { background: #f8fafc; }
table.live .verifier-unstable { color: var(--fail); margin: 2px 0 0; }
ul.live-list { list-style: none; margin: 0; padding: 0; font-size: 13px; }
ul.live-list li { padding: 5px 0; border-bottom: 1px solid var(--line); }
ul.live-list li:last-child { border-bottom: 0; }
.live-error-message { display: block; font-family: var(--mono); font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; color: var(--fail); }
.st { font-weight: 600; }
.st.solved { color: var(--pass); }
.st.failed { color: var(--muted); }
.st.error { color: var(--fail); }
.empty, .muted { color: var(--muted); }
button.more { font: inherit; font-size: 12px; padding: 1px 8px; }
`

/** The page and the Content-Security-Policy it is served with. */
export interface LivePage {
  html: string
  csp: string
}

/** The sections under the header, from the view: what the browser script builds again as events arrive. */
export function liveBody(view: LiveView): Html {
  const ended = view.ended
    ? html`<div class="callout live-ended" id="live-ended"><p><strong>${view.ended.text}</strong>${view.ended.report ? html` <a href="/report" id="live-report-link">open the report</a>` : ''}</p>${view.ended.reasons.length > 0 ? html`<ul class="reasons">${view.ended.reasons.map((r) => html`<li class="fail">✗ ${r}</li>`)}</ul>` : ''}</div>`
    : ''
  const loadErrors =
    view.loadErrors.length > 0
      ? html`<section class="bench"><h2>Files that failed to load</h2><div class="card"><ul class="live-list" id="live-load-errors">${view.loadErrors.map((e) => html`<li><span class="st error">✗</span> ${e}</li>`)}</ul></div></section>`
      : ''
  const rows = view.cells.map(
    (c) =>
      html`<tr data-cell="${c.cellId}" data-key="${c.key}" data-phase="${c.phase}"><td>${c.benchmark}</td><td>${c.cellId}</td><td class="progress"><progress max="${c.max}" value="${c.done}"></progress><span class="count">${c.count}</span></td><td class="num solved">${c.solved}</td><td class="num failed">${c.failed}</td><td class="num errored">${c.errored}</td><td class="state">${c.state}${c.unstable ? html`<div class="note verifier-unstable">${c.unstable}</div>` : ''}</td><td class="verdict">${c.verdict ? html`<span class="badge ${c.verdictKind}">${c.verdict}</span>` : ''}</td><td><button class="more" data-page="${c.key}" type="button">trajectories</button></td></tr>`,
  )
  const table = html`<table class="live"${view.cells.length === 0 ? ' hidden' : ''}><thead><tr><th>benchmark</th><th>cell</th><th>progress</th><th class="num">solved</th><th class="num">failed</th><th class="num">errors</th><th>state</th><th>verdict</th><th></th></tr></thead><tbody id="live-cells">${rows}</tbody></table>`
  const list = (id: string, empty: string, items: Html[]) =>
    html`${items.length === 0 ? html`<p class="empty">${empty}</p>` : ''}<ul class="live-list" id="${id}">${items}</ul>`
  return html`${ended}${loadErrors}
<section class="bench"><h2>Cells</h2><div class="card">${view.cells.length === 0 ? html`<p class="empty">No cell is planned or running yet.</p>` : ''}${table}</div></section>
<section class="bench"><h2>Errors</h2><p class="lede">Infrastructure errors (the model, verifier or critic failed), as they happen.</p><div class="card">${list(
    'live-errors',
    'No errors so far.',
    view.errors.map((e) => html`<li>${e.where}<span class="live-error-message">${e.message}</span></li>`),
  )}</div></section>
<section class="bench"><h2>Latest trajectories</h2><div class="card">${list(
    'live-trajectories',
    'No trajectory has finished yet.',
    view.recent.map(
      (t) =>
        html`<li data-status="${t.status}"><span class="st ${t.status}">${t.outcome}</span> · ${t.where}${t.summary ? ` · ${t.summary}` : ''}</li>`,
    ),
  )}</div></section>
${view.batches.length > 0 ? html`<section class="bench"><h2>Batches</h2><p class="lede">The provider batches a batched actor's calls went in: a round of a cell each.</p><div class="card"><ul class="live-list" id="live-batches">${view.batches.map((b) => html`<li data-batch="${b.batchId}" data-status="${b.status}">${b.text}</li>`)}</ul></div></section>` : ''}
${view.malformed.length > 0 ? html`<section class="bench"><h2>Malformed lines</h2><p class="lede">Lines of the run files that are not valid records; they are skipped.</p><div class="card"><ul class="live-list" id="live-malformed">${view.malformed.map((m) => html`<li><span class="live-error-message">${m}</span></li>`)}</ul></div></section>` : ''}`
}

/**
 * Renders the live page with the state at request time.
 *
 * @example
 * const { id, snapshot } = live.snapshot()
 * const { html, csp } = livePage(snapshot, id)
 * response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': csp }).end(html)
 */
export function livePage(snapshot: LiveSnapshot, lastId: number): LivePage {
  const script = liveScript()
  if (script.toLowerCase().includes('</script')) throw new Error('live script must not contain </script')
  const hash = createHash('sha256').update(script).digest('base64')
  // Only its own script, only its own origin; nothing else loads, nothing frames it.
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${hash}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
  const view = liveView(snapshot)
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="vitest-seqk">
<link rel="icon" href="data:,">
<title>${view.title}</title>
<style>${trustedHtml(REPORT_CSS + LIVE_CSS)}</style>
</head>
<body>
<header class="top"><div class="wrap">
<h1>seqk live <span id="live-state" class="badge live-state ${view.badge.kind}">${view.badge.text}</span></h1>
<p class="meta" id="live-run">${view.runLine}</p>
</div></header>
<main class="wrap" id="live" data-last-id="${lastId}">${liveBody(view)}</main>
<script type="application/json" id="live-data">${trustedHtml(jsonForScript(snapshot))}</script>
<script>${trustedHtml(script)}</script>
</body>
</html>
`
  return { html: htmlText(page), csp }
}
