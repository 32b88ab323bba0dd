// Batched actors (issue 19) through the real SDKs against the test server's batch APIs: calls
// that arrive together share one batch, a sequential cell runs in rounds (one batch per attempt
// index) with the per-task outcomes of the unbatched run, batched calls cost the batch price,
// failures inside a batch are retried in the next, an expired batch is resubmitted, a batch past
// its deadline falls back to the normal API, and aborting cancels the batch.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { BATCHES_FILE, useBatchLedger } from '../src/models/batch/ledger.js'
import { TrajectorySchema } from '../src/core/schemas.js'
import { actors, runCell, type CellSpec, type ChatModel, type Task } from '../src/index.js'
import { cellSpec, saysCorrect } from '../src/protocol/test-helpers.js'
import { startTestServer, type TestServer } from '../src/testing/index.js'
import { lastUserMessage } from '../src/testing/responders.js'

// Built at run time: a key-shaped literal in the sources is what secret scanners look for.
const KEY = ['batch', 'test', 'key'].join('-')
const PRICE = { 'openai:gpt-4o-mini': { input: 1, output: 2 }, 'anthropic:claude-sonnet-4-5': { input: 3, output: 15 } }
const fast = { retry: { baseDelayMs: 1, maxDelayMs: 5 }, timeoutMs: 5000, prices: PRICE }
const batch = { pollMs: 5, gatherMs: 40 }

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ batches: { delayMs: 20 } })
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  // Even tasks right at once; odd ones right after feedback.
  server.respondWith((r) =>
    r.messages.some((m) => /incorrect/.test(m.content))
      ? 'CORRECT now'
      : /Task \d*[02468]\b/.test(lastUserMessage(r))
        ? 'CORRECT'
        : 'WRONG',
  )
})

const tasks: Task[] = Array.from({ length: 6 }, (_, i) => ({ id: `t${i}`, prompt: `Task ${i}: say it.` }))
const verifier = saysCorrect
const spec = (actor: ChatModel): CellSpec =>
  cellSpec(tasks, actor, { runId: 'batch', benchmark: 'batch', verifier, concurrency: 16 })

const models = {
  openai: (extra: object = {}) =>
    actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.openaiBaseURL, ...fast, ...extra }),
  anthropic: (extra: object = {}) =>
    actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL: server.anthropicBaseURL, ...fast, ...extra }),
}
const ask = (model: ChatModel, text: string, signal?: AbortSignal) =>
  model.chat({
    messages: [{ role: 'user', content: text }],
    context: { role: 'actor', taskId: text, attempt: 1, repeat: 0, protocol: 'independent' },
    ...(signal ? { signal } : {}),
  })

