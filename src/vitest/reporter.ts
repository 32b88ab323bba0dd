import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { supportsColor } from 'chalk'
import type { SerializedError, TestArtifact } from 'vitest'
import type { Reporter, TestCase, TestModule, TestSpecification, Vitest } from 'vitest/node'
import {
  CellSummarySchema,
  SUMMARY_SCHEMA,
  type CellSummary,
  type RunSummary,
  type Trajectory,
} from '../core/schemas.js'
import { SUMMARY_FILE, TRAJECTORIES_FILE } from '../artifacts/run-dir.js'
import { resolveRunLocation } from '../artifacts/run-location.js'
import { appendPlanRecord, firstLine, PLAN_FILE } from '../artifacts/plan-file.js'
import { redactText } from '../models/redact.js'
import { prepareResume, type ResumeStart } from '../artifacts/resume-dir.js'
import { acquireRunLock, type RunLock } from '../artifacts/run-lock.js'
import { readTrajectories } from '../artifacts/trajectories-file.js'
import { shardFromEnv } from '../protocol/shard.js'
import { capMessage } from '../protocol/cost-cap.js'
import { benchmarkBlocks, recomputeCell, recomputeRun } from '../artifacts/recompute.js'
import { mergeShards, MergeError, type ShardRun } from '../artifacts/merge.js'
import { applyBaseline } from './baseline.js'
import {
  appendCellRecord,
  CELLS_FILE,
  pairCellRecords,
  readCells,
  type CellEndRecord,
  type CellRecord as CellLine,
  type CellStartRecord,
} from '../artifacts/cells-file.js'
import { describeZodError } from '../core/zod-errors.js'
import { Progress, type ProgressMode } from './progress.js'
import { cellLinesOf, recordedTrajectories, resumeLine, unfinishedCell } from './recorded-cells.js'
import { fileShardHint } from './file-shard.js'
import { historyComparisons } from '../protocol/history-comparison.js'
import { equalCostComparisons } from '../protocol/equal-cost.js'
import type { CellRef } from '../protocol/gate-match.js'
import { variantComparisons } from '../protocol/subject-comparison.js'
import { DEFAULT_HISTORY_FILE } from '../report/history.js'
import { emitRun, runEmitters, runHistory, type RunHistory } from '../report/emitters.js'
import { TEXT_WIDTH, wideFromEnv, wrapText } from '../core/text-layout.js'
import { runVerdict, verdictBlock } from '../protocol/verdict.js'
import { skipLines } from './skipped.js'
import { isDryRun } from '../core/estimate.js'
import { CostCapLimitsSchema, type CostCapLimits } from '../core/cost-cap.js'
import { capsFromEnv, RUN_CAP_ENV, tighter } from './cost-caps.js'
import './artifact-types.js'
import './run-context.js'

/** The options of the seqk reporter in your Vitest config. */
export interface SeqkReporterOptions {
  /** Parent of run directories, relative to the Vitest root (default `.seqk/runs`, or `SEQK_OUTPUT_DIR`). */
  outputDir?: string
  /** Progress display: `auto` (default) picks `line` on a TTY without Vitest's live summary, else `lines`. */
  progress?: 'auto' | ProgressMode
  /** Colour the tables (default: when the terminal supports it and NO_COLOR is unset). */
  color?: boolean
  /**
   * Every column of the tables and every k, however wide (default: `SEQK_WIDE=1` in the
   * environment). Without it everything printed fits 120 columns, and the tables say what they left out.
   */
  wide?: boolean
  /** How long a cell is quiet, in ms, before a retry or rate-limit notice gets a line of its own in plain-lines mode (default 5000). */
  progressIntervalMs?: number
  /** Write `report.html` into the run directory (default true). */
  html?: boolean
  /** Append every cell's numbers to this JSONL file (default `SEQK_HISTORY_FILE`, else `.seqk/history.jsonl`; `false` to keep no history). */
  historyFile?: string | false
  /**
   * The run's cost cap in US dollars, over every cell of every worker (also `SEQK_RUN_MAX_COST_USD`; the
   * smaller holds). Once reached no trajectory starts and running ones stop at their next model call.
   */
  maxCostUsd?: number
  /** The run's cap in tokens (input, cached included, plus output; also `SEQK_RUN_MAX_TOKENS`). */
  maxTokens?: number
}

type CellRecord = CellSummary & { file: string }

