// A cell's cost cap holds on every path a call can take, against the test server (real OpenAI SDK,
// real sockets, every call priced at a known amount): sequential cells and independent cells
// through the batch API, and an agent's episodes. The documented bound: the cap is overshot by at
// most one call per trajectory in flight (the cell's concurrency). Every call made is counted once
// (the server's requests equal the calls recorded), and every trajectory is recorded.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { actors, runCell, tool, type CellResult, type ChatModel } from '../src/index.js'
import { cellSpec, saysCorrect } from '../src/protocol/test-helpers.js'
import { startTestServer, type TestServer } from '../src/testing/index.js'

// Every call: 1000 input and 250 output tokens at $2 / $8 per million = $0.004 ($0.002 batched).
const USAGE = { inputTokens: 1000, outputTokens: 250, cacheReadTokens: 0, cacheWriteTokens: 0 }
const CALL_USD = 0.004
const prices = { 'openai:gpt-4o-mini': { input: 2, output: 8 } }
const fast = { retry: { baseDelayMs: 1, maxDelayMs: 5 }, prices }

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ batches: { delayMs: 20 } })
})
afterAll(() => server.close())
beforeEach(() => server.reset())

const tasks = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}`, prompt: `Task ${i}: say it.` }))
const openai = (extra: object = {}): ChatModel =>
  actors.openai({
    model: 'gpt-4o-mini',
    apiKey: 'cap-paths-key-0123',
    baseURL: server.openaiBaseURL,
    ...fast,
    ...extra,
  })

/** Calls recorded in the trajectories (attempts, episodes' turns, calls of an unfinished attempt). */
function recordedCalls(result: CellResult): number {
  let calls = 0
  for (const t of result.trajectories) {
    for (const a of t.attempts) calls += a.episode ? a.episode.turns.length : 1
    calls += t.error?.calls?.length ?? 0
  }
  return calls
}

/** What a capped cell overshot its cap by, in calls of `callUsd`, with the bound's check. */
function overshoot(result: CellResult, capUsd: number, callUsd: number): number {
  const spent = result.summary.costUsd!
  expect(spent).toBeGreaterThanOrEqual(capUsd - 1e-9)
  return (spent - capUsd) / callUsd
}

describe('a cell cap on every path: overshoot at most one call per trajectory in flight', () => {
  it('sequential, batched: one call per trajectory in flight', async () => {
    server.respondWith(() => ({ text: 'WRONG', usage: USAGE }))
    const concurrency = 16
    const cap = 0.02
    const result = await runCell(
      cellSpec(tasks(40), openai({ batch: { pollMs: 5, gatherMs: 40 } }), {
        verifier: saysCorrect,
        concurrency,
        budget: 3,
        costCap: { cell: { maxCostUsd: cap } },
      }),
    )
    expect(result.trajectories).toHaveLength(40)
    expect(result.trajectories.filter((t) => t.status === 'capped').length).toBeGreaterThan(0)
    expect(overshoot(result, cap, CALL_USD / 2)).toBeLessThanOrEqual(concurrency)
    expect(server.requests.length).toBe(recordedCalls(result))
  })

  it('independent, batched: each trajectory reserves its samples before it submits them', async () => {
    server.respondWith(() => ({ text: 'WRONG', usage: USAGE }))
    const concurrency = 16
    const cap = 0.02
    const result = await runCell(
      cellSpec(tasks(40), openai({ batch: { pollMs: 5, gatherMs: 40 } }), {
        mode: null,
        verifier: saysCorrect,
        concurrency,
        budget: 4,
        costCap: { cell: { maxCostUsd: cap } },
      }),
    )
    expect(result.trajectories).toHaveLength(40)
    // Before: every trajectory in flight submitted its 4 samples at once: 64 calls, 54 over the cap.
    const over = overshoot(result, cap, CALL_USD / 2)
    console.log(`independent batched: ${over.toFixed(1)} calls over the cap (bound ${concurrency})`)
    expect(over).toBeLessThanOrEqual(concurrency)
    expect(server.requests.length).toBe(recordedCalls(result))
  })

  it('independent, batched, far from its cap: the samples still go in few batches, and every one is drawn', async () => {
    server.respondWith(() => ({ text: 'WRONG', usage: USAGE }))
    const result = await runCell(
      cellSpec(tasks(20), openai({ batch: { pollMs: 5, gatherMs: 40 } }), {
        mode: null,
        verifier: saysCorrect,
        concurrency: 20,
        budget: 4,
        costCap: { cell: { maxCostUsd: 10 } },
      }),
    )
    expect(result.trajectories.every((t) => t.status === 'failed' && t.attempts.length === 4)).toBe(true)
    // One sample each until a price is known, then the other three at once: two rounds, not four.
    expect(server.batches().length).toBeLessThanOrEqual(3)
    expect(server.requests.length).toBe(80)
  })

  it('agent: each episode asks before every turn; a stopped episode is capped, its turns counted once', async () => {
    // The model never answers: it calls the tool again on every turn, until maxSteps.
    server.respondWith(() => ({ text: '', usage: USAGE, toolCalls: [{ name: 'note', arguments: { key: 'a' } }] }))
    const note = tool({
      name: 'note',
      description: 'Reads a note.',
      parameters: z.object({ key: z.string() }),
      run: () => 'nothing here',
    })
    const concurrency = 2
    const cap = 0.01
    const result = await runCell(
      cellSpec(tasks(6), actors.agent({ model: openai(), tools: [note], maxSteps: 20 }), {
        verifier: saysCorrect,
        concurrency,
        budget: 2,
        costCap: { cell: { maxCostUsd: cap } },
      }),
    )
    expect(result.trajectories).toHaveLength(6)
    // Before: each episode ran its 20 turns: 40 calls for a cap of 2.5.
    const over = overshoot(result, cap, CALL_USD)
    console.log(`agent: ${over.toFixed(1)} calls over the cap (bound ${concurrency})`)
    expect(over).toBeLessThanOrEqual(concurrency)
    expect(result.trajectories.every((t) => t.status === 'capped')).toBe(true)
    expect(server.requests.length).toBe(recordedCalls(result))
    // The episode stopped mid-way keeps its turns on the capped trajectory, so its cost is in every total.
    const midway = result.trajectories.filter((t) => (t.error?.calls?.length ?? 0) > 0)
    expect(midway.length).toBeGreaterThan(0)
    expect(midway.every((t) => /stopped at the cost cap/.test(t.error!.message))).toBe(true)
  })
})
