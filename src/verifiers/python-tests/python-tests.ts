/**
 * The `python-tests` verifier: runs an answer's Python code against a task's hidden tests, with the
 * official HumanEval Pro verdict (every test statement passes within the time limit, the better of
 * the code as written and the sanitised code) and per-test diagnostics (call, expected, actual)
 * for `verifier` feedback. Candidate code runs sandboxed (see sandbox.ts) in warm workers (pool.ts).
 */
import { createHash } from 'node:crypto'
import { rejectUnknownOptions } from '../../core/option-checks.js'
import type { AnyTask } from '../../core/task.js'
import type { AsyncVerifier, Diagnostics, TestOutcome, Verdict, VerifyOptions } from '../verifier.js'
import { hasAssertion, PYTHON_BUILTIN_NAMES } from './assertions.js'
import { extractPythonCode, normalisePythonAnswer, sanitisePythonCode } from './extract.js'
import type { SanitisedCode } from './extract.js'
import { resolveInterpreter } from './interpreter.js'
import { DEFAULT_MEMORY_MB, runHarness } from './run-harness.js'
import type { HarnessRequest, HarnessRun } from './run-harness.js'
import { planSandbox, unsandboxedModelCodeError } from './sandbox.js'
import { pythonTestsFieldsOf } from './task-fields.js'
import { heldOutIndices, heldOutShareProblem, hideHeldOut } from './held-out.js'
import type { HeldOutShare } from './held-out.js'
import type { SandboxMode, SandboxOption } from './sandbox.js'

/** The options of `verifiers.pythonTests()`: the interpreter, the sandbox, time and memory limits. */
export interface PythonTestsOptions {
  /**
   * Wall-clock limit per attempt in ms, from the start of the attempt's process to its exit.
   * Default 3000 (the official harness's 3 s); at most 600 000 (10 minutes, the cell's own
   * default timeout). With `pool: false` the interpreter's start is not
   * counted either: the limit applies to the forked attempt in both modes.
   */
  timeoutMs?: number
  /**
   * Interpreter to run. Default: `SEQK_PYTHON`, else (sandboxed or as root) `/usr/bin/python3` when
   * it is 3.8+, else `python3` on PATH, resolved once to its real path (`sys.executable`).
   */
  python?: string
  /** Cap per stream on the candidate's stdout and stderr kept in diagnostics. Default 64 KiB; at most 16 MiB (it is stored with every attempt). */
  maxOutputBytes?: number
  /**
   * Reuse verdicts of identical (setup, tests, code, settings) within the process, only where a
   * fresh run could not say otherwise: the code's process reported no randomness, clock, thread or
   * dynamic import, and a second run gave the same verdict. Default true.
   */
  cache?: boolean
  /**
   * Isolation of candidate code. `auto` (default): bubblewrap when it works on this machine, else
   * no sandbox with a one-time warning. `bwrap`: bubblewrap or an error. `none`: no namespaces
   * (resource limits, timeout, empty environment and, as root, an unprivileged uid of its own still apply).
   * The mode in use is `verifier.sandbox`.
   */
  sandbox?: SandboxOption
  /** Address-space limit (RLIMIT_AS) per attempt in MiB. Default 1024; from 64 to 65 536 (64 GiB). */
  memoryMb?: number
  /**
   * Run the task's `setup` (the prompt's import lines) before the candidate's code. Default false:
   * the official CodeEval-Pro chat-mode harness runs the candidate's code and then the tests,
   * nothing prepended, so an answer that drops an import the tests need fails there. True is the
   * completion-mode reading (the prompt is part of the program); it is part of the protocol.
   */
  prependSetup?: boolean
  /**
   * Run attempts in warm workers that fork per attempt (default true, ~4-8 ms per verify), or
   * start a fresh sandboxed interpreter per attempt (false, ~45-60 ms). Same isolation either way.
   */
  pool?: boolean
  /**
   * Hold out a share of each task's test statements from feedback, chosen by a seeded hash: their
   * failures count in the verdict but never appear in its diagnostics (see `heldOutTests` on a task
   * for an explicit list). The share and seed are part of the protocol. Default: none held out.
   */
  heldOut?: HeldOutShare
  /**
   * Judge an agent's workspace instead of its answer's text (`actors.agent({ workspace })`): the
   * workspace's files are written into the attempt's directory, every top-level module (a
   * `name.py` not named `test*`) is imported with `from name import *`, and the task's tests run
   * against those names, in the same sandbox and limits. An attempt without a workspace is an
   * error (the actor is not an agent with a workspace). Default false.
   */
  workspace?: boolean
}

