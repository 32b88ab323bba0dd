// Two figures of a cell against endpoints that push back, with the real openai SDK over real
// sockets (`actors.openaiCompatible` against the local test server):
// (c) throughput under a rate limit: 40 tasks × K = 5 (200 calls, a verifier that never passes, so
//     every trajectory makes all its calls) at concurrency 8, against a server that enforces a
//     token bucket of 20 requests a second and answers 429 with retry-after beyond it. Printed:
//     requests served per second against the allowed rate, and against the most the bucket could
//     have served in the cell's time (burst + rate × t, the honest ceiling); 429s; errored
//     trajectories; and against the lower of the rate and this machine's own pace (the same cell with no
//     limit, just before: under load a 2-core machine may not reach 20 calls a second at all).
//     Target: >= 0.85 of the allowed rate, no errored trajectory. (c2) with whole-second
//     retry-after only, the request rate stated in the 429's headers as both providers do; (c3)
//     without those headers. The test server runs in a child process of its own
//     (test/rate-limit-server.ts; in this process a loop stalled by the client's work or a loaded
//     machine delayed the server's reads too, which idles a bucket of one token whatever the
//     pacing does): a stall of this process's loop now delays the client's starts only, as it
//     would against a real provider. Each row also prints the event-loop delay over the cell
//     (p50 / p99) of this process and of the server's, the load average at its end, and, at a
//     burst of 1, the time the server's bucket held a token nobody took (from the times it checked
//     requests, on the server's clock), after a 429 and without: those figures tell a loss to the
//     pacing from one to a stalled loop.
// (d) time to fail against a dead endpoint: a 50-trajectory cell (25 tasks × 2 repeats) against a
//     port with nothing listening.
//
// Run: `npx vitest bench --run --project integration test/rate-limit.bench.ts` (a row or a group:
// add `-t '(c3)'` or a part of the row's name). Without `--project`, every project whose default
// bench include matches this file (integration, e2e, evals) runs it, one after another: three
// times over, each measuring under the load of the others' servers.
//
// Each row runs a few times and prints every run (Vitest's own timing of a row is the wall time of
// its cells). These figures are bound by the server's rate and by the breaker's decisions, not by
// the harness's CPU, so the bench runs the sources; a fresh server (a fresh endpoint, so nothing
// learned carries over between runs) per run.
import { loadavg } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { bench, describe } from 'vitest'
import { actors, runCell } from '../src/index.js'
import { cellSpec } from '../src/protocol/test-helpers.js'
import type { RateLimitOptions } from '../src/testing/index.js'
import { deadPort } from './dead-port.js'
import { startServerChild } from './rate-limit-server.js'

const TASKS = 40
const K = 5
const CONCURRENCY = 8
const tasksOf = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `t${i}`, prompt: `Task ${i}: write the function.` }))

/** OpenAI-style (the openai SDK, Chat Completions error shapes) or Anthropic-style (its SDK, the Messages API). */
type Style = 'openai' | 'anthropic'

