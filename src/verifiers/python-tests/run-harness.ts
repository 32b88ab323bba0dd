/**
 * "Run this request in Python and give me the raw result": the one place that starts a process.
 *
 * Kept apart from the verdict logic on purpose: a hardened sandbox and a warm worker pool will
 * replace this function without touching `python-tests.ts`.
 */
import { spawn } from 'node:child_process'
import { access, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'

/** What the harness runs: the prompt's imports, the candidate, the hidden tests. */
export interface HarnessRequest {
  setup: string
  code: string
  tests: string
}

/** One top-level test statement as the harness reports it (same shape as `TestOutcome`). */
const HarnessTestSchema = z.object({
  index: z.number().int().nonnegative(),
  source: z.string(),
  pass: z.boolean(),
  call: z.string().optional(),
  expected: z.string().optional(),
  actual: z.string().optional(),
  error: z.string().optional(),
})

/**
 * The harness's result line. `tests-error` means the task's tests or setup are broken (they do not
 * parse or the setup raises): a problem of the task, not of the answer.
 */
export const HarnessResultSchema = z.object({
  outcome: z.enum(['passed', 'failed', 'load-error', 'tests-error']),
  tests: z.array(HarnessTestSchema),
  error: z.string().optional(),
})
export type HarnessResult = z.infer<typeof HarnessResultSchema>

export interface RunHarnessOptions {
  /** Absolute path of the interpreter (see `resolvePython`). */
  python: string
  /** Wall-clock limit from spawn to exit; the whole process group is killed when it passes. */
  timeoutMs: number
  /** Cap per stream for the candidate's stdout and stderr (head and tail are kept). */
  maxOutputBytes: number
  /** Aborting kills the process group and rejects with the signal's reason. */
  signal?: AbortSignal
}

/** What came back from one run, before any verdict is made of it. */
export interface HarnessRun {
  /** The parsed result line; undefined when the harness wrote none (crash, kill, timeout). */
  result?: HarnessResult
  timedOut: boolean
  exitCode: number | null
  exitSignal: NodeJS.Signals | null
  stdout: string
  stderr: string
  durationMs: number
  /** The child's pid (its process group id too): lets tests check that nothing is left behind. */
  pid?: number
}

/** Where the harness lives: next to this module, in `src/` and in `dist/` (the build copies it). */
export const HARNESS_PATH = fileURLToPath(new URL('./harness.py', import.meta.url))

/**
 * Interpreter flags. `-I` isolates from the user's environment and site directory (PYTHON* variables,
 * the script's directory on sys.path), `-S` skips `site` (faster start; the standard library still
 * imports), `-B` writes no .pyc files, `-X utf8` makes stdio UTF-8 whatever the locale (under `-I`
 * PYTHONIOENCODING is ignored).
 */
const PYTHON_FLAGS = ['-I', '-S', '-B', '-X', 'utf8']

/** The result line is ours, but bounded anyway: tens of thousands of tests fit in 16 MiB. */
const MAX_RESULT_BYTES = 16 * 1024 * 1024

/** After the child exits, how long to wait for its pipes to close (a grandchild may hold them). */
const PIPE_GRACE_MS = 250

let harnessChecked: Promise<void> | undefined

/** Fails loudly (once) when harness.py is missing, e.g. a build that forgot to copy it. */
function checkHarness(): Promise<void> {
  harnessChecked ??= access(HARNESS_PATH).catch(() => {
    harnessChecked = undefined
    throw new Error(
      `vitest-seqk python-tests: the harness ${HARNESS_PATH} is missing. It must sit next to run-harness.js (the build copies src/verifiers/python-tests/harness.py).`,
    )
  })
  return harnessChecked
}

/**
 * Runs one request through `harness.py` in a fresh interpreter: own process group, empty
 * environment (no API keys), a temporary working directory removed afterwards, capped output and a
 * wall-clock timeout that kills the whole group.
 *
 * Resolves for every outcome of the candidate (including timeouts and crashes); rejects only for
 * infrastructure problems (the interpreter cannot be started, the harness is missing) and with the
 * signal's reason when aborted.
 *
 * @example
 * const run = await runHarness(
 *   { setup: '', code: 'def f(x):\n    return x + 1', tests: 'assert f(1) == 2' },
 *   { python: await resolvePython(), timeoutMs: 3000, maxOutputBytes: 65536 },
 * )
 * run.result?.outcome // 'passed'
 */
export async function runHarness(request: HarnessRequest, options: RunHarnessOptions): Promise<HarnessRun> {
  const { signal } = options
  if (signal?.aborted) throw abortReason(signal)
  await checkHarness()
  const workdir = await mkdtemp(join(tmpdir(), 'seqk-py-'))
  try {
    return await spawnHarness(request, options, workdir)
  } finally {
    await rm(workdir, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined)
  }
}

function spawnHarness(request: HarnessRequest, options: RunHarnessOptions, workdir: string): Promise<HarnessRun> {
  const { python, timeoutMs, maxOutputBytes, signal } = options
  return new Promise<HarnessRun>((resolve, reject) => {
    // Aborted while the temp dir was being made: the listener below would never fire.
    if (signal?.aborted) return reject(abortReason(signal))
    const started = performance.now()
    const child = spawn(python, [...PYTHON_FLAGS, HARNESS_PATH], {
      cwd: workdir,
      // Only what Python needs: a candidate must not see the parent's API keys or tokens.
      env: {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: workdir,
        TMPDIR: workdir,
        LANG: 'C.UTF-8',
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONIOENCODING: 'utf-8',
      },
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      // Own process group, so a timeout also kills whatever the candidate started.
      detached: true,
    })

    const stdout = new CappedBuffer(maxOutputBytes)
    const stderr = new CappedBuffer(maxOutputBytes)
    const result = new CappedBuffer(MAX_RESULT_BYTES, false)
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk))
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk))
    const resultPipe = child.stdio[3] as Readable | null
    resultPipe?.on('data', (chunk: Buffer) => result.push(chunk))

    let timedOut = false
    let aborted = false
    let exitCode: number | null = null
    let exitSignal: NodeJS.Signals | null = null
    let finished = false
    let graceTimer: NodeJS.Timeout | undefined

    const killGroup = (): void => {
      if (child.pid === undefined) return
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // ESRCH: the group is already gone.
      }
    }

    const timer = setTimeout(() => {
      timedOut = true
      killGroup()
    }, timeoutMs)

    const onAbort = (): void => {
      aborted = true
      killGroup()
    }
    signal?.addEventListener('abort', onAbort, { once: true })

    const finish = (error?: Error): void => {
      if (finished) return
      finished = true
      clearTimeout(timer)
      clearTimeout(graceTimer)
      signal?.removeEventListener('abort', onAbort)
      // Also after a normal exit: background processes the candidate left behind die with the group.
      killGroup()
      for (const stream of [child.stdout, child.stderr, resultPipe]) stream?.destroy()
      if (error) return reject(error)
      if (aborted && signal) return reject(abortReason(signal))
      resolve({
        result: parseResult(result.text()),
        timedOut,
        exitCode,
        exitSignal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        durationMs: performance.now() - started,
        ...(child.pid !== undefined ? { pid: child.pid } : {}),
      })
    }

    child.on('error', (error: NodeJS.ErrnoException) => {
      // Only spawn failures land here (ENOENT, EACCES): the interpreter itself is unusable.
      finish(new Error(`vitest-seqk python-tests: could not start ${python}: ${error.message}`, { cause: error }))
    })
    child.on('exit', (code, sig) => {
      exitCode = code
      exitSignal = sig
      // 'close' waits for every pipe; a grandchild that escaped the group could hold one open forever.
      graceTimer = setTimeout(() => finish(), PIPE_GRACE_MS)
    })
    child.on('close', () => finish())

    // The request goes in on stdin; EPIPE (the child died before reading) is reported by 'exit'.
    child.stdin?.on('error', () => undefined)
    child.stdin?.end(JSON.stringify(request))
  })
}

