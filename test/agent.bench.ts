// The agent harness's overhead per tool call: actors.agent over actors.openai against a bare
// openai SDK tool loop making the same calls (same tools, same growing conversation, the same
// tool run) on a zero-latency local server over real sockets. Goal: ≤ 1.05×.
//
// Vitest's two bench rows run one after the other, so drift moves their ratio; the paired row
// interleaves the two loops round by round (alternating which goes first) and prints the median
// of the per-round ratios with a seeded bootstrap interval, which is the figure to quote, with the
// harness's extra time per tool call (the median of the rounds' differences over the calls of an
// episode) and the machine's load average, which moves every figure on a shared machine.
//
// The harness is the built package (dist/), loaded natively as Vitest loads an installed
// dependency, as users run it; `npm run build` first (`npm run bench` does), a stale build is an
// error. The paired row also times the sources through Vite's transform, for comparison (the same
// in two runs at load 2.4: 1.187× built against 1.179× from the sources, then 1.119× both).
//
// The paired row also splits the extra time by layer: the same built provider (actors.openai, the
// agent's own model object) driven by a hand-written tool loop, against the bare loop (the provider:
// its retry loop, per-try deadline, limiter, breaker, bounded fetch, redaction and pricing) and
// against the harness (the agent layer: turn records, argument checks, tool limits, usage tally).
//
// SEQK_BENCH_MAX_RATIO=1.05 makes the claim a check: the paired row fails when the interval's
// lower end is above it (the harness is then slower than that beyond the noise of this run);
// SEQK_BENCH_ROUNDS sets the paired rounds (default 100).
//
//   npm run build && npx vitest bench --run --project integration test/agent.bench.ts
import { loadavg } from 'node:os'
import OpenAI from 'openai'
import { z } from 'zod'
import { afterAll, beforeAll, bench, describe } from 'vitest'
import * as source from '../src/index.js'
import type { CallContext, ChatModel, ToolDefinition, ToolTurn } from '../src/index.js'
import { bootstrapInterval } from '../src/metrics/index.js'
import { startTestServer, type TestServer } from '../src/testing/index.js'
import { built } from './built-package.js'

/** Tool calls per episode, then an answer. */
const CALLS = 5
const ROUNDS = process.env.SEQK_BENCH_ROUNDS ? Number(process.env.SEQK_BENCH_ROUNDS) : 100
const KEY = 'bench-key'
const MAX_RATIO = process.env.SEQK_BENCH_MAX_RATIO ? Number(process.env.SEQK_BENCH_MAX_RATIO) : undefined

let server: TestServer
let sdk: OpenAI
/** The harness as users run it (the built package), and the same from the sources through Vite. */
let agent: ChatModel
let agentFromSource: ChatModel
/** The built agent's own model: what the provider-only loop drives. */
let provider: ChatModel
const run = ({ i }: { i: number }) => `step ${i} done`
const context: CallContext = { role: 'actor', taskId: 't', attempt: 1, repeat: 0, protocol: 'sequential' }
const prompt = 'Take five steps, then say done.'

beforeAll(async () => {
  server = await startTestServer({
    responder: (request) => {
      const done = request.toolResults?.length ?? 0
      return done < CALLS ? { text: '', toolCalls: [{ name: 'step', arguments: { i: done } }] } : 'done'
    },
  })
  sdk = new OpenAI({ apiKey: KEY, baseURL: server.openaiBaseURL, maxRetries: 0 })
  const harnessOf = ({ actors, tool }: typeof source, model: ChatModel) =>
    actors.agent({
      model,
      tools: [tool({ name: 'step', description: 'Takes a step.', parameters: z.object({ i: z.number() }), run })],
      maxSteps: CALLS + 1,
    })
  const modelOf = ({ actors }: typeof source) =>
    actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.openaiBaseURL })
  const builtPackage = await built<typeof source>('index.js')
  provider = modelOf(builtPackage)
  agent = harnessOf(builtPackage, provider)
  agentFromSource = harnessOf(source, modelOf(source))
})
afterAll(async () => {
  await server.close()
})

const parameters = {
  type: 'object',
  properties: { i: { type: 'number' } },
  required: ['i'],
  additionalProperties: false,
}

/** What a user writes without the harness: call, run the tools, send the results, until an answer. */
async function bareLoop(): Promise<string> {
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }]
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'step', description: 'Takes a step.', parameters } },
  ]
  for (;;) {
    const completion = await sdk.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
    const message = completion.choices[0]!.message
    const calls = message.tool_calls ?? []
    if (calls.length === 0) return message.content ?? ''
    messages.push({ role: 'assistant', content: message.content, tool_calls: calls })
    for (const call of calls) {
      if (call.type !== 'function') continue
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: run(JSON.parse(call.function.arguments) as { i: number }),
      })
    }
  }
}