/** Counters of one verifier instance (observability and tests). */
export interface PythonTestsStats {
  /** Attempts run in Python (an answer whose sanitised code is also tried counts twice). */
  runs: number
  /** Verdicts answered from the cache without running Python. */
  cacheHits: number
  /** Verdicts decided by the sanitised code because it did better than the code as written. */
  sanitised: number
}

/** The verifier `verifiers.pythonTests()` returns. */
export interface PythonTestsVerifier extends AsyncVerifier {
  readonly stats: Readonly<PythonTestsStats>
  /** The isolation in use (not part of the protocol: it never changes a legitimate verdict). */
  readonly sandbox: SandboxMode
}

/** The options pythonTests() knows: any other is a typo, named with the nearest valid one. */
const PYTHON_TESTS_OPTIONS = [
  'timeoutMs',
  'python',
  'maxOutputBytes',
  'cache',
  'sandbox',
  'memoryMb',
  'prependSetup',
  'pool',
  'heldOut',
  'workspace',
] as const
/** Upper bounds of the numeric options (see PythonTestsOptions). */
const MAX_TIMEOUT_MS = 600_000
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024
const MAX_MEMORY_MB = 65_536

/** Bumped whenever the harness or the verdict logic changes what a verdict says. */
const VERSION = '5'
/**
 * An answer larger than this is not read or run: the verdict says it is oversized (HumanEval
 * answers are a few KiB). The code is part of the answer, so it is never larger either.
 */
export const MAX_CODE_BYTES = 1024 * 1024

/** The answer's UTF-8 size; Infinity, without counting, when its length alone is over the limit. */
function answerBytes(answer: string): number {
  return answer.length > MAX_CODE_BYTES ? Infinity : Buffer.byteLength(answer, 'utf8')
}

