// A run killed halfway leaves every finished trajectory readable (issue: artifacts).
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { readTrajectories } from '../src/artifacts/index.js'

const root = new URL('..', import.meta.url).pathname

it('a run killed with SIGKILL keeps every finished trajectory readable', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'seqk-crash-'))
  const file = join(dir, 'trajectories.jsonl')
  const child = spawn(
    process.execPath,
    [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'test/crash-run.ts'), file],
    { stdio: 'ignore' },
  )
  // Kill it once a few trajectories are on disk, well before the 200 it would write.
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (existsSync(file) && readFileSync(file, 'utf8').split('\n').length > 10) break
    await new Promise((r) => setTimeout(r, 20))
  }
  const exited = new Promise((r) => child.on('exit', r))
  child.kill('SIGKILL')
  await exited
  const { trajectories } = readTrajectories(file)
  expect(trajectories.length).toBeGreaterThanOrEqual(10)
  expect(trajectories.length).toBeLessThan(200)
  for (const t of trajectories) expect(t.attempts).toHaveLength(3)
  rmSync(dir, { recursive: true, force: true })
}, 30_000)
