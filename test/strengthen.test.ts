// Strengthened tests on the bundled HumanEval-Pro-style fixtures: real Python runs each reference
// (the fixture's first correct answer) through the python-tests verifier, which gives the expected
// values. Reproducible by seed; every added statement passes the reference; and the wrong answers
// the fixtures script fail the stronger suite at least as often as the original.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { codeEvalProFiles, missingData } from '../src/benchmarks/test-helpers.js'
import { runCli } from '../src/cli/run.js'
import { tasks } from '../fixtures/code-tasks.js'
import { strengthenTests } from '../src/benchmarks/strengthen.js'
import type { Task } from '../src/protocol/task.js'
import { verifiers } from '../src/verifiers/index.js'
import { OFFICIAL_PYTHON } from './official-harness.js'

const origin = { origin: 'bundled-simulation' as const }
/** A python-tests verifier for the fixture scripts, this project's own code: they may run where no sandbox is available. */
const judgeOf = (verifier: ReturnType<typeof verifiers.pythonTests>) => ({
  ...verifier,
  verify: (task: Task, answer: string) => verifier.verify(task, answer, origin),
})
const judge = judgeOf(verifiers.pythonTests())

describe('strengthenTests on the fixtures', () => {
  it('adds statements every reference passes, the same ones for the same seed, and catches more wrong answers', async () => {
    let added = 0
    let caughtBefore = 0
    let caughtAfter = 0
    for (const task of tasks as Task[]) {
      const reference = task.simulation!.correct[0]!
      const result = await strengthenTests(task, { seed: 1, inputs: 10, reference, verifier: judge })
      const again = await strengthenTests(task, { seed: 1, inputs: 10, reference, verifier: judge })
      expect(again.task.tests).toBe(result.task.tests)
      expect(result.added).toBeLessThanOrEqual(10)
      expect(result.task.tests!.startsWith(task.tests!.trimEnd())).toBe(true)
      expect((await judge.verify(result.task, reference)).pass, task.id).toBe(true)
      added += result.added
      for (const wrong of task.simulation!.wrong) {
        const before = (await judge.verify(task, wrong)).pass
        const after = (await judge.verify(result.task, wrong)).pass
        // More tests can only fail more answers.
        if (!before) expect(after).toBe(false)
        caughtBefore += before ? 0 : 1
        caughtAfter += after ? 0 : 1
      }
    }
    expect(added).toBeGreaterThan(tasks.length * 5)
    expect(caughtAfter).toBeGreaterThanOrEqual(caughtBefore)
    const other = await strengthenTests(tasks[0] as Task, {
      seed: 2,
      inputs: 10,
      reference: tasks[0]!.simulation!.correct[0]!,
      verifier: judge,
    })
    const first = await strengthenTests(tasks[0] as Task, {
      seed: 1,
      inputs: 10,
      reference: tasks[0]!.simulation!.correct[0]!,
      verifier: judge,
    })
    expect(other.task.tests).not.toBe(first.task.tests)
  }, 240_000)

  it('keeps the same inputs however slow the machine: calls that add up past the limit together each get a verify of their own', async () => {
    // Candidates of 0.3 s each: past a 2 s limit together in one chunk, far within it alone.
    const slow = verifiers.pythonTests({ timeoutMs: 2000 })
    const single: string[] = []
    const slowJudge = {
      ...slow,
      verify: (task: Task, answer: string) => {
        if (!task.tests!.includes('\n')) single.push(task.tests!)
        return slow.verify(task, answer, origin)
      },
    }
    const task: Task = {
      id: 'strengthen/slow',
      prompt: 'p',
      tests: 'assert double(2) == 4\nassert double(5) == 10\nassert double(20) == 40',
      entryPoint: 'double',
    }
    const reference = '```python\nimport time\n\ndef double(x):\n    time.sleep(0.3)\n    return 2 * x\n```'
    const result = await strengthenTests(task, { seed: 4, inputs: 2, reference, verifier: slowJudge })
    // The chunk of every candidate timed out; those it did not finish were probed one by one, and all finished.
    expect(result.candidates).toBeGreaterThanOrEqual(7)
    expect(single.length).toBeGreaterThan(0)
    expect(result.timedOut).toBe(0)
    expect(result.rejected).toBe(0)
    expect(result.added).toBe(2)
    expect(result.referenceFailures).toBe(0)
    expect((await slowJudge.verify(result.task, reference)).pass).toBe(true)
  }, 120_000)

  it('drops inputs by counted steps, not time: the same inputs under any time limit, whatever the reference catches', async () => {
    // Cost grows with n; the tests' own calls are cheap, mutations (doubling, constants) are not all.
    const task: Task = {
      id: 'strengthen/steps',
      prompt: 'p',
      tests: 'assert count_up(30) == 30\nassert count_up(400) == 400\nassert count_up(2) == 2',
      entryPoint: 'count_up',
    }
    // `from __future__` must stay first; `except Exception` must not swallow the budget's end.
    const reference = [
      '```python',
      'from __future__ import annotations',
      '',
      'def count_up(n: int) -> int:',
      '    total = 0',
      '    for _ in range(n):',
      '        try:',
      '            total += 1',
      '        except Exception:',
      '            pass',
      '    return total',
      '```',
    ].join('\n')
    const strengthen = (timeoutMs: number) => {
      const verifier = judgeOf(verifiers.pythonTests({ timeoutMs }))
      return strengthenTests(task, { seed: 5, inputs: 12, reference, verifier, maxSteps: 1000 })
    }
    const [short, long] = [await strengthen(3000), await strengthen(20_000)]
    expect(long.task.tests).toBe(short.task.tests)
    expect(short.overBudget).toBeGreaterThan(0)
    expect(short.timedOut).toBe(0)
    // About three line events per loop turn: n above ~330 is over a 1000-step budget, and never kept.
    const kept = short.task
      .tests!.split('\n')
      .slice(3)
      .map((l) => Number(/count_up\((-?\d+)\)/.exec(l)![1]))
    expect(kept.length).toBeGreaterThan(0)
    for (const n of kept) expect(n).toBeLessThan(340)
    expect((await judge.verify(short.task, reference)).pass).toBe(true)
  }, 120_000)

  it('keeps the inputs of a builtin the tests call, a name the reference does not define', async () => {
    const task: Task = {
      id: 'strengthen/builtin',
      prompt: 'p',
      tests: 'assert abs(-3) == 3\nassert abs(4) == 4',
      entryPoint: 'twice',
    }
    const reference = '```python\ndef twice(x):\n    return 2 * x\n```'
    const result = await strengthenTests(task, { seed: 2, inputs: 4, reference, verifier: judge })
    expect(result.rejected).toBe(0)
    expect(result.added).toBe(4)
    for (const line of result.task.tests!.split('\n').slice(2)) expect(line).toMatch(/^assert abs\(-?\d+\) == \d+$/)
  }, 60_000)

  it('refuses a step budget that is not a positive integer', async () => {
    const task = tasks[0] as Task
    const reference = task.simulation!.correct[0]!
    for (const maxSteps of [0, -1, 1.5, Number.NaN])
      await expect(strengthenTests(task, { seed: 1, inputs: 2, reference, verifier: judge, maxSteps })).rejects.toThrow(
        /maxSteps must be an integer >= 1/,
      )
  })

  it('drops inputs the reference raises on', async () => {
    const task: Task = {
      id: 'strengthen/raises',
      prompt: 'p',
      tests: 'assert inverse(2) == 0.5\nassert inverse(8) == 0.125',
      entryPoint: 'inverse',
    }
    const reference =
      '```python\ndef inverse(x):\n    if x % 2 == 1:\n        raise ValueError("odd")\n    return 1 / x\n```'
    const result = await strengthenTests(task, { seed: 3, inputs: 20, reference, verifier: judge })
    expect(result.rejected).toBeGreaterThan(0)
    const raised = result.report.dropped.filter((d) => d.reason === 'reference-raised')
    expect(raised.length).toBe(result.rejected)
    for (const d of raised) expect(d.detail).toMatch(/ValueError: odd/)
    for (const line of result.task
      .tests!.split('\n')
      .slice(2)
      .filter((l) => l.startsWith('assert')))
      expect([7, 14, 21, 28]).not.toContain(Number(/inverse\((-?\d+)\)/.exec(line)![1]))
    expect((await judge.verify(result.task, reference)).pass).toBe(true)
  }, 60_000)
})

