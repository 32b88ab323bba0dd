/**
 * "Run this request in Python and give me the raw result": the one place that decides how a
 * process is started (sandbox, worker pool). The verdict logic lives in `python-tests.ts`.
 */
import { readFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { resolveInterpreter } from './interpreter.js'
import type { AttemptLimits, AttemptOutcome, WorkerSpec } from './pool.js'
import { sharedPool, signalName } from './pool.js'
import { planSandbox, workerCommand } from './sandbox.js'
import type { SandboxMode, SandboxOption, SandboxPlan } from './sandbox.js'

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
  /** Wall-clock limit from the attempt's fork to its exit; the whole process tree is killed when it passes. */
  timeoutMs: number
  /** Cap per stream for the candidate's stdout and stderr (head and tail are kept). */
  maxOutputBytes: number
  /** Aborting kills the attempt (and its worker) and rejects with the signal's reason. */
  signal?: AbortSignal
  /** Isolation: `auto` (default) uses bubblewrap when it works here, see `planSandbox`. */
  sandbox?: SandboxOption
  /** Address-space limit (RLIMIT_AS) of the attempt in MiB. Default 1024. */
  memoryMb?: number
  /** Reuse warm workers (default true); false starts a fresh worker per attempt (same isolation, ~10x slower). */
  pool?: boolean
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
  /**
   * The attempt's pid when it is a host pid (sandbox `none`): lets tests check that nothing is
   * left behind. Inside bubblewrap pids belong to the sandbox's namespace and are not reported.
   */
  pid?: number
  /** The isolation the attempt ran under. */
  sandbox: SandboxMode
  /** The limits the attempt ran under. */
  limits: AttemptLimits
  /** Set when the worker process died during the attempt (twice: the attempt is retried once). */
  workerLost?: string
  /** Set when the worker stopped answering (after the timeout) and was killed. */
  workerUnresponsive?: boolean
}

/** Where the harness lives: next to this module, in `src/` and in `dist/` (the build copies it). */
export const HARNESS_PATH = fileURLToPath(new URL('./harness.py', import.meta.url))

/**
 * Interpreter flags. `-S` skips `site` (faster start, no user site directory; the standard library
 * still imports), `-B` writes no .pyc files, `-X utf8` makes stdio UTF-8 whatever the locale, `-P`
 * (3.11+) keeps the working directory off sys.path. Not `-I`: it would ignore PYTHONHASHSEED (see
 * WORKER_ENV), and isolation from the user's PYTHON* variables comes from the environment being
 * replaced whole (WORKER_ENV, bwrap --clearenv).
 */
function pythonFlags(version: string): string[] {
  const [major = 0, minor = 0] = version.split('.').map(Number)
  return ['-S', '-B', '-X', 'utf8', ...(major > 3 || (major === 3 && minor >= 11) ? ['-P'] : [])]
}

/** Default address-space limit: generous for HumanEval-style code, fatal to memory bombs. */
export const DEFAULT_MEMORY_MB = 1024
/** RLIMIT_NPROC inside bubblewrap: counted per sandbox (per user namespace), so a fork bomb stays in its own. */
const SANDBOX_PROCESSES = 64
/** RLIMIT_NPROC when dropped to uid 65534 without bubblewrap: shared by every uid-65534 process on the host. */
const SHARED_UID_PROCESSES = 512
const FILE_SIZE_BYTES = 16 * 1024 * 1024
const OPEN_FILES = 256

let harnessSource: Promise<string> | undefined

/** The harness's source (passed to the worker with -c); fails loudly when the build forgot to copy it. */
function loadHarness(): Promise<string> {
  harnessSource ??= readFile(HARNESS_PATH, 'utf8').catch((error: unknown) => {
    harnessSource = undefined
    throw new Error(
      `vitest-seqk python-tests: the harness ${HARNESS_PATH} is missing. It must sit next to run-harness.js (the build copies src/verifiers/python-tests/harness.py).`,
      { cause: error },
    )
  })
  return harnessSource
}

/**
 * The limits of one attempt under `plan`: CPU a second above the wall-clock timeout (so the
 * timeout, not SIGXCPU, is what a busy loop normally meets), memory, file size, open files, and
 * processes where RLIMIT_NPROC is meaningful (see the constants).
 */
