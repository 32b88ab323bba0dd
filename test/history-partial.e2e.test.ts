// Honest history (issue 18, item 4): a run filtered with -t, or with skipped cells, is marked
// partial in history.jsonl and left out of "since the last run"; a -t that matches no cell fails
// saying how Vitest matches it, instead of a silent pass.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanEnv, fixtureProject, runNode, SAYS_CORRECT_SOURCE, unwrapped, VITEST } from './fixture-project.js'

const dir = fixtureProject('seqk-partial-')
writeFileSync(
  join(dir, 'partial.eval.ts'),
  `import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
${SAYS_CORRECT_SOURCE}
const tasks = Array.from({ length: 6 }, (_, i) => ({ id: 'task-' + i, prompt: 'Say CORRECT #' + i, simulation: { difficulty: i / 6, correct: ['CORRECT'], wrong: ['WRONG'] } }))
const remote = process.env.SEQK_TEST_REMOTE ? [actors.openai({ model: 'gpt-4.1-mini', skipWithoutKey: true })] : []
seqEval('partial fixture (v1)', {
  tasks,
  actors: [actors.simulated({ profile: 'reviser' }), ...remote],
  verifier,
  budget: 3,
  modes: { binary: { feedback: feedback.binary() }, verifier: { feedback: feedback.verifier() } },
})
`,
)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const history = () =>
  readFileSync(join(dir, 'history.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { runId: string; cellId: string; partial?: string })

async function vitest(args: string[], env: Record<string, string> = {}) {
  const r = await runNode([VITEST, 'run', ...args], {
    cwd: dir,
    env: cleanEnv({ SEQK_HISTORY_FILE: join(dir, 'history.jsonl'), ...env }),
    timeoutMs: 60_000,
  })
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` }
}

describe('partial runs in the history', () => {
  it('marks a -t run partial and compares the next whole run with the last whole one', async () => {
    expect((await vitest([], { SEQK_RUN_ID: 'whole-1' })).status).toBe(0)
    const filtered = await vitest(['-t', 'reviser · binary'], { SEQK_RUN_ID: 'filtered' })
    expect(filtered.status, filtered.out).toBe(0)
    expect(unwrapped(filtered.out)).toContain(
      'seqk: this run is partial (filtered with -t reviser · binary): its lines in history.jsonl are marked so and left out of trends and "since the last run".',
    )
    const whole = await vitest([], { SEQK_RUN_ID: 'whole-2' })
    expect(whole.status, whole.out).toBe(0)
    // Both cells compare with whole-1: the filtered run's one cell is not "the last run" of anything.
    expect(whole.out).toMatch(/Since the last run \(history\.jsonl\):\n {2}all 2 cells unchanged/)
    const lines = history()
    expect(lines.filter((l) => l.runId === 'filtered').map((l) => [l.cellId, l.partial])).toEqual([
      ['simulated:reviser · binary', 'filtered with -t reviser · binary'],
    ])
    expect(lines.filter((l) => l.runId !== 'filtered').every((l) => l.partial === undefined)).toBe(true)
  }, 120_000)

  it('marks a run with skipped cells partial (an actor without its key, skipWithoutKey)', async () => {
    const r = await vitest([], { SEQK_RUN_ID: 'skipped', SEQK_TEST_REMOTE: '1' })
    expect(r.status, r.out).toBe(0)
    expect(r.out).toContain('seqk: this run is partial (2 cells skipped)')
    expect(
      new Set(
        history()
          .filter((l) => l.runId === 'skipped')
          .map((l) => l.partial),
      ),
    ).toEqual(new Set(['2 cells skipped']))
  }, 60_000)

  it('fails a -t that matches no cell, saying how Vitest matches it', async () => {
    const r = await vitest(['-t', 'partial fixture (v1) › simulated:reviser · binary'], { SEQK_RUN_ID: 'nothing' })
    expect(r.status).toBe(1)
    expect(unwrapped(r.out)).toContain(
      'seqk: -t "partial fixture (v1) › simulated:reviser · binary" matched no cell, so nothing was measured.',
    )
    expect(unwrapped(r.out)).toContain(
      'paste the cell id (the part of a progress line after ›, e.g. -t "simulated:reviser · binary")',
    )
    expect(history().some((l) => l.runId === 'nothing')).toBe(false)
  }, 60_000)

  it('marks a watch-mode rerun partial (the first run of the watcher is whole)', async () => {
    const { spawn } = await import('node:child_process')
    const { utimesSync } = await import('node:fs')
    // No SEQK_RUN_ID: every run of the watcher gets a run directory of its own.
    const e = cleanEnv({ SEQK_HISTORY_FILE: join(dir, 'history.jsonl') })
    const before = history().length
    const child = spawn(process.execPath, [VITEST, '--watch'], {
      cwd: dir,
      env: e,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    const wrote = () => (out.match(/seqk: wrote summary\.json/g) ?? []).length
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 600 && !ok(); i++) await new Promise((r) => setTimeout(r, 50))
      expect(ok(), out).toBe(true)
    }
    try {
      await until(() => wrote() === 1)
      // A change to the eval file reruns it: the watcher's second run.
      const file = join(dir, 'partial.eval.ts')
      const later = new Date(Date.now() + 2000)
      utimesSync(file, later, later)
      writeFileSync(file, readFileSync(file, 'utf8'))
      await until(() => wrote() === 2)
    } finally {
      process.kill(-child.pid!, 'SIGKILL')
    }
    expect(unwrapped(out)).toContain('seqk: this run is partial (a watch-mode rerun)')
    const lines = history().slice(before)
    expect(lines.map((l) => l.partial ?? 'whole')).toEqual([
      'whole',
      'whole',
      'a watch-mode rerun',
      'a watch-mode rerun',
    ])
    expect(new Set(lines.map((l) => l.runId)).size).toBe(2)
  }, 60_000)
})
