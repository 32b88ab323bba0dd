// Child process of test/rate-limit-server.ts: runs the test server (the rate limit given as JSON
// in argv) in a process of its own, so that the bench's event-loop stalls do not idle the
// server's bucket. Prints its URLs as one JSON line; on the line `mark` from stdin starts its
// event-loop delay afresh; on the line `report` prints what
// the server saw (each request's bucket verdict and the time its bucket checked it, on this
// process's clock) and its own event-loop delay, closes and exits. Exits too when stdin closes
// (the parent went away), so it never outlives the bench.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { startTestServer, type RateLimitOptions } from '../src/testing/index.js'

const { rateLimit, latencyMs } = JSON.parse(process.argv[2] ?? '{}') as {
  rateLimit?: RateLimitOptions
  latencyMs?: number
}
const server = await startTestServer({
  responder: () => ({ text: 'answer', delayMs: latencyMs ?? 0 }),
  ...(rateLimit ? { rateLimit } : {}),
})
const loop = monitorEventLoopDelay({ resolution: 5 })
loop.enable()
process.stdout.write(
  `${JSON.stringify({ openaiBaseURL: server.openaiBaseURL, anthropicBaseURL: server.anthropicBaseURL })}\n`,
)

const lines = createInterface({ input: process.stdin })
let done = false
const finish = async (report: boolean) => {
  if (done) return
  done = true
  loop.disable()
  if (report)
    await write(
      `${JSON.stringify({
        requests: server.requests.map((r) => ({
          ...(r.rateLimited ? { rateLimited: true } : {}),
          ...(r.rateCheckedAt !== undefined ? { rateCheckedAt: r.rateCheckedAt } : {}),
        })),
        loopP50Ms: loop.percentile(50) / 1e6,
        loopP99Ms: loop.percentile(99) / 1e6,
      })}\n`,
    )
  await server.close()
  lines.close()
  process.exit(0)
}
lines.on('line', (line) => {
  // `mark`: the cell starts now, the loop delay counts from here.
  if (line.trim() === 'mark') loop.reset()
  if (line.trim() === 'report') void finish(true)
})
lines.on('close', () => void finish(false))

function write(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())))
}
