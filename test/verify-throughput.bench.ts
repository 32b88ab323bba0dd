// Verification throughput on the 542 reference solutions of HumanEval Pro (164) and MBPP Pro (378),
// three procedures interleaved in one run, on one interpreter (the one our verifier runs:
// /usr/bin/python3 when sandboxed or as root, see src/verifiers/python-tests/interpreter.ts), at
// concurrency 1 and 2 (availableParallelism() when it is more), ROUNDS rounds of each:
//
// (a) official: one `python file.py` process per task, as the CodeEval-Pro harness runs them: the
//     candidate (tabs as 4 spaces), a newline, the tests, in one temporary file; 3 s timeout,
//     killed after it; exit code 0 = pass. Started by the interpreter's real path (no launcher).
// (b) verifier: the python-tests verifier with its defaults (sandbox `auto`, warm judges each with
//     a forked candidate worker) and no verdict cache; its judges are started (and warmed with one
//     verify each) before the clock starts, as in a run of many cells.
// (c) floor: test/fork-floor.py, one warm Python process forking a clean child per task that runs
//     the same program: no judge, socket, sandbox or Node. The least a verdict costs here.
//
// The table gives each procedure's wall time per round and per verdict and the verifier's ratios
// to the official procedure (below 1: faster) and to the floor, as medians over the rounds. Then
// one attempt's time breakdown: the median of each step over 200 sequential attempts of one task,
// from the judges' and the zygote's clocks (CLOCK_MONOTONIC, as Node's hrtime).
//
// SEQK_BENCH_CODE_EVAL=1 adds Hugging Face code_eval's exec-in-threads runner (CODE_EVAL_RUNNER).
// SEQK_BENCH_ROUNDS sets the rounds (default 3).
//
//   npm run bench:verify     (= npx vitest bench --run --project integration test/verify-throughput.bench.ts)
//
// Reads ../shared/benchmarks/ (never copied into the repository); skipped when it is absent.
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, bench, describe } from 'vitest'
import { loadCodeEvalPro, referenceCode, type CodeEvalProEntry } from '../src/benchmarks/index.js'
import { verifiers } from '../src/verifiers/index.js'
import { mapConcurrent } from '../src/protocol/concurrency.js'
import { codeEvalProFiles, missingData } from '../src/benchmarks/test-helpers.js'
import { resolvePython } from '../src/verifiers/python-tests/interpreter.js'
import { closeAllPools } from '../src/verifiers/python-tests/pool.js'
import { runHarness } from '../src/verifiers/python-tests/run-harness.js'

const files = codeEvalProFiles
const present = missingData(...Object.values(files)) === undefined

const CONCURRENCIES = [...new Set([1, Math.max(2, availableParallelism())])]
const ROUNDS = Number(process.env.SEQK_BENCH_ROUNDS ?? 3)
const TIMEOUT_MS = 3000
const ONCE = { iterations: 1, time: 0, warmupIterations: 0, warmupTime: 0 }
const CODE_EVAL = process.env.SEQK_BENCH_CODE_EVAL === '1'
const FLOOR_SCRIPT = fileURLToPath(new URL('./fork-floor.py', import.meta.url))
/** Attempts timed for the breakdown. */
const BREAKDOWN_ATTEMPTS = 200

/**
 * The per-program work of Hugging Face code_eval (evaluate/metrics/code_eval: `_compute` submits
 * every `candidate + "\n" + test_case` to a ThreadPoolExecutor(max_workers=num_workers) whose
 * threads call execute.py's `check_correctness`), reproduced step by step in one long-lived process:
 *
 * - check_correctness, per program, in a pool thread: a `multiprocessing.Manager()` (a server
 *   process of its own) and a `manager.list()` for the result; a `multiprocessing.Process` (a fork
 *   with the default start method) running unsafe_execute; `join(timeout + 1)`, `kill()` if still
 *   alive; "timed out" when the list stayed empty; passed = the first entry is "passed". The
 *   manager is shut down when it goes out of scope, as there.
 * - unsafe_execute, in the child: a `tempfile.TemporaryDirectory()` it chdirs into, then
 *   reliability_guard() (faulthandler off, exit/quit/help and the destructive os/shutil/subprocess
 *   functions set to None, OMP_NUM_THREADS=1, some modules blocked; no memory limit, as code_eval
 *   passes none), stdout/stderr/stdin swallowed, a SIGALRM `setitimer` time limit of `timeout`,
 *   `exec(program, {})` in a fresh namespace, "passed" / "timed out" / "failed: ..." appended.
 *
 * Programs come in as JSON lines `{"id", "program"}` (all of them at once, as `_compute` submits
 * every future before collecting any), results go out as `{"id", "passed"}` lines once all are done.
 * argv: workers, timeout in seconds.
 */
