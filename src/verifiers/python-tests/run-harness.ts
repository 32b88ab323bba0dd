/**
 * "Run this request in Python and give me the raw result": the one place that decides how a
 * process is started (sandbox, worker pool). The verdict logic lives in `python-tests.ts`.
 */
import { readFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { TestOutcomeSchema } from '../../core/contract.js'
import { textInSlices } from './frames.js'
import { resolveInterpreter } from './interpreter.js'
import type { Interpreter } from './interpreter.js'
import type { AttemptLimits, AttemptOutcome, WorkerSpec } from './pool.js'
import { sharedPool, signalName } from './pool.js'
import type { WorkerPool } from './pool.js'
import { planSandbox, WORKER_ENV, workerCommand } from './sandbox.js'
import type { SandboxMode, SandboxOption, SandboxPlan } from './sandbox.js'

/** What the harness runs: the prompt's imports, the candidate, the hidden tests. */
export interface HarnessRequest {
  setup: string
  code: string
  tests: string
  /**
   * Run only these statements of `tests` (0-based): the visible ones of a held-out split. The
   * candidate's process then hears only of them (their names, their calls), and no text of its
   * side that quotes another statement comes back (it reads `[not shown: ...]`). The result's
   * `statements` counts the statements run; each record keeps its index in the whole.
   */
  only?: readonly number[]
}

/** `timeoutIn` of a result whose time ran out while the judge evaluated the tests (not in a call). */
export const EVALUATION_TIMEOUT = 'the evaluation of the tests'

/** One top-level test statement as the judge reports it: a `TestOutcome`. */
const HarnessTestSchema = TestOutcomeSchema

/**
 * The judge's result (judge.py). `tests-error`: the task's tests do not parse or its setup raised
 * (a problem of the task, not of the answer). `harness-error`: the trusted side failed on its own,
 * as a self-check with a known-good answer confirmed (an infrastructure error). `statements` is
 * the number of top-level test statements; a result whose test records do not match it is refused.
 */
export const HarnessResultSchema = z
  .object({
    outcome: z.enum(['passed', 'failed', 'load-error', 'timeout', 'tests-error', 'harness-error']),
    statements: z.number().int().nonnegative(),
    tests: z.array(HarnessTestSchema),
    error: z.string().optional(),
    /**
     * The call that had not returned when the time ran out, or "loading the code", or "the
     * evaluation of …" (the judge's own evaluation of a test, on what the answer returned).
     */
    timeoutIn: z.string().optional(),
    /** The attempt's process tree was killed for exceeding its memory cgroup. */
    memoryLimited: z.boolean().optional(),
    /**
     * The candidate's process ended its calls reporting nothing a fresh run might do otherwise (no
     * randomness, clock, thread or dynamic import among the names its code uses, `random`'s state
     * untouched): the only runs whose verdict the cache may keep.
     */
    deterministic: z.boolean().optional(),
  })
  .strict()
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
  /** The judge's result: every test statement's record, or why none ran. */
  result: HarnessResult
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
  /** When each step of the attempt ended (see `ResultFrame.marks`), for benchmarks. */
  marks?: Record<string, number>
}

/**
 * The Python modules, next to this module in `src/` and in `dist/` (the build copies them), in
 * the order they are loaded: each imports only modules before it, and the last is the entry.
 */
const JUDGE_MODULES = ['codec', 'channel', 'cgroup', 'attempt', 'sitedirs', 'judge'] as const
const WORKER_MODULES = ['codec', 'channel', 'seccomp', 'sitedirs', 'candidate', 'worker'] as const
export const HARNESS_DIR = fileURLToPath(new URL('.', import.meta.url))

/**
 * The loader both interpreters run with `-c`: it makes a module of each (name, source) pair of its
 * arguments, so the files keep their real imports, then calls the last one's `main` with the
 * arguments after them. The sources travel on the command line because the sandbox user can read
 * neither this package nor a copy of it (bwrap shows only /usr).
 */
export const HARNESS_LOADER = [
  'import sys',
  'def _seqk_load(argv):',
  '    count = int(argv[1])',
  '    for index in range(count):',
  '        name, source = argv[2 + 2 * index], argv[3 + 2 * index]',
  '        module = type(sys)(name)',
  '        module.__file__ = name + ".py"',
  '        sys.modules[name] = module',
  '        exec(compile(source, name + ".py", "exec", dont_inherit=True), module.__dict__)',
  '    sys.argv = [argv[0]] + argv[2 + 2 * count:]',
  '    return module.main(sys.argv)',
  'sys.exit(_seqk_load(sys.argv))',
].join('\n')

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
/** RLIMIT_NPROC when dropped to the worker's own uid without bubblewrap (counted per uid on the host). */
const SHARED_UID_PROCESSES = 512
const FILE_SIZE_BYTES = 16 * 1024 * 1024
const OPEN_FILES = 256