/**
 * The vitest-seqk reporter: live progress while cells run, a table per `seqEval` block at the end,
 * and `summary.json` in the run directory. It reads only `testCase.meta()` and recorded artifacts,
 * so it gives the same output after `--merge-reports`.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { reporters: ['vitest-seqk/reporter', 'default'] } })
 */
export default class SeqkReporter implements Reporter {
  private vitest?: Vitest
  private root = process.cwd()
  private runId = ''
  private runDir = ''
  /** `latest` is kept only in our own runs directory, never beside a directory the user chose. */
  private writeLatest = true
  /** Whether this run named its directory itself (not a resume, not a directory the user chose). */
  private newDir = true
  private progress: Progress
  private readonly cells: CellRecord[] = []
  /** Why this run may not use its directory (it holds another run, or cannot be resumed). */
  private refused: string | undefined
  /** Recorded trajectories that do not match the schema, left out of every view and said at the end. */
  private readonly malformed = new Set<string>()
  /** The end records of cells that did not finish, by test id (for cells.jsonl rebuilt after --merge-reports). */
  private readonly unfinished = new Map<string, CellEndRecord>()
  /** This run's trajectories.jsonl, read once when a cell did not finish (see unfinishedCell). */
  private fileTrajectories: Trajectory[] | undefined
  /** Every trajectory and cells.jsonl line the run's cells recorded, gathered as their results arrive. */
  private readonly recordedTrajectories: Trajectory[] = []
  private readonly recordedCells: CellLine[] = []
  /** Cells that refused to resume, each with its reason. */
  private readonly refusals: string[] = []
  /** What a resumed run found in its directory. */
  private resumed: ResumeStart | undefined
  private readonly options: SeqkReporterOptions
  /** Test runs started by this Vitest process: past the first, a watch-mode rerun. */
  private runsStarted = 0
  /** This run's hold on a directory it was told to use (SEQK_RESUME, SEQK_RUN_DIR): one writer at a time. */
  private lock: RunLock | undefined
  /**
   * What makes this run fail besides Vitest's own failures (a hidden cell, a malformed record, an
   * output that could not be written): gathered as they are found, and the exit code set once
   * from them at the end.
   */
  private readonly problems: string[] = []
  /** Eval files that failed to load, by file: a failed entry in every output. */
  private readonly loadErrors = new Map<string, string>()

  constructor(options: SeqkReporterOptions = {}) {
    this.options = options
    this.progress = new Progress('off', () => {})
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
    this.root = vitest.config.root
    this.startRun()
    this.progress = new Progress(
      this.progressMode(vitest),
      (text) => process.stdout.write(text),
      this.options.progressIntervalMs,
    )
  }

  /** Each run (and each rerun in watch mode) gets its own run directory and a clean slate. */
  /** The run's cost cap for the workers, counted under a session of its own (a resume continues under a new cap). */
  private runCostCap(): { costCap?: { limits: CostCapLimits; session: string } } {
    const options = CostCapLimitsSchema.safeParse({
      maxCostUsd: this.options.maxCostUsd,
      maxTokens: this.options.maxTokens,
    })
    if (!options.success) {
      this.refused ??= `seqk reporter options: ${options.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`
      return {}
    }
    let limits: CostCapLimits
    try {
      limits = tighter(options.data, capsFromEnv(process.env, RUN_CAP_ENV))
    } catch (error) {
      this.refused ??= (error as Error).message
      return {}
    }
    return Object.keys(limits).length > 0
      ? { costCap: { limits, session: `${this.runId}-${process.pid}-${Date.now()}` } }
      : {}
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification> = []): void {
    this.runsStarted++
    // A watch-mode rerun starts afresh, a refusal included (the eval may have been fixed since).
    if (
      this.cells.length > 0 ||
      this.refused ||
      this.refusals.length > 0 ||
      this.problems.length > 0 ||
      this.loadErrors.size > 0
    )
      this.startRun()
    this.plan({ type: 'files', files: specifications.map((s) => this.relativeFile(s.moduleId)) })
  }

  /** A loaded eval file's cells and their planned trajectories, for the live view's total from the start. */
  onTestModuleCollected(testModule: TestModule): void {
    const cells = [...testModule.children.allTests()].flatMap((t) => {
      const cell = t.meta().seqkCell
      return cell ? [{ benchmark: cell.benchmark, cellId: cell.cellId, trajectories: cell.trajectories ?? 0 }] : []
    })
    if (cells.length > 0) this.plan({ type: 'file', file: this.relativeFile(testModule.moduleId), cells })
  }