const CODE_EVAL_RUNNER = String.raw`
import contextlib, faulthandler, io, json, multiprocessing, os, signal, sys, tempfile
from concurrent.futures import ThreadPoolExecutor


class TimeoutException(Exception):
    pass


class WriteOnlyStringIO(io.StringIO):
    def read(self, *args, **kwargs):
        raise OSError

    readline = readlines = read

    def readable(self, *args, **kwargs):
        return False


class redirect_stdin(contextlib._RedirectStream):
    _stream = "stdin"


@contextlib.contextmanager
def swallow_io():
    stream = WriteOnlyStringIO()
    with contextlib.redirect_stdout(stream), contextlib.redirect_stderr(stream), redirect_stdin(stream):
        yield


@contextlib.contextmanager
def time_limit(seconds):
    def on_alarm(signum, frame):
        raise TimeoutException("Timed out!")

    signal.setitimer(signal.ITIMER_REAL, seconds)
    signal.signal(signal.SIGALRM, on_alarm)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


@contextlib.contextmanager
def create_tempdir():
    with tempfile.TemporaryDirectory() as dirname:
        cwd = os.getcwd()
        os.chdir(dirname)
        try:
            yield dirname
        finally:
            os.chdir(cwd)


GUARDED_OS = ("kill system putenv remove removedirs rmdir fchdir setuid fork forkpty killpg rename renames truncate "
              "replace unlink fchmod fchown chmod chown chroot lchflags lchmod lchown getcwd chdir").split()


def reliability_guard():
    import builtins, shutil, subprocess
    faulthandler.disable()
    builtins.exit = None
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in GUARDED_OS:
        setattr(os, name, None)
    shutil.rmtree = shutil.move = shutil.chown = None
    subprocess.Popen = None
    builtins.help = None
    for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[name] = None


def unsafe_execute(program, result, timeout):
    with create_tempdir():
        import shutil
        rmtree, rmdir, chdir = shutil.rmtree, os.rmdir, os.chdir
        reliability_guard()
        try:
            exec_globals = {}
            with swallow_io():
                with time_limit(timeout):
                    exec(program, exec_globals)
            result.append("passed")
        except TimeoutException:
            result.append("timed out")
        except BaseException as exc:
            result.append("failed: %s" % exc)
        shutil.rmtree, os.rmdir, os.chdir = rmtree, rmdir, chdir


def check_correctness(program, timeout):
    manager = multiprocessing.Manager()
    result = manager.list()
    process = multiprocessing.Process(target=unsafe_execute, args=(program, result, timeout))
    process.start()
    process.join(timeout=timeout + 1)
    if process.is_alive():
        process.kill()
    if not result:
        result.append("timed out")
    return result[0] == "passed"


def main():
    workers, timeout = int(sys.argv[1]), float(sys.argv[2])
    # Every program read before the first fork, results written after the last: no thread may
    # hold a stdio lock while another forks (the child's multiprocessing bootstrap closes stdin
    # and flushes stdout, and would wait forever on a lock copied held). code_eval does no I/O
    # while its threads fork either: its inputs and results are in memory.
    items = [json.loads(line) for line in sys.stdin.read().splitlines() if line.strip()]
    with ThreadPoolExecutor(max_workers=workers) as executor:
        futures = [(item["id"], executor.submit(check_correctness, item["program"], timeout)) for item in items]
        results = [{"id": id_, "passed": future.result()} for id_, future in futures]
    sys.stdout.write("".join(json.dumps(r) + "\n" for r in results))


if __name__ == "__main__":
    main()
`

interface Run {
  ms: number
  passed: number
  total: number
}

/** The official harness's run of one program: `python file.py`, passed when it exits 0 in time. */
function runOfficial(python: string, file: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(python, [file], { timeout: TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 }, (error) =>
      resolve(error === null),
    )
  })
}

