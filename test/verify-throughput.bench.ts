// Verification throughput on the 542 reference solutions of HumanEval Pro (164) and MBPP Pro (378):
// (a) our python-tests verifier with its defaults (sandbox on) and no verdict cache, against
// (b) the official approach: one `python3 file.py` process per task (candidate then tests in one
//     temporary file, `python3` as found on PATH, 3 s timeout), as the CodeEval-Pro harness runs.
// Both at the same concurrency. Each runs once (iterations: 1); the ratio is printed at the end.
// A third run starts the real interpreter behind `python3` directly (its `sys.executable`): on a
// machine where `python3` is a launcher (a pyenv shim costs ~280 ms per start) it shows how much of
// the official path's cost is the launcher.
//
//   npx vitest bench --run --project unit test/verify-throughput.bench.ts
//
// Reads ../shared/benchmarks/ (never copied into the repository); skipped when it is absent.
import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, bench, describe } from 'vitest'
import { loadCodeEvalPro, referenceCode, type CodeEvalProEntry } from '../src/benchmarks/index.js'
import { verifiers } from '../src/verifiers/index.js'
import { mapConcurrent } from '../src/protocol/concurrency.js'
import { codeEvalProFiles, missingData } from '../src/benchmarks/test-helpers.js'

const files = codeEvalProFiles
const present = missingData(...Object.values(files)) === undefined

const CONCURRENCY = availableParallelism()
const TIMEOUT_MS = 3000
const ONCE = { iterations: 1, time: 0, warmupIterations: 0, warmupTime: 0 }


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

const results: { ours?: Run & { sandbox: string }; official?: Run; direct?: Run } = {}

if (present) {
  const entries: CodeEvalProEntry[] = [
    ...loadCodeEvalPro(files['humaneval-pro'], { benchmark: 'humaneval-pro' }),
    ...loadCodeEvalPro(files['mbpp-pro'], { benchmark: 'mbpp-pro' }),
  ]
  const dir = mkdtempSync(join(tmpdir(), 'seqk-official-'))
  // As the CodeEval-Pro harness writes them: the program (tabs as 4 spaces), a newline, the tests.
  const programs = entries.map((e, i) => {
    const file = join(dir, `case_${i}.py`)
    writeFileSync(file, `${referenceCode(e.record).replace(/\t/g, '    ')}\n${e.record.test_code}`)
    return file
  })

  const realPython = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim()

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true })
    const { ours, official, direct } = results
    if (!ours || !official) return
    const line = (name: string, r: Run) =>
      `  ${name.padEnd(52)} ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${((r.total / r.ms) * 1000).toFixed(1).padStart(6)} tasks/s  ${r.passed}/${r.total} passed`
    console.log(
      [
        `verify throughput, ${entries.length} reference solutions, concurrency ${CONCURRENCY} (python3 = ${realPython}):`,
        line(`python-tests verifier (sandbox ${ours.sandbox}, no cache)`, ours),
        line('official: python3 file.py per task', official),
        ...(direct ? [line('official, real interpreter (sys.executable) file.py', direct)] : []),
        `  ratio official / ours: ${(official.ms / ours.ms).toFixed(2)}x (above 1: our verifier is faster)`,
        ...(direct ? [`  ratio official with the real interpreter / ours: ${(direct.ms / ours.ms).toFixed(2)}x`] : []),
      ].join('\n'),
    )
  })

  describe(`verify ${entries.length} reference solutions (HumanEval Pro + MBPP Pro), concurrency ${CONCURRENCY}`, () => {
    bench(
      'python-tests verifier (defaults, cache: false)',
      async () => {
        const verifier = verifiers.pythonTests({ cache: false })
        const started = performance.now()
        const verdicts = await mapConcurrent(entries, CONCURRENCY, (e) => verifier.verify(e.task, e.reference))
        results.ours = { ms: performance.now() - started, passed: verdicts.filter((v) => v.pass).length, total: entries.length, sandbox: String(verifier.settings.sandbox ?? 'n/a') }
      },
      ONCE,
    )

    bench(
      'official: python3 file.py per task (3 s timeout)',
      async () => {
        const started = performance.now()
        const passed = await mapConcurrent(programs, CONCURRENCY, (file) => runOfficial('python3', file))
        results.official = { ms: performance.now() - started, passed: passed.filter(Boolean).length, total: entries.length }
      },
      ONCE,
    )

    bench(
      'official with the real interpreter (sys.executable of python3)',
      async () => {
        const started = performance.now()
        const passed = await mapConcurrent(programs, CONCURRENCY, (file) => runOfficial(realPython, file))
        results.direct = { ms: performance.now() - started, passed: passed.filter(Boolean).length, total: entries.length }
      },
      ONCE,
    )
  })
} else {
  describe.skip(`verify throughput: skipped, ${missingData(...Object.values(files))}`, () => {
    bench('python-tests verifier vs python3 file.py', () => {})
  })
}