/**
 * Verifies code answers by running hidden Python tests, as HumanEval Pro / MBPP Pro do.
 *
 * The code is the answer's first Python code block (else the whole answer); the task's `setup`
 * (the prompt's imports) runs first, then the code, then each top-level statement of `task.tests`
 * on its own. The verdict passes only when every statement passes, as in the official harness;
 * the diagnostics list every statement with call / expected / actual for `assert CALL == EXPECTED`.
 * When the code as written fails and the official sanitiser would cut it (at `if __name__`,
 * `# Test` or `# Example`), the cut code runs too and the better verdict is kept; `extracted` is
 * the code that verdict is about and the summary says when it is the sanitised one.
 *
 * Each attempt runs in a fresh process (forked from a warm worker) with an empty environment, in
 * its own session and temporary directory, with CPU, memory, file-size, open-file and process
 * limits and a wall-clock timeout that kills everything it started; inside bubblewrap (no network,
 * read-only system, an unprivileged uid of its own) when available. See sandbox.ts for what each mode contains.
 *
 * @throws SandboxUnavailableError (at creation) when `sandbox: 'bwrap'` cannot run on this machine.
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
  rejectUnknownOptions('verifiers.pythonTests()', options, PYTHON_TESTS_OPTIONS)
  const timeoutMs = options.timeoutMs ?? 3000
  const maxOutputBytes = options.maxOutputBytes ?? 64 * 1024
  const memoryMb = options.memoryMb ?? DEFAULT_MEMORY_MB
  const useCache = options.cache ?? true
  const usePool = options.pool ?? true
  const prependSetup = options.prependSetup ?? false
  const judgeWorkspace = options.workspace ?? false
  for (const [name, value] of [
    ['prependSetup', prependSetup],
    ['workspace', judgeWorkspace],
    ['cache', useCache],
    ['pool', usePool],
  ] as const) {
    if (typeof value !== 'boolean')
      throw new RangeError(`pythonTests: ${name} must be true or false, got ${String(value)}`)
  }
  if (options.python !== undefined && (typeof options.python !== 'string' || options.python === ''))
    throw new RangeError(
      `pythonTests: python must be the path or name of a Python 3.8+ interpreter, got ${String(options.python)}`,
    )
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_TIMEOUT_MS)) {
    throw new RangeError(
      `pythonTests: timeoutMs must be a positive number of ms up to ${MAX_TIMEOUT_MS} (10 minutes: an attempt longer than that outlasts the cell's own timeout), got ${timeoutMs}`,
    )
  }
  if (!(Number.isInteger(maxOutputBytes) && maxOutputBytes > 0 && maxOutputBytes <= MAX_OUTPUT_BYTES)) {
    throw new RangeError(
      `pythonTests: maxOutputBytes must be a positive integer up to ${MAX_OUTPUT_BYTES} (16 MiB: the output is stored with every attempt), got ${maxOutputBytes}`,
    )
  }
  if (!(Number.isFinite(memoryMb) && memoryMb >= 64 && memoryMb <= MAX_MEMORY_MB))
    throw new RangeError(`pythonTests: memoryMb must be a number from 64 to ${MAX_MEMORY_MB} (64 GiB), got ${memoryMb}`)
  const heldOutProblem = options.heldOut === undefined ? undefined : heldOutShareProblem(options.heldOut)
  if (heldOutProblem !== undefined) throw new RangeError(`pythonTests: ${heldOutProblem}`)
  const heldOut = options.heldOut
  const sandboxOption = options.sandbox ?? 'auto'
  if (!['auto', 'bwrap', 'none'].includes(sandboxOption))
    throw new RangeError(`pythonTests: sandbox must be 'auto', 'bwrap' or 'none', got ${String(sandboxOption)}`)
  // Decided now, synchronously, so `verifier.sandbox` can say which isolation is in use.
  const plan = planSandbox(sandboxOption)
  // A dropped uid (root) or bubblewrap prefers the system interpreter (see interpreter.ts).
  const preferSystem = plan.mode === 'bwrap' || plan.setpriv !== undefined
  const stats: PythonTestsStats = { runs: 0, cacheHits: 0, sanitised: 0 }

  return {
    name: 'python-tests',
    version: VERSION,
    // The memory limit can change verdicts (a 2 GiB allocation). The sandbox is left out of the
    // protocol on purpose: it only removes what a task's code has no business using (network,
    // the host's files), and a laptop without bubblewrap must still compare with CI's baseline.
    // The split is part of the protocol too; without one the settings stay as they always were.
    settings: {
      timeoutMs,
      memoryMb,
      prependSetup,
      ...(heldOut ? { heldOutShare: heldOut.share, heldOutSeed: heldOut.seed } : {}),
      ...(judgeWorkspace ? { workspace: true } : {}),
    },
    stats,
    sandbox: plan.mode,

    checkTask(task: AnyTask): string[] {
      const fields = pythonTestsFieldsOf(task)
      if (typeof fields === 'string') return [fields]
      const { tests, entryPoint, heldOutTests } = fields
      if (heldOutTests !== undefined && new Set(heldOutTests).size !== heldOutTests.length)
        return [`task ${task.id}: its \`heldOutTests\` list a statement twice; list each held-out statement index once`]
      if (tests === undefined)
        return [`task ${task.id}: python-tests needs \`tests\` (Python test statements), but the task has none`]
      if (tests.trim() === '') return [`task ${task.id}: python-tests needs \`tests\`, but they are empty`]
      if (!hasAssertion(tests)) {
        return [
          `task ${task.id}: its \`tests\` hold no \`assert\` (and no \`raise\`), so every answer would pass; write them as \`assert CALL == EXPECTED\` lines`,
        ]
      }
      if (entryPoint !== undefined && PYTHON_BUILTIN_NAMES.has(entryPoint)) {
        return [
          `task ${task.id}: its entryPoint \`${entryPoint}\` is a Python built-in, which the tests keep as Python's own (a candidate may not redefine what the tests compare with); rename the function`,
        ]
      }
      return []
    },

    // What verify() would find missing after a paid answer, found before any call (see Verifier.preflight).
    async preflight({ origin }: { origin: 'model' | 'bundled-simulation' }): Promise<void> {
      if (plan.missing !== undefined && origin !== 'bundled-simulation') throw unsandboxedModelCodeError(plan.missing)
      await resolveInterpreter(options.python, { preferSystem })
    },

    // An oversized answer is never run: it stands for itself, unread.
    normalise: (answer: string) => (answerBytes(answer) > MAX_CODE_BYTES ? answer : normalisePythonAnswer(answer)),

    async verify(task: AnyTask, answer: string, verifyOptions: VerifyOptions = {}): Promise<Verdict> {
      const { signal } = verifyOptions
      if (signal?.aborted) throw abortReason(signal)
      // Fail closed: where `auto` found no sandbox, only this project's own simulated code may run.
      if (plan.missing !== undefined && verifyOptions.origin !== 'bundled-simulation')
        throw unsandboxedModelCodeError(plan.missing)
      const fields = pythonTestsFieldsOf(task)
      if (typeof fields === 'string') throw new Error(`vitest-seqk python-tests: ${fields}`)
      const { tests, setup, heldOutTests } = fields
      if (tests === undefined || tests.trim() === '') {
        throw new Error(`vitest-seqk python-tests: task ${task.id} has no tests to run`)
      }
      let program: string | undefined
      if (judgeWorkspace) {
        const built = workspaceProgram(task, verifyOptions.workspace)
        if (typeof built !== 'string') return built
        program = built
      }
      // Measured before anything reads the answer: no answer, however large, holds up Node's event loop.
      const bytes = program !== undefined ? 0 : answerBytes(answer)
      if (bytes > MAX_CODE_BYTES) {
        const size = bytes === Infinity ? `over ${MAX_CODE_BYTES / 1048576} MiB` : `${(bytes / 1048576).toFixed(1)} MiB`
        const summary = `the answer is ${size}, over the limit of ${MAX_CODE_BYTES / 1048576} MiB for its code, so it was not run`
        const error = `oversized answer (${bytes === Infinity ? `${answer.length} characters` : `${bytes} bytes`})`
        return {
          pass: false,
          extracted: answer.slice(0, 2000),
          durationMs: 0,
          diagnostics: { outcome: 'load-error', summary, error },
        }
      }
      const code = program ?? extractPythonCode(answer)
      if (code.trim() === '') {
        return {
          pass: false,
          extracted: code,
          durationMs: 0,
          diagnostics: { outcome: 'no-answer', summary: 'the answer contains no code' },
        }
      }
      const python = (await resolveInterpreter(options.python, { preferSystem })).path
      const request: HarnessRequest = { setup: prependSetup ? (setup ?? '') : '', code, tests }
      // A split depends on the task's id, so a held-out verdict is cached per task.
      const split =
        heldOutTests !== undefined || heldOut
          ? JSON.stringify([task.id, heldOutTests ?? null, heldOut?.share ?? null, heldOut?.seed ?? null])
          : ''
      const key = useCache
        ? cacheKey(request, [python, plan.mode, timeoutMs, maxOutputBytes, memoryMb, split])
        : undefined
      const cached = key !== undefined ? cache.reusable(key) : undefined
      if (cached) {
        stats.cacheHits++
        return structuredClone(cached)
      }

      const attempt = async (candidate: string, only?: number[]): Promise<{ verdict: Verdict; run: HarnessRun }> => {
        stats.runs++
        const run = await runHarness(
          { ...request, code: candidate, ...(only ? { only } : {}) },
          {
            python,
            timeoutMs,
            maxOutputBytes,
            memoryMb,
            sandbox: plan.mode,
            pool: usePool,
            ...(signal ? { signal } : {}),
          },
        )
        return { verdict: toVerdict(task, candidate, run, timeoutMs), run }
      }

      const raw = await attempt(code)
      let verdict: Verdict = { ...raw.verdict, variant: 'raw' }
      // Load-dependent outcomes (a timeout, a lost worker) are never reused.
      let cacheable = reusable(raw.run)
      // Whether every run reported nothing that may differ in a fresh one (see VerdictCache).
      let deterministic = raw.run.result.deterministic === true
      // The official harness scores the code as written and the sanitised code and keeps the
      // better; per answer here, so a failing demo under `if __name__` does not sink right code.
      const sanitised = raw.verdict.pass || program !== undefined ? undefined : sanitisePythonCode(code)
      if (sanitised) {
        const cut = await attempt(sanitised.code)
        cacheable &&= reusable(cut.run)
        deterministic &&= cut.run.result.deterministic === true
        const durationMs = (raw.verdict.durationMs ?? 0) + (cut.verdict.durationMs ?? 0)
        if (better(cut.verdict, raw.verdict)) {
          stats.sanitised++
          verdict = { ...describeSanitised(cut.verdict, raw.verdict, sanitised), variant: 'sanitised' }
        }
        verdict = { ...verdict, durationMs }
      }

      if (split !== '') {
        const held = heldOutSplit(task, raw.run.result.statements, heldOutTests, heldOut)
        let shown: Verdict | undefined
        if (held.statements > 0 && held.heldOut.length > 0) {
          // What feedback may read comes from a fresh process that runs the visible statements
          // alone: it is told no other statement's names and sent no other call, so nothing the
          // candidate's side writes there (an actual value, an error) can hold a held-out input.
          const out = new Set(held.heldOut)
          const only = Array.from({ length: held.statements }, (_, i) => i).filter((i) => !out.has(i))
          const chosen = verdict.variant === 'sanitised' && sanitised ? sanitised.code : code
          const visibleRun = await attempt(chosen, only)
          cacheable &&= reusable(visibleRun.run)
          deterministic &&= visibleRun.run.result.deterministic === true
          shown = visibleRun.verdict
        }
        verdict = hideHeldOut(verdict, held, shown)
      }
      if (key !== undefined && cacheable) cache.record(key, verdict, deterministic)
      return verdict
    },
  }
}

/** A workspace's top-level module: `name.py`, `name` an identifier not starting with `test`. */
const WORKSPACE_MODULE = /^(?!test)[A-Za-z_][A-Za-z0-9_]*\.py$/

