/**
 * CPU time of a process tree, read from Linux's /proc: what tells a judge that is slow (a loaded
 * machine gives it a sliver of a core) from one that is stuck (blocked, spending nothing).
 */
import { readdirSync, readFileSync } from 'node:fs'

/**
 * /proc reports CPU time in USER_HZ ticks, 100 per second on every Linux ABI (the kernel scales its
 * internal HZ to it for userspace).
 */
const TICKS_PER_SECOND = 100

/** One /proc/<pid>/stat line's parent pid and user + system ticks; undefined when unreadable. */
export function parseStat(line: string): { ppid: number; ticks: number } | undefined {
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself:
  // the fields after it start past the last ')'.
  const close = line.lastIndexOf(')')
  if (close < 0) return undefined
  const fields = line.slice(close + 2).split(' ')
  // After the name: state(3) ppid(4) … utime(14) stime(15), i.e. indexes 0, 1, …, 11, 12 here.
  const ppid = Number(fields[1])
  const ticks = Number(fields[11]) + Number(fields[12])
  return Number.isFinite(ppid) && Number.isFinite(ticks) ? { ppid, ticks } : undefined
}

/**
 * Milliseconds of CPU (user + system) spent so far by `root` and every live descendant, or
 * undefined where /proc cannot be read (not Linux) or `root` is not there: callers then fall back
 * to wall time alone.
 *
 * @example
 * const before = treeCpuMs(worker.pid)
 * // … later: progressed when treeCpuMs(worker.pid)! > before!
 */
export function treeCpuMs(root: number | undefined): number | undefined {
  if (root === undefined) return undefined
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return undefined
  }
  const processes = new Map<number, { ppid: number; ticks: number }>()
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = parseStat(readFileSync(`/proc/${name}/stat`, 'utf8'))
      if (stat) processes.set(Number(name), stat)
    } catch {
      // exited meanwhile
    }
  }
  const ticks = treeTicks(root, processes)
  return ticks === undefined ? undefined : (ticks * 1000) / TICKS_PER_SECOND
}

/** The ticks of `root` and its descendants among `processes` (pid → parent and ticks); undefined without `root`. */
export function treeTicks(
  root: number,
  processes: ReadonlyMap<number, { ppid: number; ticks: number }>,
): number | undefined {
  if (!processes.has(root)) return undefined
  const children = new Map<number, number[]>()
  for (const [pid, { ppid }] of processes) {
    const siblings = children.get(ppid)
    if (siblings) siblings.push(pid)
    else children.set(ppid, [pid])
  }
  let total = 0
  const stack = [root]
  const seen = new Set<number>()
  while (stack.length > 0) {
    const pid = stack.pop()!
    if (seen.has(pid)) continue
    seen.add(pid)
    total += processes.get(pid)?.ticks ?? 0
    stack.push(...(children.get(pid) ?? []))
  }
  return total
}
