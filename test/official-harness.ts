/**
 * An independent re-implementation of the official CodeEval-Pro (HumanEval Pro / MBPP Pro)
 * verdict for one chat answer, for parity tests against our `python-tests` verifier. It shares
 * no code with src/verifiers/: it is written from the upstream sources, read on 2026-12-01 with
 * the search tools (repository CodeEval-Pro/CodeEval-Pro; `santize.py` is absent from the stored
 * copy of that repository and was read in a fork of it that carries the same eval/ directory and
 * the CodeEval_Pro package metadata):
 *
 * 1. Extraction, chat (API) mode: `eval/run_api.py` (CodeEval-Pro/CodeEval-Pro@e23fa933, identical
 *    in the fork Unicorn53547/hw1-code-generation@337859a0):
 *
 *        completion = make_request(...).split('```python', 1)[-1]
 *        solution = completion[: index if (index := completion.find("```")) != -1 else len(completion)]
 *
 *    i.e. everything after the FIRST occurrence of the exact text "```python" anywhere in the
 *    answer (the whole answer when there is none), up to the first "```" after it, anywhere,
 *    glued to a line or not (to the end when there is none). No tag other than `python` counts
 *    (```py and ```Python are not found: the whole answer is then cut at its first fence), the
 *    rest of the opening fence line stays in (a newline, or `3\n` after ```python3), nothing is
 *    stripped or dedented.
 *
 * 2. The sanitised copy: `eval/santize.py`, `post_process_humaneval` (read in
 *    Unicorn53547/hw1-code-generation@337859a0, eval/santize.py):
 *
 *        if 'if __name__' in output:   output = output.split('if __name__', 1)[0]
 *        elif '# Test' in output:      output = output.split('# Test', 1)[0]
 *        elif '# Example' in output:   output = output.split('# Example ', 1)[0]
 *
 *    plain substring cuts at the first occurrence, anywhere (inside a string or a function too).
 *    Note the trailing space in the last split: `# Example:` or `# Examples` pass the test but
 *    are not cut. santize.py writes santized_results.jsonl next to results.jsonl.
 *
 * 3. The verdict: `eval/harness.py` (CodeEval-Pro/CodeEval-Pro@e23fa933). For `solution`
 *    records (chat mode) the program is the solution alone, nothing prepended (completion mode
 *    prepends `raw_problem`); the references are `test_code`. It scores results.jsonl and
 *    santized_results.jsonl separately with HuggingFace `evaluate`'s `code_eval` metric
 *    (`code_metric.compute(references, predictions, k=[1, 5, 10], num_workers=8)`, default
 *    `timeout=3.0`), and the README says "We use the higher score as our final result".
 *    `code_eval` (huggingface/evaluate metrics/code_eval/code_eval.py, execute.py as in
 *    huggingface/datasets metrics/code_eval/execute.py) builds `candidate + "\n" + test_case`
 *    and runs it in a forked process: a fresh temporary working directory, `reliability_guard()`
 *    (exit/quit, os.kill, os.system, subprocess.Popen, shutil.rmtree, ... set to None),
 *    stdout/stderr swallowed and stdin unreadable, `exec(program, {})` under a 3 s
 *    `setitimer`; "passed" when exec returns, anything raised (SystemExit too) fails, and the
 *    process is killed after timeout + 1 s. With `--run_code`, harness.py also writes each
 *    program to `case_i/gen_j.py` (candidate with tabs as 4 spaces, then "\n", then test_code)
 *    and runs `python file.py` with a 10 s timeout, but only for error statistics, not for the
 *    score.
 *
 * What this module does (the procedure the project adopted as "official", see
 * ../shared/benchmarks/SOURCES.md and DESIGN.md §5): extract as in (1), sanitise as in (2), and
 * for each of the two write `solution + "\n" + test_code` (nothing prepended, tabs untouched as
 * in the scored code_eval path) to one file and run `/usr/bin/python3 file.py` with a 3 s
 * wall-clock timeout from spawn to exit; a run passes when it exits with code 0 within the time.
 * The verdict passes when either the as-written or the sanitised program passes: the official
 * "higher score" is a max over two benchmark-wide pass@k figures, and per answer the max of the
 * two is their OR (judgment call: per answer, as our verifier keeps "the better of the two").
 *
 * Two shortcuts that cannot change a verdict: the sanitised program is not run when the
 * as-written one passed (the OR is already true) or when sanitising changed nothing (the same
 * program); and `memo: true` reuses the run of a byte-identical program.
 *
 * The `exec` runner mimics code_eval's in-process execution instead (see {@link EXEC_DRIVER}):
 * `exec(program, {})` makes `__name__` resolve to the builtins module's name, so a demo under
 * `if __name__ == "__main__":` never runs there, unlike under `python file.py`. Used to check
 * that the choice of runner changes no verdict in a corpus.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The official per-program time limit (code_eval's default `timeout=3.0`). */
