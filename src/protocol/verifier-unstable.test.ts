import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { fakeRun } from '../../test/report-fixtures.js'
import { analyzeRuns } from '../analysis/analyze.js'
import { CellSummarySchema, type RunSummary, type Trajectory } from '../core/schemas.js'
import { renderHtmlReport } from '../report/html.js'
import { renderMarkdownSummary, sentence } from '../report/markdown.js'
import { renderBenchmarkTable } from '../report/table.js'
import { summariseCell } from './cell-summary.js'
import { verifierUnstableLine, verifierUnstableOf } from './verifier-unstable.js'

const { summary, trajectories } = fakeRun({ modes: ['verifier'], actors: [{ id: 'sim:a', skill: 0.3 }] })
const cell = summary.benchmarks[0]!.cells[0]!

/** The fake run's cell summarised again, with one revision marked unmodified where its verdict changed. */
function withFlip(reported?: readonly string[]): { flipped: string; summary: RunSummary; mine: Trajectory[] } {
  const mine = structuredClone(trajectories)
  const t = mine.find((x) => x.attempts.length >= 2 && x.attempts[1]!.verdict.pass)!
  t.attempts[1]!.unmodified = true
  const again = summariseCell({
    runId: summary.runId,
    benchmark: cell.benchmark,
    cellId: cell.cellId,
    actorId: cell.actorId,
    mode: cell.mode,
    protocol: t.protocol,
    fingerprint: t.fingerprint,
    taskIds: cell.perTask.map((p) => p.taskId),
    repeats: cell.repeats,
    trajectories: mine,
    thresholds: {},
    errors: 'left-out',
    durationMs: 10,
    ...(reported ? { knownUnstable: reported } : {}),
  })
  return {
    flipped: t.taskId,
    mine,
    summary: { ...summary, benchmarks: [{ ...summary.benchmarks[0]!, cells: [again] }] },
  }
}

describe('verifierUnstableOf', () => {
  it('is absent for a run whose unmodified revisions kept their verdict and without a report', () => {
    expect(cell.verifierUnstable).toBeUndefined()
    expect(verifierUnstableOf(trajectories, undefined, ['t/1'])).toBeUndefined()
    expect(verifierUnstableLine(cell)).toBeNull()
  })

  it('names the task whose unmodified revision got another verdict, and the reported tasks of the cell only', () => {
    const { flipped, summary: s } = withFlip(['t/2', 'elsewhere/9'])
    const known = s.benchmarks[0]!.cells[0]!.verifierUnstable
    expect(known).toEqual({ inRun: [flipped], reported: ['t/2'] })
    expect(CellSummarySchema.parse(s.benchmarks[0]!.cells[0]!).verifierUnstable).toEqual(known)
    // A changed revision with another verdict is an ordinary repair, not instability.
    const { mine } = withFlip()
    for (const t of mine) for (const a of t.attempts) if (a.index > 1) a.unmodified = false
    expect(verifierUnstableOf(mine, [], ['t/1'])).toBeUndefined()
  })

  it('the table, Markdown, HTML report and seqk analyze print the same sentence', async () => {
    const { flipped, summary: s } = withFlip(['t/3'])
    const c = s.benchmarks[0]!.cells[0]!
    const line = verifierUnstableLine(c)!
    expect(line).toContain(`gave one answer two verdicts in this run (${flipped})`)
    expect(line).toContain('the stability report saw 1 reference flip (t/3)')
    const table = stripVTControlCharacters(renderBenchmarkTable(c.benchmark, [c], { width: 100000 }))
    expect(table.replace(/\s+/g, ' ')).toContain(line)
    expect(renderMarkdownSummary(s)).toContain(sentence(line))
    const html = await renderHtmlReport({ summary: s, trajectories: [] })
    expect(html).toContain(`<p class="note verifier-unstable">${line}</p>`)
    const analysis = analyzeRuns([s], { selection: false, resamples: 10 })
    expect(analysis.benchmarks[0]!.notes).toContain(line)
  })
})
