import { plural } from '../metrics/format.js'
import { TEXT_WIDTH as TABLE_WIDTH } from '../core/text-layout.js'
import type { TrajectoryStatus } from '../core/kinds.js'

/** Live progress of running cells, fed by the trajectory artifacts the tests record. */
export type ProgressMode = 'line' | 'lines' | 'off'

interface CellProgress {
  label: string
  total: number
  done: number
  solved: number
  errors: number
  startedAt: number
  lastPrinted: number
  /** Quarter marks (1–3) passed and said. */
  lastQuarter: number
  /** Lines printed between the start and the end (quarters and notices share three). */
  middle: number
  /** Notice lines after those three, each after twice the quiet of the one before (see {@link Progress.notice}). */
  waiting: number
  /** What the cell is waiting on (a retry, a rate limit), said with its next line. */
  notice?: string
  /** Cancels the pending "started" line (lines mode). */
  cancelStarted?: () => void
}

/** Runs `fn` after `ms` unless cancelled; the default keeps no process alive. */
export type Schedule = (fn: () => void, ms: number) => () => void

const defaultSchedule: Schedule = (fn, ms) => {
  const timer = setTimeout(fn, ms)
  timer.unref()
  return () => clearTimeout(timer)
}

/** Lines a cell may print between its start and its end in `lines` mode: the three quarter marks. */
export const MIDDLE_LINES = 3

/**
 * `line` rewrites one status line in place (a TTY with no other live renderer); `lines` prints
 * plain lines (CI logs, or a TTY shared with Vitest's own live summary, which would garble an
 * in-place line), at most five per cell: "started" once a cell has run for a second, a line at
 * each quarter mark (25, 50, 75%) reached after a quiet second, and "done"; a cell that finishes
 * within a second prints one line. A notice (an endpoint retried, a rate-limit wait) rides on the
 * cell's next line, or takes an unused quarter's line when the cell has been quiet for
 * `intervalMs`; once those are used, a cell still waiting says so again after twice the quiet of
 * its last such line (10 s, 20 s, 40 s, …), so a cell stuck on retries keeps saying why (a log of
 * logarithmically many lines) instead of going quiet. Every line fits `width` columns (the
 * benchmark name is shortened, never the cell id).
 */
export class Progress {
  private readonly cells = new Map<string, CellProgress>()
  private lastRender = 0

  constructor(
    private readonly mode: ProgressMode,
    private readonly write: (text: string) => void,
    private readonly intervalMs = 5000,
    private readonly now: () => number = Date.now,
    private readonly schedule: Schedule = defaultSchedule,
    private readonly width: number = TABLE_WIDTH,
  ) {}

  start(key: string, label: string, total: number): void {
    const t = this.now()
    const cell: CellProgress = {
      label,
      total,
      done: 0,
      solved: 0,
      errors: 0,
      startedAt: t,
      lastPrinted: t,
      lastQuarter: 0,
      middle: 0,
      waiting: 0,
    }
    this.cells.set(key, cell)
    if (this.mode === 'lines') {
      // Only a cell still running after a second says it started (slow models: the first
      // trajectory can take a while); a fast one prints its "done" line alone.
      cell.cancelStarted = this.schedule(() => {
        cell.cancelStarted = undefined
        if (this.cells.get(key) !== cell || cell.lastPrinted !== cell.startedAt) return
        cell.lastPrinted = this.now()
        this.print(
          cell,
          cell.done === 0
            ? `started, ${plural(total, 'trajectory', 'trajectories')}${this.takeNotice(cell)}`
            : this.describe(cell),
        )
      }, 1000)
    }
    this.render()
  }

  tick(key: string, status: TrajectoryStatus): void {
    const cell = this.cells.get(key)
    if (!cell) return
    cell.done++
    if (status === 'solved') cell.solved++
    if (status === 'error') cell.errors++
    if (this.mode === 'lines') {
      const quarter = Math.min(MIDDLE_LINES, Math.floor((cell.done / Math.max(1, cell.total)) * 4))
      const t = this.now()
      // Quarter marks only once a cell has been quiet for a second: fast cells print one line.
      if (
        quarter > cell.lastQuarter &&
        cell.done < cell.total &&
        t - cell.lastPrinted >= 1000 &&
        cell.middle < MIDDLE_LINES
      ) {
        cell.lastQuarter = quarter
        this.middleLine(cell, t)
      }
    } else this.render()
  }