describe.each(Object.keys(models) as (keyof typeof models)[])('%s with batch', (name) => {
  it('runs a Seq@K cell in rounds, one batch per attempt, with the outcomes of the unbatched run at half the cost', async () => {
    const direct = await runCell(spec(models[name]()))
    server.reset()
    const batched = await runCell(spec(models[name]({ batch })))
    const outcomes = (r: typeof direct) => r.trajectories.map((t) => [t.taskId, t.firstSuccess]).sort()
    expect(outcomes(batched)).toEqual(outcomes(direct))
    expect(batched.summary.seqAt).toEqual(direct.summary.seqAt)
    // Round 1: every task's first attempt; round 2: the three odd tasks' revisions.
    expect(server.batches().map((b) => b.customIds.length)).toEqual([6, 3])
    expect(server.requests.every((r) => r.batch !== undefined)).toBe(true)
    expect(batched.summary.costUsd! / direct.summary.costUsd!).toBeCloseTo(0.5, 10)
    // Every call says it was batched, with its list price (the artifacts keep both).
    const attempts = batched.trajectories.flatMap((t) => t.attempts)
    expect(
      attempts.every(
        (a) =>
          a.batched === true && a.costUsdAtListPrice! > 0 && Math.abs(a.costUsd! - a.costUsdAtListPrice! / 2) < 1e-15,
      ),
    ).toBe(true)
    expect(direct.trajectories.flatMap((t) => t.attempts).some((a) => 'batched' in a)).toBe(false)
    for (const t of batched.trajectories) TrajectorySchema.parse(t)
    // The summary shows the saving against the same calls at list price; the unbatched one has no batch block.
    expect(batched.summary.batch).toMatchObject({ calls: 9 })
    expect(batched.summary.batch!.listCostUsd).toBeCloseTo(direct.summary.costUsd!, 12)
    expect(batched.summary.batch!.savedUsd).toBeCloseTo(direct.summary.costUsd! / 2, 12)
    expect(direct.summary.batch).toBeUndefined()
  })

  it("sends all of an independent cell's samples in one batch, with the unbatched Pass@k", async () => {
    const independent = (actor: ChatModel): CellSpec => ({
      ...spec(actor),
      cellId: `${actor.id} · independent`,
      mode: null,
    })
    const direct = await runCell(independent(models[name]()))
    server.reset()
    const batched = await runCell(independent(models[name]({ batch })))
    expect(batched.summary.passAt).toEqual(direct.summary.passAt)
    expect(batched.trajectories.map((t) => t.attempts.map((a) => a.index))).toEqual(
      direct.trajectories.map((t) => t.attempts.map((a) => a.index)),
    )
    expect(server.batches().map((b) => b.customIds.length)).toEqual([6 * 3])
  })

  it('answers calls that arrive together in one batch, priced at the batch share, saying so', async () => {
    const model = models[name]({ batch })
    const answers = await Promise.all(['Task 0', 'Task 2', 'Task 4'].map((t) => ask(model, t)))
    expect(answers.map((a) => a.text)).toEqual(['CORRECT', 'CORRECT', 'CORRECT'])
    expect(server.batches()).toHaveLength(1)
    for (const a of answers) {
      expect(a.batched).toBe(true)
      expect(a.costUsd).toBeCloseTo(a.costUsdAtListPrice! / 2, 12)
    }
  })

  it('retries a request that failed inside its batch in the next batch', async () => {
    server.injectFaults({
      kind: 'status',
      status: 500,
      times: 1,
      match: (r) => r.batch !== undefined && lastUserMessage(r) === 'Task 2',
    })
    const model = models[name]({ batch })
    const answers = await Promise.all(['Task 0', 'Task 2'].map((t) => ask(model, t)))
    expect(answers.map((a) => a.text)).toEqual(['CORRECT', 'CORRECT'])
    expect(server.batches().map((b) => b.customIds.length)).toEqual([2, 1])
  })

  it('sends a call whose batch passed its deadline through the normal API, at the normal price, and cancels the batch', async () => {
    const slow = await startTestServer({ batches: { delayMs: 60_000 }, responder: () => 'CORRECT' })
    try {
      const model =
        name === 'openai'
          ? actors.openai({
              model: 'gpt-4o-mini',
              apiKey: KEY,
              baseURL: slow.openaiBaseURL,
              ...fast,
              batch: { ...batch, deadlineMs: 150 },
            })
          : actors.anthropic({
              model: 'claude-sonnet-4-5',
              apiKey: KEY,
              baseURL: slow.anthropicBaseURL,
              ...fast,
              batch: { ...batch, deadlineMs: 150 },
            })
      const answer = await ask(model, 'Task 0')
      expect(answer.text).toBe('CORRECT')
      // Said in the call's record: a batched model's call that went direct.
      expect(answer.batched).toBe(false)
      expect(answer.costUsdAtListPrice).toBeUndefined()
      expect(slow.requests.map((r) => r.batch === undefined)).toEqual([false, true])
      expect(slow.batches().map((b) => b.status)).toEqual([name === 'openai' ? 'cancelled' : 'ended'])
    } finally {
      await slow.close()
    }
  })

  it('resubmits the requests of an expired batch', async () => {
    let first = true
    const expiring = await startTestServer({
      batches: { expireAfterMs: 100 },
      responder: () => {
        if (!first) return 'CORRECT'
        first = false
        return { text: 'late', delayMs: 5000 }
      },
    })
    try {
      const model =
        name === 'openai'
          ? actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: expiring.openaiBaseURL, ...fast, batch })
          : actors.anthropic({
              model: 'claude-sonnet-4-5',
              apiKey: KEY,
              baseURL: expiring.anthropicBaseURL,
              ...fast,
              batch,
            })
      const answer = await ask(model, 'Task 0')
      expect(answer.text).toBe('CORRECT')
      expect(answer.batched).toBe(true)
      expect(expiring.batches().map((b) => b.status)).toEqual([
        name === 'openai' ? 'expired' : 'ended',
        name === 'openai' ? 'completed' : 'ended',
      ])
    } finally {
      await expiring.close()
    }
  })

  it('cancels the batch when every call of it is aborted', async () => {
    const slow = await startTestServer({ batches: { delayMs: 60_000 }, responder: () => 'CORRECT' })
    try {
      const model =
        name === 'openai'
          ? actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: slow.openaiBaseURL, ...fast, batch })
          : actors.anthropic({
              model: 'claude-sonnet-4-5',
              apiKey: KEY,
              baseURL: slow.anthropicBaseURL,
              ...fast,
              batch,
            })
      const controller = new AbortController()
      const pending = ask(model, 'Task 0', controller.signal)
      // Aborted once the batch exists, and then cancelled: conditions polled, not sleeps.
      await vi.waitFor(() => expect(slow.batches()).toHaveLength(1), { timeout: 20_000, interval: 10 })
      controller.abort(new Error('test ended'))
      await expect(pending).rejects.toThrow(/test ended/)
      await vi.waitFor(
        () => expect(slow.batches().map((b) => b.status)).toEqual([name === 'openai' ? 'cancelled' : 'ended']),
        { timeout: 20_000, interval: 10 },
      )
    } finally {
      await slow.close()
    }
  })

  it('a run killed mid-batch and resumed collects that batch instead of paying twice', async () => {
    const slow = await startTestServer({ batches: { delayMs: 300 }, responder: () => 'CORRECT' })
    const dir = mkdtempSync(join(tmpdir(), 'seqk-batch-resume-'))
    useBatchLedger(() => join(dir, BATCHES_FILE))
    const make = () =>
      name === 'openai'
        ? actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: slow.openaiBaseURL, ...fast, batch })
        : actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL: slow.anthropicBaseURL, ...fast, batch })
    try {
      // The first run submits its batch and dies: nobody reads the batch's results.
      void ask(make(), 'Task 0').catch(() => undefined)
      // Until the batch is created and on record (a condition, not a sleep: under load either takes a while).
      await vi.waitFor(
        () => {
          expect(slow.batches()).toHaveLength(1)
          const ledger = join(dir, BATCHES_FILE)
          expect(existsSync(ledger) ? readFileSync(ledger, 'utf8') : '').toContain(slow.batches()[0]!.id)
        },
        { timeout: 20_000, interval: 10 },
      )
      // Resumed (a new model, a new gatherer, the same run directory): the same call waits on that batch.
      const answer = await ask(make(), 'Task 0')
      expect(answer.text).toBe('CORRECT')
      expect(answer.batched).toBe(true)
      expect(slow.batches()).toHaveLength(1)
      expect(slow.requests).toHaveLength(1)
    } finally {
      useBatchLedger(undefined)
      rmSync(dir, { recursive: true, force: true })
      await slow.close()
    }
  })

  it('records a batched call in a cassette and replays it per request, batched and at its batch price, with no HTTP call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-batch-cassette-'))
    try {
      const recorded = await ask(models[name]({ batch, cassette: { mode: 'record', dir } }), 'Task 0')
      expect(recorded.batched).toBe(true)
      const before = server.requests.length
      const replayed = await ask(models[name]({ batch, cassette: { mode: 'replay', dir } }), 'Task 0')
      expect(server.requests.length).toBe(before)
      expect(replayed).toMatchObject({
        text: recorded.text,
        replayed: true,
        batched: true,
        costUsd: recorded.costUsd,
        costUsdAtListPrice: recorded.costUsdAtListPrice,
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  const on = (srv: TestServer, extra: object) =>
    name === 'openai'
      ? actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: srv.openaiBaseURL, ...fast, ...extra })
      : actors.anthropic({ model: 'claude-sonnet-4-5', apiKey: KEY, baseURL: srv.anthropicBaseURL, ...fast, ...extra })
  const sixTasks = ['Task 0', 'Task 2', 'Task 4', 'Task 6', 'Task 8', 'Task 10']

  it('a malformed and a missing line in the results re-ask those two requests alone; the answered four are never sent again', async () => {
    // Before: one malformed line failed the whole batch, every request was resubmitted, each retry
    // a batch of its own (27–30 batches for 6 requests, all errored, answered requests paid again).
    const hostile = await startTestServer({
      responder: () => 'CORRECT',
      // Only a batch's first results file: the line of its second request cut, the third's dropped.
      batches: {
        rewriteResults: (lines) => (lines.length < 6 ? lines : [lines[0]!, lines[1]!.slice(0, 40), ...lines.slice(3)]),
      },
    })
    onTestFinished(() => hostile.close())
    const model = on(hostile, { batch })
    const answers = await Promise.all(sixTasks.map((t) => ask(model, t)))
    expect(answers.map((a) => [a.text, a.batched])).toEqual(Array(6).fill(['CORRECT', true]))
    expect(hostile.batches().map((b) => b.customIds.length)).toEqual([6, 2])
    // Each request answered once, but the two whose answers could not be read.
    const perRequest = new Map<string, number>()
    for (const r of hostile.requests) perRequest.set(lastUserMessage(r), (perRequest.get(lastUserMessage(r)) ?? 0) + 1)
    expect([...perRequest.values()].sort()).toEqual([1, 1, 1, 1, 2, 2])
  })

  // The two tests below count on timeoutMs for the stalled polls only: at 1.5 s the calls that must
  // be answered (the upload, the batch, the direct calls) are, at a load of 25 as well. At 200-300 ms
  // a loaded machine timed those out too (a second batch, a direct call retried, the endpoint taken
  // for down). No upper bound on the time: a poll that never times out (the regression) stalls
  // until the test's own timeout.
  it('a status poll that stalls is a retried timeout: the batch completes after two timeouts', async () => {
    // Before: timeoutMs did not apply to polls, and the batch waited for the cell's timeout.
    const stalling = await startTestServer({ responder: () => 'CORRECT', batches: { stallPolls: 2 } })
    onTestFinished(() => stalling.close())
    const model = on(stalling, { batch, timeoutMs: 1500 })
    const started = performance.now()
    const answers = await Promise.all(sixTasks.slice(0, 3).map((t) => ask(model, t)))
    expect(answers.map((a) => [a.text, a.batched])).toEqual(Array(3).fill(['CORRECT', true]))
    expect(stalling.batches()).toHaveLength(1)
    expect(stalling.requests).toHaveLength(3)
    // Timers never fire early: each stalled poll was waited out, then retried.
    expect(performance.now() - started).toBeGreaterThanOrEqual(2 * 1500)
  })

  it('a batch whose polls keep failing is cancelled after maxRetries + 1 polls and its calls go direct', async () => {
    // Exactly maxRetries + 1 polls stall: a fourth would be answered (the batch in progress for a
    // minute) and the calls would wait on the batch instead of going direct.
    const stalling = await startTestServer({
      responder: () => 'CORRECT',
      batches: { stallPolls: 3, delayMs: 60_000 },
    })
    onTestFinished(() => stalling.close())
    const model = on(stalling, { batch, timeoutMs: 1500, retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 10 } })
    const started = performance.now()
    const answers = await Promise.all(sixTasks.slice(0, 3).map((t) => ask(model, t)))
    expect(answers.map((a) => [a.text, a.batched])).toEqual(Array(3).fill(['CORRECT', false]))
    // Three polls, each waited out (timers never fire early), before the calls went direct.
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * 1500)
    expect(stalling.batches().map((b) => b.status)).toEqual([name === 'openai' ? 'cancelled' : 'ended'])
    // Each of the three asked directly (once, or again after a retryable failure on a loaded machine).
    const direct = stalling.requests.filter((r) => r.batch === undefined).map(lastUserMessage)
    expect([...new Set(direct)].sort()).toEqual(sixTasks.slice(0, 3).sort())
  })

  it('a results file over batch.maxResultsBytes fails its calls, naming the cap', async () => {
    const big = await startTestServer({ responder: () => 'CORRECT '.repeat(200) })
    onTestFinished(() => big.close())
    const model = on(big, { batch: { ...batch, maxResultsBytes: 2048 }, retry: { maxRetries: 0 } })
    const errors = await Promise.all(
      sixTasks.slice(0, 3).map((t) =>
        ask(model, t).then(
          () => new Error('answered'),
          (e: unknown) => e as Error,
        ),
      ),
    )
    for (const e of errors)
      expect(e.message).toMatch(
        /the batch results \(.*\) is over the 2 kB cap \(batch\.maxResultsBytes\); raise batch\.maxResultsBytes/,
      )
  })
})
