// Verification throughput on the 542 reference solutions of HumanEval Pro (164) and MBPP Pro (378),
// in one run, on one interpreter (the real one our verifier runs: /usr/bin/python3 when sandboxed
// or as root, see src/verifiers/python-tests/interpreter.ts), at concurrency availableParallelism()
// and at concurrency 1:
//
// (a) ours: the python-tests verifier with its defaults (sandbox `auto`, warm judge + forked
//     candidate worker) and no verdict cache. Its judges are stopped before each run, so every
//     figure includes starting them (judge, sandboxed worker, self-check), as a user's first run does.
// (b) official: one `python file.py` process per task, as the CodeEval-Pro harness runs them: the
//     candidate (tabs as 4 spaces), a newline, the tests, in one temporary file; 3 s timeout, killed
//     after it; exit code 0 = pass. Started by the interpreter's real path (no launcher).
// (c) code_eval: an exec-in-threads runner as Hugging Face `evaluate`'s code_eval metric runs
//     programs (code_eval.py + execute.py, adapted from OpenAI human-eval's execution.py), in ONE
//     long-lived Python process that receives every program on stdin. See CODE_EVAL_RUNNER for
//     what is reproduced per program.
//
// The table gives wall time, tasks/s, passed/total and, per official procedure, its time divided by
// ours at the same concurrency (above 1: ours is faster).
//
// SEQK_BENCH_LAUNCHER=1 adds a footnote run: `python3` as found on PATH (a pyenv shim costs
// ~280 ms per start). It is not a headline figure: it times the launcher, not the procedure.
//
//   npx vitest bench --run --project unit test/verify-throughput.bench.ts
//
// Reads ../shared/benchmarks/ (never copied into the repository); skipped when it is absent.
import { execFile, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, bench, describe } from 'vitest'
import { loadCodeEvalPro, referenceCode, type CodeEvalProEntry } from '../src/benchmarks/index.js'
import { verifiers } from '../src/verifiers/index.js'
import { mapConcurrent } from '../src/protocol/concurrency.js'
import { codeEvalProFiles, missingData } from '../src/benchmarks/test-helpers.js'
import { resolvePython } from '../src/verifiers/python-tests/interpreter.js'
import { closeAllPools } from '../src/verifiers/python-tests/pool.js'

const files = codeEvalProFiles
const present = missingData(...Object.values(files)) === undefined

const PARALLEL = availableParallelism()
const CONCURRENCIES = [...new Set([PARALLEL, 1])]
const TIMEOUT_MS = 3000
const ONCE = { iterations: 1, time: 0, warmupIterations: 0, warmupTime: 0 }
const LAUNCHER = process.env.SEQK_BENCH_LAUNCHER === '1'

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
    execFile(python, [file], { timeout: TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 }, (error) => resolve(error === null))
  })
}

/** Every program through one code_eval-style runner process with `workers` threads; passed per program. */
function runCodeEval(python: string, runner: string, programs: readonly string[], workers: number): Promise<boolean[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [runner, String(workers), String(TIMEOUT_MS / 1000)], { stdio: ['pipe', 'pipe', 'pipe'] })
    const passed = new Array<boolean | undefined>(programs.length)
    let buffered = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk
      let newline: number
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const { id, passed: ok } = JSON.parse(buffered.slice(0, newline)) as { id: number; passed: boolean }
        passed[id] = ok
        buffered = buffered.slice(newline + 1)
      }
    })
    // The children's tracebacks (reliability_guard leaves some) land here: kept for a failure only.
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)))
    child.on('error', reject)
    child.on('close', (code) => {
      const missing = passed.filter((p) => p === undefined).length
      if (code !== 0 || missing > 0) reject(new Error(`code_eval runner exited with code ${String(code)}, ${missing} results missing: ${stderr}`))
      else resolve(passed as boolean[])
    })
    child.stdin.end(programs.map((program, id) => `${JSON.stringify({ id, program })}\n`).join(''))
  })
}

type Procedure = 'ours' | 'official' | 'codeEval'
const results = new Map<string, Run>()
const key = (procedure: Procedure, concurrency: number): string => `${procedure}@${concurrency}`
let launcher: (Run & { python: string }) | undefined
let sandbox = 'n/a'