const definitions: ToolDefinition[] = [{ name: 'step', description: 'Takes a step.', parameters }]

/** The provider alone: the agent's model driven by a hand-written tool loop (what actors.agent adds is not run). */
async function providerLoop(): Promise<string> {
  const messages = [{ role: 'user' as const, content: prompt }]
  const turns: ToolTurn[] = []
  for (;;) {
    const response = await provider.chat({ messages, context, tools: definitions, turns })
    const calls = response.toolCalls ?? []
    if (calls.length === 0) return response.text
    turns.push({ role: 'assistant', text: response.text, toolCalls: calls })
    for (const call of calls)
      turns.push({
        role: 'tool',
        callId: call.id,
        name: call.name,
        content: run(JSON.parse(call.arguments) as { i: number }),
        isError: false,
      })
  }
}

async function harnessWith(actor: ChatModel): Promise<string> {
  const response = await actor.chat({ messages: [{ role: 'user', content: prompt }], context })
  if (response.episode?.endedBy !== 'answer') throw new Error(`the bench episode ended by ${response.episode?.endedBy}`)
  return response.text
}
const harness = () => harnessWith(agent)
const harnessFromSource = () => harnessWith(agentFromSource)

function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y)
  return sorted[Math.floor(sorted.length / 2)]!
}

async function timed(loop: () => Promise<string>): Promise<number> {
  const started = performance.now()
  if ((await loop()) !== 'done') throw new Error('the bench episode did not answer "done"')
  return performance.now() - started
}

describe('agent overhead per tool call (5 calls and an answer per episode)', () => {
  bench('bare openai SDK tool loop', async () => void (await timed(bareLoop)), { iterations: 30, warmupIterations: 5 })
  bench('actors.agent over actors.openai', async () => void (await timed(harness)), {
    iterations: 30,
    warmupIterations: 5,
  })
  bench(
    'paired: harness ÷ bare, median of interleaved rounds',
    async () => {
      const ratios: number[] = []
      const sourceRatios: number[] = []
      const providerRatios: number[] = []
      const agentLayerRatios: number[] = []
      const extras: number[] = []
      const bares: number[] = []
      const harnesses: number[] = []
      const loadBefore = loadavg()[0]!
      for (let round = 0; round < ROUNDS; round++) {
        const harnessFirst = round % 2 === 0
        const a = harnessFirst ? await timed(harness) : 0
        const bare = await timed(bareLoop)
        const b = harnessFirst ? a : await timed(harness)
        sourceRatios.push((await timed(harnessFromSource)) / bare)
        const providerOnly = await timed(providerLoop)
        providerRatios.push(providerOnly / bare)
        agentLayerRatios.push(b / providerOnly)
        ratios.push(b / bare)
        extras.push((b - bare) / CALLS)
        bares.push(bare)
        harnesses.push(b)
        server.reset()
      }
      const loadAfter = loadavg()[0]!
      const median = medianOf(ratios)
      const interval = bootstrapInterval(
        ratios.map((r) => [r]),
        (rows) => medianOf(rows.flat()),
        { seed: 32, resamples: 1000 },
      )
      console.log(
        [
          `agent harness ÷ bare SDK tool loop, per tool call (${CALLS} per episode, and an answer): median ${median.toFixed(3)}× (95% ${interval.lo.toFixed(3)}–${interval.hi.toFixed(3)}) over ${ROUNDS} interleaved rounds`,
          `  the sources through Vite's transform instead of the built package: median ${medianOf(sourceRatios).toFixed(3)}×`,
          `  by layer: the provider alone (actors.openai in a hand-written tool loop) ÷ bare ${medianOf(providerRatios).toFixed(3)}×, the harness ÷ the provider alone ${medianOf(agentLayerRatios).toFixed(3)}×`,
          `  episode medians: bare ${medianOf(bares).toFixed(2)} ms, harness ${medianOf(harnesses).toFixed(2)} ms; the harness's extra per tool call ${(medianOf(extras) * 1000).toFixed(0)} µs; load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)} (2 cores)`,
        ].join('\n'),
      )
      if (MAX_RATIO !== undefined && interval.lo > MAX_RATIO)
        throw new Error(
          `the agent harness costs ${median.toFixed(3)}× a bare SDK tool loop (95% ${interval.lo.toFixed(3)}–${interval.hi.toFixed(3)}), over SEQK_BENCH_MAX_RATIO=${MAX_RATIO}`,
        )
    },
    { iterations: 1, warmupIterations: 0 },
  )
})