  /** A file that failed to load or collect is a failed entry of the run, named with its error's first line. */
  onTestModuleEnd(testModule: TestModule): void {
    this.noteLoadError(testModule)
  }

  private noteLoadError(testModule: TestModule): void {
    const errors = testModule.errors()
    if (errors.length === 0) return
    const file = this.relativeFile(testModule.moduleId)
    if (this.loadErrors.has(file)) return
    const error = firstLine(errors[0]?.message ?? errors[0]?.name)
    this.loadErrors.set(file, error)
    this.plan({ type: 'load-error', file, error })
  }

  /** Appends a record to the run's plan.jsonl (never for a run refused its directory). */
  private plan(
    record:
      | { type: 'files'; files: string[] }
      | { type: 'file'; file: string; cells: { benchmark: string; cellId: string; trajectories: number }[] }
      | { type: 'load-error'; file: string; error: string }
      | { type: 'skipped'; file: string; benchmark: string; cellId: string; reason: string },
  ): void {
    // A dry run (seqk estimate) writes no run directory.
    if (this.refused || this.vitest?.config.mergeReports || isDryRun()) return
    try {
      mkdirSync(this.runDir, { recursive: true })
      appendPlanRecord(join(this.runDir, PLAN_FILE), { schema: 'seqk.plan/1', runId: this.runId, ...record })
    } catch (error) {
      // Only the live view's total depends on it: said, not fatal.
      this.log(`seqk: could not write ${PLAN_FILE} in ${this.runDir}: ${(error as Error).message}`)
    }
  }

  /**
   * A run of plain tests (no cell, no eval file that failed to load) leaves no run directory: the
   * plan.jsonl it wrote for a live view at the start is all it holds.
   */
  private discardEmptyRun(): void {
    if (!this.newDir || this.refused || !existsSync(this.runDir)) return
    try {
      if (readdirSync(this.runDir).every((name) => name === PLAN_FILE))
        rmSync(this.runDir, { recursive: true, force: true })
    } catch {
      // Tidying only: a directory left behind is harmless.
    }
  }

  private relativeFile(moduleId: string): string {
    return displayPath(this.root, moduleId)
  }

  private startRun(): void {
    this.cells.length = 0
    this.recordedTrajectories.length = 0
    this.recordedCells.length = 0
    this.refused = undefined
    this.refusals.length = 0
    this.problems.length = 0
    this.loadErrors.clear()
    this.malformed.clear()
    this.unfinished.clear()
    this.fileTrajectories = undefined
    this.resumed = undefined
    // The one reading of SEQK_RESUME, SEQK_RUN_DIR, SEQK_RUN_ID and SEQK_OUTPUT_DIR, shared with the workers.
    const location = resolveRunLocation(process.env, {
      root: this.root,
      ...(this.options.outputDir !== undefined ? { outputDir: this.options.outputDir } : {}),
    })
    this.runDir = location.runDir
    this.runId = location.runId
    this.writeLatest = location.writeLatest
    this.newDir = location.kind === 'new'
    if (location.conflict) this.refused = location.conflict
    else if (location.kind === 'resume') {
      // Another run writing there now is refused before anything of the directory is read.
      this.refused = this.takeLock()
      if (!this.refused)
        try {
          const start = prepareResume(this.runDir, shardFromEnv(process.env))
          // The run's own id, whatever the folder is called now: new lines supersede old ones by it.
          this.runId = start.runId
          this.resumed = start
        } catch (error) {
          this.refused = (error as Error).message
        }
      // A directory of our own naming is new; one the user named may be in use by another run.
    } else this.refused = (location.kind === 'fixed' ? this.takeLock() : undefined) ?? this.refuseExisting()
    // One run directory for every worker: created lazily by the first cell that writes.
    // Without credentials: an argument may carry one (a --env or a URL with a key).
    const invocation = { argv: process.argv.slice(2).map(redactText), cwd: process.cwd() }
    const resumed = this.resumed as { bytes: number } | undefined
    // Read first: a cap that cannot be read refuses the run rather than run it uncapped.
    const costCap = this.runCostCap()
    this.vitest?.provide('seqkRun', {
      runId: this.runId,
      runDir: this.runDir,
      invocation,
      ...(resumed ? { resume: { bytes: resumed.bytes } } : {}),
      ...(this.refused ? { refused: this.refused } : {}),
      ...costCap,
    })
  }

