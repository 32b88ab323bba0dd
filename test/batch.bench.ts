// Batched against unbatched (issue 19), with the real SDKs over real sockets against the test
// server: one Seq@K cell of 40 tasks × K = 5 with a priced model, a scripted server (a task is
// solved at the attempt its number says, or never), binary feedback.
// Printed per row: the cell's cost, the batched/unbatched cost ratio (expect 0.50), whether every
// task's first success is the same, the number of batches against the number of rounds (the
// most attempts any trajectory made), and the wall time against rounds × the server's batch
// latency. Each row is one run (exactly `iterations`, no warm-up): the figures are bound by the
// server's batch latency, not by the harness's CPU.
import { bench, describe } from 'vitest'
import { actors, runCell, type ChatModel } from '../src/index.js'
import { cellSpec, saysCorrect } from '../src/protocol/test-helpers.js'
import { startTestServer, type TestServer } from '../src/testing/index.js'
import { lastUserMessage } from '../src/testing/responders.js'

const TASKS = 40
const K = 5
const LATENCY_MS = 250
const KEY = ['bench', 'batch', 'key'].join('-')
const PRICES = {
  'openai:gpt-4o-mini': { input: 0.15, output: 0.6 },
  'anthropic:claude-haiku-4-5': { input: 1, output: 5 },
}
const tasks = Array.from({ length: TASKS }, (_, i) => ({
  id: `t${i}`,
  prompt: `Task ${i}: solve it. ${'context '.repeat(50)}`,
}))
// Task i is solved at attempt (i % 6) + 1; 6 means never within K = 5.
const solvedAt = (i: number) => (i % 6) + 1
const verifier = saysCorrect
const respond = (server: TestServer) =>
  server.respondWith((r) => {
    const i = Number(/Task (\d+)/.exec(r.messages.find((m) => m.role === 'user')?.content ?? '')?.[1])
    const attempt = r.messages.filter((m) => m.role === 'assistant').length + 1
    return attempt >= solvedAt(i)
      ? `CORRECT for task ${i}`
      : `attempt ${attempt}: ${lastUserMessage(r).length} chars read`
  })

async function compare(provider: 'openai' | 'anthropic'): Promise<void> {
  const server = await startTestServer({ batches: { delayMs: LATENCY_MS } })
  try {
    respond(server)
    const make = (batch: boolean): ChatModel =>
      provider === 'openai'
        ? actors.openai({
            model: 'gpt-4o-mini',
            apiKey: KEY,
            baseURL: server.openaiBaseURL,
            prices: PRICES,
            ...(batch ? { batch: { pollMs: 20, gatherMs: 100 } } : {}),
          })
        : actors.anthropic({
            model: 'claude-haiku-4-5',
            apiKey: KEY,
            baseURL: server.anthropicBaseURL,
            prices: PRICES,
            ...(batch ? { batch: { pollMs: 20, gatherMs: 100 } } : {}),
          })
    const spec = (actor: ChatModel) => cellSpec(tasks, actor, { verifier, budget: K, concurrency: TASKS })
    let started = performance.now()
    const direct = await runCell(spec(make(false)))
    const directSeconds = (performance.now() - started) / 1000
    server.reset()
    respond(server)
    started = performance.now()
    const batched = await runCell(spec(make(true)))
    const batchedSeconds = (performance.now() - started) / 1000
    const outcomes = (r: typeof direct) => JSON.stringify(r.trajectories.map((t) => [t.taskId, t.firstSuccess]).sort())
    const rounds = Math.max(...batched.trajectories.map((t) => t.attempts.length))
    const batches = server.batches().length
    console.log(
      `${provider}: unbatched $${direct.summary.costUsd!.toFixed(6)} in ${directSeconds.toFixed(2)} s; batched $${batched.summary.costUsd!.toFixed(6)} in ${batchedSeconds.toFixed(2)} s; ` +
        `cost ratio ${(batched.summary.costUsd! / direct.summary.costUsd!).toFixed(3)}; same per-task outcomes: ${outcomes(batched) === outcomes(direct)}; ` +
        `${batches} batches for ${rounds} rounds; wall time ${batchedSeconds.toFixed(2)} s against rounds × latency ${((rounds * LATENCY_MS) / 1000).toFixed(2)} s`,
    )
  } finally {
    await server.close()
  }
}

const once = { time: 0, warmupTime: 0, warmupIterations: 0, iterations: 1 }

describe(`batched vs unbatched: ${TASKS} tasks × K=${K}, batch latency ${LATENCY_MS} ms`, () => {
  bench('OpenAI Batch API (chat completions)', () => compare('openai'), once)
  bench('Anthropic Message Batches', () => compare('anthropic'), once)
})
