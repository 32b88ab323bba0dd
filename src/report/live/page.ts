/**
 * The live view's HTML page: a frame the browser script (`../client/live.ts`, inlined) fills from
 * the server's events. The page loads nothing: its only script is allowed by hash, and it may
 * connect only to its own origin (the event stream).
 */
import { createHash } from 'node:crypto'
import { liveScript } from '../client.js'
import { escapeHtml as e } from '../escape.js'
import { REPORT_CSS } from '../style.js'

const LIVE_CSS = `
.live-state.running { color: var(--accent); background: #eef4ff; }
.live-state.waiting, .live-state.offline { color: var(--muted); background: var(--line); }
.live-ended { margin-top: 20px; }
.live-ended a { font-weight: 600; }
table.live { width: 100%; border-collapse: collapse; font-size: 13px; }
table.live th, table.live td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.live td.num, table.live th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.live progress { width: 120px; vertical-align: middle; margin-right: 6px; }
ul.live-list { list-style: none; margin: 0; padding: 0; font-size: 13px; }
ul.live-list li { padding: 5px 0; border-bottom: 1px solid var(--line); }
ul.live-list li:last-child { border-bottom: 0; }
.live-error-message { display: block; font-family: var(--mono); font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; color: var(--fail); }
.st { font-weight: 600; }
.st.solved { color: var(--pass); }
.st.failed { color: var(--muted); }
.st.error { color: var(--fail); }
.empty, .muted { color: var(--muted); }
`

/** The page and the Content-Security-Policy it is served with. */
export interface LivePage {
  html: string
  csp: string
}

/**
 * Renders the live page.
 *
 * @example
 * const { html, csp } = livePage('/project/.seqk/runs')
 * response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': csp }).end(html)
 */
export function livePage(target: string): LivePage {
  const script = liveScript()
  if (script.toLowerCase().includes('</script')) throw new Error('live script must not contain </script')
  const hash = createHash('sha256').update(script).digest('base64')
  // Only its own script, only its own event stream; nothing else loads, nothing frames it.
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${hash}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="vitest-seqk">
<link rel="icon" href="data:,">
<title>seqk live</title>
<style>${REPORT_CSS}${LIVE_CSS}</style>
</head>
<body>
<header class="top"><div class="wrap">
<h1>seqk live <span id="live-state" class="badge live-state waiting">connecting…</span></h1>
<p class="meta" id="live-run">following ${e(target)}</p>
</div></header>
<main class="wrap" id="live"><noscript><p class="note">The live view needs JavaScript.</p></noscript></main>
<script>${script}</script>
</body>
</html>
`
  return { html, csp }
}