  /** Takes the run directory's lock (see artifacts/run-lock.ts); the refusal's message when another run holds it. */
  private takeLock(): string | undefined {
    this.lock?.release()
    try {
      this.lock = acquireRunLock(this.runDir, ['vitest', ...process.argv.slice(2)].map(redactText).join(' '))
      return undefined
    } catch (error) {
      this.lock = undefined
      return (error as Error).message
    }
  }

  /** A second run appended into a finished one would count its trajectories twice: refuse, and say how to resume. */
  private refuseExisting(): string | undefined {
    const holds = [TRAJECTORIES_FILE, SUMMARY_FILE].filter((f) => existsSync(join(this.runDir, f)))
    if (holds.length === 0) return undefined
    return `${this.runDir} already holds a run (${holds.join(', ')}); running into it again would mix two runs. To run only what it lacks or what errored, resume it: SEQK_RESUME=${this.runDir} (or npx seqk resume ${this.runDir}). To start afresh, pick a new directory (another SEQK_RUN_DIR, or none).`
  }

  private progressMode(vitest: Vitest): ProgressMode {
    const wanted = this.options.progress ?? 'auto'
    if (wanted !== 'auto') return wanted
    // Vitest's default reporter draws a live summary on a TTY and re-prints whatever else is
    // written, which would garble an in-place line; plain lines are safe everywhere.
    const othersRender = vitest.config.reporters.some(
      (r) => Array.isArray(r) && ['default', 'verbose', 'tree'].includes(r[0] as string),
    )
    return process.stdout.isTTY && !othersRender && !process.env.CI ? 'line' : 'lines'
  }

  onTestCaseArtifactRecord(testCase: TestCase, artifact: TestArtifact): void {
    if (artifact.type === 'seqk:cell-start')
      this.progress.start(testCase.id, `${artifact.benchmark} › ${artifact.cellId}`, artifact.total)
    else if (artifact.type === 'seqk:trajectory') this.progress.tick(testCase.id, artifact.trajectory.status)
    else if (artifact.type === 'seqk:notice') this.progress.notice(testCase.id, artifact.text)
  }

  onTestCaseResult(testCase: TestCase): void {
    this.progress.finish(testCase.id)
    // A skipped cell says so at once, for the live view (summary.json's notRun says it at the end).
    const skipped = this.skippedCell(testCase)
    if (skipped) this.plan({ type: 'skipped', ...skipped })
    // A cell refused its run directory (it holds another run, or its protocol changed since the
    // run it resumes): nothing of this run may overwrite that run's summary.
    const refusal = testCase
      .result()
      .errors?.find((e) => e.name === 'ResumeRefusedError' || e.name === 'SeqkRunDirError')
    if (refusal) {
      this.refusals.push(`"${testCase.fullName}": ${refusal.message}`)
      return
    }
    this.summariseResult(testCase)
    // Read now, not at the end: after --merge-reports, task shards' blobs share test ids.
    this.recordedTrajectories.push(...recordedTrajectories(testCase, this.malformed))
    this.recordedCells.push(...cellLinesOf(testCase, this.unfinished.get(testCase.id)))
  }

  /** The cell's summary from its meta, or from what it recorded when it did not finish. */
  private summariseResult(testCase: TestCase): void {
    const meta = testCase.meta().seqk
    const parsed = meta === undefined ? undefined : CellSummarySchema.safeParse(meta)
    if (meta !== undefined && parsed?.success) {
      this.cells.push({ ...parsed.data, file: meta.file })
      return
    }
    // A cell that started and left no readable summary (a timeout, a crash, a cancel, a summary this
    // version cannot read) is summarised from what it recorded: nothing a cell declared vanishes.
    const unreadable =
      parsed && !parsed.success
        ? `its summary does not match this version's schema (${describeZodError(parsed.error)})`
        : undefined
    try {
      const unfinished = unfinishedCell(testCase, unreadable, this.malformed, () => this.onFile())
      if (unfinished) {
        this.cells.push(unfinished.cell)
        this.unfinished.set(testCase.id, unfinished.end)
        // Said in cells.jsonl too, so `seqk summarize` gives this cell as the reporter does.
        const cellsPath = join(this.runDir, CELLS_FILE)
        if (existsSync(cellsPath)) appendCellRecord(cellsPath, unfinished.end)
      } else if (unreadable) this.unreported(testCase, `${unreadable}, and it recorded no plan to summarise it from`)
    } catch (error) {
      // A reporter that throws here would take every other cell's tables and files with it.
      this.unreported(testCase, `it could not be summarised from what it recorded: ${(error as Error).message}`)
    }
  }