/** Runs a Python script to its end (killed after `timeoutMs`): its stdout. */
function runScript(
  python: string,
  args: readonly string[],
  input: string | undefined,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    // The children's tracebacks land here: kept for a failure only.
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)))
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${args[0]} exited with code ${String(code)}: ${stderr}`)),
    )
    child.stdin.end(input ?? '')
  })
}

/** Every program through one code_eval-style runner process with `workers` threads; passed per program. */
async function runCodeEval(
  python: string,
  runner: string,
  programs: readonly string[],
  workers: number,
): Promise<boolean[]> {
  const input = programs.map((program, id) => `${JSON.stringify({ id, program })}\n`).join('')
  const out = await runScript(python, [runner, String(workers), String(TIMEOUT_MS / 1000)], input, 600_000)
  const passed = new Array<boolean>(programs.length).fill(false)
  for (const line of out.split('\n').filter((l) => l.trim() !== '')) {
    const { id, passed: ok } = JSON.parse(line) as { id: number; passed: boolean }
    passed[id] = ok
  }
  return passed
}

type Procedure = 'official' | 'verifier' | 'floor' | 'codeEval'
const NAMES: Record<Procedure, string> = {
  official: 'official: python file.py per task',
  verifier: 'verifier: python-tests, defaults, cache off',
  floor: 'floor: fork a clean child per task',
  codeEval: 'HF code_eval: exec in threads',
}
const runs = new Map<string, Run[]>()
const record = (procedure: Procedure, concurrency: number, run: Run): void => {
  const key = `${procedure}@${concurrency}`
  runs.set(key, [...(runs.get(key) ?? []), run])
}
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[middle] ?? NaN) : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2
}
let sandbox = 'n/a'
let breakdown: string[] = []
const loads: string[] = []

/** One attempt's steps, as medians over sequential attempts of one task (ms). */
async function timeBreakdown(entry: CodeEvalProEntry, python: string): Promise<string[]> {
  const options = { python, timeoutMs: TIMEOUT_MS, maxOutputBytes: 65536 }
  const request = { setup: '', code: referenceCode(entry.record), tests: entry.record.test_code }
  const steps: [string, string, string][] = [
    ['node_sent', 'received', 'Node -> judge (request frame)'],
    ['received', 'handed', 'judge: read the request, hand the call socket to the zygote'],
    ['handed', 'zygote_received', "zygote: still busy with the previous attempt's cleanup"],
    ['zygote_received', 'zygote_ready', 'zygote: the previous attempt reaped'],
    ['zygote_ready', 'zygote_handed', 'zygote: the call socket to the standby'],
    ['zygote_handed', 'started', 'zygote -> judge (started)'],
    ['started', 'armed', "candidate's process: the code, limits, armed"],
    ['armed', 'loaded', "candidate's process: load the code"],
    ['loaded', 'tested', 'the tests: calls and comparisons'],
    ['tested', 'zygote_watched', 'end: the process exits, its output complete'],
    ['zygote_watched', 'reported', 'zygote -> judge (result)'],
    ['reported', 'answered', 'judge: the result frame'],
    ['answered', 'node_received', 'judge -> Node (result frame, parsed)'],
    ['node_sent', 'node_received', 'total, as Node sees it'],
  ]
  const deltas = steps.map((): number[] => [])
  for (let i = 0; i < BREAKDOWN_ATTEMPTS; i++) {
    const marks = (await runHarness(request, options)).marks ?? {}
    steps.forEach(([from, to], s) => {
      const a = marks[from]
      const b = marks[to]
      if (a !== undefined && b !== undefined) deltas[s]?.push((b - a) * 1000)
    })
  }
  return steps.map(
    ([, , label], s) =>
      `    ${label.padEnd(62)} ${median(deltas[s] ?? [])
        .toFixed(2)
        .padStart(7)} ms`,
  )
}

if (present) {
  const entries: CodeEvalProEntry[] = [
    ...loadCodeEvalPro(files['humaneval-pro'], { benchmark: 'humaneval-pro' }),
    ...loadCodeEvalPro(files['mbpp-pro'], { benchmark: 'mbpp-pro' }),
  ]
  const dir = mkdtempSync(join(tmpdir(), 'seqk-official-'))
  // As the CodeEval-Pro harness writes them: the program (tabs as 4 spaces), a newline, the tests.
  // code_eval and the floor run the same text (`candidate + "\n" + test_case`).
  const sources = entries.map((e) => `${referenceCode(e.record).replace(/\t/g, '    ')}\n${e.record.test_code}`)
  const programs = sources.map((source, i) => {
    const file = join(dir, `case_${i}.py`)
    writeFileSync(file, source)
    return file
  })
  const programsJson = join(dir, 'programs.json')
  writeFileSync(programsJson, JSON.stringify(sources))
  const runner = join(dir, 'code_eval_runner.py')
  writeFileSync(runner, CODE_EVAL_RUNNER)

  // The interpreter the verifier runs (it prefers the system one when sandboxed or as root); the
  // official procedure and the floor get the same path.
  const python = (): Promise<string> => resolvePython(undefined, { preferSystem: true })
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true })
    closeAllPools()
    const perVerdict = (r: Run): string => `${(r.ms / r.total).toFixed(1).padStart(8)} ms`
    const lines = [
      `verify throughput: ${entries.length} reference solutions (HumanEval Pro + MBPP Pro), ${ROUNDS} rounds interleaved, ` +
        `verifier sandbox ${sandbox}, ${availableParallelism()} CPUs, load average (1, 5, 15 min) ${loads.join(' -> ')}`,
      `  ${'procedure'.padEnd(44)} ${'conc'.padStart(4)} ${'wall (median)'.padStart(14)} ${'per verdict'.padStart(11)} ${'passed'.padStart(9)}`,
    ]
    for (const concurrency of CONCURRENCIES) {
      for (const procedure of ['official', 'verifier', 'floor', 'codeEval'] as const) {
        const mine = runs.get(`${procedure}@${concurrency}`)
        if (!mine) continue
        const ms = median(mine.map((r) => r.ms))
        const typical = { ms, passed: mine[0]?.passed ?? 0, total: mine[0]?.total ?? 0 }
        lines.push(
          `  ${NAMES[procedure].padEnd(44)} ${String(concurrency).padStart(4)} ${`${(ms / 1000).toFixed(2)} s`.padStart(14)} ${perVerdict(typical)} ${`${typical.passed}/${typical.total}`.padStart(9)}`,
        )
      }
      // Ratios round by round (the three ran back to back), then their median.
      const ratio = (other: Procedure): string => {
        const ours = runs.get(`verifier@${concurrency}`) ?? []
        const theirs = runs.get(`${other}@${concurrency}`) ?? []
        const each = ours.map((r, i) => r.ms / (theirs[i]?.ms ?? NaN)).filter(Number.isFinite)
        return each.length === 0 ? 'n/a' : `${median(each).toFixed(2)}x (${each.map((x) => x.toFixed(2)).join(', ')})`
      }
      lines.push(
        `  verifier / official at ${concurrency}: ${ratio('official')};  verifier / floor at ${concurrency}: ${ratio('floor')}`,
      )
    }
    if (breakdown.length > 0)
      lines.push(
        `  one attempt, median of ${BREAKDOWN_ATTEMPTS} sequential attempts of ${entries[0]?.task.id}:`,
        ...breakdown,
      )
    console.log(lines.join('\n'))
  })

  for (let round = 1; round <= ROUNDS; round++) {
    for (const concurrency of CONCURRENCIES) {
      describe(`round ${round}, concurrency ${concurrency}: ${entries.length} reference solutions`, () => {
        bench(
          NAMES.official,
          async () => {
            loads.push(load())
            const interpreter = await python()
            const started = performance.now()
            const passed = await mapConcurrent(programs, concurrency, (file) => runOfficial(interpreter, file))
            record('official', concurrency, {
              ms: performance.now() - started,
              passed: passed.filter(Boolean).length,
              total: entries.length,
            })
          },
          ONCE,
        )

        bench(
          NAMES.verifier,
          async () => {
            const verifier = verifiers.pythonTests({ cache: false })
            sandbox = verifier.sandbox
            // Warm: one verify per judge of the pool before the clock starts.
            const first = entries[0] as CodeEvalProEntry
            await Promise.all(Array.from({ length: concurrency }, () => verifier.verify(first.task, first.reference)))
            const started = performance.now()
            const verdicts = await mapConcurrent(entries, concurrency, (e) => verifier.verify(e.task, e.reference))
            record('verifier', concurrency, {
              ms: performance.now() - started,
              passed: verdicts.filter((v) => v.pass).length,
              total: entries.length,
            })
          },
          ONCE,
        )

        bench(
          NAMES.floor,
          async () => {
            const interpreter = await python()
            const started = performance.now()
            const out = JSON.parse(
              await runScript(interpreter, [FLOOR_SCRIPT, programsJson, String(concurrency)], undefined, 600_000),
            ) as { passed: number; total: number }
            record('floor', concurrency, { ms: performance.now() - started, ...out })
          },
          ONCE,
        )

        if (CODE_EVAL) {
          bench(
            NAMES.codeEval,
            async () => {
              const interpreter = await python()
              const started = performance.now()
              const passed = await runCodeEval(interpreter, runner, sources, concurrency)
              record('codeEval', concurrency, {
                ms: performance.now() - started,
                passed: passed.filter(Boolean).length,
                total: entries.length,
              })
            },
            ONCE,
          )
        }
      })
    }
  }

  describe('one attempt, step by step', () => {
    bench(
      `${BREAKDOWN_ATTEMPTS} sequential attempts of one task`,
      async () => {
        const entry = entries[0] as CodeEvalProEntry
        breakdown = await timeBreakdown(entry, await resolvePython(undefined, { preferSystem: true }))
      },
      ONCE,
    )
  })
} else {
  describe.skip(`verify throughput: skipped, ${missingData(...Object.values(files))}`, () => {
    bench('python-tests verifier vs python file.py', () => {})
  })
}
