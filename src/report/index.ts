// Reports of a finished run: the self-contained HTML page, GitHub Markdown and annotations, and
// the history of runs (quality over time). Everything reads artifacts; nothing re-runs a model.
export { renderHtmlReport, protocolChips, type HtmlReportInput, type HtmlReportOptions } from './html.js'
export {
  renderMarkdownSummary,
  githubAnnotations,
  seqCurvesMermaid,
  escapeAnnotationData,
  escapeAnnotationProperty,
  markdownText,
  type GateResult,
  type MarkdownOptions,
} from './markdown.js'
export {
  HISTORY_SCHEMA,
  DEFAULT_HISTORY_FILE,
  HistoryEntrySchema,
  appendHistory,
  readHistory,
  historyEntries,
  changeSinceLast,
  cellChanges,
  condenseChanges,
  gitInfo,
  type CellChange,
  type HistoryEntry,
  type HistoryContext,
  type ReadHistory,
} from './history.js'
export { diffLines, encodeDiff, decodeDiff, diffStats, splitLines, type DiffOp } from './diff.js'
export { escapeHtml, jsonForScript } from './escape.js'
export { renderBenchmarkTable, rankingChanges } from './table.js'
