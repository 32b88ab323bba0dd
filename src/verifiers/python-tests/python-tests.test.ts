// These tests run real Python (the interpreter `resolvePython()` finds): the verifier's whole job is
// what happens in that process, so a mock would prove nothing.
import { existsSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Task } from '../../protocol/task.js'
import { PythonNotFoundError, resolvePython } from './interpreter.js'
import { clearPythonTestsCache, pythonTests } from './python-tests.js'
import { closeAllPools } from './pool.js'
import { runHarness } from './run-harness.js'
import { alive, eventually, processesWith, sleepMarker } from './test-helpers.js'

const task: Task = {
  id: 'test/add-all',
  prompt: 'Write add(a, b) and add_all(pairs).',
  setup: 'from typing import List, Tuple',
  tests: [
    'assert add_all([(1, 2)]) == [3]',
    'assert add_all([]) == []',
    'assert add_all([(1, 2), (3, 4)]) == [3, 7]',
    'assert add_all([(-1, 1), (0, 0)]) == [0, 0]',
  ].join('\n'),
  entryPoint: 'add_all',
}

const fence = (code: string): string => `Here is my solution.\n\n\`\`\`python\n${code}\n\`\`\`\n`

// The official chat-mode harness runs the answer as written: it imports what it uses.
const CORRECT = fence(`from typing import List, Tuple

def add(a: int, b: int) -> int:
    return a + b

def add_all(pairs: List[Tuple[int, int]]) -> List[int]:
    return [add(a, b) for a, b in pairs]`)

beforeEach(() => clearPythonTestsCache())

