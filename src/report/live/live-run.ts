/**
 * The run `seqk view` shows, followed as it is written: which run directory is the newest, the
 * lines its `plan.jsonl`, `cells.jsonl` and `trajectories.jsonl` gain (validated with zod), and
 * whether `summary.json` and `report.html` exist yet. The state is kept as one snapshot (what a
 * page shows when it connects, and what the server renders into the page itself); each read of
 * the files that changes it becomes one update event, kept in a short log a reconnecting page can
 * resume from. A big run's files are caught up in pieces between requests, so the server answers
 * at once whatever their size, and a run's trajectories are paged on demand, never replayed.
 *
 * Changes are noticed by `fs.watch` on the runs directory and the run directory, and by polling
 * as well: `fs.watch` misses events on some filesystems (network mounts, some containers).
 */
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  watch,
  type FSWatcher,
} from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { z } from 'zod'
import { CELLS_FILE, CellRecordSchema } from '../../artifacts/cells-file.js'
import { PLAN_FILE, PlanRecordSchema } from '../../artifacts/plan-file.js'
import { SUMMARY_FILE, TRAJECTORIES_FILE } from '../../artifacts/run-dir.js'
import { RunSummarySchema, TRAJECTORY_SCHEMAS } from '../../core/schemas.js'
import { RunSummaryFileSchema } from '../../core/summary-upgrade.js'
import { TRAJECTORY_STATUSES } from '../../core/kinds.js'
import { BATCHES_FILE, BatchLedgerRecordSchema, BatchStatusRecordSchema } from '../../models/batch/ledger.js'
import { describeZodError } from '../../core/zod-errors.js'
import { runCountsText, summaryVerdict } from '../../protocol/verdict.js'
import {
  applyEvent,
  emptySnapshot,
  KEEP,
  type LiveBatch,
  type LiveCell,
  type LiveEvent,
  type LiveSnapshot,
  type LiveTrajectory,
  type LiveVerdict,
  type MalformedLine,
  type UpdateEvent,
} from './events.js'
import { RunState, type TrajectoryLine } from './run-state.js'
import { isFile, LineTail } from './tail.js'

export const REPORT_FILE = 'report.html'
const RUN_FILES = [PLAN_FILE, CELLS_FILE, TRAJECTORIES_FILE, SUMMARY_FILE]
/**
 * Bytes of trajectories read per step while catching up with a run written before the server
 * started: a request waits for at most one step (1 MiB kept a page of trajectories waiting 0.5 s
 * at 100 000 trajectories on a loaded machine; 256 KiB is about 120 trajectories).
 */
const STEP_BYTES = 256 * 1024
/** Updates kept for pages that reconnect; one that missed more starts over from a snapshot. */
const LOG_EVENTS = 500

/** The fields of a trajectory line the live view reads: a light parse, no answers. */
const TrajectoryLineSchema = z.object({
  schema: z.enum(TRAJECTORY_SCHEMAS),
  runId: z.string(),
  benchmark: z.string(),
  cellId: z.string(),
  taskId: z.string(),
  repeat: z.number().int().nonnegative(),
  status: z.enum(TRAJECTORY_STATUSES),
  firstSuccess: z.number().int().positive().nullable(),
  error: z.object({ stage: z.string(), attempt: z.number(), message: z.string() }).nullable(),
  attempts: z.array(
    z.object({
      unmodified: z.boolean().nullable().optional(),
      verdict: z.object({ pass: z.boolean().optional(), diagnostics: z.object({ summary: z.string() }) }),
    }),
  ),
  durationMs: z.number().nonnegative(),
})

/** The verdict block and what its counts need, read from summary.json. */
const EndedSummarySchema = z.object({
  verdict: RunSummarySchema.shape.verdict,
  loadErrors: RunSummarySchema.shape.loadErrors,
})

/** An event with its id (the SSE `id:` field). */
export interface LoggedEvent {
  id: number
  event: LiveEvent
}