async function rateLimitedCell(
  limit: Required<Pick<RateLimitOptions, 'requestsPerSecond' | 'burst'>> & RateLimitOptions,
  latencyMs: number,
  style: Style = 'openai',
): Promise<void> {
  // The SDK is loaded before the clock starts: its first import takes a second or two under load.
  await (style === 'openai' ? import('openai') : import('@anthropic-ai/sdk'))
  const server = await startServerChild({ rateLimit: limit, latencyMs })
  try {
    const apiKey = ['sk', 'bench', 'x'.repeat(20)].join('-')
    const actor =
      style === 'openai'
        ? actors.openaiCompatible({ model: 'coder', baseURL: server.openaiBaseURL, apiKey })
        : actors.anthropic({ model: 'claude-sonnet-4-5', baseURL: server.anthropicBaseURL, apiKey })
    // The machine's own pace just before, the same cell with no limit (on a loaded machine it can be below the rate).
    const ownPace = await paceWithoutLimit(style, latencyMs)
    const loop = monitorEventLoopDelay({ resolution: 5 })
    loop.enable()
    server.mark()
    const started = performance.now()
    const { trajectories } = await runCell(
      cellSpec(tasksOf(TASKS), actor, { budget: K, concurrency: CONCURRENCY, errors: 'censored' }),
    )
    const seconds = (performance.now() - started) / 1000
    loop.disable()
    const seen = await server.report()
    const served = seen.requests.filter((r) => !r.rateLimited).length
    const refused = seen.requests.length - served
    const errored = trajectories.filter((t) => t.status === 'error').length
    const perSecond = served / seconds
    const ofRate = perSecond / limit.requestsPerSecond
    const ofCeiling = served / (limit.burst + limit.requestsPerSecond * seconds)
    const ofReachable = perSecond / Math.min(limit.requestsPerSecond, ownPace)
    const verdict =
      ofRate >= 0.85 && errored === 0 ? '' : ' (misses the target: >= 0.85 of the rate, no errored trajectory)'
    const headers = `${limit.retryAfterMs === false ? 'whole-second retry-after' : 'retry-after-ms'}${limit.limitHeaders === false ? ', no rate stated' : ''}`
    console.log(
      `${style}-style, rate limit ${limit.requestsPerSecond}/s, burst ${limit.burst}, ${headers}, ${latencyMs} ms a call: ` +
        `${served} calls in ${seconds.toFixed(2)} s = ${perSecond.toFixed(1)}/s, ${ofRate.toFixed(3)} of the rate, ${ofCeiling.toFixed(3)} of burst + rate × t, ` +
        `${ofReachable.toFixed(3)} of the lower of the rate and this machine's own pace (${ownPace.toFixed(1)}/s); ` +
        `${refused} 429s; ${errored} errored trajectories${verdict}; ` +
        `event-loop delay p50 ${(loop.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms ` +
        `(the server's process: p50 ${seen.loopP50Ms.toFixed(1)} ms, p99 ${seen.loopP99Ms.toFixed(1)} ms)` +
        idleText(seen.requests, limit) +
        `; load ${loadavg()[0]!.toFixed(1)}`,
    )
  } finally {
    await server.close()
  }
}

/**
 * At a burst of 1, the time the bucket held a token nobody took (each accepted request's check
 * after the previous one's plus a spacing), split by whether a 429 came between the two: with a
 * bucket of one token that time is lost for good, to the pacing (after a 429) or to a late start.
 */
function idleText(
  requests: readonly { rateLimited?: true; rateCheckedAt?: number }[],
  limit: { requestsPerSecond: number; burst: number },
): string {
  if (limit.burst !== 1) return ''
  const spacing = 1000 / limit.requestsPerSecond
  const idle = { after429: 0, gaps429: 0, clean: 0, gapsClean: 0 }
  let previous: number | undefined
  let refusedBetween = false
  for (const r of requests) {
    if (r.rateLimited) refusedBetween = true
    else if (r.rateCheckedAt !== undefined) {
      if (previous !== undefined) {
        const lost = r.rateCheckedAt - (previous + spacing)
        if (refusedBetween) {
          idle.after429 += lost
          idle.gaps429++
        } else {
          idle.clean += lost
          idle.gapsClean++
        }
      }
      previous = r.rateCheckedAt
      refusedBetween = false
    }
  }
  const each = (ms: number, n: number) => (n === 0 ? 0 : ms / n).toFixed(1)
  return (
    `; token idle ${((idle.after429 + idle.clean) / 1000).toFixed(2)} s: ${(idle.after429 / 1000).toFixed(2)} s after a 429 ` +
    `(${each(idle.after429, idle.gaps429)} ms × ${idle.gaps429}), ${(idle.clean / 1000).toFixed(2)} s without ` +
    `(${each(idle.clean, idle.gapsClean)} ms × ${idle.gapsClean})`
  )
}

/** Calls a second the same cell makes against a server with no limit (a fresh endpoint, as every row has). */
async function paceWithoutLimit(style: Style, latencyMs: number): Promise<number> {
  const server = await startServerChild({ latencyMs })
  try {
    const apiKey = ['sk', 'bench', 'x'.repeat(20)].join('-')
    const actor =
      style === 'openai'
        ? actors.openaiCompatible({ model: 'coder', baseURL: server.openaiBaseURL, apiKey })
        : actors.anthropic({ model: 'claude-sonnet-4-5', baseURL: server.anthropicBaseURL, apiKey })
    const started = performance.now()
    await runCell(cellSpec(tasksOf(TASKS), actor, { budget: 2, concurrency: CONCURRENCY, errors: 'censored' }))
    const seconds = (performance.now() - started) / 1000
    return (await server.report()).requests.length / seconds
  } finally {
    await server.close()
  }
}