describe('pythonTests()', () => {
  it('declares its name, version and verdict-changing settings', () => {
    const verifier = pythonTests({ timeoutMs: 1234 })
    expect(verifier.name).toBe('python-tests')
    expect(verifier.version).toBe('5')
    expect(['bwrap', 'none']).toContain(verifier.sandbox)
    expect(verifier.settings).toEqual({ timeoutMs: 1234, memoryMb: 1024, prependSetup: false })
    expect(pythonTests().settings).toEqual({ timeoutMs: 3000, memoryMb: 1024, prependSetup: false })
    // The sandbox is not part of the protocol: a laptop without bubblewrap compares with CI.
    expect(pythonTests({ sandbox: 'none', memoryMb: 512 }).settings).toEqual({
      timeoutMs: 3000,
      memoryMb: 512,
      prependSetup: false,
    })
  })

  it('rejects invalid options', () => {
    expect(() => pythonTests({ timeoutMs: 0 })).toThrow(RangeError)
    expect(() => pythonTests({ memoryMb: 10 })).toThrow(/memoryMb/)
    expect(() => pythonTests({ sandbox: 'docker' as never })).toThrow(/sandbox must be/)
  })

  it('rejects unknown options, naming the nearest valid one', () => {
    expect(() => pythonTests({ timeout: 3000 } as never)).toThrow(
      'verifiers.pythonTests(): unknown option "timeout" (did you mean "timeoutMs"?); valid options: cache, heldOut, maxOutputBytes, memoryMb, pool, prependSetup, python, sandbox, timeoutMs',
    )
    expect(() => pythonTests({ memoryMB: 512 } as never)).toThrow(
      /unknown option "memoryMB" \(did you mean "memoryMb"\?\)/,
    )
  })

  it('bounds every numeric option, saying why', () => {
    expect(pythonTests({ timeoutMs: 600_000 }).settings.timeoutMs).toBe(600_000)
    expect(() => pythonTests({ timeoutMs: 600_001 })).toThrow(
      /timeoutMs must be a positive number of ms up to 600000 \(10 minutes: an attempt longer than that outlasts the cell's own timeout\), got 600001/,
    )
    expect(() => pythonTests({ maxOutputBytes: 2 ** 30 })).toThrow(
      /maxOutputBytes must be a positive integer up to 16777216/,
    )
    expect(() => pythonTests({ memoryMb: 1e9 })).toThrow(
      /memoryMb must be a number from 64 to 65536 \(64 GiB\), got 1000000000/,
    )
    expect(() => pythonTests({ timeoutMs: Number.NaN })).toThrow(/timeoutMs/)
    expect(() => pythonTests({ cache: 'no' as never })).toThrow(/cache must be true or false, got no/)
    expect(() => pythonTests({ pool: 0 as never })).toThrow(/pool must be true or false/)
    expect(() => pythonTests({ python: 3 as never })).toThrow(
      /python must be the path or name of a Python 3.8\+ interpreter/,
    )
  })

  it('checkTask reports tasks without tests', () => {
    const verifier = pythonTests()
    expect(verifier.checkTask?.(task)).toEqual([])
    expect(verifier.checkTask?.({ ...task, tests: undefined })).toEqual([expect.stringContaining('needs `tests`')])
    expect(verifier.checkTask?.({ ...task, tests: '  \n' })).toEqual([expect.stringContaining('empty')])
    // Tests that check nothing would pass every answer.
    expect(verifier.checkTask?.({ ...task, tests: 'add_all([(1, 2)])\n# assert add_all([]) == []' })).toEqual([
      expect.stringContaining('hold no `assert`'),
    ])
    expect(verifier.checkTask?.({ ...task, entryPoint: 'sorted' })).toEqual([
      expect.stringContaining('entryPoint `sorted` is a Python built-in'),
    ])
  })

  it('normalise compares code, not prose or trailing whitespace', () => {
    const verifier = pythonTests()
    expect(verifier.normalise?.(CORRECT)).toBe(
      verifier.normalise?.(`Revised:\n${CORRECT.replace('a + b', 'a + b   ')}\n\n`),
    )
  })

  it('passes a correct answer, with every test reported', async () => {
    const verdict = await pythonTests().verify(task, CORRECT)
    expect(verdict.pass).toBe(true)
    expect(verdict.score).toBe(1)
    expect(verdict.diagnostics.outcome).toBe('passed')
    expect(verdict.diagnostics.summary).toBe('all 4 tests passed')
    expect(verdict.diagnostics.tests).toHaveLength(4)
    expect(verdict.extracted).toContain('def add_all')
    expect(verdict.durationMs).toBeGreaterThan(0)
  })

  it('reports call, expected and actual for a failing assert', async () => {
    const wrong = CORRECT.replace('return a + b', 'return a + b if a > 0 else b')
    const verdict = await pythonTests().verify(task, wrong)
    expect(verdict.pass).toBe(false)
    expect(verdict.diagnostics.outcome).toBe('failed')
    expect(verdict.diagnostics.summary).toBe('1 of 4 tests failed')
    // Binary, as the benchmark scores it: 3 of 4 tests passing is still a failure.
    expect(verdict.score).toBe(0)
    expect(verdict.diagnostics.tests?.[3]).toEqual({
      index: 3,
      source: 'assert add_all([(-1, 1), (0, 0)]) == [0, 0]',
      pass: false,
      call: 'add_all([(-1, 1), (0, 0)])',
      expected: '[0, 0]',
      actual: '[1, 0]',
      error: 'AssertionError',
    })
    expect(verdict.diagnostics.tests?.slice(0, 3).every((t) => t.pass)).toBe(true)
  })

  it('shows an exception raised by the call as the actual value, and keeps going', async () => {
    const raising = CORRECT.replace(
      'return [add(a, b) for a, b in pairs]',
      'return [add(a, b) for a, b in pairs] if pairs else pairs[0]',
    )
    const verdict = await pythonTests().verify(task, raising)
    const failed = verdict.diagnostics.tests?.filter((t) => !t.pass) ?? []
    expect(failed).toHaveLength(1)
    expect(failed[0]?.call).toBe('add_all([])')
    expect(failed[0]?.expected).toBe('[]')
    expect(failed[0]?.actual).toMatch(/^IndexError: list index out of range \(candidate line \d+\)$/)
    expect(verdict.diagnostics.tests?.[2]?.pass).toBe(true)
  })

  it('reports a misnamed entry point as a NameError per test (the paper’s defect case)', async () => {
    const verdict = await pythonTests().verify(task, CORRECT.replace('def add_all', 'def sum_pairs'))
    expect(verdict.diagnostics.outcome).toBe('failed')
    expect(verdict.diagnostics.summary).toBe('4 of 4 tests failed')
    expect(verdict.diagnostics.tests?.[0]?.actual).toBe("NameError: name 'add_all' is not defined")
  })

  it('reports a SyntaxError as a load error', async () => {
    const verdict = await pythonTests().verify(task, fence('def add_all(pairs)\n    return []'))
    expect(verdict.pass).toBe(false)
    expect(verdict.diagnostics.outcome).toBe('load-error')
    expect(verdict.diagnostics.summary).toMatch(
      /^code did not load: SyntaxError: .+ \(candidate line 1: def add_all\(pairs\)\)$/,
    )
    expect(verdict.diagnostics.tests).toBeUndefined()
  })

  it('reports an exception while loading as a load error', async () => {
    const verdict = await pythonTests().verify(
      task,
      fence('LIMIT = undefined_name + 1\n\ndef add_all(pairs):\n    return []'),
    )
    expect(verdict.diagnostics.outcome).toBe('load-error')
    expect(verdict.diagnostics.error).toBe("NameError: name 'undefined_name' is not defined (candidate line 1)")
    expect(verdict.diagnostics.summary).toBe(
      "code did not load: NameError: name 'undefined_name' is not defined (candidate line 1)",
    )
  })

  it('runs the answer as written by default (the official chat harness), and setup first only with prependSetup', async () => {
    // The candidate uses List without importing it: officially a NameError; with prependSetup the
    // prompt's imports provide it (the completion-mode reading), and the protocol says so.
    const noImports = fence(
      'def add_all(pairs: List[Tuple[int, int]]) -> List[int]:\n    return [a + b for a, b in pairs]',
    )
    const official = await pythonTests().verify(task, noImports)
    expect(official.pass).toBe(false)
    expect(official.diagnostics.summary).toBe(
      "code did not load: NameError: name 'List' is not defined (candidate line 1)",
    )
    const prepended = pythonTests({ prependSetup: true })
    expect(prepended.settings.prependSetup).toBe(true)
    expect((await prepended.verify(task, noImports)).pass).toBe(true)
  })

  it('fails a task whose setup raises as a broken task, not as the answer', async () => {
    await expect(
      pythonTests({ prependSetup: true }).verify({ ...task, setup: 'import no_such_module_here' }, CORRECT),
    ).rejects.toThrow(/tests or setup of task test\/add-all are broken: the task's setup failed: ModuleNotFoundError/)
  })

  it('verifies code and tests with non-ASCII text (and lone surrogates) both ways', async () => {
    const unicode: Task = {
      id: 'test/unicode',
      prompt: 'p',
      tests: "assert greet('Zoë') == 'héllo Zoë ✓'\nassert greet('\\ud800') == 'héllo \\ud800 ✓'",
    }
    const verdict = await pythonTests().verify(
      unicode,
      fence("def greet(name):\n    # ünïcode in a comment\n    return 'héllo ' + name + ' ✓'"),
    )
    expect(verdict.pass, verdict.diagnostics.summary).toBe(true)
    const wrong = await pythonTests().verify(unicode, fence("def greet(name):\n    return 'hello ' + name"))
    expect(wrong.diagnostics.tests?.[0]?.actual).toBe("'hello Zoë'")
  })

  it('returns no-answer for an empty code block, without running Python', async () => {
    const verifier = pythonTests()
    const verdict = await verifier.verify(task, 'I cannot solve this.\n```python\n\n```')
    expect(verdict.diagnostics.outcome).toBe('no-answer')
    expect(verdict.pass).toBe(false)
    expect(verifier.stats.runs).toBe(0)
  })

  it('times out an endless loop and leaves no process behind', async () => {
    // The candidate starts a grandchild too: the timeout must kill the whole process tree. Inside
    // bubblewrap its pid is the namespace's, so it is found on the host by its unique argument.
    const marker = sleepMarker()
    const code = fence(
      `import subprocess, sys\nchild = subprocess.Popen(["sleep", "${marker}"])\nprint("grandchild", child.pid, flush=True)\nwhile True:\n    pass`,
    )
    const started = Date.now()
    const verdict = await pythonTests({ timeoutMs: 500 }).verify(task, code)
    // Far below the grandchild's 60 s sleep (what waiting on its pipes would cost), far above a
    // loaded machine's own delays.
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(verdict.pass).toBe(false)
    expect(verdict.diagnostics.outcome).toBe('timeout')
    expect(verdict.diagnostics.summary).toBe('timed out after 500 ms while loading the code')
    expect(verdict.diagnostics.stdout).toMatch(/grandchild \d+/)
    expect(await eventually(() => processesWith(marker).length === 0)).toBe(true)
  })

  it('kills background processes the candidate leaves behind after a normal exit', async () => {
    // The grandchild holds stdout open, so the verifier must not wait for the pipes to close.
    const marker = sleepMarker()
    const code = CORRECT.replace(
      '```python\n',
      `\`\`\`python\nimport subprocess\n_bg = subprocess.Popen(["sleep", "${marker}"])\nprint("background", _bg.pid, flush=True)\n`,
    )
    const started = Date.now()
    const verdict = await pythonTests().verify(task, code)
    expect(Date.now() - started).toBeLessThan(15_000) // the background sleep is 60 s
    expect(verdict.pass).toBe(true)
    expect(verdict.diagnostics.stdout).toMatch(/background \d+/)
    expect(await eventually(() => processesWith(marker).length === 0)).toBe(true)
  })

  it('kills the attempt itself on timeout (checked by host pid, without bubblewrap)', async () => {
    const run = await runHarness(
      { setup: '', code: 'while True:\n    pass', tests: 'assert True' },
      {
        python: await resolvePython(undefined, { preferSystem: true }),
        timeoutMs: 300,
        maxOutputBytes: 1024,
        sandbox: 'none',
      },
    )
    expect(run.sandbox).toBe('none')
    expect(run.timedOut).toBe(true)
    expect(run.result.timeoutIn).toBe('loading the code')
    expect(run.pid).toBeGreaterThan(0)
    expect(await eventually(() => !alive(run.pid ?? 0))).toBe(true)
    expect(existsSync(`/proc/${run.pid}`)).toBe(false)
  })

  it('does not cache timeouts', async () => {
    const verifier = pythonTests({ timeoutMs: 300 })
    const loop = fence('while True:\n    pass')
    await verifier.verify(task, loop)
    await verifier.verify(task, loop)
    expect(verifier.stats).toEqual({ runs: 2, cacheHits: 0, sanitised: 0 })
  })

  it('keeps the result intact when the candidate prints, to stdout, stderr and near fd 3', async () => {
    const noisy = CORRECT.replace(
      'return a + b',
      'import sys\n    print("{\\"outcome\\": \\"passed\\", \\"tests\\": []}")\n    print("noise", file=sys.stderr)\n    return a + b',
    ).replace(
      '```python\n',
      '```python\nimport os\ntry:\n    os.write(3, b"{\\"outcome\\": \\"passed\\", \\"tests\\": []}\\n")\nexcept OSError:\n    pass\n',
    )
    const verdict = await pythonTests().verify(task, noisy)
    expect(verdict.pass).toBe(true)
    expect(verdict.diagnostics.tests).toHaveLength(4)
    expect(verdict.diagnostics.stdout).toContain('"outcome": "passed"')
    expect(verdict.diagnostics.stderr).toContain('noise')

    // Forged result lines must not turn a wrong answer into a pass.
    const forged = noisy.replace('return a + b', 'return a - b')
    expect((await pythonTests().verify(task, forged)).pass).toBe(false)
  })

  it('survives sys.exit() in the candidate, at load time and inside a call', async () => {
    const atLoad = await pythonTests().verify(task, fence('import sys\nsys.exit(0)'))
    expect(atLoad.pass).toBe(false)
    expect(atLoad.diagnostics.outcome).toBe('load-error')
    // Officially exit code 0 passes with no test run; here no test ran, so nothing passed.
    expect(atLoad.diagnostics.error).toBe('the code called exit(0) while loading, so no test ran')

    const inCall = await pythonTests().verify(
      task,
      CORRECT.replace(
        'return [add(a, b) for a, b in pairs]',
        'if not pairs:\n        raise SystemExit("bye")\n    return [add(a, b) for a, b in pairs]',
      ),
    )
    expect(inCall.diagnostics.outcome).toBe('failed')
    expect(inCall.diagnostics.tests?.[1]?.actual).toMatch(/^SystemExit: bye/)
    expect(inCall.diagnostics.tests?.filter((t) => t.pass)).toHaveLength(3)

    const interrupt = await pythonTests().verify(task, CORRECT.replace('return a + b', 'raise KeyboardInterrupt'))
    expect(interrupt.diagnostics.tests?.[0]?.actual).toMatch(/^KeyboardInterrupt/)
  })

  it('reports a process that dies without a result as a load error with the stderr tail', async () => {
    const verdict = await pythonTests().verify(
      task,
      fence('import os, sys\nprint("dying", file=sys.stderr, flush=True)\nos._exit(3)'),
    )
    expect(verdict.diagnostics.outcome).toBe('load-error')
    expect(verdict.diagnostics.summary).toBe(
      'code did not load: the Python process exited with code 3 while loading the code: dying',
    )
    expect(verdict.diagnostics.stderr).toBe('dying\n')
  })

  describe('environment', () => {
    const saved = process.env.OPENAI_API_KEY
    beforeEach(() => {
      process.env.OPENAI_API_KEY = 'sk-should-never-leak'
    })
    afterEach(() => {
      if (saved === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = saved
    })

    it('does not pass the parent’s secrets to the candidate', async () => {
      const spy = fence(
        'import os\n\ndef add_all(pairs):\n    return [os.environ.get("OPENAI_API_KEY"), sorted(os.environ)]',
      )
      const verdict = await pythonTests().verify({ ...task, tests: 'assert add_all([]) == "show me"' }, spy)
      const actual = verdict.diagnostics.tests?.[0]?.actual ?? ''
      expect(actual).toMatch(/^\[None, /)
      expect(actual).not.toContain('sk-should-never-leak')
      expect(actual).not.toContain('OPENAI')
    })
  })

  it('runs in a fresh temporary directory that is removed afterwards', async () => {
    const verdict = await pythonTests().verify(
      { ...task, tests: 'assert where() == "x"' },
      fence('import os\nopen("scratch.txt", "w").write("hi")\n\ndef where():\n    return os.getcwd()'),
    )
    const cwd = (verdict.diagnostics.tests?.[0]?.actual ?? '').slice(1, -1) // strip the repr quotes
    expect(cwd).toMatch(/seqk-py-/)
    expect(existsSync(cwd)).toBe(false)
  })

  it('stops on abort, kills the process and throws the abort reason', async () => {
    const controller = new AbortController()
    const reason = new Error('test cancelled')
    const started = Date.now()
    const pending = pythonTests({ timeoutMs: 20_000 }).verify(task, fence('while True:\n    pass'), {
      signal: controller.signal,
    })
    setTimeout(() => controller.abort(reason), 200)
    await expect(pending).rejects.toBe(reason)
    expect(Date.now() - started).toBeLessThan(2000)
    // An already aborted signal throws before anything starts.
    await expect(pythonTests().verify(task, CORRECT, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason)
  })

  it('answers identical code from the cache once two runs agreed, without starting Python', async () => {
    const verifier = pythonTests()
    const first = await verifier.verify(task, CORRECT)
    // Different prose around the same code block: same extracted code. A second run must agree
    // before the verdict is reused (a fresh run could not say otherwise).
    const second = await verifier.verify(task, `Revised answer:\n${CORRECT}`)
    expect(verifier.stats).toEqual({ runs: 2, cacheHits: 0, sanitised: 0 })
    const warm = performance.now()
    const third = await verifier.verify(task, `Third:\n${CORRECT}`)
    const cachedMs = performance.now() - warm
    expect({ ...third, durationMs: 0 }).toEqual({ ...second, durationMs: 0 })
    expect({ ...first, durationMs: 0 }).toEqual({ ...second, durationMs: 0 })
    expect(third).not.toBe(second)
    expect(verifier.stats).toEqual({ runs: 2, cacheHits: 1, sanitised: 0 })
    expect(cachedMs).toBeLessThan(20)

    // Shared across instances, keyed by the timeout too.
    const other = pythonTests()
    await other.verify(task, CORRECT)
    expect(other.stats).toEqual({ runs: 0, cacheHits: 1, sanitised: 0 })
    const slower = pythonTests({ timeoutMs: 4000 })
    await slower.verify(task, CORRECT)
    expect(slower.stats).toEqual({ runs: 1, cacheHits: 0, sanitised: 0 })

    const uncached = pythonTests({ cache: false })
    for (let i = 0; i < 3; i++) await uncached.verify(task, CORRECT)
    expect(uncached.stats).toEqual({ runs: 3, cacheHits: 0, sanitised: 0 })

    // Keyed by the sandbox and the memory limit too: both can change verdicts.
    const unsandboxed = pythonTests({ sandbox: 'none' })
    await unsandboxed.verify(task, CORRECT)
    expect(unsandboxed.stats.runs).toBe(unsandboxed.sandbox === uncached.sandbox ? 0 : 1)
    const smaller = pythonTests({ memoryMb: 256 })
    await smaller.verify(task, CORRECT)
    expect(smaller.stats.runs).toBe(1)
  })

  it('never reuses the verdict of code that may answer otherwise in a fresh run', async () => {
    const verifier = pythonTests()
    const adding = { id: 'cache/add', prompt: 'Write add(a, b).', tests: 'assert add(1, 2) == 3' }
    // Each names or does something a fresh run may not repeat.
    const answers = [
      ['import random', 'def add(a, b):', '    return a + b + random.randint(0, 0)'],
      ['import time', 'def add(a, b):', '    return a + b if time.time() > 0 else 0'],
      ['def add(a, b):', '    return a + b + (id(object()) * 0)'],
      ['def add(a, b):', "    return getattr(__import__('operator'), 'add')(a, b)"],
    ]
    for (const lines of answers) {
      for (let i = 0; i < 3; i++) expect((await verifier.verify(adding, fence(lines.join('\n')))).pass).toBe(true)
    }
    expect(verifier.stats).toEqual({ runs: 12, cacheHits: 0, sanitised: 0 })
  })

  it('caps the candidate’s output and the size of reported values', async () => {
    const verdict = await pythonTests({ maxOutputBytes: 1000 }).verify(
      { ...task, tests: 'assert big() == 0' },
      fence('print("x" * 1_000_000)\n\ndef big():\n    return list(range(100_000))'),
    )
    expect(verdict.diagnostics.stdout?.length).toBeLessThan(1100)
    expect(verdict.diagnostics.stdout).toContain('bytes omitted')
    const actual = verdict.diagnostics.tests?.[0]?.actual ?? ''
    expect(actual.length).toBeLessThan(600)
    expect(actual).toMatch(/^\[0, 1, 2, .*\.\.\. \[\d+ chars total\]$/)
  })

  it('explains the other assert shapes by their error', async () => {
    const verdict = await pythonTests().verify(
      {
        ...task,
        tests:
          'import math\nassert math.isclose(add(0.1, 0.2), 0.3)\nassert add(1, 1) > 5, "too small"\nx = add(1, 1)\nassert x == 2',
      },
      CORRECT,
    )
    expect(verdict.diagnostics.tests?.map((t) => [t.pass, t.error])).toEqual([
      [true, undefined],
      [true, undefined],
      [false, 'AssertionError: too small'],
      [true, undefined],
      [true, undefined],
    ])
  })

  it('throws (infrastructure) when the task’s tests do not parse', async () => {
    await expect(pythonTests().verify({ ...task, tests: 'assert add_all([) == []' }, CORRECT)).rejects.toThrow(
      /tests or setup of task test\/add-all are broken/,
    )
  })
})

describe('the judge: tests run in a process that never runs the candidate', () => {
  const judged = async (code: string, tests: string) =>
    pythonTests({ cache: false }).verify({ id: 'judge/semantics', prompt: 'p', tests }, fence(code))
  const outcomes = (verdict: { diagnostics: { tests?: { pass: boolean; error?: string; actual?: string }[] } }) =>
    verdict.diagnostics.tests?.map((t) => (t.pass ? 'ok' : (t.error ?? t.actual ?? '?')))

  it('writes arguments the candidate mutated back to the tests’ own objects', async () => {
    const verdict = await judged(
      'def sort_in_place(xs):\n    xs.sort()\n\ndef tag(d):\n    d["seen"] = True',
      'lst = [3, 1, 2]\nsort_in_place(lst)\nassert lst == [1, 2, 3]\nd = {}\ntag(d)\nassert d == {"seen": True}',
    )
    expect(outcomes(verdict)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok'])
  })

  it('raises the candidate’s exceptions as the nearest built-in class, or as its own class when the tests name it', async () => {
    const code =
      'class BadInput(ValueError):\n    pass\n\ndef parse(x):\n    if x < 0:\n        raise BadInput("negative")\n    if x == 0:\n        raise KeyError(x)\n    return x'
    const tests = [
      "try:\n    parse(-1)\n    assert False, 'Expected ValueError'\nexcept ValueError:\n    pass",
      "try:\n    parse(-1)\n    assert False\nexcept BadInput as e:\n    assert str(e) == 'negative'",
      'try:\n    parse(0)\n    assert False\nexcept LookupError:\n    pass',
      'assert parse(0) == 0',
    ].join('\n')
    const verdict = await judged(code, tests)
    expect(outcomes(verdict)).toEqual(['ok', 'ok', 'ok', 'KeyError: 0 (candidate line 8)'])
  })

  it('rebuilds Counter, OrderedDict, defaultdict and deque, and loads the standard modules the tests use itself', async () => {
    const code =
      'import math\nfrom collections import Counter, OrderedDict, defaultdict, deque\ndef count(s):\n    return Counter(s)\ndef grouped():\n    d = defaultdict(list)\n    d[1].append(2)\n    return d\ndef window():\n    return deque([1, 2, 3], maxlen=2)\ndef root(x):\n    return math.sqrt(x)'
    const tests =
      "assert count('aab') == {'a': 2, 'b': 1}\nassert count('aab') == Counter('aba')\nassert grouped()[1] == [2] and grouped()[5] == []\nassert window() == deque([2, 3])\nassert math.isclose(root(2), 1.4142135623730951)"
    expect(outcomes(await judged(code, tests))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok'])
  })

  it('fails a test whose value is not plain, saying what it was', async () => {
    const code = 'class Point:\n    pass\ndef make():\n    return Point()\ndef gen():\n    yield 1\nSHAPE = Point()'
    const verdict = await judged(code, 'assert make() == 1\nassert list(gen()) == [1]\nassert SHAPE == 1')
    expect(outcomes(verdict)).toEqual([
      'make() returned an object of type Point, not a plain value',
      'gen() returned an object of type generator, not a plain value',
      'the tests use SHAPE, which the candidate bound to an object of type Point, not a plain value (only functions and plain values cross to the judge)',
    ])
  })

  it('passes the builtins the tests hand over by name, and refuses a lambda, saying so', async () => {
    const code = 'def apply(f, xs):\n    return f(xs)'
    const verdict = await judged(
      code,
      'assert apply(len, [1, 2, 3]) == 3\nassert apply(sorted, [3, 1]) == [1, 3]\nassert apply(lambda xs: xs, [1]) == [1]',
    )
    expect(outcomes(verdict)).toEqual([
      'ok',
      'ok',
      "the tests passed an object of type function, not a plain value to apply, which cannot cross to the candidate's process",
    ])
  })

  it('sends values of other types by the value the official == compares: namedtuples, subclasses, views, exceptions', async () => {
    const code = [
      'import collections, enum',
      "Pair = collections.namedtuple('Pair', 'a b')",
      'class Level(enum.IntEnum):',
      '    HIGH = 3',
      'def values():',
      "    return [Pair(1, 2), Level.HIGH, collections.defaultdict(lambda: 0, {'k': 1}), {'x': 1}.keys(), {'x': 1}.items()]",
      'def fail():',
      "    raise KeyError(('k', 1))",
    ].join('\n')
    const tests = [
      "assert values() == [(1, 2), 3, {'k': 1}, {'x'}, {('x', 1)}]",
      'try:',
      '    fail()',
      'except KeyError as e:',
      "    assert (str(e), e.args) == (\"('k', 1)\", (('k', 1),))",
    ].join('\n')
    const verdict = await judged(code, tests)
    expect(outcomes(verdict)).toEqual(['ok', 'ok'])
  })

  it('keeps exact floats, big integers, nan, -0.0, complex numbers and bytes across the boundary', async () => {
    const code =
      "def values():\n    return [0.1 + 0.2, 10**400, float('nan'), -0.0, 1+2j, b'\\x00\\xff', (1, frozenset({2})), {(1, 2): {3}}]"
    const tests =
      "v = values()\nassert v[0] == 0.30000000000000004\nassert v[1] == 10**400\nassert v[2] != v[2]\nassert str(v[3]) == '-0.0'\nassert v[4] == 1+2j\nassert v[5] == b'\\x00\\xff'\nassert v[6] == (1, frozenset({2}))\nassert v[7] == {(1, 2): {3}}"
    expect(outcomes(await judged(code, tests))).toEqual(Array(9).fill('ok'))
  })

  it('keeps the tests’ built-ins and exception classes Python’s own, whatever the candidate defines', async () => {
    // Officially the candidate's `set` and `ValueError` would shadow the tests' and pass this wrong answer.
    const code =
      'def f(x):\n    return 0\n\ndef set(*args):\n    return 0\n\nValueError = BaseException\n\ndef g(x):\n    return x'
    const tests =
      "assert f([1, 2]) == set([1, 2])\ntry:\n    g(1)\n    assert False, 'Expected ValueError'\nexcept ValueError:\n    pass"
    const verdict = await judged(code, tests)
    expect(verdict.pass).toBe(false)
    expect(outcomes(verdict)).toEqual(['AssertionError', 'AssertionError: Expected ValueError'])
  })

  it('judges consecutive asserts with set arguments and call-making messages as plain Python does (calls sent ahead only where that is exact)', async () => {
    const code = 'def f(xs):\n    return len(xs)'
    const tests = [
      'assert f({0, 3, 11}) == 3',
      'assert f({1, 2}) == 2',
      'assert f([1]) == 5, f([0, 0])',
      'assert f([1, 2]) == 2',
      'assert f((1, 2, 3)) == 3',
    ].join('\n')
    const verdict = await judged(code, tests)
    expect(outcomes(verdict)).toEqual(['ok', 'ok', 'AssertionError: 2', 'ok', 'ok'])
  })

  it('names the call that did not return when the time runs out, and the tests that passed before it', async () => {
    const verdict = await pythonTests({ cache: false, timeoutMs: 500 }).verify(
      { id: 'judge/slow', prompt: 'p', tests: 'assert f(1) == 1\nassert f(10**9) == 1' },
      fence('def f(n):\n    while n > 1:\n        pass\n    return 1'),
    )
    expect(verdict.diagnostics.outcome).toBe('timeout')
    expect(verdict.diagnostics.summary).toBe('timed out after 500 ms in the call f(1000000000)')
    expect(outcomes(verdict)).toEqual(['ok', 'timed out after 500 ms in the call f(1000000000)'])
  })
})

describe('the code as written and the sanitised code (the official harness keeps the better)', () => {
  const DEMO_LOOP = CORRECT.replace('\n```\n', '\n\nif __name__ == "__main__":\n    while True:\n        pass\n```\n')

  it('passes right code whose demo under `if __name__` never ends, and says so', async () => {
    const verifier = pythonTests({ timeoutMs: 500, cache: false })
    const verdict = await verifier.verify(task, DEMO_LOOP)
    expect(verdict.pass).toBe(true)
    expect(verdict.diagnostics.outcome).toBe('passed')
    expect(verdict.diagnostics.summary).toBe(
      'all 4 tests passed (sanitised: code cut at line 9 `if __name__ == "__main__":`; as written: timed out after 500 ms while loading the code)',
    )
    expect(verdict.extracted).not.toContain('__name__')
    expect(verdict.extracted).toContain('def add_all')
    expect(verdict.durationMs).toBeGreaterThanOrEqual(500)
    expect(verifier.stats).toEqual({ runs: 2, cacheHits: 0, sanitised: 1 })
  })

  it('cuts at `# Test` when there is no `if __name__`, and keeps a failed verdict with more passing tests', async () => {
    const broken = CORRECT.replace('return a + b', 'return a + b if a >= 0 else b').replace(
      '\n```\n',
      '\n\n# Tests\nprint(add_all(undefined_pairs))\n```\n',
    )
    const verdict = await pythonTests({ cache: false }).verify(task, broken)
    expect(verdict.pass).toBe(false)
    expect(verdict.diagnostics.outcome).toBe('failed')
    expect(verdict.diagnostics.summary).toMatch(
      /^1 of 4 tests failed \(sanitised: code cut at line 9 `# Tests`; as written: code did not load: NameError: name 'undefined_pairs' is not defined/,
    )
    expect(verdict.extracted).not.toContain('undefined_pairs')
  })

  it('keeps the code as written when the sanitised code does no better', async () => {
    const verifier = pythonTests({ cache: false })
    const wrong = CORRECT.replace('return a + b', 'return a - b').replace(
      '\n```\n',
      '\n\nif __name__ == "__main__":\n    print(add(1, 2))\n```\n',
    )
    const verdict = await verifier.verify(task, wrong)
    expect(verdict.diagnostics.summary).toBe('3 of 4 tests failed')
    expect(verdict.extracted).toContain('__name__')
    expect(verifier.stats).toEqual({ runs: 2, cacheHits: 0, sanitised: 0 })
  })

  it('runs the sanitised code only when the code as written fails', async () => {
    const verifier = pythonTests({ cache: false })
    const verdict = await verifier.verify(
      task,
      CORRECT.replace('\n```\n', '\n\nif __name__ == "__main__":\n    print(add(1, 2))\n```\n'),
    )
    expect(verdict.pass).toBe(true)
    expect(verdict.diagnostics.summary).toBe('all 4 tests passed')
    expect(verdict.diagnostics.stdout).toBe('3\n') // the demo ran, as under the official harness
    expect(verifier.stats.runs).toBe(1)
  })

  it('caches the combined verdict, but not when a timeout decided it', async () => {
    const verifier = pythonTests({ timeoutMs: 500 })
    await verifier.verify(task, DEMO_LOOP)
    await verifier.verify(task, DEMO_LOOP)
    expect(verifier.stats).toEqual({ runs: 4, cacheHits: 0, sanitised: 2 })
  })
})

describe('reproducible diagnostics', () => {
  it('reports a set of strings in the same order in every process (PYTHONHASHSEED=0)', async () => {
    const setTask: Task = { id: 'test/words', prompt: 'Write words().', tests: "assert words() == {'array'}" }
    const answer = fence(
      "def words():\n    return {'array', 'abc', 'bacd', 'cde', 'programming', 'hello', 'world', 'python'}",
    )
    const actuals = new Set<string | undefined>()
    for (const pool of [true, false, false, true]) {
      const verdict = await pythonTests({ cache: false, pool }).verify(setTask, answer)
      actuals.add(verdict.diagnostics.tests?.[0]?.actual)
      // A fresh worker for the next round: the seed must not merely be shared by forks of one worker.
      closeAllPools()
    }
    expect(actuals.size).toBe(1)
  })
})

describe('spawn per verify (pool: false)', () => {
  it('gives the same verdicts as the pool', async () => {
    const wrong = CORRECT.replace('return a + b', 'return a + b if a > 0 else b')
    for (const answer of [CORRECT, wrong, fence('def add_all(pairs)\n    return []')]) {
      const pooled = await pythonTests({ cache: false }).verify(task, answer)
      const spawned = await pythonTests({ cache: false, pool: false }).verify(task, answer)
      expect({ ...spawned, durationMs: 0 }).toEqual({ ...pooled, durationMs: 0 })
    }
  })

  it('times out and cleans up the same way', async () => {
    const marker = sleepMarker()
    const verdict = await pythonTests({ pool: false, timeoutMs: 300 }).verify(
      task,
      fence(`import subprocess\nsubprocess.Popen(["sleep", "${marker}"])\nwhile True:\n    pass`),
    )
    expect(verdict.diagnostics.summary).toBe('timed out after 300 ms while loading the code')
    expect(await eventually(() => processesWith(marker).length === 0)).toBe(true)
  })
})

describe('resolvePython', () => {
  it('resolves python3 to the real interpreter once', async () => {
    const first = resolvePython()
    expect(resolvePython()).toBe(first)
    const path = await first
    expect(path.startsWith('/')).toBe(true)
    expect(existsSync(path)).toBe(true)
    expect(path).not.toMatch(/shims/)
  })

  it('explains a missing interpreter', async () => {
    const error: unknown = await resolvePython('/nonexistent/python3').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PythonNotFoundError)
    const message = (error as Error).message
    expect(message).toContain('/nonexistent/python3: not found')
    expect(message).toContain('SEQK_PYTHON')
    expect(message).toContain('Install python3')
    await expect(pythonTests({ python: '/nonexistent/python3' }).verify(task, CORRECT)).rejects.toBeInstanceOf(
      PythonNotFoundError,
    )
  })
})