export interface LiveRunOptions {
  /** Polling interval in ms, besides fs.watch (default 500). */
  pollMs?: number
  /** Where a problem reading the files goes (default: dropped); the run is polled on regardless. */
  onError?: (message: string) => void
}

interface Current {
  dir: string
  runId: string
  plan: LineTail
  cells: LineTail
  trajectories: LineTail
  batches: LineTail
  state: RunState
}

/** Whether a directory is a run directory: it holds a file a run writes. */
function isRunDir(dir: string): boolean {
  return RUN_FILES.some((f) => isFile(join(dir, f)))
}

/** When a run directory was last written: its newest file (a resumed run appends to an older directory). */
function lastWrite(dir: string): number {
  let newest = 0
  for (const path of [dir, ...RUN_FILES.map((f) => join(dir, f))]) {
    try {
      newest = Math.max(newest, statSync(path).mtimeMs)
    } catch {
      // Not written yet.
    }
  }
  return newest
}

/** Whether report.html is complete: the emitter writes it whole, ending with `</html>`. */
function reportComplete(path: string): boolean {
  if (!isFile(path)) return false
  const fd = openSync(path, 'r')
  try {
    const size = statSync(path).size
    const tail = Buffer.alloc(Math.min(64, size))
    readSync(fd, tail, 0, tail.length, size - tail.length)
    return tail.toString('utf8').trimEnd().endsWith('</html>')
  } finally {
    closeSync(fd)
  }
}

/**
 * The newest run in a runs directory: the run directory written to last (ties: the larger run id,
 * ids sort by time), or the one `latest` names when no directory holds a run file yet.
 *
 * @example
 * newestRun('.seqk/runs') // => '/project/.seqk/runs/20261201-101500-9f2c4a', or null
 */
export function newestRun(runsDir: string): string | null {
  let best: { dir: string; at: number } | null = null
  for (const dir of runDirs(runsDir)) {
    const at = lastWrite(dir)
    if (best === null || at > best.at || (at === best.at && basename(dir) > basename(best.dir))) best = { dir, at }
  }
  if (best) return best.dir
  try {
    const named = join(runsDir, readFileText(join(runsDir, 'latest')).trim())
    return existsSync(named) ? named : null
  } catch {
    return null
  }
}

