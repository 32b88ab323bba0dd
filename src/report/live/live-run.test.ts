import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { line, liveCell } from '../../../test/live-fixtures.js'
import { shardOfTask } from '../../protocol/shard.js'
import type { LiveSnapshot, UpdateEvent } from './events.js'
import { LiveRun, newestRun } from './live-run.js'
import { liveView } from './view.js'

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
  const state = (live: LiveRun): LiveSnapshot => live.snapshot().snapshot
  const run = (id: string, at?: number): string => {
    const dir = join(runs, id)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'cells.jsonl'), '')
    if (at !== undefined) for (const p of [dir, join(dir, 'cells.jsonl')]) utimesSync(p, at, at)
    return dir
  }
  const plan = (
    dir: string,
    runId: string,
    cells: { benchmark: string; cellId: string; trajectories: number }[],
    files = ['a.eval.ts', 'b.eval.ts'],
  ) => {
    appendFileSync(
      join(dir, 'plan.jsonl'),
      line({ schema: 'seqk.plan/1', type: 'files', runId, files }) +
        line({ schema: 'seqk.plan/1', type: 'file', runId, file: 'a.eval.ts', cells }),
    )
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
    expect([live.runsDir, state(live).runId, state(live).dir]).toEqual([
      runs,
      '20260102-000000-bbbbbb',
      join(runs, '20260102-000000-bbbbbb'),
    ])
  })

  it('shows a skipped cell as skipped with its reason and "not run", never planned for ever', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1', tasks: ['a', 'b'] })
    plan(dir, 'r1', [
      { benchmark: cell.start.benchmark, cellId: cell.start.cellId, trajectories: 2 },
      { benchmark: cell.start.benchmark, cellId: 'openai:gpt · binary', trajectories: 2 },
    ])
    const skip = (cellId: string) =>
      line({
        schema: 'seqk.plan/1',
        type: 'skipped',
        runId: 'r1',
        file: 'a.eval.ts',
        benchmark: cell.start.benchmark,
        cellId,
        reason: 'openai:gpt: OPENAI_API_KEY is not set',
      })
    appendFileSync(join(dir, 'plan.jsonl'), skip('openai:gpt · binary'))
    // A cell that started keeps its own lines, whatever a later skip record says (a resume skipping it).
    appendFileSync(join(dir, 'cells.jsonl'), line(cell.start))
    appendFileSync(join(dir, 'plan.jsonl'), skip(cell.start.cellId))
    const live = follow(runs)
    const rows = liveView(state(live)).cells
    expect(rows.map((r) => [r.cellId, r.phase, r.state, r.verdict])).toEqual([
      [cell.start.cellId, 'running', 'running', ''],
      ['openai:gpt · binary', 'skipped', 'skipped: openai:gpt: OPENAI_API_KEY is not set', 'not run'],
    ])
  })

  it('counts the planned total of every loaded cell from the start, and files still loading', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1', tasks: ['a', 'b', 'c'], repeats: 2 })
    plan(dir, 'r1', [
      { benchmark: cell.start.benchmark, cellId: cell.start.cellId, trajectories: 6 },
      { benchmark: cell.start.benchmark, cellId: 'other · binary', trajectories: 234 },
    ])
    const live = follow(runs)
    expect(liveView(state(live)).badge.text).toBe('running · 0 of at least 240 trajectories (1 file still loading)')
    appendFileSync(
      join(dir, 'plan.jsonl'),
      line({
        schema: 'seqk.plan/1',
        type: 'load-error',
        runId: 'r1',
        file: 'b.eval.ts',
        error: 'SyntaxError: Unexpected token',
      }),
    )
    appendFileSync(join(dir, 'cells.jsonl'), line(cell.start))
    appendFileSync(join(dir, 'trajectories.jsonl'), line(cell.trajectory('a', 0, 'solved')))
    live.tick()
    const view = liveView(state(live))
    expect(view.badge.text).toBe('running · 1 of 240 trajectories')
    expect(view.loadErrors).toEqual(['b.eval.ts failed to load: SyntaxError: Unexpected token'])
    expect(view.cells.map((c) => [c.cellId, c.count, c.state])).toEqual([
      [cell.start.cellId, '1/6', 'running'],
      ['other · binary', '0/234', 'planned'],
    ])
  })

  it('turns lines into one update per read, counting a rerun trajectory once', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1', tasks: ['a', 'b', 'c'], repeats: 2 })
    const live = follow(runs)
    const before = live.snapshot().id
    appendFileSync(join(dir, 'cells.jsonl'), line(cell.start))
    appendFileSync(
      join(dir, 'trajectories.jsonl'),
      line(cell.trajectory('a', 0, 'solved')) + line(cell.trajectory('b', 0, 'error', 'HTTP 503 from the endpoint')),
    )
    live.tick()
    const events = live.since(before)
    expect(events).toHaveLength(1)
    const update = events[0]!.event as UpdateEvent
    expect(update.cells?.[0]).toMatchObject({
      cellId: cell.start.cellId,
      progress: { done: 2, total: 6, solved: 1, errored: 1 },
    })
    expect(update.errors?.[0]).toMatchObject({
      taskId: 'b',
      error: { stage: 'actor', message: 'HTTP 503 from the endpoint' },
    })
    // A resumed run reruns the errored one: still 2 done, now no errors.
    appendFileSync(join(dir, 'trajectories.jsonl'), line(cell.trajectory('b', 0, 'failed')))
    live.tick()
    expect(state(live).cells[0]!.progress).toMatchObject({ done: 2, solved: 1, failed: 1, errored: 0 })
    expect(live.page(state(live).cells[0]!.key, 0, 10)).toMatchObject({
      total: 2,
      items: [
        { taskId: 'a', status: 'solved' },
        { taskId: 'b', status: 'failed' },
      ],
    })
  })

  it('shows a cell a resume kept whole as kept, with its time in the run it was kept from', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1', tasks: ['a'], repeats: 1 })
    appendFileSync(
      join(dir, 'cells.jsonl'),
      line(cell.start) + line({ ...cell.end(12_300), verdict: 'pass', failedChecks: 0 }),
    )
    appendFileSync(join(dir, 'trajectories.jsonl'), line(cell.trajectory('a', 0, 'solved')))
    // The resume: the cell starts again, keeps its one trajectory and ends at once.
    appendFileSync(
      join(dir, 'cells.jsonl'),
      line(cell.start) + line({ ...cell.end(3), kept: 1, verdict: 'pass', failedChecks: 0 }),
    )
    const row = liveView(state(follow(runs))).cells[0]!
    expect([row.phase, row.state, row.verdict, row.count]).toEqual([
      'kept',
      'kept from the earlier run (ended in 12.3 s then)',
      'pass',
      '1/1',
    ])
  })

  it('says the verifier is unstable as the summary will: a reported flip from the start record, an unmodified revision with another verdict as it arrives', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1', tasks: ['a', 'b'], repeats: 1 })
    // The report names b and a task of another cell; only b is this cell's.
    appendFileSync(join(dir, 'cells.jsonl'), line({ ...cell.start, knownUnstable: ['b', 'elsewhere'] }))
    const live = follow(runs)
    const row = () => liveView(state(live)).cells[0]!
    expect(row().unstable).toBe(
      `verifier unstable, ${cell.start.cellId}: the stability report saw 1 reference flip (b); a pass or failure on it may not reproduce (seqk stability)`,
    )
    const base = cell.trajectory('a', 0, 'failed')
    const attempt = base.attempts[0]!
    const twice = (unmodified: boolean) => ({
      ...base,
      attempts: [
        { ...attempt, index: 1, verdict: { ...attempt.verdict, pass: false } },
        { ...attempt, index: 2, unmodified, verdict: { ...attempt.verdict, pass: true } },
      ],
    })
    // A changed answer that passes says nothing about the verifier; the same answer that passes does.
    appendFileSync(join(dir, 'trajectories.jsonl'), line(twice(false)))
    live.tick()
    expect(row().unstable).toMatch(/the stability report saw 1 reference flip \(b\); a pass/)
    appendFileSync(join(dir, 'trajectories.jsonl'), line(twice(true)))
    live.tick()
    expect(row().unstable).toBe(
      `verifier unstable, ${cell.start.cellId}: 1 task gave one answer two verdicts in this run (a); the stability report saw 1 reference flip (b); a pass or failure on them may not reproduce (seqk stability)`,
    )
    const plain = liveCell({ runId: 'r1', benchmark: 'other', tasks: ['a'], repeats: 1 })
    appendFileSync(join(dir, 'cells.jsonl'), line(plain.start))
    live.tick()
    expect(liveView(state(live)).cells[1]!.unstable).toBe('')
  })

  it('counts only the shard share of a sharded cell', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1', tasks: Array.from({ length: 20 }, (_, i) => `task-${i}`), repeats: 3 })
    appendFileSync(join(dir, 'cells.jsonl'), line({ ...cell.start, shard: { index: 1, count: 2 } }))
    const share = cell.start.taskIds.filter((id) => shardOfTask(id, 2) === 1).length
    expect(share).toBeGreaterThan(0)
    expect(share).toBeLessThan(20)
    expect(state(follow(runs)).cells[0]!.progress.total).toBe(share * 3)
  })

  it('reports malformed lines with file and line, and goes on reading', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1' })
    writeFileSync(
      join(dir, 'trajectories.jsonl'),
      `not json\n${line({ ...cell.trajectory('a', 0, 'solved'), status: 'maybe' })}${line(cell.trajectory('a', 0, 'solved'))}`,
    )
    const s = state(follow(runs))
    expect(s.malformed).toEqual([
      { file: join(dir, 'trajectories.jsonl'), line: 1, message: 'not valid JSON; each line must be one trajectory' },
      { file: join(dir, 'trajectories.jsonl'), line: 2, message: expect.stringContaining('status') },
    ])
    expect(s.recent).toHaveLength(1)
  })

  it("shows a batched actor's batches from batches.jsonl: submitted, then each change of status", () => {
    const dir = run('b1')
    const live = follow(runs)
    appendFileSync(
      join(dir, 'batches.jsonl'),
      line({
        schema: 'seqk.batch/1',
        provider: 'OpenAI',
        batchId: 'batch_1',
        items: [
          { customId: 'r1', key: 'k1' },
          { customId: 'r2', key: 'k2' },
        ],
        submittedAt: '2026-12-01T00:00:00.000Z',
      }),
    )
    live.tick()
    expect(state(live).batches).toEqual([
      { provider: 'OpenAI', batchId: 'batch_1', status: 'submitted', done: 0, total: 2 },
    ])
    appendFileSync(
      join(dir, 'batches.jsonl'),
      line({
        schema: 'seqk.batch-status/1',
        provider: 'OpenAI',
        batchId: 'batch_1',
        status: 'in_progress',
        done: 1,
        total: 2,
        at: '2026-12-01T00:00:01.000Z',
      }) + '{"schema": "nope"}\n',
    )
    live.tick()
    expect(state(live).batches).toEqual([
      { provider: 'OpenAI', batchId: 'batch_1', status: 'in_progress', done: 1, total: 2 },
    ])
    expect(state(live).malformed[0]).toMatchObject({
      line: 3,
      message: expect.stringMatching(/not a seqk batch record/),
    })
  })

  it('says when the run ended with its verdict, then when its report is complete', () => {
    const dir = run('r1')
    const live = follow(runs)
    const verdict = {
      status: 'fail',
      cells: { fail: 1, pass: 2, 'no-thresholds': 1, 'not-run': 0, shard: 0 },
      failedChecks: 2,
      reasons: ['b › c: Seq@5 = 40.0%, below the required 50.0%'],
    }
    writeFileSync(
      join(dir, 'summary.json'),
      JSON.stringify({ verdict, loadErrors: [{ file: 'x.eval.ts', error: 'boom' }] }),
    )
    writeFileSync(join(dir, 'report.html'), '<!doctype html><html><body>half')
    live.tick()
    expect(state(live).ended).toEqual({
      report: false,
      verdict: {
        status: 'fail',
        text: '4 cells · 1 failed (1 check) · 1 file failed to load · 2 passed · 1 with no thresholds',
        reasons: verdict.reasons,
      },
    })
    expect(liveView(state(live)).badge).toEqual({ text: 'run ended · fail', kind: 'fail' })
    expect(live.reportPath).toBeNull()
    writeFileSync(join(dir, 'report.html'), '<!doctype html><html><body></body></html>\n')
    live.tick()
    expect(state(live).ended?.report).toBe(true)
    expect(live.reportPath).toBe(join(dir, 'report.html'))
    const id = live.snapshot().id
    live.tick()
    expect(live.snapshot().id).toBe(id)
  })

  it('waits for a runs directory that does not exist yet, then switches to each new run', () => {
    const live = follow(join(runs, 'later'))
    expect([state(live).runId, state(live).dir]).toEqual([null, join(runs, 'later')])
    mkdirSync(join(runs, 'later', 'r1'), { recursive: true })
    live.tick()
    // A directory without run files is not a run yet.
    expect(state(live).runId).toBeNull()
    writeFileSync(join(runs, 'later', 'r1', 'plan.jsonl'), '')
    live.tick()
    expect(state(live).runId).toBe('r1')
    mkdirSync(join(runs, 'later', 'r2'))
    writeFileSync(join(runs, 'later', 'r2', 'trajectories.jsonl'), '')
    live.tick()
    expect(state(live).runId).toBe('r2')
  })

  it('resumes a page from its event id while the log holds it, and sends a snapshot otherwise', () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1' })
    const live = follow(runs)
    const start = live.snapshot().id
    appendFileSync(join(dir, 'cells.jsonl'), line(cell.start))
    live.tick()
    appendFileSync(join(dir, 'cells.jsonl'), line(cell.end()))
    live.tick()
    const all = live.since(start)
    expect(all.map((e) => e.event.type)).toEqual(['update', 'update'])
    expect(live.since(all[0]!.id)).toEqual([all[1]])
    expect(live.since(all[1]!.id)).toEqual([])
    expect(live.since(9999).map((e) => e.event.type)).toEqual(['snapshot'])
    expect(live.since().map((e) => e.event.type)).toEqual(['snapshot'])
    // A rewritten file starts the run over, under a new snapshot.
    writeFileSync(join(dir, 'cells.jsonl'), line(cell.start))
    live.tick()
    expect(live.since(all[1]!.id)[0]!.event.type).toBe('snapshot')
  })

  it('catches up with a big trajectories file in steps, saying how far it read, between requests', async () => {
    const dir = run('r1')
    const cell = liveCell({ runId: 'r1', tasks: Array.from({ length: 4000 }, (_, i) => `t${i}`) })
    appendFileSync(join(dir, 'cells.jsonl'), line(cell.start))
    const padded = (i: number) => ({ ...cell.trajectory(`t${i}`, 0, 'failed'), padding: 'x'.repeat(1000) })
    writeFileSync(join(dir, 'trajectories.jsonl'), Array.from({ length: 4000 }, (_, i) => line(padded(i))).join(''))
    const live = new LiveRun(dir, { pollMs: 60_000 })
    runs_.push(live)
    // Read in part before start(): the rest follows a step at a time.
    expect(state(live).reading).not.toBeNull()
    expect(liveView(state(live)).badge.text).toMatch(/^reading the run · \d+% of its trajectories$/)
    live.start()
    await expect.poll(() => state(live).reading, { timeout: 20_000 }).toBeNull()
    expect(state(live).cells[0]!.progress.done).toBe(4000)
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
    await expect.poll(() => seen, { timeout: 3000 }).toEqual(['update'])
    expect(live.runsDir).toBeNull()
  })
})