/**
 * The program that judges a workspace: it writes the files into the attempt's own directory and
 * imports every top-level module's names, so the tests call them as they would a code answer's.
 * A verdict instead when there is nothing to run; an error when the attempt has no workspace.
 */
function workspaceProgram(task: AnyTask, snapshot: VerifyOptions['workspace']): string | Verdict {
  if (snapshot === undefined)
    throw new Error(
      `vitest-seqk python-tests: pythonTests({ workspace: true }) judges an agent's workspace, but the attempt at task ${task.id} has none; use actors.agent({ workspace: true, ... }) as the actor`,
    )
  const paths = Object.keys(snapshot.files).sort()
  const bytes = paths.reduce((sum, p) => sum + Buffer.byteLength(p) + Buffer.byteLength(snapshot.files[p] ?? ''), 0)
  if (snapshot.tooLarge === true || bytes > MAX_CODE_BYTES)
    return {
      pass: false,
      durationMs: 0,
      extracted: '',
      diagnostics: {
        outcome: 'load-error',
        summary: `the workspace's files are over the limit of ${MAX_CODE_BYTES / 1048576} MiB, so they were not run`,
        error: 'oversized workspace',
      },
    }
  const unsafe = paths.find((p) => p.startsWith('/') || p.split('/').includes('..') || p.includes('\0'))
  if (unsafe !== undefined)
    throw new Error(`vitest-seqk python-tests: the workspace holds a path outside it: ${JSON.stringify(unsafe)}`)
  const modules = paths.filter((p) => WORKSPACE_MODULE.test(p)).map((p) => p.slice(0, -3))
  if (modules.length === 0)
    return {
      pass: false,
      durationMs: 0,
      extracted: paths.join('\n'),
      diagnostics: { outcome: 'no-answer', summary: 'the workspace holds no top-level Python module to test' },
    }
  // JSON strings are Python string literals (JSON.stringify never writes `\/`).
  const files = `{${paths.map((p) => `${JSON.stringify(p)}: ${JSON.stringify(snapshot.files[p])}`).join(', ')}}`
  return [
    'import os as _seqk_os, sys as _seqk_sys',
    `for _seqk_path, _seqk_text in ${files}.items():`,
    '    if _seqk_os.path.dirname(_seqk_path):',
    '        _seqk_os.makedirs(_seqk_os.path.dirname(_seqk_path), exist_ok=True)',
    '    with open(_seqk_path, "w", encoding="utf-8") as _seqk_file:',
    '        _seqk_file.write(_seqk_text)',
    '_seqk_sys.path.insert(0, _seqk_os.getcwd())',
    'del _seqk_os, _seqk_sys, _seqk_path, _seqk_text, _seqk_file',
    ...modules.map((m) => `from ${m} import *`),
    '',
  ].join('\n')
}

