import type { RunSummary, Trajectory } from '../core/schemas.js'
import { analyzeRuns, renderAnalysis } from '../analysis/index.js'
import type { HistoryEntry } from './history.js'
import type { DisclosureCard } from '../core/disclosure.js'
import { renderHtmlReport } from './html.js'

/**
 * The HTML report of a run, with the actor analysis when it can run (it says why when it cannot:
 * one actor only, for example). The reporter and `seqk merge` write the same page.
 */
export async function runReportHtml(
  summary: RunSummary,
  trajectories: readonly Trajectory[],
  history?: readonly HistoryEntry[],
  disclosure?: DisclosureCard,
): Promise<string> {
  let analysis: string
  try {
    analysis = renderAnalysis(analyzeRuns([summary]))
  } catch (error) {
    analysis = `The actor analysis did not run: ${(error as Error).message}`
  }
  return renderHtmlReport({
    summary,
    trajectories: [...trajectories],
    history: history ? [...history] : undefined,
    analysis,
    ...(disclosure ? { disclosure } : {}),
  })
}