  /**
   * A resume that ran only some cells (a `-t` filter, a file left out) still writes the whole run:
   * every other cell the directory declares is recomputed from its files, as `seqk summarize` does.
   */
  private keepCellsNotRun(): Trajectory[] {
    const cellsPath = join(this.runDir, CELLS_FILE)
    if (!existsSync(cellsPath)) return []
    const ran = new Set(this.cells.map((c) => `${c.benchmark}\u0000${c.cellId}`))
    const missing = readCells(cellsPath).cells.filter(
      ({ start }) => !ran.has(`${start.benchmark}\u0000${start.cellId}`),
    )
    if (missing.length === 0) return []
    const onFile = this.onFile()
    const declared = readCells(cellsPath).cells.map(({ start }) => start)
    for (const { start, end } of missing) {
      const gate = (cell: CellSummary) =>
        applyBaseline({
          path: resolve(this.root, start.baseline!.file),
          benchmark: start.benchmark,
          summary: cell,
          mode: 'none',
          gate: start.baseline!,
          cells: declared
            .filter((d) => d.benchmark === start.benchmark)
            .map((d) => ({ cellId: d.cellId, mode: d.mode })),
        })
      this.cells.push({ ...recomputeCell(start, end, onFile, gate), file: start.file })
    }
    this.log(
      `seqk: ${missing.length} ${missing.length === 1 ? 'cell' : 'cells'} of the run did not run in this resume; recomputed from ${this.runDir} so the summary covers the whole run`,
    )
    // Their trajectories, for the report's viewer.
    const keys = new Set(
      missing.map(
        ({ start }) => `${start.runId}\u0000${start.benchmark}\u0000${start.cellId}\u0000${start.fingerprint}`,
      ),
    )
    return onFile.filter((t) => keys.has(`${t.runId}\u0000${t.benchmark}\u0000${t.cellId}\u0000${t.fingerprint}`))
  }

  /**
   * When the cells hold more than one shard of a cell (`--merge-reports` over the blobs of
   * `SEQK_SHARD=i/N` runs), each cell recomputed once from the union of its shards' trajectories,
   * as `seqk merge` does; its thresholds and baseline apply again. An incomplete or inconsistent
   * set is said, and the shards are shown as they are. Undefined when there is nothing to join.
   */
  private joinTaskShards(
    records: readonly CellLine[],
    trajectories: readonly Trajectory[],
  ): { trajectories: Trajectory[]; records: CellLine[] } | undefined {
    const parts = new Map<string, number>()
    for (const c of this.cells)
      if (c.shard) parts.set(`${c.benchmark}\u0000${c.cellId}`, (parts.get(`${c.benchmark}\u0000${c.cellId}`) ?? 0) + 1)
    if (![...parts.values()].some((n) => n > 1)) return undefined
    // One "run" per shard index: each blob's machine ran one share of every cell.
    const byShard = new Map<
      number,
      ShardRun & { cells: { start: CellStartRecord; end: CellEndRecord | undefined }[] }
    >()
    for (const cell of pairCellRecords(records)) {
      const index = cell.start.shard?.index ?? 1
      if (!byShard.has(index))
        byShard.set(index, {
          dir: `the blob of shard ${index}/${cell.start.shard?.count ?? 1}`,
          cells: [],
          trajectories,
        })
      byShard.get(index)!.cells.push(cell)
    }
    let merged
    try {
      merged = mergeShards([...byShard.values()], this.runId)
    } catch (error) {
      if (!(error instanceof MergeError)) throw error
      this.log(
        `seqk: the merged blobs hold shards of a task-sharded run but not one whole run (${error.message}); each shard's cells are shown as they are`,
      )
      return undefined
    }
    const gate = (start: CellStartRecord, cell: CellSummary, cells: readonly CellRef[]) =>
      applyBaseline({
        path: resolve(this.root, start.baseline!.file),
        benchmark: start.benchmark,
        summary: cell,
        mode: 'none',
        gate: start.baseline!,
        cells,
      })
    const summary = recomputeRun({ runId: this.runId, createdAt: new Date().toISOString(), ...merged, gate })
    this.cells.length = 0
    for (const b of summary.benchmarks) for (const c of b.cells) this.cells.push({ ...c, file: b.file })
    this.log(
      `seqk: joined ${byShard.size} task shards into ${merged.cells.length} ${merged.cells.length === 1 ? 'cell' : 'cells'}, each recomputed from the union of its shards' trajectories`,
    )
    return {
      trajectories: merged.trajectories,
      records: merged.cells.flatMap(({ start, end }) => (end ? [start, end] : [start])),
    }
  }