/** The task's held-out statements: its own list, else the verifier's share. Throws on an index past the tests. */
function heldOutSplit(
  task: AnyTask,
  statements: number,
  list: readonly number[] | undefined,
  share: HeldOutShare | undefined,
) {
  if (list === undefined) return { statements, heldOut: share ? heldOutIndices(task.id, statements, share) : [] }
  const outside = list.find((i) => i >= statements)
  if (statements > 0 && outside !== undefined) {
    throw new Error(
      `vitest-seqk python-tests: task ${task.id} holds out test statement ${outside}, but its tests have ${statements} statements (0 to ${statements - 1}); fix \`heldOutTests\``,
    )
  }
  return { statements, heldOut: [...list].sort((a, b) => a - b) }
}

function reusable(run: HarnessRun): boolean {
  return !run.timedOut && run.result.memoryLimited !== true
}

/** Order of outcomes for "the better of raw and sanitised": more passing tests wins within `failed`. */
const OUTCOME_RANK: Record<Diagnostics['outcome'], number> = {
  passed: 4,
  failed: 3,
  'load-error': 2,
  timeout: 1,
  'no-answer': 0,
}

/** True when `a` is strictly better than `b` (ties keep the code as written). */
function better(a: Verdict, b: Verdict): boolean {
  if (a.pass !== b.pass) return a.pass
  const rank = OUTCOME_RANK[a.diagnostics.outcome] - OUTCOME_RANK[b.diagnostics.outcome]
  if (rank !== 0) return rank > 0
  const passing = (v: Verdict): number => v.diagnostics.tests?.filter((t) => t.pass).length ?? 0
  return passing(a) > passing(b)
}

