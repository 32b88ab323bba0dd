import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { acquireRunLock, isStale, LOCK_FILE, ownProcessStart, readRunLock, RunLockedError } from './run-lock.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const runDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'seqk-lock-'))
  dirs.push(d)
  return join(d, 'run')
}
const holder = (pid: number, host = hostname()) =>
  `${JSON.stringify({ schema: 'seqk.lock/1', pid, host, startedAt: '2026-12-01T10:00:00.000Z', command: 'vitest run' })}\n`

/** The pid of a process that has ended (a child that ran and exited), with a timeout. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore', timeout: 10_000 })
  await new Promise((resolve) => child.on('exit', resolve))
  return child.pid!
}

describe('acquireRunLock', () => {
  it("takes the directory's lock with pid, host and command, and gives it back", () => {
    const dir = runDir()
    const lock = acquireRunLock(dir, 'vitest run --project evals')
    expect(readRunLock(dir)).toMatchObject({
      pid: process.pid,
      host: hostname(),
      command: 'vitest run --project evals',
    })
    // The same process may take it again (a watch-mode rerun).
    acquireRunLock(dir).release()
    lock.release()
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false)
  })

  it('refuses while a live process on this host holds it, naming the holder and what to do', () => {
    const dir = runDir()
    acquireRunLock(dir).release()
    // The parent of this test process is alive for as long as the test runs.
    writeFileSync(join(dir, LOCK_FILE), holder(process.ppid))
    const error = (() => {
      try {
        acquireRunLock(dir)
      } catch (e) {
        return e as RunLockedError
      }
    })()
    expect(error).toBeInstanceOf(RunLockedError)
    expect(error?.message).toBe(
      `${dir} is in use by process ${process.ppid} on this host (vitest run), since 2026-12-01T10:00:00.000Z: one run writes to a run directory at a time, so this one does nothing. To go on, wait for it to end, or stop it, then resume.`,
    )
    expect(readRunLock(dir)?.pid).toBe(process.ppid)
  })

  it('takes over a stale lock (its holder on this host has ended, as after kill -9) and a torn one', async () => {
    const dir = runDir()
    acquireRunLock(dir).release()
    const gone = await deadPid()
    writeFileSync(join(dir, LOCK_FILE), holder(gone))
    expect(isStale(readRunLock(dir)!)).toBe(true)
    const lock = acquireRunLock(dir)
    expect(readRunLock(dir)?.pid).toBe(process.pid)
    lock.release()
    writeFileSync(join(dir, LOCK_FILE), '{"schema":"seqk.lock/1","pid":')
    acquireRunLock(dir).release()
  })

  it('takes over a lock whose holder is a zombie (killed with its parent, never reaped) or whose pid went to a later process', async () => {
    // The background `sleep 1` ends after the shell became `sleep 8`, which never waits: a zombie until
    // then (a child that ended before the exec could be reaped by the shell itself).
    const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 8'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 12_000,
    })
    const zombie = Number(
      await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString()))),
    )
    try {
      await expect
        .poll(() => readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]?.[0], { timeout: 7000 })
        .toBe('Z')
      expect(
        isStale({ schema: 'seqk.lock/1', pid: zombie, host: hostname(), startedAt: '2026-12-01T10:00:00.000Z' }),
      ).toBe(true)
    } finally {
      parent.kill('SIGKILL')
    }
    // The parent of this test process is alive, but it started at another time than the holder did.
    const start = ownProcessStart()
    expect(start).toBeGreaterThan(0)
    expect(
      isStale({
        schema: 'seqk.lock/1',
        pid: process.ppid,
        host: hostname(),
        startedAt: '2026-12-01T10:00:00.000Z',
        processStart: start! + 1,
      }),
    ).toBe(true)
    const dir = runDir()
    acquireRunLock(dir).release()
    const lock = acquireRunLock(dir)
    expect(readRunLock(dir)?.processStart).toBe(start)
    lock.release()
  })

  it("cannot judge another host's lock: refused, saying which file to delete if that run is gone", () => {
    const dir = runDir()
    acquireRunLock(dir).release()
    writeFileSync(join(dir, LOCK_FILE), holder(4242, 'ci-runner-7'))
    expect(() => acquireRunLock(dir)).toThrow(
      `is in use by process 4242 on host ci-runner-7 (vitest run), since 2026-12-01T10:00:00.000Z: one run writes to a run directory at a time, so this one does nothing. To go on, wait for it to end; if that run is gone, delete ${join(dir, LOCK_FILE)}, then resume.`,
    )
  })

  it("releasing never removes another run's lock (one taken over after ours was judged stale)", () => {
    const dir = runDir()
    const lock = acquireRunLock(dir)
    writeFileSync(join(dir, LOCK_FILE), holder(process.ppid))
    lock.release()
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(holder(process.ppid))
  })
})
