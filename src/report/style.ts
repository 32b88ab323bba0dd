/** The report's stylesheet, inlined into the page (no web fonts, no network). */
export const REPORT_CSS = `
:root {
  --ink: #1e293b; --muted: #64748b; --faint: #94a3b8; --line: #e2e8f0; --bg: #f6f7f9; --card: #ffffff;
  --accent: #0f62fe; --pass: #15803d; --pass-bg: #dcfce7; --fail: #b91c1c; --fail-bg: #fee2e2;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, Liberation Mono, monospace;
  --sans: system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, sans-serif;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; scroll-behavior: smooth; }
body { margin: 0; font: 14px/1.5 var(--sans); color: var(--ink); background: var(--bg); }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.wrap { max-width: 1320px; margin: 0 auto; padding: 0 24px; }
header.top { background: var(--card); border-bottom: 1px solid var(--line); padding: 20px 0 14px; }
header.top h1 { font-size: 22px; line-height: 1.25; margin: 0 0 4px; letter-spacing: -0.01em; display: flex; flex-wrap: wrap; align-items: center; gap: 10px; }
header.top .meta { color: var(--muted); margin: 0; }
nav.toc { display: flex; flex-wrap: wrap; gap: 6px 16px; margin-top: 10px; font-size: 13px; }
main { padding: 8px 0 48px; }
section.bench, section.viewer, section.analysis { margin-top: 28px; }
h2 { font-size: 19px; margin: 0 0 2px; letter-spacing: -0.01em; }
h3 { font-size: 14px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); margin: 26px 0 10px; }
h4 { font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); margin: 14px 0 6px; }
h4:first-child { margin-top: 0; }
.lede { color: var(--muted); margin: 4px 0 0; }
.hint { color: var(--muted); font-size: 12.5px; margin: -4px 0 12px; max-width: 900px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; }
.callout { border-left: 3px solid var(--accent); background: #eef4ff; padding: 8px 12px; border-radius: 0 8px 8px 0; margin: 12px 0 0; }
.callout p { margin: 2px 0; }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 9px; border-radius: 999px; white-space: nowrap; }
.badge.pass { color: var(--pass); background: var(--pass-bg); }
.badge.fail { color: var(--fail); background: var(--fail-bg); }
.badge.none { color: var(--muted); background: #f1f5f9; }
.chips { display: inline-flex; flex-wrap: wrap; gap: 4px; margin: 4px 0; vertical-align: middle; }
figcaption .chips, #tv-head .chips { display: flex; }
.chip { display: inline-block; font-size: 11.5px; line-height: 1.6; padding: 0 7px; border-radius: 999px; background: #f1f5f9; color: #475569; border: 1px solid var(--line); white-space: nowrap; }
.chip.fp, .fp { font-family: var(--mono); font-size: 11px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 3px; margin-right: 6px; vertical-align: baseline; flex: none; }
.scroll { overflow-x: auto; }
table.cells { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 13px; }
table.cells th, table.cells td { padding: 6px 9px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
table.cells th { font-size: 11.5px; color: var(--muted); font-weight: 600; background: #fafbfc; }
table.cells td.n, table.cells th.n { text-align: right; }
table.cells td.at-k { font-weight: 700; }
table.cells tbody tr:hover { background: #f8fafc; }
table.cells .ci { color: var(--muted); }
.up { color: var(--pass); } .down { color: var(--fail); }
.panels { display: grid; grid-template-columns: repeat(auto-fill, minmax(360px, 1fr)); gap: 14px; }
figure { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px 10px; min-width: 0; }
figcaption .title { font-weight: 650; font-size: 14px; }
figure .svg svg { display: block; max-width: 100%; height: auto; margin: 6px auto 2px; }
ul.legend { list-style: none; padding: 0; margin: 6px 0 0; font-size: 12.5px; }
ul.legend li { display: flex; align-items: center; flex-wrap: wrap; gap: 2px 8px; padding: 2px 0; }
ul.legend .note { margin: 0; }
ul.legend .value { font-variant-numeric: tabular-nums; font-weight: 600; }
ul.legend .ci { color: var(--muted); font-variant-numeric: tabular-nums; }
.wide { grid-column: 1 / -1; }
.side-by-side { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 8px 28px; }
.side-by-side > .svg { flex: 0 1 auto; min-width: 0; }
.side-by-side > div:last-child { flex: 1 1 320px; min-width: 0; }
/* Under each cell's row: why it failed and its errors (visible), then its protocol (a details element). */
table.cells td.name { white-space: normal; overflow-wrap: break-word; min-width: 150px; }
table.revision-classes td.name { min-width: 230px; }
table.cells td.name .sub { font-size: 11.5px; color: var(--muted); margin: 1px 0 0 16px; }
table.cells td.warn { color: #b45309; font-weight: 600; }
table.main tr.cell > td { border-bottom: 0; padding-bottom: 2px; }
table.main tr.detail > td { white-space: normal; padding: 0 9px 6px 25px; font-size: 12px; color: var(--muted); }
table.main tr.cell:hover, table.main tr.cell:hover + tr.detail { background: #f8fafc; }
table.main tbody tr.detail:hover { background: inherit; }
/* On a narrow screen the table scrolls sideways: the reasons stay in view and wrap at the screen's width. */
table.main tr.detail > td > * { position: sticky; left: 25px; max-width: calc(100vw - 90px); }
ul.reasons { list-style: none; margin: 0 0 3px; padding: 0; }
ul.reasons li { margin: 1px 0; overflow-wrap: anywhere; }
ul.reasons li.fail { color: var(--fail); }
ul.reasons li.error, ul.reasons li.caveat { color: #92400e; }
ul.reasons .where { color: var(--muted); }
details.proto summary { cursor: pointer; display: flex; flex-wrap: wrap; align-items: center; gap: 0 6px; width: fit-content; }
details.proto summary::marker { content: ''; }
details.proto summary::before { content: '▸'; font-size: 10px; }
details.proto[open] summary::before { content: '▾'; }
details.proto summary .chips { margin: 0; }
details.proto > .chips { margin: 3px 0 0; }
.nothing { color: var(--muted); font-size: 13px; margin: 10px 0; padding: 18px 14px; border: 1px dashed var(--line); border-radius: 8px; background: #fafbfc; }
.tv-title .bench { color: var(--muted); font-size: 13px; }
.note { color: var(--muted); font-size: 12.5px; margin: 6px 0; }
ul.changes { margin: 8px 0 0; padding-left: 18px; }
/* Task × cell grid */
.grid-controls { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 18px; margin-bottom: 10px; font-size: 13px; }
.grid-controls label { cursor: pointer; }
.grid-legend { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: center; color: var(--muted); font-size: 12px; }
.grid-legend i { display: inline-block; width: 14px; height: 14px; border-radius: 3px; vertical-align: -3px; margin-right: 3px; }
table.grid { border-collapse: separate; border-spacing: 3px; font-size: 12px; font-variant-numeric: tabular-nums; }
table.grid th { font-weight: 600; color: var(--muted); font-size: 11.5px; padding: 2px 4px; text-align: center; white-space: nowrap; }
table.grid thead tr:first-child th { color: var(--ink); border-bottom: 2px solid var(--c, var(--line)); }
/* Mode names wrap at their hyphens (critic-aware): the squares set the width, not the labels. */
table.grid thead tr:last-child th { white-space: normal; vertical-align: bottom; }
table.grid tbody th { text-align: left; font-family: var(--mono); font-weight: 500; color: var(--ink); max-width: 240px; overflow: hidden; text-overflow: ellipsis; }
td.gc { padding: 0; min-width: 58px; height: 24px; cursor: pointer; border-radius: 5px; }
td.gc:hover, td.gc:focus-visible { outline: 2px solid var(--ink); outline-offset: 1px; }
td.gc .avg { display: flex; align-items: center; justify-content: center; height: 24px; border-radius: 5px; font-weight: 600; }
td.gc .reps { display: none; gap: 2px; justify-content: center; }
td.gc .reps i { display: inline-flex; align-items: center; justify-content: center; font-style: normal; width: 17px; height: 24px; border-radius: 4px; font-size: 11px; font-weight: 600; }
table.grid[data-view="repeats"] td.gc .avg { display: none; }
table.grid[data-view="repeats"] td.gc .reps { display: flex; }
/* Trajectory viewer */
.tv-controls { display: grid; grid-template-columns: minmax(200px, 2fr) minmax(200px, 3fr) minmax(160px, 1.4fr); gap: 10px; }
.tv-controls label { display: flex; flex-direction: column; gap: 3px; font-size: 11.5px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: 0.04em; }
select { font: 13px var(--sans); padding: 6px 8px; border: 1px solid #cbd5e1; border-radius: 7px; background: #fff; color: var(--ink); min-width: 0; width: 100%; }
#tv-head { margin: 14px 0 8px; }
.tv-title { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 8px; font-size: 15px; }
.pills { display: flex; gap: 4px; margin-top: 6px; }
.pill { display: inline-flex; width: 26px; height: 22px; align-items: center; justify-content: center; border-radius: 6px; font-weight: 700; font-size: 12px; }
.pill.pass { background: var(--pass-bg); color: var(--pass); } .pill.fail { background: var(--fail-bg); color: var(--fail); }
article.attempt { border: 1px solid var(--line); border-left: 4px solid var(--fail); border-radius: 8px; margin: 10px 0; background: var(--card); }
article.attempt.pass { border-left-color: var(--pass); }
article.attempt > header { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; padding: 8px 12px; border-bottom: 1px solid var(--line); background: #fbfcfd; border-radius: 0 8px 0 0; }
article.attempt .num { font-weight: 700; }
article.attempt .summary { color: var(--ink); }
article.attempt .meta { color: var(--muted); font-size: 12px; margin-left: auto; }
.attempt-body { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 0; }
.attempt-body > .code { padding: 10px 12px; border-right: 1px solid var(--line); min-width: 0; }
.attempt-body > .side { padding: 10px 12px; min-width: 0; }
.tabs { display: flex; gap: 4px; margin-bottom: 6px; flex-wrap: wrap; }
.tabs button { font: 12px var(--sans); border: 1px solid var(--line); background: #f8fafc; color: var(--muted); border-radius: 6px; padding: 3px 9px; cursor: pointer; }
.tabs button[aria-selected="true"] { background: var(--ink); color: #fff; border-color: var(--ink); }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; background: #f8fafc; border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; max-height: 420px; overflow: auto; }
pre.feedback { background: #fffbeb; border-color: #fde68a; }
pre.error { background: var(--fail-bg); border-color: #fecaca; color: #7f1d1d; }
table.diff { border-collapse: collapse; width: 100%; font-family: var(--mono); font-size: 12px; line-height: 1.45; border: 1px solid var(--line); border-radius: 6px; }
table.diff td { padding: 0 6px; vertical-align: top; }
table.diff td.ln { color: var(--faint); text-align: right; width: 1%; user-select: none; white-space: nowrap; }
table.diff td.sg { width: 1%; user-select: none; color: var(--muted); }
table.diff td.tx { white-space: pre-wrap; word-break: break-word; }
table.diff tr.add { background: #e6ffec; } table.diff tr.add td.sg { color: var(--pass); }
table.diff tr.del { background: #ffebe9; } table.diff tr.del td.sg { color: var(--fail); }
table.diff tr.fold td { background: #f1f5f9; text-align: center; }
table.diff tr.fold button { font: 11.5px var(--sans); border: 0; background: none; color: var(--accent); cursor: pointer; padding: 1px; }
table.tests { border-collapse: collapse; width: 100%; font-size: 12px; }
table.tests th { text-align: left; color: var(--muted); font-weight: 600; padding: 3px 6px; border-bottom: 1px solid var(--line); }
table.tests td { padding: 4px 6px; border-bottom: 1px solid #f1f5f9; vertical-align: top; word-break: break-word; }
table.tests td:nth-child(3) code { color: var(--fail); }
footer { color: var(--muted); font-size: 12px; margin-top: 36px; border-top: 1px solid var(--line); padding-top: 12px; }
/* The equal-cost verdicts are sentences: they wrap beside the chart instead of widening the table past the page. */
table.cells.equal-cost td[data-unit] { white-space: normal; min-width: 13em; vertical-align: top; }
table.consistency-strips { border-collapse: collapse; font-size: 12px; width: 100%; }
table.consistency-strips td { padding: 3px 6px; vertical-align: middle; border-bottom: 1px solid #f1f5f9; }
table.consistency-strips td.name { white-space: nowrap; width: 1%; }
table.consistency-strips td.counts { white-space: nowrap; width: 1%; color: var(--muted); font-variant-numeric: tabular-nums; }
.panels.reliability { grid-template-columns: minmax(0, 400px) minmax(0, 1fr); }
table.consistency-strips td.tasks { width: 100%; }
.squares { display: flex; flex-wrap: wrap; gap: 2px; }
.squares i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; }
td.unknown { color: var(--muted); font-style: italic; }
@media (max-width: 800px) {
  .wrap { padding: 0 12px; }
  .card { padding: 12px; }
  /* Tables scroll sideways in their card: the row names stay in view. */
  table.main td.name, table.main thead th:first-child, table.grid tbody th, table.grid thead th:first-child { position: sticky; left: 0; z-index: 1; background: var(--card); }
  table.main td.name { min-width: 160px; max-width: 160px; font-size: 12px; box-shadow: 1px 0 0 var(--line); }
  table.grid tbody th { max-width: 130px; }
  .panels, .panels.reliability { grid-template-columns: 1fr; }
  .attempt-body { grid-template-columns: 1fr; }
  .attempt-body > .code { border-right: 0; border-bottom: 1px solid var(--line); }
  .tv-controls { grid-template-columns: 1fr; }
}
@media print { .tv-controls, .grid-controls { display: none; } }
`