export function attemptLimits(plan: SandboxPlan, options: { timeoutMs: number; maxOutputBytes: number; memoryMb?: number }): AttemptLimits {
  return {
    timeoutMs: options.timeoutMs,
    maxOutputBytes: options.maxOutputBytes,
    memoryBytes: Math.round((options.memoryMb ?? DEFAULT_MEMORY_MB) * 1024 * 1024),
    cpuSeconds: Math.ceil(options.timeoutMs / 1000) + 1,
    fileSizeBytes: FILE_SIZE_BYTES,
    openFiles: OPEN_FILES,
    processes: plan.mode === 'bwrap' ? SANDBOX_PROCESSES : plan.setpriv ? SHARED_UID_PROCESSES : 0,
  }
}

/**
 * Runs one request through `harness.py` in a forked child of a warm worker (or of a fresh one,
 * with `pool: false`): its own session, an empty environment (no API keys), a fresh temporary
 * working directory, resource limits, capped output and a wall-clock timeout after which the whole
 * process tree is killed; inside bubblewrap when available (see `planSandbox`).
 *
 * Resolves for every outcome of the candidate (including timeouts, crashes and killing its
 * worker); rejects only for infrastructure problems (no worker can be started, the harness is
 * missing) and with the signal's reason when aborted.
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
  const plan = planSandbox(options.sandbox ?? 'auto')
  const [source, interpreter] = await Promise.all([loadHarness(), resolveInterpreter(options.python)])
  const reuse = options.pool ?? true
  const spec: WorkerSpec = {
    argv: workerCommand(plan, interpreter, [...pythonFlags(interpreter.version), '-c', source, 'worker', plan.mode, ...(reuse ? [] : ['once'])]),
    mode: plan.mode,
    hostPids: plan.mode === 'none',
    ...(plan.mode === 'none' && plan.setpriv ? { cleanupPrefix: workerCommand(plan, { path: '', directories: [] }, []).slice(0, -1) } : {}),
  }
  const pool = sharedPool(spec, Math.max(1, availableParallelism()), reuse)
  const limits = attemptLimits(plan, options)
  const started = performance.now()
  let outcome: AttemptOutcome
  try {
    outcome = await pool.run({ setup: request.setup, code: request.code, tests: request.tests }, limits, signal)
  } catch (error) {
    if (signal?.aborted) throw error
    throw explainStartFailure(error, plan, interpreter.path)
  }
  const elapsed = performance.now() - started
  const base = { sandbox: plan.mode, limits }
  if (outcome.kind === 'lost') {
    return { ...base, timedOut: false, exitCode: null, exitSignal: null, stdout: '', stderr: '', durationMs: elapsed, workerLost: outcome.reason }
  }
  if (outcome.kind === 'unresponsive') {
    return { ...base, timedOut: true, exitCode: null, exitSignal: null, stdout: '', stderr: '', durationMs: elapsed, workerUnresponsive: true }
  }
  const frame = outcome.frame
  if (frame.error !== undefined) {
    throw new Error(`vitest-seqk python-tests: the worker could not start an attempt: ${frame.error}`)
  }
  const result = frame.result === null ? undefined : parseResult(frame.result)
  return {
    ...base,
    ...(result ? { result } : {}),
    timedOut: frame.timedOut === true,
    exitCode: frame.exitCode ?? null,
    exitSignal: signalName(frame.exitSignal),
    stdout: frame.stdout ?? '',
    stderr: frame.stderr ?? '',
    durationMs: frame.durationMs ?? elapsed,
    ...(spec.hostPids && frame.pid !== undefined ? { pid: frame.pid } : {}),
  }
}

/** Adds the likely cause to a worker that would not start under a dropped uid or bubblewrap. */
function explainStartFailure(error: unknown, plan: SandboxPlan, python: string): unknown {
  if (!(error instanceof Error) || !/before it was ready|could not start/.test(error.message)) return error
  const hints: string[] = []
  if (plan.setpriv) {
    hints.push(
      `Attempts run as uid 65534, which must be able to read and execute ${python} and its standard library ` +
        '(an interpreter under /root is not readable): install a system python3 (apt-get install python3), ' +
        'point SEQK_PYTHON / the `python` option at a world-readable interpreter, or use sandbox: \'none\' as a non-root user.',
    )
  }
  if (plan.mode === 'bwrap') hints.push("Inside bubblewrap only /usr (and the interpreter's own directories) are visible.")
  if (hints.length === 0) return error
  error.message += `\n${hints.join('\n')}`
  return error
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