// No warm-up and no time budget: exactly `iterations` runs (the functions are async, so tinybench
// does not call them once more to find out whether they return a promise).
const once = { time: 0, warmupTime: 0, warmupIterations: 0 }

describe(`(c) throughput under a rate limit: ${TASKS} tasks × K=${K}, concurrency ${CONCURRENCY}`, () => {
  bench(
    '20/s, burst 5, retry-after-ms, answered at once',
    async () => {
      await rateLimitedCell({ requestsPerSecond: 20, burst: 5 }, 0)
    },
    { ...once, iterations: 3 },
  )
  bench(
    '20/s, burst 5, retry-after-ms, 100 ms a call',
    async () => {
      await rateLimitedCell({ requestsPerSecond: 20, burst: 5 }, 100)
    },
    { ...once, iterations: 2 },
  )
  bench(
    '20/s, burst 1 (no slack), retry-after-ms',
    async () => {
      await rateLimitedCell({ requestsPerSecond: 20, burst: 1 }, 0)
    },
    { ...once, iterations: 2 },
  )
  bench(
    '20/s, burst 20, whole-second retry-after only (as Anthropic sends)',
    async () => {
      await rateLimitedCell({ requestsPerSecond: 20, burst: 20, retryAfterMs: false }, 0)
    },
    { ...once, iterations: 2 },
  )
})

// Whole-second `retry-after` only, little burst: the spacing must be learned from the 429s themselves.
describe(`(c2) throughput under whole-second retry-after only: ${TASKS} tasks × K=${K}, concurrency ${CONCURRENCY}`, () => {
  for (const style of ['openai', 'anthropic'] as const) {
    for (const [rate, burst] of [
      [20, 1],
      [20, 3],
      [10, 3],
      [5, 1],
      [5, 3],
    ] as const) {
      bench(
        `${style}-style, ${rate}/s, burst ${burst}, whole-second retry-after`,
        async () => {
          await rateLimitedCell({ requestsPerSecond: rate, burst, retryAfterMs: false }, 0, style)
        },
        { ...once, iterations: 1 },
      )
    }
  }
})

// The same without the request-limit headers (a gateway that strips them): the spacing is learned from the 429s alone.
describe(`(c3) whole-second retry-after, no rate stated: ${TASKS} tasks × K=${K}, concurrency ${CONCURRENCY}`, () => {
  for (const style of ['openai', 'anthropic'] as const) {
    for (const [rate, burst] of [
      [20, 1],
      [20, 3],
      [5, 1],
    ] as const) {
      bench(
        `${style}-style, ${rate}/s, burst ${burst}, whole-second retry-after, no rate stated`,
        async () => {
          await rateLimitedCell({ requestsPerSecond: rate, burst, retryAfterMs: false, limitHeaders: false }, 0, style)
        },
        { ...once, iterations: 1 },
      )
    }
  }
})

describe('(d) time to fail a 50-trajectory cell against a dead endpoint', () => {
  bench(
    '25 tasks × 2 repeats, K=3, concurrency 8, nothing listening',
    async () => {
      const port = await deadPort()
      const actor = actors.openaiCompatible({ model: 'coder', baseURL: `http://127.0.0.1:${port}/v1` })
      const started = performance.now()
      const { trajectories } = await runCell(
        cellSpec(tasksOf(25), actor, { budget: 3, repeats: 2, concurrency: CONCURRENCY, errors: 'censored' }),
      )
      const seconds = (performance.now() - started) / 1000
      const named = trajectories.filter(
        (t) =>
          t.status === 'error' &&
          t.error?.message.includes(`http://127.0.0.1:${port}/v1: connection refused (ECONNREFUSED)`),
      ).length
      console.log(
        `dead endpoint: ${trajectories.length} trajectories failed in ${seconds.toFixed(2)} s; ${named} errors name the endpoint and the cause`,
      )
    },
    { ...once, iterations: 5 },
  )
})
