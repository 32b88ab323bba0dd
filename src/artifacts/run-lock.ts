/**
 * One writer per run directory. Two resumes of one directory both ran (52 trajectories twice, 160
 * extra calls, the duplicates hidden as "superseded"): the second now refuses at once, naming the
 * run that holds the directory. The lock is a file in the directory (`seqk.lock`) created
 * atomically (`wx`), holding the holder's pid, host and start time. A lock whose holder was on this
 * host and is gone (killed with `kill -9`) is stale: the next run takes it over. One from another
 * host cannot be checked from here: it is refused, saying how to remove it.
 */
import { hostname } from 'node:os'
import { join } from 'node:path'
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { z } from 'zod'

export const LOCK_FILE = 'seqk.lock'

const HolderSchema = z.object({
  schema: z.literal('seqk.lock/1'),
  pid: z.number().int().positive(),
  host: z.string(),
  startedAt: z.string(),
  command: z.string().optional(),
  /** The holder's start in clock ticks since boot (Linux /proc), telling it from a later process given the same pid. */
  processStart: z.number().int().nonnegative().optional(),
})
/** Who holds a run directory. */
export type LockHolder = z.infer<typeof HolderSchema>

/** A second writer was refused: the message names the holder and what to do. */
export class RunLockedError extends Error {
  constructor(
    message: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(message)
    this.name = 'RunLockedError'
  }
}

/** A held lock; `release()` removes it (only while it is still ours). Idempotent. */
export interface RunLock {
  readonly path: string
  release(): void
}

/** A process's state letter and start time from Linux's /proc/<pid>/stat, or undefined where there is none. */
function procStat(pid: number): { state: string; start: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // "pid (comm) state ppid …": the command may hold spaces and parentheses, so read after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0] ?? '', start: Number(fields[19]) }
  } catch {
    return undefined
  }
}

/** This process's start in clock ticks since boot, where Linux's /proc tells it. */
export function ownProcessStart(): number | undefined {
  const start = procStat(process.pid)?.start
  return start !== undefined && Number.isSafeInteger(start) ? start : undefined
}

/**
 * Whether a process with this pid runs on this host (EPERM: it runs, as another user). A zombie
 * is gone (killed with its parent, it waits for an init that may never reap it, as in containers),
 * and so is a process that started at another time than `start`: the pid was given to another.
 */
export function processAlive(pid: number, start?: number): boolean {
  const stat = procStat(pid)
  if (stat && (stat.state === 'Z' || stat.state === 'X')) return false
  if (stat && start !== undefined && stat.start !== start) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The holder recorded in `runDir`'s lock, or undefined when there is none (or it cannot be read). */
export function readRunLock(runDir: string): LockHolder | undefined {
  return parseHolder(join(runDir, LOCK_FILE))
}

function parseHolder(path: string): LockHolder | undefined {
  try {
    const parsed = HolderSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** Whether `holder` is known to be gone: it ran on this host and its process has ended. */
export function isStale(holder: LockHolder): boolean {
  return holder.host === hostname() && holder.pid !== process.pid && !processAlive(holder.pid, holder.processStart)
}

/** The refusal's words: who holds the directory, since when, and what to do. */
export function lockedMessage(runDir: string, holder: LockHolder): string {
  const where =
    holder.host === hostname() ? `process ${holder.pid} on this host` : `process ${holder.pid} on host ${holder.host}`
  const what = holder.command ? ` (${holder.command})` : ''
  const fix =
    holder.host === hostname()
      ? 'wait for it to end, or stop it'
      : `wait for it to end; if that run is gone, delete ${join(runDir, LOCK_FILE)}`
  return `${runDir} is in use by ${where}${what}, since ${holder.startedAt}: one run writes to a run directory at a time, so this one does nothing. To go on, ${fix}, then resume.`
}

/**
 * Takes the lock of `runDir` (creating the directory), or throws a {@link RunLockedError} naming
 * the holder. The same process may take it again (a watch-mode rerun). A stale lock (see
 * {@link isStale}) is taken over.
 *
 * @example
 * const lock = acquireRunLock('.seqk/runs/20261201-101500-9f2c4a', 'vitest run')
 * try { ... } finally { lock.release() }
 */
export function acquireRunLock(runDir: string, command?: string): RunLock {
  mkdirSync(runDir, { recursive: true })
  const path = join(runDir, LOCK_FILE)
  const processStart = ownProcessStart()
  const mine: LockHolder = {
    schema: 'seqk.lock/1',
    pid: process.pid,
    host: hostname(),
    startedAt: new Date().toISOString(),
    ...(command ? { command } : {}),
    ...(processStart !== undefined ? { processStart } : {}),
  }
  const text = `${JSON.stringify(mine)}\n`
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, text, { flag: 'wx' })
      return held(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const holder = readRunLock(runDir)
    if (holder && holder.pid === process.pid && holder.host === mine.host) return held(path)
    if (holder && !isStale(holder)) throw new RunLockedError(lockedMessage(runDir, holder), holder)
    // Stale, or torn (a holder killed while writing it): moved aside, so two runs taking it over at once cannot both win.
    const aside = `${path}.stale-${process.pid}-${attempt}`
    try {
      renameSync(path, aside)
    } catch {
      // Another run moved it first: try again to create ours.
      continue
    }
    const moved = parseHolder(aside)
    const judged =
      moved === undefined || (holder !== undefined && moved.pid === holder.pid && moved.startedAt === holder.startedAt)
    // Not the lock judged stale but one another run took meanwhile: put back (never over a newer one).
    if (!judged) {
      try {
        linkSync(aside, path)
      } catch {
        // A newer one is in place.
      }
    }
    rmSync(aside, { force: true })
  }
  const holder = readRunLock(runDir)
  throw new RunLockedError(
    holder
      ? lockedMessage(runDir, holder)
      : `${runDir}: could not take ${LOCK_FILE} (another run keeps taking it); try again`,
    holder,
  )
}

function held(path: string): RunLock {
  let released = false
  const release = () => {
    if (released) return
    released = true
    const holder = parseHolder(path)
    // Never another run's: a lock taken over after ours was judged stale stays.
    if (holder && holder.pid === process.pid && holder.host === hostname()) rmSync(path, { force: true })
    process.off('exit', release)
  }
  process.once('exit', release)
  return { path, release }
}