  /** The run directory's trajectories, when it has them here (not after --merge-reports). */
  private onFile(): Trajectory[] {
    const path = join(this.runDir, TRAJECTORIES_FILE)
    this.fileTrajectories ??= existsSync(path) ? readTrajectories(path).trajectories : []
    return this.fileTrajectories
  }

  /** A cell the reporter cannot show: said once, loudly, and the run fails (a hidden cell is worse than none). */
  private unreported(testCase: TestCase, why: string): void {
    const problem = `"${testCase.fullName}" is missing from the tables and summary.json: ${why}`
    this.log(`vitest-seqk: ${problem}`)
    this.problems.push(problem)
  }

  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError> = [],
  ): Promise<void> {
    try {
      await this.endRun(testModules, unhandledErrors)
    } finally {
      // The directory is free for the next run (or resume) once everything is written.
      this.lock?.release()
      this.lock = undefined
    }
    // The one place the exit code is set: from the problems the run found (Vitest sets its own
    // for failed tests; this never sets it back to 0).
    if (this.problems.length > 0) process.exitCode = 1
  }

  private async endRun(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): Promise<void> {
    // A cell that never finished (a crashed worker, a cancelled rerun) must not print after the tables.
    this.progress.dispose()
    this.progress.clear()
    const config = this.vitest?.config
    const shardHint = fileShardHint({
      ...(config?.shard ? { shard: config.shard } : {}),
      merging: Boolean(config?.mergeReports),
      files: testModules.length,
      errors: unhandledErrors,
    })
    // Said, not failed: Vitest decides the exit code (it fails the first two cases itself, and
    // --passWithNoTests asked it to pass the third).
    if (shardHint) this.log(shardHint)
    if (this.refused || this.refusals.length > 0) {
      // Nothing is written: the directory belongs to another run (or could not be resumed).
      // With a cell refused, the others may have run: their trajectories are on file, the summary is not rewritten.
      const what = this.refused ? 'wrote nothing to' : 'wrote no summary, tables or report to'
      const ran = this.refused
        ? ''
        : ' (the cells that did run appended their trajectories; resume again once the refused cells are restored)'
      const refusal = `${what} ${this.runDir}: ${this.refused ?? this.refusals.join('\n  ')}${ran}`
      this.log(`seqk: ${refusal}`)
      this.problems.push(refusal)
      return
    }
    // Blobs replayed by --merge-reports carry the modules' collection errors too.
    for (const module of testModules) this.noteLoadError(module)
    const notRun = this.resumed ? this.keepCellsNotRun() : []
    // A test skipped with a reason (data that is absent, a model without a key) says why, once.
    for (const line of skipLines(testModules)) this.log(line)
    const pattern = config?.testNamePattern
    if (this.cells.length === 0 && this.loadErrors.size === 0) {
      // -t is a regular expression over "<file> <benchmark> <cell id>": a pasted name with ( ) or
      // a › separator matches nothing, and Vitest would call that a pass.
      // Only where the run declared cells: -t over plain unit tests is no eval run's business.
      if (pattern && !this.resumed && declaresCells(testModules)) {
        const problem = noCellMatched(patternText(pattern), testModules)
        this.log(problem)
        this.problems.push(problem)
      }
      this.discardEmptyRun()
      return
    }
    const color = this.options.color ?? (supportsColor !== false && !process.env.NO_COLOR)
    let trajectories = [...this.recordedTrajectories, ...notRun]
    let records: CellLine[] = [...this.recordedCells]
    // --merge-reports over the blobs of a task-sharded run: each cell, once, from all its shards.
    const joined = this.joinTaskShards(records, trajectories)
    if (joined) ({ trajectories, records } = joined)
    // By eval file, whatever order the files finished in: as `seqk summarize` orders them.
    const blocks = benchmarkBlocks(this.cells)
    mkdirSync(this.runDir, { recursive: true })
    const trajectoriesPath = join(this.runDir, TRAJECTORIES_FILE)
    // After --merge-reports the trajectories were written on other machines: rebuild the file
    // from the copies carried inline in the artifacts.
    if (!existsSync(trajectoriesPath) && trajectories.length > 0)
      writeFileSync(trajectoriesPath, `${trajectories.map((t) => JSON.stringify(t)).join('\n')}\n`)
    // And what each cell declared, so `seqk summarize` recomputes a merged run too.
    const cellsPath = join(this.runDir, CELLS_FILE)
    if (!existsSync(cellsPath)) for (const record of records) appendCellRecord(cellsPath, record)
    if (this.malformed.size > 0) {
      const shown = [...this.malformed].slice(0, 5)
      const problem = `left out ${this.malformed.size} malformed trajectory ${this.malformed.size === 1 ? 'record' : 'records'}`
      this.log(
        `seqk: ${problem}:\n${shown.map((m) => `  ${m}`).join('\n')}${this.malformed.size > shown.length ? `\n  … and ${this.malformed.size - shown.length} more` : ''}`,
      )
      this.problems.push(problem)
    }
    const comparisons = historyComparisons(blocks.flatMap((b) => b.cells))
    const variants = variantComparisons(blocks.flatMap((b) => b.cells))
    const equalCost = equalCostComparisons(blocks.flatMap((b) => b.cells))
    const loadErrors = [...this.loadErrors].map(([file, error]) => ({ file, error }))
    const skipped = this.notRunCells(testModules)
    let summary: RunSummary = {
      schema: SUMMARY_SCHEMA,
      runId: this.runId,
      createdAt: new Date().toISOString(),
      benchmarks: blocks,
      ...(loadErrors.length > 0 ? { loadErrors } : {}),
      ...(skipped.length > 0 ? { notRun: skipped } : {}),
      ...(comparisons.length > 0 ? { historyComparisons: comparisons } : {}),
      ...(variants.length > 0 ? { variantComparisons: variants } : {}),
      ...(equalCost.length > 0 ? { equalCost } : {}),
    }

    // Quality over time: the change since the last run of each cell (same fingerprint), then this run appended.
    const historyOption = this.options.historyFile ?? process.env.SEQK_HISTORY_FILE ?? DEFAULT_HISTORY_FILE
    // A shard's numbers cover a share of the tasks: its cells enter the history once merged (seqk merge).
    const sharded = blocks.some((b) => b.cells.some((c) => c.shard))
    // A shard's checks wait for the merge, but a cap that stopped one is this machine's news now.
    for (const b of blocks)
      for (const c of b.cells)
        if (c.shard && c.costCap) {
          const total = c.perTask.reduce((n, t) => n + t.firstSuccess.length, 0)
          const counts = { capped: c.costCap.capped, notStarted: c.costCap.notStarted, total }
          this.log(
            `seqk: ${b.name} › ${c.cellId} (shard ${c.shard.index}/${c.shard.count}): ${capMessage(c.costCap.stop, counts)}`,
          )
        }
    const historyPath = historyOption === false || sharded ? null : resolve(this.root, historyOption)
    // A resumed run is compared with the run before it, never with its own interrupted attempt.
    let history: RunHistory | undefined
    try {
      const partial = this.partialReason(testModules)
      history = historyPath
        ? runHistory(historyPath, displayPath(this.root, historyPath), summary, {
            ...(this.resumed ? { exceptRunId: this.runId } : {}),
            ...(partial ? { partial } : {}),
          })
        : undefined
    } catch (error) {
      const problem = `could not read the history ${historyPath}, so this run is neither compared with it nor appended to it: ${(error as Error).message}`
      this.log(`seqk: ${problem}`)
      this.problems.push(problem)
    }
    // The verdict every output shows, with what the run found so far (a failing output below fails the run too).
    summary = { ...summary, verdict: verdictBlock(runVerdict(summary, this.problems)) }
    // The trajectories and cells are on disk by now: a failing output below costs a view, never data.
    this.log('')
    const { written, failures } = await emitRun(
      runEmitters({ latest: this.writeLatest, html: this.options.html ?? true }),
      {
        summary,
        runDir: this.runDir,
        root: this.root,
        trajectories: () => trajectories,
        ...(history ? { history } : {}),
        color,
        wide: this.options.wide ?? wideFromEnv(process.env),
        print: (text) => this.log(text),
        env: process.env,
      },
    )
    written.splice(written[0] === SUMMARY_FILE ? 1 : 0, 0, TRAJECTORIES_FILE, CELLS_FILE)
    for (const f of failures) this.problems.push(`the ${f.name} could not be written`)
    if (this.resumed) this.log(resumeLine(this.resumed, testModules))
    this.log(`seqk: wrote ${written.join(', ')} to ${this.runDir}`)
  }

  /** Cells declared but skipped (a model without a key, data that is absent), unless a -t filter skipped them. */
  private notRunCells(testModules: ReadonlyArray<TestModule>): NonNullable<RunSummary['notRun']> {
    const ran = new Set(this.cells.map((c) => `${c.benchmark}\u0000${c.cellId}`))
    return testModules.flatMap((module) =>
      [...module.children.allTests()].flatMap((t) => {
        const skipped = this.skippedCell(t)
        return skipped && !ran.has(`${skipped.benchmark}\u0000${skipped.cellId}`) ? [skipped] : []
      }),
    )
  }

  /** A cell this test skipped, with why; undefined for a test that ran, is no cell, or that a -t filter left out. */
  private skippedCell(t: TestCase): NonNullable<RunSummary['notRun']>[number] | undefined {
    const cell = t.meta().seqkCell
    const result = t.result()
    if (!cell || result.state !== 'skipped') return undefined
    const pattern = this.vitest?.config.testNamePattern
    if (pattern && patternText(pattern) && !result.note) return undefined
    return {
      file: this.relativeFile(t.module.moduleId),
      benchmark: cell.benchmark,
      cellId: cell.cellId,
      reason: result.note ?? 'skipped',
    }
  }

  /**
   * Why this run measured less than its eval files declare, for the history: a -t filter, a
   * watch-mode rerun, skipped cells. A resume that recomputed the cells it did not run is whole.
   */
  private partialReason(testModules: ReadonlyArray<TestModule>): string | undefined {
    const reasons: string[] = []
    const pattern = this.vitest?.config.testNamePattern
    if (pattern && !this.resumed) reasons.push(`filtered with -t ${patternText(pattern)}`)
    if (this.vitest?.config.watch && this.runsStarted > 1) reasons.push('a watch-mode rerun')
    let skipped = 0
    // A resume recomputes the cells it skipped (keepCellsNotRun); with -t, skipping is the filter's.
    if (!this.resumed && !pattern) {
      // Cells only (seqEval marks them at declaration): a skipped unit test is not a missing cell.
      for (const module of testModules)
        for (const t of module.children.allTests()) if (t.meta().seqkCell && t.result().state === 'skipped') skipped++
    }
    if (skipped > 0) reasons.push(`${skipped} ${skipped === 1 ? 'cell' : 'cells'} skipped`)
    return reasons.length > 0 ? reasons.join(', ') : undefined
  }

  /** Prints `text`, each line wrapped to 120 columns unless the wide view is on (tables already fit). */
  private log(text: string): void {
    const wide = this.options.wide ?? wideFromEnv(process.env)
    const fitted = wrapText(text, wide ? null : TEXT_WIDTH)
    if (this.vitest) this.vitest.logger.log(fitted)
    else console.log(fitted)
  }
}

