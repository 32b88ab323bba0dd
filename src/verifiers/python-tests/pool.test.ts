// The warm worker pool: lifecycle (lazy start, replacement, queueing, shutdown, not keeping the
// process alive) and what it buys: per-verify latency against a fresh sandboxed interpreter.
import { spawn } from 'node:child_process'
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { resolvePython } from './interpreter.js'
import { allPools, closeAllPools } from './pool.js'
import { runHarness } from './run-harness.js'
import type { HarnessRequest, RunHarnessOptions } from './run-harness.js'
import { planSandbox } from './sandbox.js'
import type { SandboxMode } from './sandbox.js'
import { alive, descendantsOf, eventually } from './test-helpers.js'

const BWRAP = planSandbox('auto').mode === 'bwrap'
const MODES: SandboxMode[] = BWRAP ? ['bwrap', 'none'] : ['none']
const request: HarnessRequest = {
  setup: '',
  code: 'from typing import List\n\ndef add_all(pairs: List[tuple]) -> List[int]:\n    return [a + b for a, b in pairs]',
  tests: 'assert add_all([(1, 2)]) == [3]\nassert add_all([]) == []\nassert add_all([(2, 2), (0, 1)]) == [4, 1]',
}

/** The limit of an honest attempt that must pass however loaded the machine is. */
const SPARE_TIMEOUT_MS = 20_000

async function options(
  sandbox: SandboxMode,
  pool: boolean,
  extra: Partial<RunHarnessOptions> = {},
): Promise<RunHarnessOptions> {
  return {
    python: await resolvePython(undefined, { preferSystem: true }),
    timeoutMs: 3000,
    maxOutputBytes: 65536,
    sandbox,
    pool,
    ...extra,
  }
}

function poolsOf(sandbox: SandboxMode, reuse = true) {
  return allPools().filter((p) => p.spec.mode === sandbox && p.reuse === reuse)
}

afterAll(() => closeAllPools())

describe.each(MODES)('worker pool (sandbox: %s)', (sandbox) => {
  it('starts lazily, reuses a warm worker, and replaces one killed from outside', async () => {
    closeAllPools()
    expect(poolsOf(sandbox)).toHaveLength(0)
    expect((await runHarness(request, await options(sandbox, true))).result.outcome).toBe('passed')
    const [pool] = poolsOf(sandbox)
    expect(pool?.stats.started).toBe(1)
    expect((await runHarness(request, await options(sandbox, true))).result.outcome).toBe('passed')
    expect(pool?.stats.started).toBe(1)

    const [pid] = pool?.pids() ?? []
    process.kill(-(pid as number), 'SIGKILL')
    expect(await eventually(() => !alive(pid as number) && (pool?.pids().length ?? 0) === 0)).toBe(true)
    expect((await runHarness(request, await options(sandbox, true))).result.outcome).toBe('passed')
    expect(pool?.stats.started).toBe(2)
  })

  it('runs attempts concurrently up to its size and queues the rest', async () => {
    // Each attempt prints when its 0.3 s began and ended (CLOCK_MONOTONIC: one clock for the host
    // and every sandbox): how many overlapped is read from those, not from the wall time.
    const slow: HarnessRequest = {
      ...request,
      code: `import time\nstart = time.monotonic()\ntime.sleep(0.3)\nprint(start, time.monotonic())\n${request.code}`,
    }
    const opts = await options(sandbox, true, { timeoutMs: 20_000 })
    await runHarness(request, opts)
    const [pool] = poolsOf(sandbox)
    const size = pool?.size ?? 1
    const results = await Promise.all(Array.from({ length: 3 * size }, () => runHarness(slow, opts)))
    expect(results.every((r) => r.result.outcome === 'passed')).toBe(true)
    expect(pool?.pids().length).toBeLessThanOrEqual(size)
    const spans = results.map((r) => r.stdout.trim().split(' ').map(Number) as [number, number])
    const overlapping = (at: number): number => spans.filter(([from, to]) => from <= at && at < to).length
    const most = Math.max(...spans.map(([from]) => overlapping(from)))
    expect(most).toBeLessThanOrEqual(size)
    // Never one at a time when there is room for more.
    if (size > 1) expect(most).toBeGreaterThan(1)
  })

  it('stops every worker on closeAllPools()', async () => {
    await runHarness(request, await options(sandbox, true))
    const pids = poolsOf(sandbox).flatMap((p) => p.pids())
    expect(pids.length).toBeGreaterThan(0)
    closeAllPools()
    expect(await eventually(() => pids.every((pid) => !alive(pid)))).toBe(true)
  })

  it('replaces a candidate worker that stops answering, and keeps the verdict a timeout', async () => {
    const opts = await options(sandbox, true, { timeoutMs: 300 })
    await runHarness(request, opts)
    const [pool] = poolsOf(sandbox)
    const [pid] = pool?.pids() ?? []
    // Freeze the zygote (the last process of the judge's tree: inside bwrap, the namespace's pid 1)
    // before the attempt is sent. The worker forks ahead between attempts, so the tree is read once
    // it has settled, and read again if the process it named is gone by the time it is stopped.
    const zygote = await freezeLast(pid as number)
    const run = await runHarness({ ...request, code: 'while True:\n    pass' }, opts)
    expect(run.timedOut).toBe(true)
    expect(run.result.timeoutIn).toBe('loading the code')
    expect(await eventually(() => !alive(zygote as number))).toBe(true)
    // The honest answer after it gets time to spare (same pool: the limit is per attempt).
    expect((await runHarness(request, { ...opts, timeoutMs: SPARE_TIMEOUT_MS })).result.outcome).toBe('passed')
    expect(pool?.pids()).toContain(pid)
  }, 15_000)

  it('kills a judge that stops answering (an infrastructure error, never a verdict)', async () => {
    const opts = await options(sandbox, true, { timeoutMs: 100 })
    await runHarness(request, opts)
    const [pool] = poolsOf(sandbox)
    const judges = pool?.pids() ?? []
    const pending = Promise.all(
      judges.map(() =>
        runHarness({ ...request, code: 'while True:\n    pass' }, opts).then(
          () => 'resolved',
          (error: Error) => error.message,
        ),
      ),
    )
    for (const judge of judges) process.kill(judge, 'SIGSTOP')
    const outcomes = await pending
    expect(outcomes.some((o) => /the judge process stopped answering/.test(o))).toBe(true)
    expect(await eventually(() => judges.every((judge) => !alive(judge)))).toBe(true)
    expect((await runHarness(request, { ...opts, timeoutMs: SPARE_TIMEOUT_MS })).result.outcome).toBe('passed')
    // The backstop (10 s past twice the timeout) looks once more 5 s later before it kills a judge that spends nothing.
  }, 45_000)

  it('spawn per verify (pool: false) leaves no worker running', async () => {
    const run = await runHarness(request, await options(sandbox, false))
    expect(run.result.outcome).toBe('passed')
    expect(await eventually(() => poolsOf(sandbox, false).every((p) => p.pids().length === 0))).toBe(true)
  })
})

