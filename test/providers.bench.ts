// Two measurements against the local server, with the real openai SDK over real sockets:
// (a) harness overhead: a Seq@K cell (zero-latency server, no-op verifier) against a plain loop
//     making the same SDK calls with the same growing conversations; target ≤ 1.05.
// (b) scheduling: 100 tasks × K = 5 at 100 ms server latency and concurrency 20, against the lower
//     bound max(longest trajectory, calls × latency / concurrency); target ≤ 1.15.
//
// Both measure the package as users run it: built (dist/), and loaded natively as Vitest loads any
// installed dependency (vitest.config.ts externalizes dist/), not src/ through Vite's transform.
// `npm run bench` builds first; a missing or stale build is an error here, never a silent
// measurement of old code. The paired row also times the sources through Vite, for comparison.
//
// For (a), Vitest's two bench rows run one after the other, so warm-up and drift move their ratio
// by ±20% between runs. The paired row interleaves the loops round by round (alternating which
// goes first) and prints the median of the per-round ratios with a seeded bootstrap interval. It
// compares against two baselines: the bare loop, and the same loop passing an abort signal as the
// cell does (a harness must be cancellable; what the SDK spends honouring a signal is its own cost).
// A further loop sends the same conversations through the provider layer alone (actor.chat, no
// protocol), splitting the overhead into the provider layer's and the protocol's.
import { setMaxListeners } from 'node:events'
import OpenAI from 'openai'
import { afterAll, beforeAll, bench, describe } from 'vitest'
import * as source from '../src/index.js'
import type { CellSpec, ChatMessage, ChatModel, Task } from '../src/index.js'
import { bootstrapInterval } from '../src/metrics/index.js'
import type * as callSignalModule from '../src/models/call-signal.js'
import { cellSpec } from '../src/protocol/test-helpers.js'
import { startTestServer, type TestServer } from '../src/testing/index.js'
import { built } from './built-package.js'

type Package = typeof source
type CallSignals = typeof callSignalModule

const K = 5
const FEEDBACK =
  'Your answer is incorrect.\n\nPlease revise your answer and reply with the complete corrected solution.'
const tasksOf = (n: number): Task[] =>
  Array.from({ length: n }, (_, i) => ({ id: `t${i}`, prompt: `Task ${i}: write the function.` }))

/** A sequential binary-feedback cell with a no-op verifier, from `seqk`'s own parts; its interval takes seqEval's default 2000 resamples. */
function cell(seqk: Package, tasks: Task[], actor: ChatModel, concurrency: number): CellSpec {
  return cellSpec(tasks, actor, {
    budget: K,
    concurrency,
    mode: { name: 'binary', feedback: seqk.feedback.binary() },
    history: seqk.fullHistory,
    promptBuilder: seqk.defaultPromptBuilder,
  })
}

let seqk: Package
let signals: CallSignals
let fastServer: TestServer
let slowServer: TestServer
let forgetRequests: NodeJS.Timeout
beforeAll(async () => {
  seqk = await built<Package>('index.js')
  signals = await built<CallSignals>('models/call-signal.js')
  fastServer = await startTestServer({ responder: () => 'answer' })
  slowServer = await startTestServer({ responder: () => ({ text: 'answer', delayMs: 100 }) })
  // The server keeps every request for tests to inspect; thousands of bench calls would only grow the heap.
  forgetRequests = setInterval(() => {
    fastServer.requests.length = 0
  }, 1000)
})
afterAll(async () => {
  clearInterval(forgetRequests)
  await fastServer?.close()
  await slowServer?.close()
})

/** The same SDK calls as the cell makes, in a plain loop; with `signal`, passing one as the cell does. */
async function plainLoop(client: OpenAI, tasks: readonly Task[], signal?: AbortSignal): Promise<void> {
  for (const task of tasks) {
    const messages: ChatMessage[] = [{ role: 'user', content: task.prompt as string }]
    for (let attempt = 1; attempt <= K; attempt++) {
      const completion = await client.chat.completions.create(
        { model: 'gpt-4o-mini', messages },
        signal ? { signal } : undefined,
      )
      messages.push(
        { role: 'assistant', content: completion.choices[0]?.message.content ?? '' },
        { role: 'user', content: FEEDBACK },
      )
    }
  }
}