export const OFFICIAL_TIMEOUT_MS = 3000

/** The interpreter: the system one (a pyenv shim costs ~280 ms per start, see DESIGN.md §5). */
export const OFFICIAL_PYTHON = '/usr/bin/python3'

/**
 * The candidate code of a chat answer, as `eval/run_api.py` takes it: after the first
 * "```python", up to the next "```".
 *
 * @example
 * officialSolution('Here:\n```python\ndef f():\n    return 1```') // => '\ndef f():\n    return 1'
 */
export function officialSolution(answer: string): string {
  const marker = '```python'
  const at = answer.indexOf(marker)
  const completion = at === -1 ? answer : answer.slice(at + marker.length)
  const end = completion.indexOf('```')
  return end === -1 ? completion : completion.slice(0, end)
}

/**
 * `post_process_humaneval` of `eval/santize.py`: cut at the first `if __name__`, else at the
 * first `# Test`, else at the first `# Example ` (with its trailing space, as upstream).
 *
 * @example
 * officialSanitise('def f(): ...\nif __name__ == "__main__":\n    f()') // => 'def f(): ...\n'
 */
export function officialSanitise(output: string): string {
  const splitFirst = (text: string, separator: string): string => {
    const at = text.indexOf(separator)
    return at === -1 ? text : text.slice(0, at)
  }
  if (output.includes('if __name__')) return splitFirst(output, 'if __name__')
  if (output.includes('# Test')) return splitFirst(output, '# Test')
  if (output.includes('# Example')) return splitFirst(output, '# Example ')
  return output
}

/** The program code_eval runs: `candidate + "\n" + test_case`. */
export function officialProgram(solution: string, testCode: string): string {
  return `${solution}\n${testCode}`
}

/**
 * code_eval's execution in one fresh interpreter: stdout/stderr swallowed, stdin unreadable,
 * `exec(program, {})` under a `setitimer` of the given seconds; exit 0 only when exec returned
 * (every exception, SystemExit included, fails, as code_eval's `except BaseException`). Not the
 * whole reliability_guard: only what can change the verdict of ordinary answers.
 */
export const EXEC_DRIVER = `
import builtins, io, signal, sys
class _Timeout(Exception):
    pass
def _alarm(signum, frame):
    raise _Timeout("Timed out!")
class _WriteOnly(io.StringIO):
    def read(self, *a, **k): raise OSError
    def readline(self, *a, **k): raise OSError
    def readlines(self, *a, **k): raise OSError
    def readable(self, *a, **k): return False
with open(sys.argv[1], encoding="utf-8") as f:
    program = f.read()
seconds = float(sys.argv[2])
builtins.exit = None
builtins.quit = None
stream = _WriteOnly()
real_err = sys.stderr
status = 0
sys.stdout = sys.stderr = sys.stdin = stream
signal.signal(signal.SIGALRM, _alarm)
signal.setitimer(signal.ITIMER_REAL, seconds)
try:
    exec(program, {})
except _Timeout:
    status = 2
    reason = "timed out"
except BaseException as e:
    status = 1
    reason = "failed: %s: %s" % (type(e).__name__, e)
finally:
    signal.setitimer(signal.ITIMER_REAL, 0)
    sys.stdout, sys.stderr, sys.stdin = sys.__stdout__, real_err, sys.__stdin__
if status:
    print(reason, file=sys.stderr)
sys.stdout.flush()
import os
os._exit(status)
`

/** One run of one program. */
export interface OfficialRun {
  pass: boolean
  exitCode: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  /** The tail of stderr (the traceback's last lines say why it failed). */
  stderr: string
  ms: number
}