interface HarnessSources {
  /** The judge's modules, as loader arguments: their count, then each name and source. */
  judge: string[]
  /** The worker's modules, likewise (handed to the judge, which starts the worker). */
  worker: string[]
}

let harnessSources: Promise<HarnessSources> | undefined

function moduleArgs(names: readonly string[], sources: ReadonlyMap<string, string>): string[] {
  return [String(names.length), ...names.flatMap((name) => [name, sources.get(name) ?? ''])]
}

/** The judge's and the worker's modules; fails loudly when the build forgot to copy them. */
function loadHarness(): Promise<HarnessSources> {
  const names = [...new Set([...JUDGE_MODULES, ...WORKER_MODULES])]
  harnessSources ??= Promise.all(
    names.map((name) => readFile(fileURLToPath(new URL(`./${name}.py`, import.meta.url)), 'utf8')),
  ).then(
    (texts) => {
      const sources = new Map(names.map((name, i) => [name, texts[i] ?? '']))
      return { judge: moduleArgs(JUDGE_MODULES, sources), worker: moduleArgs(WORKER_MODULES, sources) }
    },
    (error: unknown) => {
      harnessSources = undefined
      throw new Error(
        `vitest-seqk python-tests: a Python module (${names.map((n) => `${n}.py`).join(', ')}) is missing from ${HARNESS_DIR}. ` +
          'They must sit next to run-harness.js (the build copies src/verifiers/python-tests/*.py).',
        { cause: error },
      )
    },
  )
  return harnessSources
}

/**
 * The limits of one attempt under `plan`: CPU a second above the wall-clock timeout (so the
 * timeout, not SIGXCPU, is what a busy loop normally meets), memory, file size, open files, and
 * processes where RLIMIT_NPROC is meaningful (see the constants).
 */
export function attemptLimits(
  plan: SandboxPlan,
  options: { timeoutMs: number; maxOutputBytes: number; memoryMb?: number },
): AttemptLimits {
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
 * Runs one request: the task's tests in a trusted judge process (judge.py, never runs candidate
 * code) and the candidate in a forked child of a warm worker (worker.py; a fresh one with
 * `pool: false`) with its own session, an empty environment (no API keys), a fresh temporary
 * working directory, resource limits, a seccomp filter, capped output and a wall-clock timeout
 * after which its whole process tree is killed; inside bubblewrap when available (`planSandbox`).
 *
 * Resolves for every outcome of the candidate (timeouts, crashes, lies on its channel); rejects
 * only for infrastructure problems (no worker can be started, the sources are missing, the
 * trusted side failed on its own) and with the signal's reason when aborted.
 *
 * @example
 * const run = await runHarness(
 *   { setup: '', code: 'def f(x):\n    return x + 1', tests: 'assert f(1) == 2' },
 *   { python: await resolvePython(), timeoutMs: 3000, maxOutputBytes: 65536 },
 * )
 * run.result.outcome // 'passed'
 */