describe('strengthenTests keeps only inputs the task can vouch for', () => {
  const fenced = (code: string) => `\`\`\`python\n${code}\n\`\`\``
  const added = (task: Task) => task.tests!.split('\n').filter((l) => l.startsWith('assert'))

  it('drops inputs whose output changes when % truncates on negatives, where the tests cannot tell; keeps the reading the tests pin', async () => {
    // The unit digit of -1: the reference says 9 (Python's floor), abs(a) % 10 says 1; -15 agrees.
    const task: Task = {
      id: 'strengthen/unit-digits',
      prompt: 'p',
      tests: 'assert multiply(148, 412) == 16\nassert multiply(19, 28) == 72\nassert multiply(14, -15) == 20',
      entryPoint: 'multiply',
    }
    const reference = fenced('def multiply(a, b):\n    return abs(a % 10) * abs(b % 10)')
    const result = await strengthenTests(task, { seed: 1, inputs: 20, reference, verifier: judge })
    expect(result.report.readings).toEqual([{ reading: 'truncating-division', status: 'checked' }])
    expect(result.readingDependent).toBeGreaterThan(0)
    for (const d of result.report.dropped.filter((x) => x.reason === 'reading-dependent'))
      expect(d.detail).toMatch(/under the reading truncating-division the reference gives \d+ instead of \d+/)
    const honest = fenced('def multiply(a, b):\n    return (abs(a) % 10) * (abs(b) % 10)')
    expect((await judge.verify(result.task, honest)).pass).toBe(true)
    expect(result.added).toBeGreaterThan(5)
    // Here a test gives -7 % 10 == 3: floor is the task's reading, and negatives are tested freely.
    const pinned: Task = {
      id: 'strengthen/floor',
      prompt: 'p',
      tests: 'assert last(-7) == 3\nassert last(12) == 2\nassert last(-20) == 0',
      entryPoint: 'last',
    }
    const floor = await strengthenTests(pinned, {
      seed: 1,
      inputs: 10,
      reference: fenced('def last(x):\n    return x % 10'),
      verifier: judge,
    })
    expect(floor.report.readings).toEqual([{ reading: 'truncating-division', status: 'pinned' }])
    expect(floor.readingDependent).toBe(0)
  }, 120_000)

  it('drops inputs that zip cuts short where the tests never make it, and keeps a cut the tests make on purpose', async () => {
    // The contract cannot relate a dict's list to another argument: the zip probe sees the cut.
    const task: Task = {
      id: 'strengthen/zip',
      prompt: 'p',
      tests: "assert scale({'a': [1, 2]}, [3, 4]) == [3, 8]\nassert scale({'a': [5, 6, 7]}, [1, 1, 1]) == [5, 6, 7]",
      entryPoint: 'scale',
    }
    const reference = fenced("def scale(d, xs):\n    return [v * x for v, x in zip(d['a'], xs)]")
    const result = await strengthenTests(task, { seed: 2, inputs: 20, reference, verifier: judge })
    expect(result.zipTruncations).toBeGreaterThan(0)
    expect(result.report.dropped.find((d) => d.reason === 'zip-truncation')!.detail).toMatch(
      /zip at line 2 \([<>]\) cut unequal lengths short/,
    )
    const byIndex = fenced("def scale(d, xs):\n    return [d['a'][i] * xs[i] for i in range(len(d['a']))]")
    expect((await judge.verify(result.task, byIndex)).pass).toBe(true)
    const gaps: Task = {
      id: 'strengthen/gaps',
      prompt: 'p',
      tests: 'assert gaps([1, 4, 9]) == [3, 5]\nassert gaps([2, 3, 5, 8]) == [1, 2, 3]',
      entryPoint: 'gaps',
    }
    const pairs = await strengthenTests(gaps, {
      seed: 2,
      inputs: 10,
      reference: fenced('def gaps(xs):\n    return [b - a for a, b in zip(xs, xs[1:])]'),
      verifier: judge,
    })
    expect(pairs.report.zipInTests).toEqual(['zip:2:<'])
    expect(pairs.zipTruncations).toBe(0)
    expect(pairs.added).toBe(10)
  }, 120_000)

  it("drops inputs whose output follows a set's iteration order, which an insertion-ordered answer does not share", async () => {
    const task: Task = {
      id: 'strengthen/set',
      prompt: 'p',
      tests: 'assert unique([1, 2, 2]) == [1, 2]\nassert unique([4, 5, 5, 6]) == [4, 5, 6]',
      entryPoint: 'unique',
    }
    const result = await strengthenTests(task, {
      seed: 3,
      inputs: 20,
      reference: fenced('def unique(xs):\n    return list(set(xs))'),
      verifier: judge,
    })
    expect(result.report.readings).toEqual([{ reading: 'set-order', status: 'checked' }])
    expect(result.readingDependent).toBeGreaterThan(0)
    expect((await judge.verify(result.task, fenced('def unique(xs):\n    return list(dict.fromkeys(xs))'))).pass).toBe(
      true,
    )
  }, 120_000)

  it('compares floats within a tolerance, in the judge and under plain python, and still fails a wrong answer', async () => {
    const task: Task = {
      id: 'strengthen/float',
      prompt: 'p',
      tests: 'assert area(1.5) == 7.0685834705770345\nassert area(2.0) == 12.566370614359172',
      entryPoint: 'area',
    }
    const reference = fenced('import math\n\ndef area(r):\n    return math.pi * r * r')
    const result = await strengthenTests(task, { seed: 1, inputs: 12, reference, verifier: judge })
    expect(result.tolerant).toBe(result.added)
    const lines = added(result.task).slice(2)
    for (const line of lines) expect(line).toMatch(/^assert area\(.*\) == type\('_SeqkClose', \(\), \{.*\}\)\(-?\d/)
    // No statement of its own defines the wrapper: each added statement stands alone.
    expect(result.task.tests!.split('\n').filter((l) => l.trim() !== '')).toHaveLength(2 + result.added)
    for (const line of lines) expect((await judge.verify({ ...task, tests: line }, reference)).pass, line).toBe(true)
    // Another order of the same arithmetic differs in the last place on some of them.
    const reordered = fenced('import math\n\ndef area(r):\n    return r ** 2 * math.pi')
    expect((await judge.verify(result.task, reordered)).pass).toBe(true)
    const wrong = await judge.verify(result.task, fenced('def area(r):\n    return 3.1416 * r * r'))
    expect(wrong.pass).toBe(false)
    // Feedback shows the plain expected value.
    const failed = wrong.diagnostics.tests!.find((t) => !t.pass)!
    expect(failed.expected).toMatch(/^-?\d+\.\d+(e[-+]\d+)?$/)
    // The official harness runs the answer then the tests with plain python: the suite works there too.
    const program = `import math\n\ndef area(r):\n    return r ** 2 * math.pi\n\n${result.task.tests}\n`
    expect(spawnSync(OFFICIAL_PYTHON, ['-c', program]).status).toBe(0)
  }, 120_000)

  it('keeps a strengthened suite whole under held-out splits: only test statements are counted, any split passes a right answer', async () => {
    const task: Task = {
      id: 'strengthen/held-out',
      prompt: 'p',
      tests: 'assert mean([1.0, 2.0]) == 1.5\nassert mean([0.5, 1.0, 3.0, 0.1]) == 1.15',
      entryPoint: 'mean',
    }
    const reference = fenced('def mean(xs):\n    return sum(xs) / len(xs)')
    const result = await strengthenTests(task, { seed: 1, inputs: 8, reference, verifier: judge })
    expect(result.tolerant).toBeGreaterThan(2)
    const honest = fenced('import math\n\ndef mean(xs):\n    return math.fsum(xs) * (1.0 / len(xs))')
    const wrong = fenced('def mean(xs):\n    return sum(xs) / (len(xs) + 1e-3)')
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const split = judgeOf(verifiers.pythonTests({ heldOut: { share: 0.5, seed } }))
      const right = await split.verify(result.task, honest)
      expect(right.pass, `seed ${seed}`).toBe(true)
      expect(right.heldOut?.statements).toBe(2 + result.added)
      expect(right.heldOut?.visiblePass).toBe(true)
      expect((await split.verify(result.task, wrong)).pass).toBe(false)
    }
  }, 120_000)

  it('aims new inputs at near misses of the reference the tests let through, and never at held-out ones', async () => {
    // `x >= k` passes both tests (no item equals k): an input with an item equal to k tells it apart.
    const task: Task = {
      id: 'strengthen/near-miss',
      prompt: 'p',
      tests: 'assert count_big([1, 5, 9], 4) == 2\nassert count_big([2, 3, 10], 6) == 1',
      entryPoint: 'count_big',
    }
    const reference = fenced('def count_big(xs, k):\n    return sum(1 for x in xs if x > k)')
    const nearMiss = 'def count_big(xs, k):\n    return sum(1 for x in xs if x >= k)'
    expect((await judge.verify(task, fenced(nearMiss))).pass).toBe(true)
    const result = await strengthenTests(task, { seed: 1, inputs: 6, reference, verifier: judge })
    const { nearMisses } = result.report
    expect(nearMisses.points).toBeGreaterThan(0)
    expect(nearMisses.byAdded).toBeGreaterThan(0)
    expect(nearMisses.points).toBeGreaterThanOrEqual(nearMisses.byTests + nearMisses.byAdded)
    const aimed = result.report.added.filter((a) => a.why === 'tells near misses apart')
    expect(aimed.flatMap((a) => a.nearMisses ?? [])).toContain('line 2: > -> >=')
    expect(nearMisses.survivors).not.toContain('line 2: > -> >=')
    expect((await judge.verify(result.task, fenced(nearMiss))).pass).toBe(false)
    expect((await judge.verify(result.task, reference)).pass).toBe(true)
    // Held out of the search (a catch rate measured on it): no input is chosen for telling it apart.
    const held = await strengthenTests(task, {
      seed: 1,
      inputs: 6,
      reference,
      verifier: judge,
      heldOutMutants: [nearMiss],
    })
    expect(held.report.nearMisses.points).toBe(nearMisses.points)
    for (const a of held.report.added) expect(a.nearMisses ?? []).not.toContain('line 2: > -> >=')
    expect(held.report.nearMisses.survivors).toContain('line 2: > -> >=')
  }, 120_000)

  it('reports, per task, the contract and each added input with where it came from and why', async () => {
    const task = tasks[0] as Task
    const result = await strengthenTests(task, {
      seed: 1,
      inputs: 6,
      reference: task.simulation!.correct[0]!,
      verifier: judge,
    })
    expect(result.report.contracts.length).toBeGreaterThan(0)
    expect(result.report.added).toHaveLength(result.added)
    for (const a of result.report.added) {
      expect(a.changed).toMatch(/^argument \d+/)
      expect(['tells near misses apart', 'a new output', 'another input for an output already covered']).toContain(
        a.why,
      )
      expect(task.tests!.split('\n').filter((l) => l.trim() !== '')[a.from]).toMatch(/^assert/)
    }
    expect(result.outsideContract).toBe(result.report.dropped.filter((d) => d.reason === 'outside-contract').length)
  }, 60_000)
})

