// Runs the bundled evals exactly as `npm run evals` does, in a child process, and checks what a
// user gets: the table in the terminal, summary.json and trajectories.jsonl, and the paper's
// headline effect (an actor order that changes between Pass@5 and Seq@5 with verifier feedback).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSummary, readTrajectories, type RunSummary } from '../src/artifacts/index.js'

const root = new URL('..', import.meta.url).pathname
const runDir = mkdtempSync(join(tmpdir(), 'seqk-e2e-'))
let result: ReturnType<typeof spawnSync>
let summary: RunSummary

beforeAll(() => {
  const env = { ...process.env, CI: 'true', SEQK_RUN_DIR: runDir, NO_COLOR: '1' }
  for (const key of Object.keys(env)) if (key.startsWith('VITEST')) delete env[key]
  result = spawnSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--project', 'evals'], { cwd: root, env, encoding: 'utf8', timeout: 120_000 })
  summary = readSummary(join(runDir, 'summary.json'))
}, 130_000)

afterAll(() => rmSync(runDir, { recursive: true, force: true }))

describe('npm run evals (bundled fixtures, simulated actors, real Python)', () => {
  it('passes and prints one table row per cell', () => {
    expect(result.status, String(result.stderr)).toBe(0)
    const out = String(result.stdout)
    expect(out).toContain('self-invoking python (fixtures) — K=5, 13 tasks × 3 repeats, history full, rates in %')
    for (const actor of ['reviser', 'stubborn', 'one-shot']) {
      for (const mode of ['binary', 'verifier', 'independent']) expect(out).toMatch(new RegExp(`simulated:${actor} · ${mode}\\s+(Seq|Pass)\\s+\\d`))
    }
    expect(out).toMatch(/ranking changes from Pass@5 to Seq@5 \(verifier\)/)
  })

  it('writes summary.json with every cell and its intervals', () => {
    const cells = summary.benchmarks.flatMap((b) => b.cells)
    expect(cells).toHaveLength(9)
    for (const cell of cells) {
      expect(cell.verdict).toBe('pass')
      expect(cell.trajectories).toBe(39)
      expect(cell.seqAtInterval.lo).not.toBeNull()
      if (cell.mode === 'independent') expect(cell.passAt).toHaveLength(5)
    }
    expect(summary.benchmarks[0]!.file).toBe('evals/fixtures-code.eval.ts')
  })

  it('writes every trajectory, with the protocol and its fingerprint', () => {
    const { trajectories, truncatedTail } = readTrajectories(join(runDir, 'trajectories.jsonl'))
    expect(truncatedTail).toBe(false)
    expect(trajectories).toHaveLength(9 * 39)
    const fingerprints = new Set(trajectories.map((t) => t.fingerprint))
    expect(fingerprints.size).toBe(9)
    const revised = trajectories.find((t) => t.mode === 'verifier' && t.attempts.length > 1)!
    expect(revised.attempts[0]!.feedback?.text).toMatch(/Failed test details:|failed to load/)
  })

  it('shows an actor pair whose order under Pass@5 differs from Seq@5 with verifier feedback', () => {
    const cells = summary.benchmarks[0]!.cells
    const pass5 = (actor: string) => cells.find((c) => c.actorId === actor && c.mode === 'independent')!.passAt![4]!
    const seq5 = (actor: string) => cells.find((c) => c.actorId === actor && c.mode === 'verifier')!.seqAt[4]!
    const actors = [...new Set(cells.map((c) => c.actorId))]
    const reversed = actors.flatMap((a) => actors.map((b) => [a, b] as const)).filter(([a, b]) => pass5(a) > pass5(b) && seq5(a) < seq5(b))
    expect(reversed.length).toBeGreaterThan(0)
  })
})