/** The last line that parses as a result: the harness writes exactly one, after the candidate ran. */
function parseResult(text: string): HarnessResult | undefined {
  const lines = text.split('\n').filter((line) => line.trim() !== '')
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const parsed = HarnessResultSchema.safeParse(JSON.parse(lines[i] ?? ''))
      if (parsed.success) return parsed.data
    } catch {
      // not JSON: keep looking
    }
  }
  return undefined
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason })
}

/**
 * Collects a stream up to `cap` bytes. With `keepTail`, the first and last halves are kept and the
 * middle is replaced by a marker (a traceback sits at the end of stderr); otherwise the rest is dropped.
 */
class CappedBuffer {
  private head: Buffer[] = []
  private headBytes = 0
  private tail: Buffer = Buffer.alloc(0)
  private total = 0

  constructor(
    private readonly cap: number,
    private readonly keepTail = true,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length
    const headCap = this.keepTail ? Math.floor(this.cap / 2) : this.cap
    if (this.headBytes < headCap) {
      const take = chunk.subarray(0, headCap - this.headBytes)
      this.head.push(take)
      this.headBytes += take.length
      chunk = chunk.subarray(take.length)
    }
    if (!this.keepTail || chunk.length === 0) return
    const tailCap = this.cap - headCap
    const joined = Buffer.concat([this.tail, chunk])
    this.tail = joined.subarray(Math.max(0, joined.length - tailCap))
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8')
    const omitted = this.total - this.headBytes - this.tail.length
    if (omitted <= 0) return head + this.tail.toString('utf8')
    if (!this.keepTail) return head
    return `${head}\n[... ${omitted} bytes omitted ...]\n${this.tail.toString('utf8')}`
  }
}
