// Two measurements against the local server, with the real openai SDK over real sockets:
// (a) harness overhead: a Seq@K cell (zero-latency server, no-op verifier) against a plain loop
//     making the same SDK calls with the same growing conversations; the ratio should be ≤ 1.05.
// (b) scheduling: 100 tasks × K = 5 at 100 ms server latency and concurrency 20, against the lower
//     bound max(longest trajectory, calls × latency / concurrency); the ratio should be ≤ 1.15.
import OpenAI from 'openai'
import { afterAll, beforeAll, bench, describe } from 'vitest'
import { actors, runCell, type CellSpec, type ChatMessage, type Task } from '../src/index.js'
import { cellSpec } from '../src/protocol/test-helpers.js'
import { startTestServer, type TestServer } from '../src/testing/index.js'

const K = 5
const tasksOf = (n: number): Task[] => Array.from({ length: n }, (_, i) => ({ id: `t${i}`, prompt: `Task ${i}: write the function.` }))

function cell(tasks: Task[], actor: ReturnType<typeof actors.openai>, concurrency: number): CellSpec {
  return cellSpec(tasks, actor, { budget: K, concurrency })
}

let fastServer: TestServer
let slowServer: TestServer
beforeAll(async () => {
  fastServer = await startTestServer({ responder: () => 'answer' })
  slowServer = await startTestServer({ responder: () => ({ text: 'answer', delayMs: 100 }) })
})
afterAll(async () => {
  await fastServer.close()
  await slowServer.close()
})

describe(`(a) harness overhead: 10 tasks × K=${K} sequential calls, zero-latency server`, () => {
  const tasks = tasksOf(10)
  bench(
    'plain loop of the same SDK calls (baseline)',
    async () => {
      const client = new OpenAI({ apiKey: 'bench', baseURL: fastServer.openaiBaseURL, maxRetries: 0, timeout: 10_000, logLevel: 'off' })
      for (const task of tasks) {
        const messages: ChatMessage[] = [{ role: 'user', content: task.prompt as string }]
        for (let attempt = 1; attempt <= K; attempt++) {
          const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages })
          messages.push({ role: 'assistant', content: completion.choices[0]?.message.content ?? '' }, { role: 'user', content: 'Your answer is incorrect.\n\nPlease revise your answer and reply with the complete corrected solution.' })
        }
      }
    },
    { time: 3000, warmupIterations: 3 },
  )
  bench(
    'runCell with actors.openai',
    async () => {
      await runCell(cell(tasks, actors.openai({ model: 'gpt-4o-mini', apiKey: 'bench', baseURL: fastServer.openaiBaseURL, concurrency: 1 }), 1))
    },
    { time: 3000, warmupIterations: 3 },
  )
})

describe('(b) scheduling: 100 tasks × K=5 at 100 ms latency, concurrency 20 (lower bound 2.5 s)', () => {
  bench(
    'runCell',
    async () => {
      const started = performance.now()
      await runCell(cell(tasksOf(100), actors.openai({ model: 'gpt-4o-mini', apiKey: 'bench', baseURL: slowServer.openaiBaseURL, concurrency: 20 }), 20))
      const wall = performance.now() - started
      const bound = Math.max(K * 100, (100 * K * 100) / 20)
      console.log(`scheduling: wall ${wall.toFixed(0)} ms, lower bound ${bound} ms, ratio ${(wall / bound).toFixed(3)}`)
    },
    { iterations: 2, time: 0, warmupIterations: 0 },
  )
})