if (present) {
  const entries: CodeEvalProEntry[] = [
    ...loadCodeEvalPro(files['humaneval-pro'], { benchmark: 'humaneval-pro' }),
    ...loadCodeEvalPro(files['mbpp-pro'], { benchmark: 'mbpp-pro' }),
  ]
  const dir = mkdtempSync(join(tmpdir(), 'seqk-official-'))
  // As the CodeEval-Pro harness writes them: the program (tabs as 4 spaces), a newline, the tests.
  // code_eval runs the same text (`candidate + "\n" + test_case`).
  const sources = entries.map((e) => `${referenceCode(e.record).replace(/\t/g, '    ')}\n${e.record.test_code}`)
  const programs = sources.map((source, i) => {
    const file = join(dir, `case_${i}.py`)
    writeFileSync(file, source)
    return file
  })
  const runner = join(dir, 'code_eval_runner.py')
  writeFileSync(runner, CODE_EVAL_RUNNER)

  // The interpreter the verifier runs (it prefers the system one when sandboxed or as root), and
  // the one the official procedures get: the same path, resolved the same way.
  const python = (): Promise<string> => resolvePython(undefined, { preferSystem: true })
  const oursPython = (): Promise<string> => resolvePython(undefined, { preferSystem: sandbox === 'bwrap' || process.getuid?.() === 0 })

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true })
    const [interpreter, ourInterpreter] = await Promise.all([python(), oursPython()])
    const seconds = (r: Run): string => `${(r.ms / 1000).toFixed(2).padStart(7)} s`
    const rate = (r: Run): string => `${((r.total / r.ms) * 1000).toFixed(1).padStart(7)} tasks/s`
    const lines = [
      `verify throughput, ${entries.length} reference solutions (HumanEval Pro + MBPP Pro), interpreter ${interpreter}` +
        (ourInterpreter === interpreter ? ' (also the verifier\'s)' : ` (THE VERIFIER RAN ${ourInterpreter})`) +
        `, verifier sandbox ${sandbox}, ${PARALLEL} CPUs:`,
      `  ${'procedure'.padEnd(50)} ${'conc'.padStart(4)} ${'wall'.padStart(9)} ${'rate'.padStart(15)} ${'passed'.padStart(9)}  vs ours`,
    ]
    const names: Record<Procedure, string> = {
      ours: 'python-tests verifier (defaults, cache: false)',
      official: 'official: python file.py per task (3 s timeout)',
      codeEval: 'HF code_eval: exec in threads, Process per program',
    }
    for (const concurrency of CONCURRENCIES) {
      const ours = results.get(key('ours', concurrency))
      for (const procedure of ['ours', 'official', 'codeEval'] as const) {
        const r = results.get(key(procedure, concurrency))
        if (!r) continue
        const ratio = procedure === 'ours' || !ours ? '' : `${(r.ms / ours.ms).toFixed(2)}x`
        lines.push(`  ${names[procedure].padEnd(50)} ${String(concurrency).padStart(4)} ${seconds(r)} ${rate(r)} ${`${r.passed}/${r.total}`.padStart(9)}  ${ratio}`)
      }
    }
    lines.push('  vs ours: the procedure\'s wall time / ours at the same concurrency (above 1: ours is faster)')
    if (launcher) {
      const ours = results.get(key('ours', PARALLEL))
      lines.push(
        `  footnote: \`python3\` on PATH (${launcher.python}) file.py, concurrency ${PARALLEL}: ${(launcher.ms / 1000).toFixed(2)} s, ` +
          `${launcher.passed}/${launcher.total} passed${ours ? `, ${(launcher.ms / ours.ms).toFixed(2)}x ours` : ''} (times the launcher, not the procedure)`,
      )
    }
    console.log(lines.join('\n'))
  })

  for (const concurrency of CONCURRENCIES) {
    describe(`verify ${entries.length} reference solutions (HumanEval Pro + MBPP Pro), concurrency ${concurrency}`, () => {
      bench(
        'python-tests verifier (defaults, cache: false)',
        async () => {
          closeAllPools()
          const verifier = verifiers.pythonTests({ cache: false })
          sandbox = verifier.sandbox
          const started = performance.now()
          const verdicts = await mapConcurrent(entries, concurrency, (e) => verifier.verify(e.task, e.reference))
          results.set(key('ours', concurrency), { ms: performance.now() - started, passed: verdicts.filter((v) => v.pass).length, total: entries.length })
        },
        ONCE,
      )

      bench(
        'official: python file.py per task (3 s timeout)',
        async () => {
          const interpreter = await python()
          const started = performance.now()
          const passed = await mapConcurrent(programs, concurrency, (file) => runOfficial(interpreter, file))
          results.set(key('official', concurrency), { ms: performance.now() - started, passed: passed.filter(Boolean).length, total: entries.length })
        },
        ONCE,
      )

      bench(
        'HF code_eval: one process, exec in threads, a Process per program (3 s timeout)',
        async () => {
          const interpreter = await python()
          const started = performance.now()
          const passed = await runCodeEval(interpreter, runner, sources, concurrency)
          results.set(key('codeEval', concurrency), { ms: performance.now() - started, passed: passed.filter(Boolean).length, total: entries.length })
        },
        ONCE,
      )

      if (LAUNCHER && concurrency === PARALLEL) {
        bench(
          'footnote: `python3` on PATH file.py per task (a launcher such as a pyenv shim)',
          async () => {
            const started = performance.now()
            const passed = await mapConcurrent(programs, concurrency, (file) => runOfficial('python3', file))
            launcher = { ms: performance.now() - started, passed: passed.filter(Boolean).length, total: entries.length, python: execFileSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).trim() }
          },
          ONCE,
        )
      }
    })
  }
} else {
  describe.skip(`verify throughput: skipped, ${missingData(...Object.values(files))}`, () => {
    bench('python-tests verifier vs python file.py', () => {})
  })
}