function readFileText(path: string): string {
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(256)
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

function runDirs(runsDir: string): string[] {
  let names: string[]
  try {
    names = readdirSync(runsDir)
  } catch {
    return []
  }
  return names
    .filter((n) => !n.startsWith('.'))
    .map((n) => join(runsDir, n))
    .filter((d) => isRunDir(d))
}

/** The run's verdict from its summary.json (null when it cannot be read yet). */
function endedVerdict(dir: string): LiveVerdict | null {
  try {
    const json: unknown = JSON.parse(readFileSync(join(dir, SUMMARY_FILE), 'utf8'))
    const light = EndedSummarySchema.safeParse(json)
    if (light.success && light.data.verdict) {
      const v = light.data.verdict
      return {
        status: v.status,
        text: runCountsText({ cells: v.cells, failedChecks: v.failedChecks, loadErrors: light.data.loadErrors ?? [] }),
        reasons: v.reasons,
      }
    }
    // Written before summaries carried their verdict: derived from the cells, as every output does.
    const full = RunSummaryFileSchema.safeParse(json)
    if (!full.success) return null
    const v = summaryVerdict(full.data)
    return { status: v.status, text: runCountsText(v), reasons: v.reasons }
  } catch {
    return null
  }
}

/** What one read of the files changed, gathered into one update. */
class Changes {
  readonly cells = new Map<string, LiveCell>()
  readonly recent: LiveTrajectory[] = []
  readonly errors: LiveTrajectory[] = []
  readonly malformed: MalformedLine[] = []
  readonly batches = new Map<string, LiveBatch>()
  plan = false

  event(extra: Partial<UpdateEvent>, state: RunState): UpdateEvent | null {
    const e: UpdateEvent = { type: 'update', ...extra }
    if (this.cells.size > 0) e.cells = [...this.cells.values()]
    if (this.recent.length > 0) e.recent = this.recent.slice(-KEEP.recent)
    if (this.errors.length > 0) e.errors = this.errors.slice(-KEEP.errors)
    if (this.malformed.length > 0) e.malformed = this.malformed.slice(-KEEP.malformed)
    if (this.batches.size > 0) e.batches = [...this.batches.values()]
    if (this.plan) {
      e.files = state.files()
      e.loadErrors = state.loadErrors()
    }
    return Object.keys(e).length > 1 ? e : null
  }
}

/**
 * Follows the newest run of a runs directory (or one given run directory): a snapshot of its
 * state, updated as its files grow.
 *
 * @example
 * const live = new LiveRun('.seqk/runs')
 * live.subscribe(({ id, event }) => console.log(id, event.type))
 * live.start()
 */
export class LiveRun {
  /** The runs directory watched for new runs, or null when one run directory was given. */
  readonly runsDir: string | null
  private readonly fixed: string | null
  private readonly pollMs: number
  private readonly onError: (message: string) => void
  private current: Current | null = null
  private state: LiveSnapshot
  private log: LoggedEvent[] = []
  /** The id of the newest event (the snapshot's, when nothing changed since). */
  private lastId = 0
  private readonly known = new Set<string>()
  private readonly listeners = new Set<(e: LoggedEvent) => void>()
  private readonly watchers = new Map<string, FSWatcher>()
  private readonly unwatchable = new Set<string>()
  private timer: NodeJS.Timeout | undefined
  private soon: NodeJS.Timeout | undefined
  private started = false
  private catchUp: NodeJS.Immediate | undefined

  /** `target`: a runs directory (it need not exist yet), its `latest` file, or one run directory. */
  constructor(target: string, options: LiveRunOptions = {}) {
    const full = resolve(target)
    this.pollMs = options.pollMs ?? 500
    this.onError = options.onError ?? (() => {})
    if (basename(full) === 'latest' && isFile(full)) {
      this.runsDir = dirname(full)
      this.fixed = null
    } else if (isRunDir(full)) {
      this.runsDir = null
      this.fixed = full
    } else {
      this.runsDir = full
      this.fixed = null
    }
    this.state = emptySnapshot(null, this.runsDir ?? full)
    for (const dir of this.runsDir ? runDirs(this.runsDir) : []) this.known.add(basename(dir))
    this.open(this.fixed ?? (this.runsDir ? newestRun(this.runsDir) : null))
  }

  /** The shown run's `report.html` once it is complete, else null. */
  get reportPath(): string | null {
    return this.current && this.state.ended?.report ? join(this.current.dir, REPORT_FILE) : null
  }

  /** The state now, and the id of the last event it includes. */
  snapshot(): { id: number; snapshot: LiveSnapshot } {
    return { id: this.lastId, snapshot: this.state }
  }

  /**
   * What a page that saw event `lastId` needs: the updates after it while the log still holds
   * them, else (and for a new page) the state as a snapshot.
   */
  since(lastId?: number): LoggedEvent[] {
    const first = this.log[0]?.id
    if (lastId !== undefined && lastId === this.lastId) return []
    if (lastId !== undefined && first !== undefined && lastId >= first - 1 && lastId < this.lastId)
      return this.log.filter((e) => e.id > lastId)
    return [{ id: this.lastId, event: { type: 'snapshot', snapshot: this.state } }]
  }

  /** A page of one cell's trajectories (each task and repeat once), and how many it has. */
  page(cell: string, offset: number, limit: number): { total: number; items: LiveTrajectory[] } {
    return this.current ? this.current.state.page(cell, offset, limit) : { total: 0, items: [] }
  }

  /** Calls `listener` with every new event; returns the unsubscribe. */
  subscribe(listener: (e: LoggedEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Starts watching and polling. */
  start(): void {
    this.started = true
    this.timer ??= setInterval(() => this.tick(), this.pollMs)
    this.tick()
  }

  /** Stops watching and polling. */
  close(): void {
    this.started = false
    clearInterval(this.timer)
    clearTimeout(this.soon)
    if (this.catchUp) clearImmediate(this.catchUp)
    this.timer = undefined
    for (const w of this.watchers.values()) w.close()
    this.watchers.clear()
    this.listeners.clear()
  }

  /** Reads whatever changed: a newer run, new lines, the summary and the report. Never throws. */
  tick(): void {
    try {
      this.switchIfNewer()
      this.readCurrent()
      this.watchDirs()
    } catch (error) {
      this.onError(`seqk view: ${(error as Error).message}`)
    }
  }

  private emit(event: LiveEvent): void {
    const logged = { id: ++this.lastId, event }
    this.state = applyEvent(this.state, event)
    this.log.push(logged)
    if (this.log.length > LOG_EVENTS) this.log.splice(0, this.log.length - LOG_EVENTS)
    for (const listener of this.listeners) listener(logged)
  }

  private open(dir: string | null): void {
    this.log = []
    if (dir === null) {
      this.current = null
      this.emit({ type: 'snapshot', snapshot: emptySnapshot(null, this.runsDir ?? '') })
      return
    }
    this.known.add(basename(dir))
    this.current = {
      dir,
      runId: basename(dir),
      plan: new LineTail(join(dir, PLAN_FILE)),
      cells: new LineTail(join(dir, CELLS_FILE)),
      trajectories: new LineTail(join(dir, TRAJECTORIES_FILE)),
      batches: new LineTail(join(dir, BATCHES_FILE)),
      state: new RunState(),
    }
    this.emit({ type: 'snapshot', snapshot: emptySnapshot(this.current.runId, dir) })
    try {
      this.readCurrent()
    } catch (error) {
      this.onError(`seqk view: ${(error as Error).message}`)
    }
  }

  private switchIfNewer(): void {
    if (this.runsDir === null) return
    // A run directory not seen before is a new run: show it. Once the shown run has ended, a
    // run written to later (a resumed one) is shown too; two runs in progress never alternate.
    const fresh = runDirs(this.runsDir).filter((d) => !this.known.has(basename(d)))
    for (const d of fresh) this.known.add(basename(d))
    let next: string | null = null
    if (fresh.length > 0)
      next = fresh.sort((a, b) => lastWrite(b) - lastWrite(a) || basename(b).localeCompare(basename(a)))[0]!
    else if (this.current === null || this.state.ended) {
      const newest = newestRun(this.runsDir)
      if (
        newest !== null &&
        newest !== this.current?.dir &&
        (this.current === null || lastWrite(newest) > lastWrite(this.current.dir))
      )
        next = newest
    }
    if (next !== null) this.open(next)
  }

  private readCurrent(): void {
    const run = this.current
    if (run === null) return
    const plan = run.plan.read()
    const cells = run.cells.read()
    const trajectories = run.trajectories.read(STEP_BYTES)
    const batches = run.batches.read()
    // A file cut below what was read or replaced: start the run over (the page does too).
    if (plan.reset || cells.reset || trajectories.reset || batches.reset) return this.open(run.dir)
    const changes = new Changes()
    for (const { text, line } of plan.lines) {
      const record = this.parse(run.plan.path, line, text, PlanRecordSchema, 'plan record', changes)
      if (!record) continue
      changes.plan = true
      for (const c of run.state.plan(record)) changes.cells.set(c.key, c)
    }
    for (const { text, line } of cells.lines) {
      const record = this.parse(run.cells.path, line, text, CellRecordSchema, 'cell record', changes)
      if (record) {
        const c = run.state.cell(record)
        changes.cells.set(c.key, c)
      }
    }
    for (const { text, line } of trajectories.lines) {
      const t = this.parse(run.trajectories.path, line, text, TrajectoryLineSchema, 'trajectory', changes)
      if (!t) continue
      const { cell, trajectory } = run.state.trajectory(t as TrajectoryLine)
      changes.cells.set(cell.key, cell)
      changes.recent.push(trajectory)
      if (trajectory.error) changes.errors.push(trajectory)
    }
    // A batched actor's batches: a submitted batch, then each change of its status.
    for (const { text, line } of batches.lines) {
      const record = this.parse(
        run.batches.path,
        line,
        text,
        BatchLedgerRecordSchema.or(BatchStatusRecordSchema),
        'batch record',
        changes,
      )
      if (!record) continue
      if (record.schema === 'seqk.batch/1')
        changes.batches.set(record.batchId, {
          provider: record.provider,
          batchId: record.batchId,
          status: 'submitted',
          done: 0,
          total: record.items.length,
        })
      else
        changes.batches.set(record.batchId, {
          provider: record.provider,
          batchId: record.batchId,
          status: record.status,
          done: record.done,
          total: record.total,
        })
    }
    const behind = trajectories.more
    const extra: Partial<UpdateEvent> = {}
    const reading = behind ? { bytes: run.trajectories.position, of: trajectories.size } : null
    if (JSON.stringify(reading) !== JSON.stringify(this.state.reading)) extra.reading = reading
    // The run ended once summary.json exists and every line before it is read.
    if (!behind) {
      const ended = isFile(join(run.dir, SUMMARY_FILE))
      const report = ended && reportComplete(join(run.dir, REPORT_FILE))
      if (ended && (this.state.ended === null || this.state.ended.report !== report))
        extra.ended = { report, verdict: this.state.ended?.verdict ?? endedVerdict(run.dir) }
    }
    const event = changes.event(extra, run.state)
    if (event) this.emit(event)
    // More to read: go on at once, between requests, rather than at the next poll.
    if (behind && this.started)
      this.catchUp ??= setImmediate(() => {
        this.catchUp = undefined
        this.tick()
      })
  }

  private parse<S extends z.ZodType>(
    path: string,
    line: number,
    text: string,
    schema: S,
    what: string,
    changes: Changes,
  ): z.output<S> | undefined {
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      changes.malformed.push({ file: path, line, message: `not valid JSON; each line must be one ${what}` })
      return undefined
    }
    const parsed = schema.safeParse(json)
    if (parsed.success) return parsed.data
    changes.malformed.push({ file: path, line, message: `not a seqk ${what}: ${describeZodError(parsed.error)}` })
    return undefined
  }

  /** Watches the runs directory and the shown run's directory; a change reads at once instead of at the next poll. */
  private watchDirs(): void {
    const wanted = new Set([this.runsDir, this.current?.dir].filter((d): d is string => d !== null && d !== undefined))
    for (const [dir, w] of this.watchers) {
      if (!wanted.has(dir)) {
        w.close()
        this.watchers.delete(dir)
      }
    }
    for (const dir of wanted) {
      if (this.watchers.has(dir) || this.unwatchable.has(dir) || !existsSync(dir)) continue
      try {
        const w = watch(dir, { persistent: false }, () => this.tickSoon())
        w.on('error', () => {
          // Polling goes on; this directory is not watched again.
          w.close()
          this.watchers.delete(dir)
          this.unwatchable.add(dir)
        })
        this.watchers.set(dir, w)
      } catch {
        this.unwatchable.add(dir)
      }
    }
  }

  private tickSoon(): void {
    // A burst of writes is one read.
    this.soon ??= setTimeout(() => {
      this.soon = undefined
      this.tick()
    }, 20)
  }
}
