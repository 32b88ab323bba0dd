/**
 * Helpers for the python-tests suites: finding leftover processes on the host.
 * Inside bubblewrap an attempt's pids belong to the sandbox's pid namespace, so the suites mark the
 * processes a candidate starts (a unique `sleep` duration, a unique argv word) and look for that
 * marker in every host process's command line.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { expect } from 'vitest'
import type { Verdict } from '../verifier.js'

/** A fresh marker usable as a `sleep` duration: `sleep 60.<digits>` is unique in /proc. */
export function sleepMarker(seconds = 60): string {
  return `${seconds}.${BigInt(`0x${randomBytes(6).toString('hex')}`)
    .toString()
    .padStart(15, '0')}`
}

/** A fresh word to put in a command line. */
export function wordMarker(prefix = 'seqk-marker'): string {
  return `${prefix}-${randomBytes(6).toString('hex')}`
}

/** Pids of live (non-zombie) host processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ')
      if (!cmdline.includes(marker)) continue
      if (/\) Z /.test(readFileSync(`/proc/${name}/stat`, 'utf8'))) continue
      found.push(Number(name))
    } catch {
      // exited meanwhile
    }
  }
  return found
}

/** Live descendants of `pid` (host pids), from the ppid field of /proc/<pid>/stat. */
export function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (fields[0] === 'Z') continue
      const ppid = Number(fields[1])
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)])
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = []
  const queue = [pid]
  while (queue.length > 0) {
    for (const child of parents.get(queue.shift() as number) ?? []) {
      out.push(child)
      queue.push(child)
    }
  }
  return out
}

/** True while a process with this pid exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

/** Polls `check` every 25 ms until it holds or `ms` pass; returns its last value. */
export async function eventually(check: () => boolean, ms = 2000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 25))
  }
  return check()
}

/** The candidate's stdout and stderr were capped (head and tail of 64 KiB kept) and say how much was cut. */
export function expectCappedOutput(verdict: Verdict): void {
  for (const stream of [verdict.diagnostics.stdout ?? '', verdict.diagnostics.stderr ?? '']) {
    expect(stream.length).toBeLessThan(64 * 1024 + 200)
    expect(stream).toMatch(/\[\.\.\. \d+ bytes omitted \.\.\.\]/)
  }
}
