/**
 * The `python-tests` verifier: runs an answer's Python code against a task's hidden tests, with the
 * official HumanEval Pro verdict (every test statement passes within the time limit) and per-test
 * diagnostics (call, expected, actual) for `verifier` feedback.
 */
import { createHash } from 'node:crypto'
import { availableParallelism } from 'node:os'
import type { Task } from '../../protocol/task.js'
import type { Diagnostics, TestOutcome, Verdict, Verifier } from '../verifier.js'
import { extractPythonCode, normalisePythonAnswer } from './extract.js'
import { resolvePython } from './interpreter.js'
import { runHarness } from './run-harness.js'
import type { HarnessRequest, HarnessRun } from './run-harness.js'

export interface PythonTestsOptions {
  /** Wall-clock limit per answer in ms, interpreter start included. Default 3000 (the official harness's 3 s). */
  timeoutMs?: number
  /** Interpreter to run. Default: `SEQK_PYTHON`, else `python3` on PATH (resolved once to its real path). */
  python?: string
  /** Cap per stream on the candidate's stdout and stderr kept in diagnostics. Default 64 KiB. */
  maxOutputBytes?: number
  /** Reuse verdicts of identical (setup, tests, code, timeout) within the process. Default true. */
  cache?: boolean
}

/** Counters of one verifier instance (observability and tests). */
export interface PythonTestsStats {
  /** Python processes started. */
  runs: number
  /** Verdicts answered from the cache without starting Python. */
  cacheHits: number
}

export interface PythonTestsVerifier extends Verifier {
  readonly stats: Readonly<PythonTestsStats>
}

/** Bumped whenever the harness or the verdict logic changes what a verdict says. */
const VERSION = '1'

/**
 * Verifies code answers by running hidden Python tests, as HumanEval Pro / MBPP Pro do.
 *
 * The code is the answer's first Python code block (else the whole answer); the task's `setup`
 * (the prompt's imports) runs first, then the code, then each top-level statement of `task.tests`
 * on its own. The verdict passes only when every statement passes, as in the official harness;
 * the diagnostics list every statement with call / expected / actual for `assert CALL == EXPECTED`.
 *
 * Each answer runs in a fresh interpreter with an empty environment, in its own process group and
 * temporary directory, with a wall-clock timeout. This keeps honest mistakes contained; it is not
 * a sandbox against hostile code.
 *
 * @example
 * const verifier = verifiers.pythonTests({ timeoutMs: 3000 })
 * const verdict = await verifier.verify(
 *   { id: 't1', prompt: '...', tests: 'assert add(1, 2) == 3' },
 *   '```python\ndef add(a, b):\n    return a + b\n```',
 * )
 * verdict.pass // true
 * verdict.diagnostics.summary // 'all 1 tests passed'
 */
export function pythonTests(options: PythonTestsOptions = {}): PythonTestsVerifier {
  const timeoutMs = options.timeoutMs ?? 3000
  const maxOutputBytes = options.maxOutputBytes ?? 64 * 1024
  const useCache = options.cache ?? true
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new RangeError(`pythonTests: timeoutMs must be a positive number, got ${timeoutMs}`)
  if (!(Number.isInteger(maxOutputBytes) && maxOutputBytes > 0)) {
    throw new RangeError(`pythonTests: maxOutputBytes must be a positive integer, got ${maxOutputBytes}`)
  }
  const stats: PythonTestsStats = { runs: 0, cacheHits: 0 }

  return {
    name: 'python-tests',
    version: VERSION,
    settings: { timeoutMs },
    stats,

    checkTask(task: Task): string[] {
      if (task.tests === undefined) return [`task ${task.id}: python-tests needs \`tests\` (Python test statements), but the task has none`]
      if (task.tests.trim() === '') return [`task ${task.id}: python-tests needs \`tests\`, but they are empty`]
      return []
    },

    normalise: normalisePythonAnswer,

    async verify(task: Task, answer: string, verifyOptions: { signal?: AbortSignal } = {}): Promise<Verdict> {
      const { signal } = verifyOptions
      if (signal?.aborted) throw abortReason(signal)
      if (task.tests === undefined || task.tests.trim() === '') {
        throw new Error(`vitest-seqk python-tests: task ${task.id} has no tests to run`)
      }
      const code = extractPythonCode(answer)
      if (code.trim() === '') {
        return { pass: false, extracted: code, durationMs: 0, diagnostics: { outcome: 'no-answer', summary: 'the answer contains no code' } }
      }

      const python = await resolvePython(options.python)
      const request: HarnessRequest = { setup: task.setup ?? '', code, tests: task.tests }
      const key = useCache ? cacheKey(request, python, timeoutMs, maxOutputBytes) : undefined
      const cached = key !== undefined ? cache.get(key) : undefined
      if (cached) {
        stats.cacheHits++
        return structuredClone(cached.verdict)
      }

      const release = await slots.acquire(signal)
      let run: HarnessRun
      try {
        stats.runs++
        run = await runHarness(request, { python, timeoutMs, maxOutputBytes, ...(signal ? { signal } : {}) })
      } finally {
        release()
      }

      const verdict = toVerdict(task, code, run, timeoutMs)
      // Timeouts depend on machine load, so only verdicts the code alone decides are reused.
      if (key !== undefined && verdict.diagnostics.outcome !== 'timeout') cache.set(key, verdict)
      return verdict
    },
  }
}

