// `seqk suites`: Seq@k and Pass@k on a benchmark's original and strengthened suites, side by side,
// in-process over run directories written to a temporary folder.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { writeSummary } from '../src/artifacts/summary-file.js'
import { simulateRun, type SimulatedRunOptions } from '../src/analysis/simulated-runs.js'
import type { RunSummary } from '../src/core/schemas.js'
import { inProcessCli } from './in-process-cli.js'

const tmp = mkdtempSync(join(tmpdir(), 'seqk-suites-cli-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const actors: SimulatedRunOptions['actors'] = [
  { id: 'one-shot', firstTry: 0.7, repair: { verifier: 0.05 } },
  { id: 'reviser', firstTry: 0.45, repair: { verifier: 0.7 } },
]
const base = { actors, modes: ['verifier'], tasks: 12, repeats: 2, budget: 5 }

function write(name: string, summary: RunSummary): string {
  const dir = join(tmp, name)
  mkdirSync(dir, { recursive: true })
  writeSummary(join(dir, 'summary.json'), summary)
  return dir
}
const original = write('original', simulateRun({ ...base, seed: 4, benchmark: 'code', runId: 'original' }))
const stronger = write('stronger', simulateRun({ ...base, seed: 6, benchmark: 'code+', runId: 'stronger' }))

const cli = (args: string[]) => inProcessCli(args, tmp)

describe('seqk suites', () => {
  it('prints both suites side by side for every actor and mode, and the same as JSON', () => {
    const { code, stdout, stderr } = cli(['suites', original, stronger, '--json', 'cmp.json'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toMatch(/^Original vs strengthened tests: "code" and "code\+" \(12 tasks\)\n/)
    const json = JSON.parse(readFileSync(join(tmp, 'cmp.json'), 'utf8')) as {
      rows: { actorId: string; mode: string; metric: string; original: number; strengthened: number }[]
    }
    expect(json.rows).toHaveLength(4)
    for (const r of json.rows) {
      const pct = (v: number) => `${(v * 100).toFixed(1)}%`
      expect(stdout).toMatch(
        new RegExp(`${r.actorId}\\s+${r.mode}\\s+${r.metric}\\s+${pct(r.original)}\\s+${pct(r.strengthened)}\\s`),
      )
    }
  })

  it('reads one run holding both benchmarks with --original and --strengthened', () => {
    const a = JSON.parse(readFileSync(join(original, 'summary.json'), 'utf8')) as RunSummary
    const b = JSON.parse(readFileSync(join(stronger, 'summary.json'), 'utf8')) as RunSummary
    const both = write('both', { ...a, benchmarks: [...a.benchmarks, ...b.benchmarks] })
    const one = cli(['suites', both, '--original', 'code', '--strengthened', 'code+'])
    expect(one.code).toBe(0)
    expect(one.stdout).toBe(cli(['suites', original, stronger]).stdout)
    const unnamed = cli(['suites', both])
    expect(unnamed.code).toBe(1)
    expect(unnamed.stderr).toMatch(/--original is needed: the first run holds 2 benchmarks \("code", "code\+"\)/)
  })

  it('refuses runs whose protocols differ in more than the tests, naming the field', () => {
    const other = write(
      'other',
      simulateRun({ ...base, seed: 6, benchmark: 'code+', runId: 'other', verifierSettings: { timeoutMs: 1 } }),
    )
    const { code, stderr } = cli(['suites', original, other])
    expect(code).toBe(1)
    expect(stderr).toMatch(/^seqk suites: refused: .*verifier\.settings\.timeoutMs/s)
  })
})
