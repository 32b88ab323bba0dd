/**
 * The outputs of a finished run, each a small emitter over one `RunSummary`. The reporter and
 * `seqk merge` run the same list; one emitter that fails is reported and the others still run,
 * so a broken page never costs the summary, the history or the other files.
 */
import { subjectComparisonLines } from './subject-comparisons.js'
import { appendFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RunSummary, Trajectory } from '../core/schemas.js'
import type { Awaitable } from '../core/awaitable.js'
import { SUMMARY_FILE } from '../artifacts/run-dir.js'
import { writeSummary } from '../artifacts/summary-file.js'
import { appendHistory, cellChanges, condenseChanges, gitInfo, readHistory, type HistoryEntry } from './history.js'
import { githubAnnotations, renderMarkdownSummary } from './markdown.js'
import { historyComparisonLines, renderBenchmarkTable, RunNotes, TABLE_WIDTH } from './table.js'
import { wideFromEnv } from '../core/text-layout.js'
import { runReportHtml } from './views.js'
import { runVerdictLines } from './verdict-lines.js'
import { disclosureEmitter } from './disclosure-file.js'
import { disclosureCommentLines, runCard } from './disclosure-section.js'

/** What every emitter reads: the run's summary, where its files go, and how to speak. */
export interface EmitContext {
  readonly summary: RunSummary
  /** The run directory the files are written into. */
  readonly runDir: string
  /** The project root (git information for the history). */
  readonly root: string
  /** The run's trajectories, for the report's viewer; read only by the emitters that need them. */
  readonly trajectories: () => Awaitable<readonly Trajectory[]>
  /** The history file this run is compared with and appended to; absent to keep none. */
  readonly history?: RunHistory
  /** Colour the terminal tables. */
  readonly color: boolean
  /** Every column, however wide (default: `SEQK_WIDE` in `env`; else everything fits 120 columns). */
  readonly wide?: boolean
  /** The terminal. */
  readonly print: (text: string) => void
  /** `GITHUB_STEP_SUMMARY` and `GITHUB_ACTIONS`, as the environment gives them. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** The history a run is compared with: read once, before anything of this run is appended. */
export interface RunHistory {
  readonly path: string
  /** As displayed in "Since the last run (…)". */
  readonly displayPath: string
  /** The entries trends and comparisons read: partial runs' lines left out. */
  readonly entries: readonly HistoryEntry[]
  /** The cells that moved since their last run, one line each, unchanged cells counted in one. */
  readonly changes: readonly string[]
  /** Why this run is partial, if it is: its lines are appended marked so (see HistoryEntry.partial). */
  readonly partial?: string
}

/**
 * Reads the history at `path` and condenses this run's changes against it. `exceptRunId` leaves
 * out a run's own earlier points (a resumed run is compared with the run before it).
 *
 * @example
 * const history = runHistory('.seqk/history.jsonl', '.seqk/history.jsonl', summary)
 * history.changes // => ['all 45 cells unchanged']
 */
export function runHistory(
  path: string,
  displayPath: string,
  summary: RunSummary,
  options: { exceptRunId?: string; partial?: string } = {},
): RunHistory {
  // A partial run's lines (a -t filter, a watch rerun) are no point of the benchmark's trend.
  const entries = readHistory(path).entries.filter((e) => e.partial === undefined)
  const earlier = options.exceptRunId === undefined ? entries : entries.filter((e) => e.runId !== options.exceptRunId)
  return {
    path,
    displayPath,
    entries,
    changes: condenseChanges(cellChanges(earlier, summary)),
    ...(options.partial !== undefined ? { partial: options.partial } : {}),
  }
}

/** One output: writes or prints from the context, and names the file it wrote, if any. */
export interface Emitter {
  /** Said when it fails: "the <name> could not be written". */
  readonly name: string
  emit(context: EmitContext): Awaitable<string | undefined>
}

const tables: Emitter = {
  name: 'terminal tables',
  emit({ summary, color, wide, env, print }) {
    const failed: string[] = []
    // The notes every table would repeat are said once, under the last (issue 47: 72 note lines for four benchmarks).
    // One benchmark keeps its notes under its table, as before.
    const runNotes = summary.benchmarks.length > 1 ? new RunNotes() : undefined
    for (const b of summary.benchmarks) {
      try {
        print(`${renderBenchmarkTable(b.name, b.cells, { color, wide: wide ?? wideFromEnv(env), runNotes })}\n`)
      } catch (error) {
        // One table that cannot render must not cost the others.
        failed.push(`"${b.name}": ${(error as Error).stack ?? String(error)}`)
      }
    }
    const notes = runNotes?.render({ color }) ?? ''
    if (notes !== '') print(`${notes}\n`)
    if (failed.length > 0)
      throw new Error(`could not render the table of ${failed.join('; ')} (the numbers are in summary.json)`)
    return undefined
  },
}

/** The run's verdict under the tables: its counts, and what no table shows (files that failed to load, cells not run, problems). */
const verdictLines: Emitter = {
  name: 'run verdict',
  emit({ summary, color, wide, env, print }) {
    print(`${runVerdictLines(summary, { color, width: (wide ?? wideFromEnv(env)) ? null : TABLE_WIDTH }).join('\n')}\n`)
    return undefined
  },
}

const summaryFile: Emitter = {
  name: SUMMARY_FILE,
  emit({ summary, runDir }) {
    writeSummary(join(runDir, SUMMARY_FILE), summary)
    return SUMMARY_FILE
  },
}

/** `<runs dir>/latest` names the newest run (kept only in our own runs directory). */
export const latestPointer: Emitter = {
  name: 'latest pointer',
  emit({ summary, runDir }) {
    writeFileSync(join(runDir, '..', 'latest'), `${summary.runId}\n`)
    return undefined
  },
}

const historyComparisons: Emitter = {
  name: 'history comparisons',
  emit({ summary, wide, env, print }) {
    for (const line of historyComparisonLines(
      summary.historyComparisons ?? [],
      (wide ?? wideFromEnv(env)) ? null : TABLE_WIDTH,
    ))
      print(line)
    return undefined
  },
}

/** The variants of each benchmark's subject, compared pairwise on the same tasks. */
const variantComparisonTable: Emitter = {
  name: 'variant comparisons',
  emit({ summary, wide, env, print }) {
    const lines = subjectComparisonLines(
      summary.variantComparisons ?? [],
      (wide ?? wideFromEnv(env)) ? null : TABLE_WIDTH,
      'variants compared, B − A paired over the common tasks (points, 95% CI):',
    )
    if (lines.length > 0) print(`${lines.join('\n')}\n`)
    return undefined
  },
}

const history: Emitter = {
  name: 'history',
  emit({ summary, history, root, print }) {
    if (!history) return undefined
    if (history.changes.length > 0)
      print(`Since the last run (${history.displayPath}):\n${history.changes.map((c) => `  ${c}`).join('\n')}\n`)
    appendHistory(history.path, summary, {
      ...gitInfo(root),
      ...(history.partial !== undefined ? { partial: history.partial } : {}),
    })
    if (history.partial !== undefined)
      print(
        `seqk: this run is partial (${history.partial}): its lines in ${history.displayPath} are marked so and left out of trends and "since the last run".\n`,
      )
    return undefined
  },
}

// The baseline gate is part of each cell's verdict: it is not passed again as a gate of its own (it would count twice).
const markdown = (context: EmitContext): string => {
  const md = renderMarkdownSummary(context.summary, { changes: [...(context.history?.changes ?? [])] })
  // The card the disclosure emitter wrote just before: its two lines close the comment.
  const card = runCard(context.runDir)
  return card ? `${md.trimEnd()}\n\n${disclosureCommentLines(card).join('\n\n')}\n` : md
}

const prComment: Emitter = {
  name: 'pr-comment.md',
  emit(context) {
    writeFileSync(join(context.runDir, 'pr-comment.md'), markdown(context))
    return 'pr-comment.md'
  },
}

const stepSummary: Emitter = {
  name: 'GitHub step summary',
  emit(context) {
    if (context.env.GITHUB_STEP_SUMMARY) appendFileSync(context.env.GITHUB_STEP_SUMMARY, `${markdown(context)}\n`)
    return undefined
  },
}

const annotations: Emitter = {
  name: 'GitHub annotations',
  emit({ summary, env, print }) {
    if (env.GITHUB_ACTIONS !== 'true') return undefined
    for (const line of githubAnnotations(summary)) print(line)
    return undefined
  },
}

const htmlReport: Emitter = {
  name: 'report.html',
  async emit({ summary, runDir, trajectories, history }) {
    writeFileSync(
      join(runDir, 'report.html'),
      await runReportHtml(summary, await trajectories(), history ? history.entries : undefined, runCard(runDir)),
    )
    return 'report.html'
  },
}

/**
 * The outputs of a run, in the order they run: the tables first (what a person reads), then the
 * summary (what everything else reads) and the disclosure card, then the views. `latest` and `html`
 * add or drop those two; `disclosure` says who collects the card's harness facts (default the reporter).
 *
 * @example
 * const failures = await emitRun(runEmitters({ html: true }), context)
 */
export function runEmitters(
  options: { latest?: boolean; html?: boolean; disclosure?: 'reporter' | 'seqk merge' } = {},
): Emitter[] {
  return [
    tables,
    verdictLines,
    summaryFile,
    disclosureEmitter(options.disclosure),
    ...(options.latest ? [latestPointer] : []),
    historyComparisons,
    variantComparisonTable,
    history,
    prComment,
    stepSummary,
    annotations,
    ...(options.html === false ? [] : [htmlReport]),
  ]
}

/** What a run of the emitters wrote, and which of them failed (each with why). */
export interface EmitResult {
  readonly written: string[]
  readonly failures: { name: string; message: string }[]
}

/**
 * Runs every emitter in order; one that throws is recorded (and said through `print`) and the
 * rest still run.
 */
export async function emitRun(emitters: readonly Emitter[], context: EmitContext): Promise<EmitResult> {
  const written: string[] = []
  const failures: { name: string; message: string }[] = []
  for (const emitter of emitters) {
    try {
      const file = await emitter.emit(context)
      if (file) written.push(file)
    } catch (error) {
      const message = (error as Error).stack ?? String(error)
      failures.push({ name: emitter.name, message })
      context.print(`seqk: the ${emitter.name} could not be written: ${message}`)
    }
  }
  return { written, failures }
}
