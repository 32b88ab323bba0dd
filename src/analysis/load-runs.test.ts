import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { writeSummary } from '../artifacts/summary-file.js'
import { asLoadedRuns, loadRuns, resolveSummaryPath, RunLoadError } from './load-runs.js'
import { simulateRun } from './simulated-runs.js'

const root = mkdtempSync(join(tmpdir(), 'seqk-load-runs-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const runs = join(root, 'runs')
const runDir = join(runs, '20260101-000000-abcdef')
mkdirSync(runDir, { recursive: true })
const summary = simulateRun({
  actors: [{ id: 'a', firstTry: 0.5, repair: { verifier: 0.5 } }],
  modes: ['verifier'],
  tasks: 2,
  repeats: 1,
  budget: 2,
  seed: 1,
  runId: '20260101-000000-abcdef',
})
writeSummary(join(runDir, 'summary.json'), summary)
writeFileSync(join(runs, 'latest'), '20260101-000000-abcdef\n')

describe('resolveSummaryPath', () => {
  it('accepts a run directory, a summary file, a runs directory and its latest file', () => {
    const file = join(runDir, 'summary.json')
    expect(resolveSummaryPath(runDir)).toBe(file)
    expect(resolveSummaryPath(file)).toBe(file)
    expect(resolveSummaryPath(runs)).toBe(file)
    expect(resolveSummaryPath(join(runs, 'latest'))).toBe(file)
  })

  it('says what is wrong with a path', () => {
    expect(() => resolveSummaryPath(join(root, 'nope'))).toThrow(/nope: no such file or directory/)
    mkdirSync(join(root, 'empty'))
    expect(() => resolveSummaryPath(join(root, 'empty'))).toThrow(
      /empty: a directory without summary\.json \(pass a run directory/,
    )
    const stale = join(root, 'stale')
    mkdirSync(stale)
    writeFileSync(join(stale, 'latest'), 'gone\n')
    expect(() => resolveSummaryPath(stale)).toThrow(RunLoadError)
    expect(() => resolveSummaryPath(stale)).toThrow(/names run "gone", but .*gone\/summary\.json does not exist/)
  })
})

describe('loadRuns', () => {
  it('reads each summary once, noting a path that names one already read', () => {
    const { runs: loaded, notes } = loadRuns([runDir, join(runs, 'latest')])
    expect(loaded).toHaveLength(1)
    expect(loaded[0]?.summary).toEqual(summary)
    expect(notes).toEqual([`${join(runs, 'latest')} is the same summary as ${runDir}: read once`])
  })

  it('names the file and the field of an invalid summary, and a file that is not JSON', () => {
    const bad = join(root, 'bad.json')
    writeFileSync(
      bad,
      JSON.stringify({ ...summary, benchmarks: [{ name: 'x', file: 'f', cells: [{ schema: 'seqk.cell/2' }] }] }),
    )
    expect(() => loadRuns([bad])).toThrow(/bad\.json: not a seqk summary: benchmarks\[0\]\.cells\[0\]\.runId/)
    const text = join(root, 'text.json')
    writeFileSync(text, 'hello')
    expect(() => loadRuns([text])).toThrow(/text\.json: not valid JSON/)
    expect(() => loadRuns([])).toThrow(/no runs given/)
  })
})

describe('asLoadedRuns', () => {
  it('accepts bare summaries too (e.g. from the HTML report)', () => {
    expect(asLoadedRuns([summary])).toEqual([{ path: null, summary }])
  })
})
