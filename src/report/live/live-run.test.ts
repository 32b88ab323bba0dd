import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { line, liveCell } from '../../../test/live-fixtures.js'
import { shardOfTask } from '../../protocol/shard.js'
import type { LiveEvent } from './events.js'
import { LiveRun, newestRun } from './live-run.js'

describe('LiveRun', () => {
  let runs: string
  const runs_: LiveRun[] = []
  beforeEach(() => {
    runs = mkdtempSync(join(tmpdir(), 'seqk-live-run-'))
  })
  afterEach(() => {
    for (const r of runs_.splice(0)) r.close()
    rmSync(runs, { recursive: true, force: true })
  })
  const follow = (target: string): LiveRun => {
    const live = new LiveRun(target, { pollMs: 60_000 })
    runs_.push(live)
    return live
  }
  const types = (events: { event: LiveEvent }[]) => events.map((e) => e.event.type)
  const run = (id: string, at?: number): string => {
    const dir = join(runs, id)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'cells.jsonl'), '')
    if (at !== undefined) for (const p of [dir, join(dir, 'cells.jsonl')]) utimesSync(p, at, at)
    return dir
  }

  it('picks the run directory written to last, else the one latest names, else none', () => {
    expect(newestRun(runs)).toBeNull()
    expect(newestRun(join(runs, 'missing'))).toBeNull()
    mkdirSync(join(runs, 'finished-long-ago'))
    writeFileSync(join(runs, 'latest'), 'finished-long-ago\n')
    expect(newestRun(runs)).toBe(join(runs, 'finished-long-ago'))
    run('20260101-000000-aaaaaa', 1000)
    run('20260102-000000-bbbbbb', 3000)
    run('20260103-000000-cccccc', 2000)
    expect(newestRun(runs)).toBe(join(runs, '20260102-000000-bbbbbb'))
    // Its `latest` file stands for the runs directory.
    const live = follow(join(runs, 'latest'))
    expect([live.runsDir, live.since()[0]!.event]).toEqual([runs, { type: 'run', runId: '20260102-000000-bbbbbb', dir: join(runs, '20260102-000000-bbbbbb') }])
  })

  it("shows a batched actor's batches from batches.jsonl: submitted, then each change of status", () => {
    const dir = run('b1')
    const live = follow(runs)
    appendFileSync(join(dir, 'batches.jsonl'), line({ schema: 'seqk.batch/1', provider: 'OpenAI', batchId: 'batch_1', items: [{ customId: 'r1', key: 'k1' }, { customId: 'r2', key: 'k2' }], submittedAt: '2026-12-01T00:00:00.000Z' }))
    appendFileSync(join(dir, 'batches.jsonl'), line({ schema: 'seqk.batch-status/1', provider: 'OpenAI', batchId: 'batch_1', status: 'in_progress', done: 1, total: 2, at: '2026-12-01T00:00:01.000Z' }) + '{"schema": "nope"}\n')
    live.tick()
    const events = live.since().map((e) => e.event)
    expect(events.filter((e) => e.type === 'batch')).toEqual([
      { type: 'batch', provider: 'OpenAI', batchId: 'batch_1', status: 'submitted', done: 0, total: 2 },
      { type: 'batch', provider: 'OpenAI', batchId: 'batch_1', status: 'in_progress', done: 1, total: 2 },
    ])
    expect(events.find((e) => e.type === 'malformed')).toMatchObject({ line: 3, message: expect.stringMatching(/not a seqk batch record/) })
  })

  it('turns cell and trajectory lines into progress events, counting a rerun trajectory once', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1', tasks: ['a', 'b', 'c'], repeats: 2 })
    const live = follow(runs)
    expect(live.since().map((e) => e.event)).toEqual([{ type: 'run', runId: 'r1', dir }])
    appendFileSync(join(dir, 'cells.jsonl'), line(cell.start))
    appendFileSync(join(dir, 'trajectories.jsonl'), line(cell.trajectory('a', 0, 'solved')) + line(cell.trajectory('b', 0, 'error', 'HTTP 503 from the endpoint')))
    live.tick()
    const events = live.since().map((e) => e.event)
    expect(events[1]).toMatchObject({ type: 'cell-start', cellId: cell.start.cellId, progress: { done: 0, total: 6 } })
    expect(events[3]).toMatchObject({ type: 'trajectory', taskId: 'b', status: 'error', error: { stage: 'actor', message: 'HTTP 503 from the endpoint' }, progress: { done: 2, total: 6, solved: 1, errored: 1 } })
    // A resumed run reruns the errored one: still 2 done, now no errors.
    appendFileSync(join(dir, 'trajectories.jsonl'), line(cell.trajectory('b', 0, 'failed')))
    live.tick()
    expect(live.since().at(-1)!.event).toMatchObject({ progress: { done: 2, solved: 1, failed: 1, errored: 0 } })
  })

  it('counts only the shard share of a sharded cell', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1', tasks: Array.from({ length: 20 }, (_, i) => `task-${i}`), repeats: 3 })
    appendFileSync(join(dir, 'cells.jsonl'), line({ ...cell.start, shard: { index: 1, count: 2 } }))
    const share = cell.start.taskIds.filter((id) => shardOfTask(id, 2) === 1).length
    expect(share).toBeGreaterThan(0)
    expect(share).toBeLessThan(20)
    expect(follow(runs).since()[1]!.event).toMatchObject({ type: 'cell-start', progress: { total: share * 3 } })
  })

  it('reports malformed lines with file and line, and goes on reading', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1' })
    writeFileSync(join(dir, 'trajectories.jsonl'), `not json\n${line({ ...cell.trajectory('a', 0, 'solved'), status: 'maybe' })}${line(cell.trajectory('a', 0, 'solved'))}`)
    const events = follow(runs).since().map((e) => e.event)
    expect(types(events.map((event) => ({ event })))).toEqual(['run', 'malformed', 'malformed', 'trajectory'])
    expect(events[1]).toEqual({ type: 'malformed', file: join(dir, 'trajectories.jsonl'), line: 1, message: 'not valid JSON; each line must be one trajectory' })
    expect(events[2]).toMatchObject({ line: 2, message: expect.stringContaining('status') })
  })

  it('says when the run ended, then when its report is complete', () => {
    const dir = run('r1')
    const live = follow(runs)
    writeFileSync(join(dir, 'summary.json'), '{}')
    writeFileSync(join(dir, 'report.html'), '<!doctype html><html><body>half')
    live.tick()
    expect(live.since().at(-1)!.event).toEqual({ type: 'ended', report: false })
    expect(live.reportPath).toBeNull()
    writeFileSync(join(dir, 'report.html'), '<!doctype html><html><body></body></html>\n')
    live.tick()
    expect(live.since().at(-1)!.event).toEqual({ type: 'ended', report: true })
    expect(live.reportPath).toBe(join(dir, 'report.html'))
    live.tick()
    expect(live.since()).toHaveLength(3)
  })

  it('waits for a runs directory that does not exist yet, then switches to each new run', () => {
    const live = follow(join(runs, 'later'))
    expect(live.since().map((e) => e.event)).toEqual([{ type: 'run', runId: null, dir: join(runs, 'later') }])
    mkdirSync(join(runs, 'later', 'r1'), { recursive: true })
    live.tick()
    // A directory without run files is not a run yet.
    expect(types(live.since())).toEqual(['run'])
    writeFileSync(join(runs, 'later', 'r1', 'cells.jsonl'), '')
    live.tick()
    expect(live.since()[0]!.event).toMatchObject({ type: 'run', runId: 'r1' })
    mkdirSync(join(runs, 'later', 'r2'))
    writeFileSync(join(runs, 'later', 'r2', 'trajectories.jsonl'), '')
    live.tick()
    expect(live.since()[0]!.event).toMatchObject({ type: 'run', runId: 'r2' })
  })

  it('replays from an event id while it is in the log, and the whole run otherwise', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1' })
    appendFileSync(join(dir, 'cells.jsonl'), line(cell.start) + line(cell.end()))
    const live = follow(runs)
    const all = live.since()
    expect(types(all)).toEqual(['run', 'cell-start', 'cell-end'])
    expect(live.since(all[1]!.id)).toEqual([all[2]])
    expect(live.since(all[2]!.id)).toEqual([])
    expect(live.since(999)).toEqual(all)
    // A rewritten file starts the run over, under new ids.
    writeFileSync(join(dir, 'cells.jsonl'), line(cell.start))
    live.tick()
    expect(types(live.since())).toEqual(['run', 'cell-start'])
    expect(live.since(all[1]!.id)).toEqual(live.since())
  })

  it('follows one run directory given directly, and notices changes through fs.watch', async () => {
    const dir = run('r1')
    const live = new LiveRun(dir, { pollMs: 60_000 })
    runs_.push(live)
    const seen: string[] = []
    live.subscribe(({ event }) => seen.push(event.type))
    live.start()
    run('r2')
    appendFileSync(join(dir, 'cells.jsonl'), line(liveCell({ runId: 'r1' }).start))
    await expect.poll(() => seen, { timeout: 3000 }).toEqual(['cell-start'])
    expect(live.runsDir).toBeNull()
  })
})
