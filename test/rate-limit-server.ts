// The test server in a child process of its own (test/rate-limit-server-child.ts), for the
// rate-limit bench: in the bench's process a loop stalled by the client's own work (or a loaded
// machine) delayed the server's reads, which idles a bucket of one token whatever the pacing does.
// Every wait on the child has a bound; close() kills it if it has not exited.
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { RateLimitOptions } from '../src/testing/index.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Bound on the child's start (tsx compiles the server's sources on a loaded machine first) and on its report. */
const START_TIMEOUT_MS = 60_000
const REPORT_TIMEOUT_MS = 30_000
/** After a report or a kill, the child has this long to exit before SIGKILL. */
const EXIT_TIMEOUT_MS = 5_000

/** What the server saw: its requests (on the child's clock) and the child's event-loop delay. */
export interface ServerReport {
  requests: { rateLimited?: true; rateCheckedAt?: number }[]
  loopP50Ms: number
  loopP99Ms: number
}

export interface ServerChild {
  openaiBaseURL: string
  anthropicBaseURL: string
  /** The cell starts now: the child's loop delay counts from here. */
  mark(): void
  /** Ends the server and returns what it saw. */
  report(): Promise<ServerReport>
  /** Kills the child if it still runs (idempotent). */
  close(): Promise<void>
}

/** Starts the test server (answering `answer` after `latencyMs`) in a child process. */
export async function startServerChild(options: {
  rateLimit?: RateLimitOptions
  latencyMs: number
}): Promise<ServerChild> {
  const child = spawn(
    process.execPath,
    [
      join(root, 'node_modules/tsx/dist/cli.mjs'),
      join(root, 'test/rate-limit-server-child.ts'),
      JSON.stringify(options),
    ],
    { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] },
  )
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const lines = createInterface({ input: child.stdout })
  const pending: ((line: string) => void)[] = []
  const queued: string[] = []
  lines.on('line', (line) => {
    const next = pending.shift()
    if (next) next(line)
    else queued.push(line)
  })
  const nextLine = (what: string, ms: number) =>
    new Promise<string>((resolve, reject) => {
      const early = queued.shift()
      if (early !== undefined) return resolve(early)
      const timer = setTimeout(
        () => reject(new Error(`server child: no ${what} within ${ms} ms; stderr: ${stderr}`)),
        ms,
      )
      const onExit = () => {
        clearTimeout(timer)
        reject(new Error(`server child exited before its ${what}; stderr: ${stderr}`))
      }
      child.once('exit', onExit)
      pending.push((line) => {
        clearTimeout(timer)
        child.off('exit', onExit)
        resolve(line)
      })
    })
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.stdin.end()
    const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }
  try {
    const urls = JSON.parse(await nextLine('URLs', START_TIMEOUT_MS)) as {
      openaiBaseURL: string
      anthropicBaseURL: string
    }
    return {
      ...urls,
      mark: () => child.stdin.write('mark\n'),
      async report() {
        child.stdin.write('report\n')
        const report = JSON.parse(await nextLine('report', REPORT_TIMEOUT_MS)) as ServerReport
        await close()
        return report
      },
      close,
    }
  } catch (error) {
    await close()
    throw error
  }
}
