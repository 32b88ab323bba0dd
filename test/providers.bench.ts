// Two measurements against the local server, with the real openai SDK over real sockets:
// (a) harness overhead: a Seq@K cell (zero-latency server, no-op verifier) against a plain loop
//     making the same SDK calls with the same growing conversations; target ≤ 1.05.
// (b) scheduling: 100 tasks × K = 5 at 100 ms server latency and concurrency 20, against the lower
//     bound max(longest trajectory, calls × latency / concurrency); target ≤ 1.15.
//
// For (a), Vitest's two bench rows run one after the other, so warm-up and drift move their ratio
// by ±20% between runs. The paired row interleaves the two loops round by round (alternating which
// goes first) and prints the median of the per-round ratios with a seeded bootstrap interval. It
// compares against two baselines: the bare loop, and the same loop passing an abort signal as the
// cell does (a harness must be cancellable; what the SDK spends honouring a signal is its own cost).
// A fourth loop sends the same conversations through the provider layer alone (actor.chat, no
// protocol), splitting the overhead into the provider layer's and the protocol's.
import { setMaxListeners } from 'node:events'
import OpenAI from 'openai'
import { afterAll, beforeAll, bench, describe } from 'vitest'
import { actors, runCell, type CellSpec, type ChatMessage, type Task } from '../src/index.js'
import { bootstrapInterval } from '../src/metrics/index.js'
import { scopeSignal } from '../src/models/call-signal.js'
import { cellSpec } from '../src/protocol/test-helpers.js'
import { startTestServer, type TestServer } from '../src/testing/index.js'

const K = 5
const FEEDBACK = 'Your answer is incorrect.\n\nPlease revise your answer and reply with the complete corrected solution.'
const tasksOf = (n: number): Task[] => Array.from({ length: n }, (_, i) => ({ id: `t${i}`, prompt: `Task ${i}: write the function.` }))

function cell(tasks: Task[], actor: ReturnType<typeof actors.openai>, concurrency: number): CellSpec {
  return cellSpec(tasks, actor, { budget: K, concurrency })
}

let fastServer: TestServer
let slowServer: TestServer
let forgetRequests: NodeJS.Timeout
beforeAll(async () => {
  fastServer = await startTestServer({ responder: () => 'answer' })
  slowServer = await startTestServer({ responder: () => ({ text: 'answer', delayMs: 100 }) })
  // The server keeps every request for tests to inspect; thousands of bench calls would only grow the heap.
  forgetRequests = setInterval(() => {
    fastServer.requests.length = 0
  }, 1000)
})
afterAll(async () => {
  clearInterval(forgetRequests)
  await fastServer.close()
  await slowServer.close()
})

/** The same SDK calls as the cell makes, in a plain loop; with `signal`, passing one as the cell does. */
async function plainLoop(client: OpenAI, tasks: readonly Task[], signal?: AbortSignal): Promise<void> {
  for (const task of tasks) {
    const messages: ChatMessage[] = [{ role: 'user', content: task.prompt as string }]
    for (let attempt = 1; attempt <= K; attempt++) {
      const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages }, signal ? { signal } : undefined)
      messages.push({ role: 'assistant', content: completion.choices[0]?.message.content ?? '' }, { role: 'user', content: FEEDBACK })
    }
  }
}

/** The same conversations through the provider layer alone (retries, limits, cost; no protocol around it). */
async function actorLoop(actor: ReturnType<typeof actors.openai>, tasks: readonly Task[], signal: AbortSignal): Promise<void> {
  for (const task of tasks) {
    const messages: ChatMessage[] = [{ role: 'user', content: task.prompt as string }]
    for (let attempt = 1; attempt <= K; attempt++) {
      const response = await actor.chat({ messages, context: { role: 'actor', taskId: task.id, attempt, repeat: 0, protocol: 'sequential' }, signal })
      messages.push({ role: 'assistant', content: response.text }, { role: 'user', content: FEEDBACK })
    }
  }
}

/** A fresh signal that may carry a listener per call (the SDK leaves one per request). */
function unlimitedSignal(): AbortSignal {
  const { signal } = new AbortController()
  setMaxListeners(0, signal)
  return signal
}

const sdkClient = () => new OpenAI({ apiKey: 'bench', baseURL: fastServer.openaiBaseURL, maxRetries: 0, timeout: 10_000, logLevel: 'off' })
const benchActor = () => actors.openai({ model: 'gpt-4o-mini', apiKey: 'bench', baseURL: fastServer.openaiBaseURL, concurrency: 1 })

describe(`(a) harness overhead: 10 tasks × K=${K} sequential calls, zero-latency server`, () => {
  const tasks = tasksOf(10)
  bench('plain loop of the same SDK calls (baseline)', () => plainLoop(sdkClient(), tasks), { time: 3000, warmupIterations: 3 })
  bench(
    'runCell with actors.openai',
    async () => {
      await runCell(cell(tasks, benchActor(), 1))
    },
    { time: 3000, warmupIterations: 3 },
  )
  bench(
    'paired rounds: runCell / plain loop (printed)',
    async () => {
      const client = sdkClient()
      const actor = benchActor()
      // One signal per round, as one test's: each SDK call leaves a listener on it.
      const variants = {
        plain: () => plainLoop(client, tasks),
        plainWithSignal: () => plainLoop(client, tasks, unlimitedSignal()),
        // A trajectory-scope signal, as the cell hands its calls (any other signal gets a linked one per call).
        actorLoop: () => actorLoop(actor, tasks, scopeSignal(undefined).signal),
        cell: () => runCell(cell(tasks, actor, 1)),
      }
      const names = Object.keys(variants) as (keyof typeof variants)[]
      for (let i = 0; i < 10; i++) for (const name of names) await variants[name]()
      // cell against each loop; and the provider layer alone against the SDK loop with a signal.
      const ratios = { plain: [] as number[], plainWithSignal: [] as number[], actorLoop: [] as number[], 'provider layer (actorLoop / plainWithSignal)': [] as number[] }
      for (let round = 0; round < 150; round++) {
        const took: Partial<Record<keyof typeof variants, number>> = {}
        for (const name of round % 2 ? names : [...names].reverse()) {
          const started = performance.now()
          await variants[name]()
          took[name] = performance.now() - started
        }
        ratios.plain.push(took.cell! / took.plain!)
        ratios.plainWithSignal.push(took.cell! / took.plainWithSignal!)
        ratios.actorLoop.push(took.cell! / took.actorLoop!)
        ratios['provider layer (actorLoop / plainWithSignal)'].push(took.actorLoop! / took.plainWithSignal!)
      }
      const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
      for (const [baseline, xs] of Object.entries(ratios)) {
        const ci = bootstrapInterval(xs, median, { seed: 1, resamples: 1000 })
        console.log(`${baseline.startsWith('provider') ? baseline : `harness overhead vs ${baseline}`}: median ratio ${ci.point.toFixed(3)} (95% CI ${ci.lo.toFixed(3)}–${ci.hi.toFixed(3)}) over ${xs.length} paired rounds of ${tasks.length * K} calls`)
      }
    },
    { iterations: 1, time: 0, warmupIterations: 0 },
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