export async function runHarness(request: HarnessRequest, options: RunHarnessOptions): Promise<HarnessRun> {
  const { signal } = options
  if (signal?.aborted) throw abortReason(signal)
  const plan = planSandbox(options.sandbox ?? 'auto')
  const [sources, interpreter] = await Promise.all([loadHarness(), resolveInterpreter(options.python)])
  const reuse = options.pool ?? true
  const pool = poolFor(plan, interpreter, sources, reuse)
  const spec = pool.spec
  const limits = attemptLimits(plan, options)
  const started = performance.now()
  let outcome: AttemptOutcome
  try {
    const attempt = { setup: request.setup, code: request.code, tests: request.tests }
    outcome = await pool.run(request.only ? { ...attempt, only: request.only } : attempt, limits, signal)
  } catch (error) {
    if (signal?.aborted) throw error
    throw explainStartFailure(error, plan, interpreter.path)
  }
  if (outcome.kind === 'lost') {
    // The judge runs outside the candidate's reach: losing it twice is ours, not the answer's.
    throw new Error(`vitest-seqk python-tests: the judge process died twice during an attempt (${outcome.reason})`)
  }
  if (outcome.kind === 'overran') {
    // The judge's own evaluation of the tests spun past its CPU limit on what the answer
    // returned: the answer's failure once a fresh judge passes its self-check, else ours.
    try {
      await pool.selfCheck(signal)
    } catch (error) {
      if (signal?.aborted) throw error
      throw new Error(
        'vitest-seqk python-tests: the judge ran out of CPU evaluating the tests, and a fresh judge failed its self-check',
        { cause: error },
      )
    }
    const error = `the tests' evaluation of what the answer returned did not finish within the CPU limit of ${limits.timeoutMs} ms and more`
    return {
      sandbox: plan.mode,
      limits,
      result: { outcome: 'timeout', statements: 0, tests: [], error, timeoutIn: EVALUATION_TIMEOUT },
      timedOut: true,
      exitCode: null,
      exitSignal: null,
      stdout: '',
      stderr: '',
      durationMs: performance.now() - started,
    }
  }
  if (outcome.kind === 'unresponsive') {
    throw new Error(
      `vitest-seqk python-tests: the judge process stopped answering ${Math.round((performance.now() - started) / 1000)} s into an attempt whose limit is ${limits.timeoutMs} ms, and was killed`,
    )
  }
  const frame = outcome.frame
  const parsed = HarnessResultSchema.safeParse(frame.result)
  if (!parsed.success) {
    throw new Error(
      `vitest-seqk python-tests: the judge sent a result that does not match its schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    )
  }
  const result = parsed.data
  if (result.outcome === 'harness-error') {
    throw new Error(
      `vitest-seqk python-tests: the trusted side failed on its own (infrastructure, not the answer): ${result.error ?? 'unknown error'}`,
    )
  }
  if (
    result.outcome !== 'tests-error' &&
    result.outcome !== 'load-error' &&
    result.outcome !== 'timeout' &&
    result.tests.length !== result.statements
  ) {
    throw new Error(
      `vitest-seqk python-tests: the judge reported ${result.tests.length} test records for ${result.statements} test statements`,
    )
  }
  return {
    sandbox: plan.mode,
    limits,
    result,
    timedOut: result.outcome === 'timeout',
    exitCode: frame.exitCode ?? null,
    exitSignal: signalName(frame.exitSignal),
    stdout: await textInSlices(frame.outputParts?.[0] ?? []),
    stderr: await textInSlices(frame.outputParts?.[1] ?? []),
    durationMs: frame.durationMs ?? performance.now() - started,
    ...(spec.hostPids && outcome.pid !== undefined ? { pid: outcome.pid } : {}),
    ...(frame.marks !== undefined ? { marks: frame.marks } : {}),
  }
}

// The pool of a (sandbox, interpreter, reuse) triple: its command line holds ~80 KB of Python
// source and stats the system directories, so it is built once, not per verify (~0.4 ms each).
const poolsByKey = new Map<string, WorkerPool>()

function poolFor(plan: SandboxPlan, interpreter: Interpreter, sources: HarnessSources, reuse: boolean): WorkerPool {
  const key = `${plan.mode}\0${plan.setpriv ?? ''}\0${interpreter.path}\0${String(reuse)}`
  const known = poolsByKey.get(key)
  // A pool closed by closeAllPools() is replaced by sharedPool with a fresh one.
  if (known && !known.isClosed) return known
  const flags = pythonFlags(interpreter.version)
  // The judge starts the worker: this prefix, the worker's modules, then its own arguments.
  const worker = {
    prefix: workerCommand(plan, interpreter, [...flags, '-c', HARNESS_LOADER], { drop: false }),
    args: [plan.mode, JSON.stringify(interpreter.sitePackages), ...(reuse ? [] : ['once'])],
  }
  // The judge prepends `setpriv` to a uid of its own (SANDBOX_UID_BASE + its pid, see judge.py).
  const config = {
    worker,
    env: WORKER_ENV,
    mode: plan.mode,
    drop: plan.setpriv ?? null,
    sites: interpreter.sitePackages,
  }
  const spec: WorkerSpec = {
    // The judge runs as this process's user, outside the sandbox; it starts the worker command.
    argv: [
      interpreter.path,
      ...flags,
      '-c',
      HARNESS_LOADER,
      ...sources.judge,
      JSON.stringify(config),
      ...sources.worker,
    ],
    mode: plan.mode,
    hostPids: plan.mode === 'none',
    ...(plan.mode === 'none' && plan.setpriv ? { dropWith: plan.setpriv } : {}),
  }
  const pool = sharedPool(spec, Math.max(1, availableParallelism()), reuse)
  poolsByKey.set(key, pool)
  return pool
}

/** Adds the likely cause to a worker that would not start under a dropped uid or bubblewrap. */
function explainStartFailure(error: unknown, plan: SandboxPlan, python: string): unknown {
  if (!(error instanceof Error) || !/before it was ready|could not start/.test(error.message)) return error
  const hints: string[] = []
  if (plan.setpriv) {
    hints.push(
      `Attempts run as an unprivileged uid of their own, which must be able to read and execute ${python} and its standard library ` +
        '(an interpreter under /root is not readable): install a system python3 (apt-get install python3), ' +
        "point SEQK_PYTHON / the `python` option at a world-readable interpreter, or use sandbox: 'none' as a non-root user.",
    )
  }
  if (plan.mode === 'bwrap')
    hints.push("Inside bubblewrap only /usr (and the interpreter's own directories) are visible.")
  if (hints.length === 0) return error
  error.message += `\n${hints.join('\n')}`
  return error
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason })
}