/** The sanitised verdict, with a summary that says so and what the code as written did. */
function describeSanitised(verdict: Verdict, raw: Verdict, cut: SanitisedCode): Verdict {
  const marker = cut.marker.length > 40 ? `${cut.marker.slice(0, 39)}…` : cut.marker
  const summary = `${verdict.diagnostics.summary} (sanitised: code cut at line ${cut.line} \`${marker}\`; as written: ${oneLine(raw.diagnostics.summary, 120)})`
  return { ...verdict, diagnostics: { ...verdict.diagnostics, summary: oneLine(summary, 400) } }
}

/** Turns the judge's result into a verdict. Throws when the task's own tests or setup are broken. */
function toVerdict(task: AnyTask, code: string, run: HarnessRun, timeoutMs: number): Verdict {
  const output: Pick<Diagnostics, 'stdout' | 'stderr'> = {
    ...(run.stdout !== '' ? { stdout: run.stdout } : {}),
    ...(run.stderr !== '' ? { stderr: run.stderr } : {}),
  }
  const base = { extracted: code, durationMs: Math.round(run.durationMs), sandbox: run.sandbox }
  const result = run.result
  const tests: TestOutcome[] = result.tests
  if (result.outcome === 'tests-error') {
    throw new Error(
      `vitest-seqk python-tests: the tests or setup of task ${task.id} are broken: ${result.error ?? 'unknown error'}`,
    )
  }
  if (result.outcome === 'load-error') {
    const error = result.error ?? 'unknown error'
    return {
      ...base,
      pass: false,
      score: 0,
      diagnostics: { outcome: 'load-error', summary: oneLine(`code did not load: ${error}`), error, ...output },
    }
  }
  if (result.outcome === 'timeout') {
    // The judge knows which call had not returned when the time ran out.
    const where = timeoutPlace(result.timeoutIn)
    return {
      ...base,
      pass: false,
      score: 0,
      diagnostics: {
        outcome: 'timeout',
        summary: oneLine(`timed out after ${timeoutMs} ms${where}`),
        ...(tests.length > 0 ? { tests } : {}),
        ...output,
      },
    }
  }
  const failed = tests.filter((t) => !t.pass).length
  const pass = result.outcome === 'passed' && failed === 0 && tests.length > 0
  const memory =
    result.memoryLimited === true
      ? ` (the attempt's processes were killed for exceeding the memory limit of ${run.limits.memoryBytes / 1048576} MiB together)`
      : ''
  const summary = pass ? `all ${tests.length} tests passed` : `${failed} of ${tests.length} tests failed${memory}`
  return {
    ...base,
    pass,
    // The benchmark's own score is all or nothing (CodeEval-Pro counts a task solved when every
    // test passes), so the score curve of a code cell is its solved rate; the tests say how close.
    score: pass ? 1 : 0,
    diagnostics: { outcome: pass ? 'passed' : 'failed', summary, tests, ...output },
  }
}

