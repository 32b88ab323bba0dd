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
  lastQuarter: number
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

/**
 * `line` rewrites one status line in place (a TTY with no other live renderer); `lines` prints
 * plain lines (CI logs, or a TTY shared with Vitest's own live summary, which would garble an
 * in-place line): "started" once a cell has run for a second, a line at each quarter after a quiet
 * second and at most every `intervalMs` otherwise, and "done". A cell that finishes within a second
 * prints one line.
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
  ) {}

  start(key: string, label: string, total: number): void {
    const t = this.now()
    const cell: CellProgress = { label, total, done: 0, solved: 0, errors: 0, startedAt: t, lastPrinted: t, lastQuarter: 0 }
    this.cells.set(key, cell)
    if (this.mode === 'lines') {
      // Only a cell still running after a second says it started (slow models: the first
      // trajectory can take a while); a fast one prints its "done" line alone.
      cell.cancelStarted = this.schedule(() => {
        cell.cancelStarted = undefined
        if (this.cells.get(key) !== cell || cell.lastPrinted !== cell.startedAt) return
        cell.lastPrinted = this.now()
        this.write(cell.done === 0 ? `seqk ▸ ${label}: started, ${total} trajectories\n` : `seqk ▸ ${this.describe(cell)}\n`)
      }, 1000)
    }
    this.render()
  }

  tick(key: string, status: 'solved' | 'failed' | 'error'): void {
    const cell = this.cells.get(key)
    if (!cell) return
    cell.done++
    if (status === 'solved') cell.solved++
    if (status === 'error') cell.errors++
    if (this.mode === 'lines') {
      const quarter = Math.floor((cell.done / Math.max(1, cell.total)) * 4)
      const t = this.now()
      // Quarter marks only once a cell has been quiet for a second: fast cells print two lines.
      const sinceLast = t - cell.lastPrinted
      if ((quarter > cell.lastQuarter && cell.done < cell.total && sinceLast >= 1000) || sinceLast >= this.intervalMs) {
        cell.lastQuarter = quarter
        cell.lastPrinted = t
        this.write(`seqk ▸ ${this.describe(cell)}\n`)
      }
    } else this.render()
  }

  finish(key: string): void {
    const cell = this.cells.get(key)
    cell?.cancelStarted?.()
    this.cells.delete(key)
    if (this.mode === 'line') this.render(true)
    if (this.mode === 'lines' && cell) this.write(`seqk ▸ ${this.describe(cell)}, done\n`)
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

  private describe(cell: CellProgress): string {
    const rate = cell.done === 0 ? '—' : `${((cell.solved / cell.done) * 100).toFixed(0)}% solved`
    const errors = cell.errors > 0 ? `, ${cell.errors} errors` : ''
    return `${cell.label}: ${cell.done}/${cell.total} trajectories, ${rate}${errors}, ${((this.now() - cell.startedAt) / 1000).toFixed(1)} s`
  }

  private render(force = false): void {
    if (this.mode !== 'line') return
    const t = this.now()
    if (!force && t - this.lastRender < 100) return
    this.lastRender = t
    const text = [...this.cells.values()].map((c) => this.describe(c)).join(' | ')
    this.write(`\r\x1b[2K${text ? `seqk ▸ ${text}` : ''}`)
  }
}