  /**
   * What a running cell waits on, e.g. "retrying gpt-4o (actor): HTTP 429, waiting 4 s". Said with
   * the cell's next line; in `lines` mode a cell quiet for `intervalMs` says it at once, within
   * its three middle lines.
   */
  notice(key: string, text: string): void {
    const cell = this.cells.get(key)
    if (!cell) return
    cell.notice = text
    if (this.mode === 'lines') {
      const t = this.now()
      const quiet = t - cell.lastPrinted
      if (cell.lastPrinted === cell.startedAt) return
      if (quiet >= this.intervalMs && cell.middle < MIDDLE_LINES) this.middleLine(cell, t)
      else if (cell.middle >= MIDDLE_LINES && quiet >= this.intervalMs * 2 ** (cell.waiting + 1)) {
        cell.waiting++
        cell.lastPrinted = t
        this.print(cell, this.describe(cell))
      }
    } else this.render()
  }

  finish(key: string): void {
    const cell = this.cells.get(key)
    cell?.cancelStarted?.()
    this.cells.delete(key)
    if (this.mode === 'line') this.render(true)
    if (this.mode === 'lines' && cell) {
      cell.notice = undefined
      this.print(cell, `${this.describe(cell)}, done`)
    }
  }

  /** Forgets every running cell and its pending lines (the run is over). */
  dispose(): void {
    for (const cell of this.cells.values()) cell.cancelStarted?.()
    this.cells.clear()
  }

  /** Clears the in-place line before other output is printed. */
  clear(): void {
    if (this.mode === 'line') this.write('\r\x1b[2K')
  }

  private middleLine(cell: CellProgress, t: number): void {
    cell.middle++
    cell.lastPrinted = t
    this.print(cell, this.describe(cell))
  }

  /** The pending notice, as a `\u0000`-marked suffix {@link print} fits (it is cut before the label is). */
  private takeNotice(cell: CellProgress): string {
    const text = cell.notice ? `\u0000${cell.notice}` : ''
    cell.notice = undefined
    return text
  }

  private print(cell: CellProgress, text: string): void {
    const head = `seqk ▸ ${cell.label}`
    const [main, notice] = text.split('\u0000') as [string, string | undefined]
    let tail = `: ${main}`
    if (notice !== undefined) {
      const room = this.width - head.length - tail.length - 2
      tail += `; ${notice.length <= room || room < 25 ? notice : `${notice.slice(0, room - 1)}…`}`
    }
    this.write(`${fit(head, tail, this.width)}\n`)
  }

  private describe(cell: CellProgress, keepNotice = false): string {
    const rate = cell.done === 0 ? '—' : `${((cell.solved / cell.done) * 100).toFixed(0)}% solved`
    const errors = cell.errors > 0 ? `, ${plural(cell.errors, 'error')}` : ''
    const notice = keepNotice ? (cell.notice ? `; ${cell.notice}` : '') : this.takeNotice(cell)
    return `${cell.done}/${cell.total} trajectories, ${rate}${errors}, ${((this.now() - cell.startedAt) / 1000).toFixed(1)} s${notice}`
  }

  private render(force = false): void {
    if (this.mode !== 'line') return
    const t = this.now()
    if (!force && t - this.lastRender < 100) return
    this.lastRender = t
    const text = [...this.cells.values()].map((c) => `${c.label}: ${this.describe(c, true)}`).join(' | ')
    this.write(`\r\x1b[2K${text ? truncate(`seqk ▸ ${text}`, this.width) : ''}`)
  }
}

/**
 * `head` + `tail` within `width`: the benchmark part of the head (before " › ") is shortened
 * first, so the cell id a `-t` filter takes stays whole; then the tail is cut.
 */
export function fit(head: string, tail: string, width: number): string {
  if (head.length + tail.length <= width) return head + tail
  const at = head.lastIndexOf(' › ')
  if (at >= 0) {
    const keep = head.length + tail.length - width + 1
    const bench = head.slice(0, at)
    const prefix = 'seqk ▸ '
    const room = bench.length - keep
    if (room > prefix.length + 3) return `${bench.slice(0, room)}…${head.slice(at)}${tail}`
    head = `${prefix}…${head.slice(at)}`
  }
  return truncate(head + tail, width)
}

function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`
}