/** The same conversations through the provider layer alone (retries, limits, cost; no protocol around it). */
async function actorLoop(actor: ChatModel, tasks: readonly Task[], signal: AbortSignal): Promise<void> {
  for (const task of tasks) {
    const messages: ChatMessage[] = [{ role: 'user', content: task.prompt as string }]
    for (let attempt = 1; attempt <= K; attempt++) {
      const response = await actor.chat({
        messages,
        context: { role: 'actor', taskId: task.id, attempt, repeat: 0, protocol: 'sequential' },
        signal,
      })
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

const sdkClient = () =>
  new OpenAI({ apiKey: 'bench', baseURL: fastServer.openaiBaseURL, maxRetries: 0, timeout: 10_000, logLevel: 'off' })
const benchActor = (from: Package) =>
  from.actors.openai({ model: 'gpt-4o-mini', apiKey: 'bench', baseURL: fastServer.openaiBaseURL, concurrency: 1 })

describe(`(a) harness overhead: 10 tasks × K=${K} sequential calls, zero-latency server`, () => {
  const tasks = tasksOf(10)
  bench('plain loop of the same SDK calls (baseline)', () => plainLoop(sdkClient(), tasks), {
    time: 3000,
    warmupIterations: 3,
  })
  bench(
    'runCell with actors.openai',
    async () => {
      await seqk.runCell(cell(seqk, tasks, benchActor(seqk), 1))
    },
    { time: 3000, warmupIterations: 3 },
  )
  bench(
    'paired rounds: runCell / plain loop (printed)',
    async () => {
      const client = sdkClient()
      const actor = benchActor(seqk)
      const sourceActor = benchActor(source)
      // One signal per round, as one test's: each SDK call leaves a listener on it.
      const variants = {
        plain: () => plainLoop(client, tasks),
        plainWithSignal: () => plainLoop(client, tasks, unlimitedSignal()),
        // A trajectory-scope signal, as the cell hands its calls (any other signal gets a linked one per call).
        actorLoop: () => actorLoop(actor, tasks, signals.scopeSignal(undefined).signal),
        cell: () => seqk.runCell(cell(seqk, tasks, actor, 1)),
        cellFromSource: () => source.runCell(cell(source, tasks, sourceActor, 1)),
      }
      const names = Object.keys(variants) as (keyof typeof variants)[]
      for (let i = 0; i < 10; i++) for (const name of names) await variants[name]()
      const ratios: Record<string, { of: keyof typeof variants; to: keyof typeof variants; values: number[] }> = {
        'harness overhead vs plain': { of: 'cell', to: 'plain', values: [] },
        'harness overhead vs plainWithSignal': { of: 'cell', to: 'plainWithSignal', values: [] },
        'harness overhead vs actorLoop (the protocol and the cell)': { of: 'cell', to: 'actorLoop', values: [] },
        'provider layer (actorLoop / plainWithSignal)': { of: 'actorLoop', to: 'plainWithSignal', values: [] },
        'sources through Vite vs plain': { of: 'cellFromSource', to: 'plain', values: [] },
        'built package vs sources through Vite': { of: 'cell', to: 'cellFromSource', values: [] },
      }
      for (let round = 0; round < 150; round++) {
        const took: Partial<Record<keyof typeof variants, number>> = {}
        for (const name of round % 2 ? names : [...names].reverse()) {
          const started = performance.now()
          await variants[name]()
          took[name] = performance.now() - started
        }
        for (const ratio of Object.values(ratios)) ratio.values.push(took[ratio.of]! / took[ratio.to]!)
      }
      const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
      for (const [label, { values }] of Object.entries(ratios)) {
        const ci = bootstrapInterval(values, median, { seed: 1, resamples: 1000 })
        console.log(
          `${label}: median ratio ${ci.point.toFixed(3)} (95% CI ${ci.lo.toFixed(3)}–${ci.hi.toFixed(3)}) over ${values.length} paired rounds of ${tasks.length * K} calls`,
        )
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
      await seqk.runCell(
        cell(
          seqk,
          tasksOf(100),
          seqk.actors.openai({
            model: 'gpt-4o-mini',
            apiKey: 'bench',
            baseURL: slowServer.openaiBaseURL,
            concurrency: 20,
          }),
          20,
        ),
      )
      const wall = performance.now() - started
      const bound = Math.max(K * 100, (100 * K * 100) / 20)
      console.log(`scheduling: wall ${wall.toFixed(0)} ms, lower bound ${bound} ms, ratio ${(wall / bound).toFixed(3)}`)
    },
    { iterations: 2, time: 0, warmupIterations: 0 },
  )
})