describe.runIf(missingData(codeEvalProFiles['humaneval-pro']) === undefined)('seqk strengthen', () => {
  it('writes a strengthened copy of a HumanEval Pro file, the same for the same seed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-strengthen-'))
    try {
      // Three records of the shared file, in a temporary file of their own (nothing enters the repository).
      const records = (
        JSON.parse(readFileSync(codeEvalProFiles['humaneval-pro'], 'utf8')) as { test_code: string }[]
      ).slice(0, 3)
      writeFileSync(join(dir, 'humaneval_pro.json'), JSON.stringify(records))
      const run = async (out: string) => {
        let stdout = ''
        const code = await runCli(['strengthen', 'humaneval_pro.json', '--out', out, '--inputs', '5', '--seed', '7'], {
          stdout: (t) => (stdout += t),
          stderr: () => {},
          isTTY: false,
          env: {},
          cwd: dir,
        })
        return { code, stdout, written: JSON.parse(readFileSync(join(dir, out), 'utf8')) as { test_code: string }[] }
      }
      const a = await run('a.json')
      const b = await run('b.json')
      expect(a.code).toBe(0)
      expect(a.stdout).toMatch(/^seqk strengthen: 3 tasks, \d+ test statements added \(\d tasks unchanged\)/)
      // The first three references pass their own tests, old and new: each flag names no task.
      expect(a.stdout.split('\n').slice(1, 4)).toEqual([
        '  references failing their original tests: 0',
        '  failing a rerun of their own new inputs (those inputs dropped): 0',
        '  failing the strengthened suite: 0',
      ])
      expect(a.stdout).toMatch(
        /\n {2}new inputs over the step budget of 500000 \(dropped, the same on any machine\): \d+\n/,
      )
      expect(a.written).toEqual(b.written)
      for (const [i, r] of a.written.entries())
        expect(r.test_code.startsWith(records[i]!.test_code.trimEnd())).toBe(true)
      expect(
        a.written.some((r, i) => r.test_code.split('\n').length > records[i]!.test_code.split('\n').length + 1),
      ).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