/** Where the time ran out, as the summary says it. */
function timeoutPlace(timeoutIn: string | undefined): string {
  if (timeoutIn === undefined) return ''
  if (timeoutIn === 'loading the code') return ' while loading the code'
  if (timeoutIn.startsWith('the evaluation of ')) return ` in ${timeoutIn}`
  return ` in the call ${timeoutIn}`
}

function oneLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason })
}

// ---------------------------------------------------------------------------------------------
// Verdict cache: shared by every pythonTests() instance in the process, for simulated actors and
// reruns that resubmit identical code. A verdict is reused only where a fresh run could not say
// otherwise: the code's process reported nothing that may differ between runs (no randomness,
// clock, thread or dynamic import among the names its code uses, `random`'s state untouched:
// candidate.py EntropyProbe), and a second run of the same code gave the same verdict. Until then
// every verify runs, so a draw's luck is never handed to another repeat, sample or actor; code
// shown to vary is never cached again. Timeouts and memory kills are load-dependent: never kept.

type CacheEntry =
  /** Seen once, deterministic by its own report: the SHA-256 of what its verdict says. */
  | { state: 'seen'; fingerprint: string }
  /** Two runs agreed: reused from now on. */
  | { state: 'confirmed'; verdict: Verdict; bytes: number }
  /** It varied, or said it might: never reused. */
  | { state: 'varies' }