/** The official verdict of one answer, with both programs' runs. */
export interface OfficialVerdict {
  pass: boolean
  /** The extracted solution, as written. */
  solution: string
  /** The sanitised solution (equal to `solution` when santize.py cuts nothing). */
  sanitisedSolution: string
  raw: OfficialRun
  /** The run of the sanitised program, when it was needed and differs from the raw one. */
  sanitised?: OfficialRun
}

export interface OfficialHarnessOptions {
  python?: string
  timeoutMs?: number
  /** `file` (default): `python file.py`. `exec`: code_eval's `exec(program, {})` (see {@link EXEC_DRIVER}). */
  runner?: 'file' | 'exec'
  /** Reuse the run of a byte-identical program (default true). */
  memo?: boolean
}

/** Runs answers through the official procedure. Call `close()` to remove its temporary files. */
export class OfficialHarness {
  readonly python: string
  readonly timeoutMs: number
  readonly runner: 'file' | 'exec'
  private readonly dir = mkdtempSync(join(tmpdir(), 'seqk-official-'))
  private readonly memo: Map<string, Promise<OfficialRun>> | undefined
  private counter = 0
  /** Programs actually run (memo hits excluded). */
  runs = 0

  constructor(options: OfficialHarnessOptions = {}) {
    this.python = options.python ?? OFFICIAL_PYTHON
    this.timeoutMs = options.timeoutMs ?? OFFICIAL_TIMEOUT_MS
    this.runner = options.runner ?? 'file'
    this.memo = (options.memo ?? true) ? new Map() : undefined
  }

  /** The official verdict of a chat answer against a task's `test_code`. */
  async verdict(answer: string, testCode: string): Promise<OfficialVerdict> {
    const solution = officialSolution(answer)
    const sanitisedSolution = officialSanitise(solution)
    const raw = await this.run(officialProgram(solution, testCode))
    if (raw.pass || sanitisedSolution === solution) return { pass: raw.pass, solution, sanitisedSolution, raw }
    const sanitised = await this.run(officialProgram(sanitisedSolution, testCode))
    return { pass: sanitised.pass, solution, sanitisedSolution, raw, sanitised }
  }

  /** Runs one program (the candidate and the tests, already joined). */
  run(program: string): Promise<OfficialRun> {
    const known = this.memo?.get(program)
    if (known) return known
    const running = this.spawnProgram(program)
    this.memo?.set(program, running)
    // A timeout says how busy the machine was, not what the program does: never reuse one.
    void running.then((run) => {
      if (run.timedOut && this.memo?.get(program) === running) this.memo.delete(program)
    })
    return running
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true })
  }

  private spawnProgram(program: string): Promise<OfficialRun> {
    this.runs++
    const file = join(this.dir, `case_${this.counter++}.py`)
    writeFileSync(file, program)
    const args = this.runner === 'file' ? [file] : ['-c', EXEC_DRIVER, file, String(this.timeoutMs / 1000)]
    // The environment of the caller without PYTHON* variables, which would change what runs.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PYTHON')))
    const started = performance.now()
    return new Promise((resolve) => {
      // stdin closed (/dev/null): `input()` fails at once, as with code_eval's unreadable stdin.
      const child = spawn(this.python, args, { cwd: this.dir, env, stdio: ['ignore', 'ignore', 'pipe'] })
      let stderr = ''
      let timedOut = false
      child.stderr.setEncoding('utf8')
      child.stderr.on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-4000)
      })
      // code_eval: the itimer at `timeout`, the process killed at `timeout + 1`; a file run: `timeout`.
      const limit = this.runner === 'file' ? this.timeoutMs : this.timeoutMs + 1000
      const timer = setTimeout(() => {
        timedOut = true
        child.kill('SIGKILL')
      }, limit)
      child.on('close', (exitCode, signal) => {
        clearTimeout(timer)
        rmSync(file, { force: true })
        // The exec driver exits 2 when its itimer fired (code_eval's "timed out").
        const itimer = this.runner === 'exec' && exitCode === 2
        resolve({
          pass: exitCode === 0 && !timedOut,
          exitCode,
          signal,
          timedOut: timedOut || itimer,
          stderr: stderr.trim(),
          ms: performance.now() - started,
        })
      })
    })
  }
}