/** Turns a raw harness run into a verdict. Throws when the task's own tests or setup are broken. */
function toVerdict(task: Task, code: string, run: HarnessRun, timeoutMs: number): Verdict {
  const output: Pick<Diagnostics, 'stdout' | 'stderr'> = {
    ...(run.stdout !== '' ? { stdout: run.stdout } : {}),
    ...(run.stderr !== '' ? { stderr: run.stderr } : {}),
  }
  const base = { extracted: code, durationMs: Math.round(run.durationMs) }
  const result = run.result

  if (!result) {
    if (run.timedOut) {
      return { ...base, pass: false, score: 0, diagnostics: { outcome: 'timeout', summary: `timed out after ${timeoutMs} ms`, ...output } }
    }
    // The interpreter died without writing a result: os._exit(), a segfault, the OOM killer.
    const how = run.exitSignal ? `was killed by ${run.exitSignal}` : `exited with code ${String(run.exitCode)}`
    const lastLine = run.stderr.trim().split('\n').at(-1)?.trim()
    const error = run.stderr.trim() !== '' ? tail(run.stderr.trim(), 2000) : `the Python process ${how} without a result`
    return {
      ...base,
      pass: false,
      score: 0,
      diagnostics: {
        outcome: 'load-error',
        summary: oneLine(`the Python process ${how} without a result${lastLine ? `: ${lastLine}` : ''}`),
        error,
        ...output,
      },
    }
  }

  if (result.outcome === 'tests-error') {
    throw new Error(`vitest-seqk python-tests: the tests or setup of task ${task.id} are broken: ${result.error ?? 'unknown error'}`)
  }

  if (result.outcome === 'load-error') {
    const error = result.error ?? 'unknown error'
    return { ...base, pass: false, score: 0, diagnostics: { outcome: 'load-error', summary: oneLine(`code did not load: ${error}`), error, ...output } }
  }

  const tests: TestOutcome[] = result.tests
  const failed = tests.filter((t) => !t.pass).length
  const pass = result.outcome === 'passed' && failed === 0
  const summary = pass ? `all ${tests.length} tests passed` : `${failed} of ${tests.length} tests failed`
  return {
    ...base,
    pass,
    score: tests.length === 0 ? (pass ? 1 : 0) : (tests.length - failed) / tests.length,
    diagnostics: { outcome: pass ? 'passed' : 'failed', summary, tests, ...output },
  }
}

function oneLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason })
}

// ---------------------------------------------------------------------------------------------
// Verdict cache: shared by every pythonTests() instance in the process. Running identical code
// against identical tests is deterministic (up to timeouts, which are never cached), and simulated
// actors resubmit identical code a lot.

interface CacheEntry {
  verdict: Verdict
  bytes: number
}

/** Evicts oldest entries beyond this many (approximate, JSON) bytes: stdout can make verdicts big. */
const CACHE_BUDGET_BYTES = 64 * 1024 * 1024

class VerdictCache {
  private entries = new Map<string, CacheEntry>()
  private bytes = 0

  get(key: string): CacheEntry | undefined {
    return this.entries.get(key)
  }

  set(key: string, verdict: Verdict): void {
    const frozen = structuredClone(verdict)
    const bytes = JSON.stringify(frozen).length
    if (bytes > CACHE_BUDGET_BYTES) return
    this.delete(key)
    this.entries.set(key, { verdict: frozen, bytes })
    this.bytes += bytes
    // Map iterates in insertion order: the first keys are the oldest.
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= CACHE_BUDGET_BYTES) break
      this.delete(oldest)
    }
  }

  clear(): void {
    this.entries.clear()
    this.bytes = 0
  }

  private delete(key: string): void {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    this.bytes -= entry.bytes
  }
}

const cache = new VerdictCache()

function cacheKey(request: HarnessRequest, python: string, timeoutMs: number, maxOutputBytes: number): string {
  // JSON of an array: unambiguous field boundaries, unlike plain concatenation.
  const material = JSON.stringify([VERSION, python, request.setup, request.tests, request.code, timeoutMs, maxOutputBytes])
  return createHash('sha256').update(material).digest('hex')
}

/** Empties the process-wide verdict cache (for tests and long-lived processes). */
export function clearPythonTestsCache(): void {
  cache.clear()
}

// ---------------------------------------------------------------------------------------------
// Concurrency: at most one Python process per CPU in this process. Tasks run concurrently; without
// a limit, CPU contention would push honest solutions past the timeout and make verdicts depend on
// load. The timeout clock starts at spawn, so waiting for a slot never counts against an answer.

class Slots {
  private free: number
  private waiting: (() => void)[] = []

  constructor(size: number) {
    this.free = size
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.free > 0) {
      this.free--
      return this.releaser()
    }
    await new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      const onAbort = (): void => {
        this.waiting = this.waiting.filter((w) => w !== grant)
        reject(abortReason(signal as AbortSignal))
      }
      if (signal?.aborted) return reject(abortReason(signal))
      signal?.addEventListener('abort', onAbort, { once: true })
      this.waiting.push(grant)
    })
    return this.releaser()
  }

  private releaser(): () => void {
    let released = false
    return () => {
      if (released) return
      released = true
      const next = this.waiting.shift()
      if (next) next()
      else this.free++
    }
  }
}

const slots = new Slots(Math.max(1, availableParallelism()))
