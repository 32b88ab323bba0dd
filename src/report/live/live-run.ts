/**
 * The run `seqk view` shows, followed as it is written: which run directory is the newest, the
 * lines its `cells.jsonl` and `trajectories.jsonl` gain (validated with their zod schemas), and
 * whether `summary.json` and `report.html` exist yet. Each change becomes a compact event, kept in
 * a log the page can replay from any event id (a reconnecting EventSource sends the last it saw).
 *
 * Changes are noticed by `fs.watch` on the runs directory and the run directory, and by polling
 * as well: `fs.watch` misses events on some filesystems (network mounts, some containers).
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync, watch, type FSWatcher } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import type { z } from 'zod'
import { CELLS_FILE, CellRecordSchema } from '../../artifacts/cells-file.js'
import { SUMMARY_FILE, TRAJECTORIES_FILE } from '../../artifacts/run-dir.js'
import { TrajectorySchema } from '../../core/schemas.js'
import { BATCHES_FILE, BatchLedgerRecordSchema, BatchStatusRecordSchema } from '../../models/batch/ledger.js'
import { describeZodError } from '../../core/zod-errors.js'
import type { LiveEvent } from './events.js'
import { RunState } from './run-state.js'
import { isFile, LineTail } from './tail.js'

export const REPORT_FILE = 'report.html'
const RUN_FILES = [CELLS_FILE, TRAJECTORIES_FILE, SUMMARY_FILE]

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
  cells: LineTail
  trajectories: LineTail
  batches: LineTail
  state: RunState
  ended: boolean
  report: boolean
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
  return names.filter((n) => !n.startsWith('.')).map((n) => join(runsDir, n)).filter((d) => isRunDir(d))
}

/**
 * Follows the newest run of a runs directory (or one given run directory), as events.
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
  private log: LoggedEvent[] = []
  private nextId = 1
  private readonly known = new Set<string>()
  private readonly listeners = new Set<(e: LoggedEvent) => void>()
  private readonly watchers = new Map<string, FSWatcher>()
  private readonly unwatchable = new Set<string>()
  private timer: NodeJS.Timeout | undefined
  private soon: NodeJS.Timeout | undefined

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
    for (const dir of this.runsDir ? runDirs(this.runsDir) : []) this.known.add(basename(dir))
    this.open(this.fixed ?? (this.runsDir ? newestRun(this.runsDir) : null))
  }

  /** The shown run's `report.html` once it is complete, else null. */
  get reportPath(): string | null {
    return this.current?.report ? join(this.current.dir, REPORT_FILE) : null
  }

  /** Events after `lastId` when the log still holds them, else the whole log (which starts with a `run` event). */
  since(lastId?: number): LoggedEvent[] {
    const first = this.log[0]?.id ?? this.nextId
    if (lastId !== undefined && lastId >= first - 1 && lastId < this.nextId) return this.log.filter((e) => e.id > lastId)
    return [...this.log]
  }

  /** Calls `listener` with every new event; returns the unsubscribe. */
  subscribe(listener: (e: LoggedEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Starts watching and polling. */
  start(): void {
    this.timer ??= setInterval(() => this.tick(), this.pollMs)
    this.tick()
  }

  /** Stops watching and polling. */
  close(): void {
    clearInterval(this.timer)
    clearTimeout(this.soon)
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
    const logged = { id: this.nextId++, event }
    this.log.push(logged)
    for (const listener of this.listeners) listener(logged)
  }

  private open(dir: string | null): void {
    this.log = []
    if (dir === null) {
      this.current = null
      this.emit({ type: 'run', runId: null, dir: this.runsDir ?? '' })
      return
    }
    this.known.add(basename(dir))
    this.current = { dir, runId: basename(dir), cells: new LineTail(join(dir, CELLS_FILE)), trajectories: new LineTail(join(dir, TRAJECTORIES_FILE)), batches: new LineTail(join(dir, BATCHES_FILE)), state: new RunState(), ended: false, report: false }
    this.emit({ type: 'run', runId: this.current.runId, dir })
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
    if (fresh.length > 0) next = fresh.sort((a, b) => lastWrite(b) - lastWrite(a) || basename(b).localeCompare(basename(a)))[0]!
    else if (this.current === null || this.current.ended) {
      const newest = newestRun(this.runsDir)
      if (newest !== null && newest !== this.current?.dir && (this.current === null || lastWrite(newest) > lastWrite(this.current.dir))) next = newest
    }
    if (next !== null) this.open(next)
  }

  private readCurrent(): void {
    const run = this.current
    if (run === null) return
    const cells = run.cells.read()
    const trajectories = run.trajectories.read()
    const batches = run.batches.read()
    // A file cut below what was read or replaced: start the run over (the page does too).
    if (cells.reset || trajectories.reset || batches.reset) return this.open(run.dir)
    for (const { text, line } of cells.lines) {
      const record = this.parse(run.cells.path, line, text, CellRecordSchema, 'cell record')
      if (record) this.emit(run.state.cell(record))
    }
    for (const { text, line } of trajectories.lines) {
      const t = this.parse(run.trajectories.path, line, text, TrajectorySchema, 'trajectory')
      if (t) this.emit(run.state.trajectory(t))
    }
    // A batched actor's batches: a submitted batch, then each change of its status.
    for (const { text, line } of batches.lines) {
      const record = this.parse(run.batches.path, line, text, BatchLedgerRecordSchema.or(BatchStatusRecordSchema), 'batch record')
      if (!record) continue
      if (record.schema === 'seqk.batch/1') this.emit({ type: 'batch', provider: record.provider, batchId: record.batchId, status: 'submitted', done: 0, total: record.items.length })
      else this.emit({ type: 'batch', provider: record.provider, batchId: record.batchId, status: record.status, done: record.done, total: record.total })
    }
    const ended = run.ended || isFile(join(run.dir, SUMMARY_FILE))
    const report = run.report || (ended && reportComplete(join(run.dir, REPORT_FILE)))
    if (ended !== run.ended || report !== run.report) {
      run.ended = ended
      run.report = report
      this.emit({ type: 'ended', report })
    }
  }

  private parse<S extends z.ZodType>(path: string, line: number, text: string, schema: S, what: string): z.output<S> | undefined {
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      this.emit({ type: 'malformed', file: path, line, message: `not valid JSON; each line must be one ${what}` })
      return undefined
    }
    const parsed = schema.safeParse(json)
    if (parsed.success) return parsed.data
    this.emit({ type: 'malformed', file: path, line, message: `not a seqk ${what}: ${describeZodError(parsed.error)}` })
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
