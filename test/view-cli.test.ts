// `seqk view` as a user starts it: a child process on a temporary runs directory, its event
// stream read over a real socket while the test appends the lines a run writes, then SIGTERM.
import { spawn } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../src/cli/run.js'
import { cleanEnv, SEQK } from './fixture-project.js'
import { line, liveCell } from './live-fixtures.js'
import { applyEvent, emptySnapshot, type LiveEvent } from '../src/report/live/events.js'

const io = () => {
  const out = { stdout: '', stderr: '' }
  return {
    out,
    io: {
      stdout: (t: string) => void (out.stdout += t),
      stderr: (t: string) => void (out.stderr += t),
      isTTY: false,
      env: {},
    },
  }
}

describe('seqk view', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'seqk-view-cli-'))
  afterAll(() => rmSync(tmp, { recursive: true, force: true }))

  it('has complete help: usage, what it serves, its flags, security and an example', async () => {
    const { out, io: fake } = io()
    expect(await runCli(['view', '--help'], fake)).toBe(0)
    expect(out.stdout).toMatch(/^Usage: seqk view \[runs dir \| run dir\] \[options\]/)
    for (const part of ['--port <n>', '--poll <ms>', '127.0.0.1', 'SEQK_OUTPUT_DIR', '/report', 'SIGTERM', 'Example:'])
      expect(out.stdout).toContain(part)
    const main = io()
    await runCli(['--help'], main.io)
    expect(main.out.stdout).toMatch(/view\s+Watch a run live in the browser/)
  })

  it('says which port is taken and how to pick another', async () => {
    const busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    const port = (busy.address() as { port: number }).port
    const { out, io: fake } = io()
    expect(await runCli(['view', tmp, '--port', String(port)], fake)).toBe(1)
    busy.close()
    expect(out.stderr).toContain(
      `port ${port} on 127.0.0.1 is in use: pass another with --port <n>, or --port 0 for any free one`,
    )
    expect(await Promise.resolve(runCli(['view', 'a', 'b'], fake))).toBe(1)
  })

  it('streams a run as it is written, over a real socket, and stops cleanly on SIGTERM', async () => {
    const runs = join(tmp, 'runs')
    const child = spawn(process.execPath, [...SEQK, 'view', runs, '--port', '0', '--poll', '100'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: cleanEnv(),
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    await expect
      .poll(() => stdout, { timeout: 15_000 })
      .toMatch(/serving http:\/\/127\.0\.0\.1:\d+\/ for .* \(not there yet: waiting for a run\)/)
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(stdout)![1])

    const events: LiveEvent[] = []
    const req = request({ host: '127.0.0.1', port, path: '/events', headers: { host: `localhost:${port}` } }, (res) => {
      let pending = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        pending += chunk
        const blocks = pending.split('\n\n')
        pending = blocks.pop()!
        for (const block of blocks) {
          const data = block.split('\n').find((l) => l.startsWith('data: '))
          if (data) events.push(JSON.parse(data.slice(6)) as LiveEvent)
        }
      })
    })
    req.on('error', () => {})
    req.end()
    // The page's own fold of the stream: the state a page shows.
    const state = () => events.reduce(applyEvent, emptySnapshot(null, ''))
    await expect.poll(() => events.map((e) => e.type), { timeout: 5000 }).toEqual(['snapshot'])
    expect(state().runId).toBeNull()

    // A run starts: its directory, its cell, then trajectories, the last line written in two pieces.
    const dir = join(runs, '20260101-000000-aaaaaa')
    mkdirSync(dir, { recursive: true })
    const cell = liveCell({ runId: 'r', tasks: ['t/1', 't/2', 't/3'] })
    writeFileSync(join(dir, 'cells.jsonl'), line(cell.start))
    await expect.poll(() => state().cells.map((c) => c.progress.total), { timeout: 5000 }).toEqual([3])
    expect(state().runId).toBe('20260101-000000-aaaaaa')
    appendFileSync(join(dir, 'trajectories.jsonl'), line(cell.trajectory('t/1', 0, 'solved')))
    const torn = line(cell.trajectory('t/2', 0, 'error', 'HTTP 429: rate limited'))
    appendFileSync(join(dir, 'trajectories.jsonl'), torn.slice(0, 40))
    await expect.poll(() => state().recent.length, { timeout: 5000 }).toBe(1)
    // The torn line is not read until its newline arrives: once a later change is read, still one trajectory.
    appendFileSync(
      join(dir, 'plan.jsonl'),
      line({ schema: 'seqk.plan/1', type: 'files', runId: 'r', files: ['a.eval.ts'] }),
    )
    await expect.poll(() => state().files.planned, { timeout: 5000 }).toBe(1)
    expect(state().recent).toHaveLength(1)
    appendFileSync(join(dir, 'trajectories.jsonl'), torn.slice(40))
    await expect.poll(() => state().recent.length, { timeout: 5000 }).toBe(2)
    expect(state().errors.at(-1)).toMatchObject({
      taskId: 't/2',
      status: 'error',
      error: { message: 'HTTP 429: rate limited' },
    })
    expect(state().cells[0]!.progress).toEqual({ done: 2, total: 3, solved: 1, failed: 0, errored: 1, capped: 0 })
    appendFileSync(join(dir, 'cells.jsonl'), line(cell.end()))
    writeFileSync(join(dir, 'summary.json'), '{}')
    await expect.poll(() => state().ended, { timeout: 5000 }).toEqual({ report: false, verdict: null })

    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(stdout).toContain('seqk view: stopped')
    expect(stderr).toBe('')
    req.destroy()
  }, 30_000)

  it('ends its server when the process that started it is killed (npx seqk view, npx killed)', async () => {
    // A wrapper as npx is one: it starts `seqk view` as its child and prints the child's pid.
    const wrapper = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, ${JSON.stringify([...SEQK, 'view', join(tmp, 'none'), '--port', '0'])}, { stdio: ['ignore', 'pipe', 'inherit'] }); c.stdout.on('data', (d) => process.stdout.write(d)); console.log('child ' + c.pid)`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: cleanEnv() },
    )
    let out = ''
    wrapper.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    await expect.poll(() => out, { timeout: 15_000 }).toMatch(/serving http:\/\/127\.0\.0\.1:\d+\//)
    const pid = Number(/child (\d+)/.exec(out)![1])
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(out)![1])
    const alive = () => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    expect(alive()).toBe(true)
    // Killed hard, as a terminal's close or a CI step's timeout kills it: it cannot pass anything on.
    wrapper.kill('SIGKILL')
    // Before: the server stayed up with nobody to stop it.
    await expect.poll(alive, { timeout: 10_000, interval: 100 }).toBe(false)
    const refused = await new Promise<boolean>((resolve) => {
      const probe = request({ host: '127.0.0.1', port, path: '/', headers: { host: `localhost:${port}` } }, () =>
        resolve(false),
      )
      probe.on('error', () => resolve(true))
      probe.end()
    })
    expect(refused).toBe(true)
  }, 30_000)
})
