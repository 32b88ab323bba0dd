import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fakeRun } from '../../test/report-fixtures.js'
import { emitRun, runEmitters, runHistory, type EmitContext, type Emitter } from './emitters.js'

const { summary, trajectories } = fakeRun({ thresholds: () => ({}) })

function context(overrides: Partial<EmitContext> = {}): EmitContext & { printed: string[] } {
  const printed: string[] = []
  const runDir = join(mkdtempSync(join(tmpdir(), 'seqk-emit-')), 'run')
  mkdirSync(runDir)
  return {
    summary,
    runDir,
    root: runDir,
    trajectories: () => trajectories,
    color: false,
    print: (t) => printed.push(t),
    env: {},
    printed,
    ...overrides,
  }
}

describe('emitRun', () => {
  it('writes every output of a run and names the files it wrote', async () => {
    const c = context()
    const { written, failures } = await emitRun(runEmitters({ latest: true }), c)
    expect(failures).toEqual([])
    expect(written).toEqual(['summary.json', 'disclosure.json', 'pr-comment.md', 'report.html'])
    for (const f of written) expect(existsSync(join(c.runDir, f))).toBe(true)
    expect(readFileSync(join(c.runDir, '..', 'latest'), 'utf8')).toBe(`${summary.runId}\n`)
    expect(c.printed[0]).toContain(summary.benchmarks[0]!.name)
  })

  it('reports a failing emitter by name and still runs every other one', async () => {
    const c = context()
    const broken: Emitter = {
      name: 'broken view',
      emit: () => {
        throw new Error('disk on fire')
      },
    }
    const [first, ...rest] = runEmitters()
    const { written, failures } = await emitRun([first!, broken, ...rest], c)
    expect(failures.map((f) => f.name)).toEqual(['broken view'])
    expect(failures[0]!.message).toContain('disk on fire')
    expect(c.printed.some((l) => l.startsWith('seqk: the broken view could not be written: Error: disk on fire'))).toBe(
      true,
    )
    expect(written).toEqual(['summary.json', 'disclosure.json', 'pr-comment.md', 'report.html'])
  })

  it('a real output that cannot be written (the step summary is a directory) costs that output only', async () => {
    const c = context()
    const stepSummary = join(c.runDir, '..', 'step-summary')
    mkdirSync(stepSummary)
    const { written, failures } = await emitRun(runEmitters(), { ...c, env: { GITHUB_STEP_SUMMARY: stepSummary } })
    expect(failures.map((f) => f.name)).toEqual(['GitHub step summary'])
    expect(written).toEqual(['summary.json', 'disclosure.json', 'pr-comment.md', 'report.html'])
  })

  it('a report whose trajectories cannot be read fails alone, after the summary and the history are written', async () => {
    const c = context()
    const path = join(c.runDir, '..', 'history.jsonl')
    const history = runHistory(path, 'history.jsonl', summary)
    const { written, failures } = await emitRun(runEmitters(), {
      ...c,
      history,
      trajectories: () => {
        throw new Error('trajectories.jsonl: unreadable')
      },
    })
    // The card's failure breakdown and wall time come from the trajectories: without them it is not written either.
    expect(failures.map((f) => f.name)).toEqual(['disclosure.json', 'report.html'])
    expect(written).toEqual(['summary.json', 'pr-comment.md'])
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(summary.benchmarks[0]!.cells.length)
  })

  it('prints the changes since the last run from the history it read before appending', async () => {
    const c = context()
    const path = join(c.runDir, '..', 'history.jsonl')
    await emitRun(runEmitters(), { ...c, history: runHistory(path, 'history.jsonl', summary) })
    const next = { ...summary, runId: '20260102-000000-abcdef' }
    const again = context({ summary: next })
    await emitRun(runEmitters(), { ...again, history: runHistory(path, 'history.jsonl', next) })
    const since = again.printed.find((l) => l.startsWith('Since the last run (history.jsonl):'))
    expect(since).toMatch(/unchanged/)
    // A run is never compared with its own earlier points.
    expect(runHistory(path, 'history.jsonl', next, { exceptRunId: next.runId }).changes.join(' ')).toMatch(/unchanged/)
    expect(runHistory(path, 'history.jsonl', next, { exceptRunId: summary.runId }).changes.join(' ')).toMatch(
      /for the first time/,
    )
  })

  it("appends a partial run's lines marked, and leaves them out of the next run's comparisons and trend", async () => {
    const path = join(context().runDir, '..', 'history.jsonl')
    const partial = context()
    await emitRun(runEmitters(), {
      ...partial,
      history: runHistory(path, 'history.jsonl', summary, { partial: 'filtered with -t x' }),
    })
    expect(partial.printed).toContain(
      'seqk: this run is partial (filtered with -t x): its lines in history.jsonl are marked so and left out of trends and "since the last run".\n',
    )
    const next = { ...summary, runId: '20260103-000000-abcdef' }
    const later = runHistory(path, 'history.jsonl', next)
    expect(later.entries).toEqual([])
    expect(later.changes.join(' ')).toMatch(/for the first time/)
  })
})