describe('a process that used the pool', () => {
  it('exits by itself, not held by its idle workers, and its workers die with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-exit-'))
    const script = join(dir, 'script.mts')
    const here = fileURLToPath(new URL('.', import.meta.url))
    writeFileSync(
      script,
      [
        `import { pythonTests } from '${here}python-tests.ts'`,
        `import { allPools } from '${here}pool.ts'`,
        "const verdict = await pythonTests({ cache: false }).verify({ id: 't', prompt: 'p', tests: 'assert f() == 1' }, 'def f():\\n    return 1')",
        'console.log(JSON.stringify({ pass: verdict.pass, pids: allPools().flatMap((p) => p.pids()) }))',
        // No closeAllPools(), no process.exit(): idle workers must not hold the event loop.
      ].join('\n'),
    )
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: here,
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
        killSignal: 'SIGKILL',
      })
      let stdout = ''
      let printedAt = 0
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk
        printedAt ||= performance.now()
      })
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
      const lingerMs = performance.now() - printedAt
      expect(code).toBe(0)
      const { pass, pids } = JSON.parse(stdout) as { pass: boolean; pids: number[] }
      expect(pass).toBe(true)
      expect(pids.length).toBeGreaterThan(0)
      // Idle workers are stopped after a minute: a process they held would live that long. (How
      // fast a process exits is the machine's business: not asserted.)
      expect(lingerMs).toBeLessThan(30_000)
      expect(await eventually(() => pids.every((pid) => !alive(pid)))).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 150_000)
})

describe('latency per verify', () => {
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

  /** One run's wall time. */
  async function timed(opts: RunHarnessOptions): Promise<number> {
    const started = performance.now()
    const run = await runHarness(request, opts)
    expect(run.result.outcome).toBe('passed')
    return performance.now() - started
  }

  // A ratio of the two, measured interleaved (pool, spawn, pool, ...) so that the machine's load
  // weighs on both alike; the first (cold) run of each is left out.
  it('is several times lower through the warm pool than with a fresh interpreter per verify', async () => {
    const rows: string[] = []
    for (const sandbox of MODES) {
      closeAllPools()
      const [pooledOpts, spawnedOpts] = await Promise.all([options(sandbox, true), options(sandbox, false)])
      await timed(pooledOpts)
      await timed(spawnedOpts)
      const pooled: number[] = []
      const spawned: number[] = []
      for (let i = 0; i < 12; i++) {
        pooled.push(await timed(pooledOpts))
        spawned.push(await timed(spawnedOpts))
      }
      rows.push(
        `  sandbox ${sandbox.padEnd(5)}  pool median ${median(pooled).toFixed(1).padStart(6)} ms  spawn median ${median(spawned).toFixed(1).padStart(6)} ms`,
      )
      expect(median(pooled) * 2).toBeLessThan(median(spawned))
    }
    console.info(`python-tests latency per verify (runHarness, one attempt, interleaved):\n${rows.join('\n')}`)
  }, 120_000)
})

/** SIGSTOPs the last process of `pid`'s tree once the tree stops changing; returns its pid. */
async function freezeLast(pid: number): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const before = descendantsOf(pid)
    await new Promise((r) => setTimeout(r, 50))
    const now = descendantsOf(pid)
    const last = now.at(-1)
    if (last === undefined || before.join() !== now.join()) continue
    try {
      process.kill(last, 'SIGSTOP')
      return last
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
    }
  }
  throw new Error(`the process tree of ${pid} never settled`)
}