/** Evicts oldest entries beyond this many (approximate) bytes: stdout can make verdicts big. */
const CACHE_BUDGET_BYTES = 64 * 1024 * 1024
/** A verdict whose output is longer than this (characters) is never cached: hashing it would hold up Node. */
const CACHE_MAX_OUTPUT_CHARS = 1024 * 1024

/** What a verdict says, for comparing two runs: everything but how long they took. */
function verdictFingerprint(verdict: Verdict): string {
  const { durationMs: _duration, ...said } = verdict
  return createHash('sha256').update(JSON.stringify(said)).digest('hex')
}

function outputChars(verdict: Verdict): number {
  return (verdict.diagnostics.stdout?.length ?? 0) + (verdict.diagnostics.stderr?.length ?? 0)
}

class VerdictCache {
  private entries = new Map<string, CacheEntry>()
  private bytes = 0

  /** The verdict to reuse: only one two runs agreed on. */
  reusable(key: string): Verdict | undefined {
    const entry = this.entries.get(key)
    return entry?.state === 'confirmed' ? entry.verdict : undefined
  }

  /**
   * A fresh run's verdict: `deterministic` when its process reported nothing that may vary. The
   * first such run is remembered by fingerprint, a second that agrees makes it reusable, one that
   * differs (or any run not deterministic) marks the code as varying for good.
   */
  record(key: string, verdict: Verdict, deterministic: boolean): void {
    const entry = this.entries.get(key)
    if (entry?.state === 'varies' || outputChars(verdict) > CACHE_MAX_OUTPUT_CHARS) return
    if (!deterministic) return this.put(key, { state: 'varies' }, 64)
    const fingerprint = verdictFingerprint(verdict)
    if (entry === undefined) return this.put(key, { state: 'seen', fingerprint }, 128)
    if (entry.state !== 'seen') return
    if (entry.fingerprint !== fingerprint) return this.put(key, { state: 'varies' }, 64)
    const frozen = structuredClone(verdict)
    // Approximate: the output dominates, the rest is small.
    const bytes = 2 * outputChars(frozen) + JSON.stringify({ ...frozen.diagnostics, stdout: '', stderr: '' }).length
    if (bytes <= CACHE_BUDGET_BYTES) this.put(key, { state: 'confirmed', verdict: frozen, bytes }, bytes)
  }

  clear(): void {
    this.entries.clear()
    this.sizes.clear()
    this.bytes = 0
  }

  private sizes = new Map<string, number>()

  private put(key: string, entry: CacheEntry, bytes: number): void {
    this.delete(key)
    this.entries.set(key, entry)
    this.sizes.set(key, bytes)
    this.bytes += bytes
    // Map iterates in insertion order: the first keys are the oldest.
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= CACHE_BUDGET_BYTES) break
      this.delete(oldest)
    }
  }

  private delete(key: string): void {
    if (!this.entries.has(key)) return
    this.entries.delete(key)
    this.bytes -= this.sizes.get(key) ?? 0
    this.sizes.delete(key)
  }
}

const cache = new VerdictCache()

function cacheKey(request: HarnessRequest, settings: readonly (string | number)[]): string {
  // JSON of an array: unambiguous field boundaries, unlike plain concatenation.
  const material = JSON.stringify([VERSION, request.setup, request.tests, request.code, ...settings])
  return createHash('sha256').update(material).digest('hex')
}

/** Empties the process-wide verdict cache (for tests and long-lived processes). */
export function clearPythonTestsCache(): void {
  cache.clear()
}