export { SeqkReporter }

/** `path` relative to `root` when it lies inside it, else as it is. */
function displayPath(root: string, path: string): string {
  const inside = relative(root, path)
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path
}

/** Whether any module declared a cell (seqEval marks them at declaration, filtered out or not). */
function declaresCells(testModules: ReadonlyArray<TestModule>): boolean {
  return testModules.some((module) => [...module.children.allTests()].some((t) => t.meta().seqkCell))
}

/** What to say when -t matched no cell: how Vitest matches it, and names that would. */
function noCellMatched(pattern: string, testModules: ReadonlyArray<TestModule>): string {
  const names = testModules
    .flatMap((m) => [...m.children.allTests()].map((t) => t.fullName.replace(/ > /g, ' ')))
    .slice(0, 3)
  const some = names.length > 0 ? ` Test names here look like: ${names.map((n) => JSON.stringify(n)).join(', ')}.` : ''
  return `seqk: -t ${JSON.stringify(pattern)} matched no cell, so nothing was measured. Vitest matches -t as a regular expression against "<benchmark> <cell id>" (the describe and test names joined by a space): paste the cell id (the part of a progress line after ›, e.g. -t "simulated:reviser · binary"), and put a backslash before ( ) [ ] . + ? * if you paste a benchmark name.${some}`
}

/** -t as the user typed it (Vitest holds it as a RegExp). */
function patternText(pattern: string | RegExp): string {
  return typeof pattern === 'string' ? pattern : pattern.source
}
