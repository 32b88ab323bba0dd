// Strengthened tests on the bundled HumanEval-Pro-style fixtures: real Python runs each reference
// (the fixture's first correct answer) through the python-tests verifier, which gives the expected
// values. Reproducible by seed; every added statement passes the reference; and the wrong answers
// the fixtures script fail the stronger suite at least as often as the original.
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
      tests: 'assert double(2) == 4\nassert double(5) == 10',
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
      tests: 'assert inverse(2) == 0.5\nassert inverse(4) == 0.25',
      entryPoint: 'inverse',
    }
    const reference =
      '```python\ndef inverse(x):\n    if x <= 1:\n        raise ValueError("x must be > 1")\n    return 1 / x\n```'
    const result = await strengthenTests(task, { seed: 3, inputs: 20, reference, verifier: judge })
    expect(result.rejected).toBeGreaterThan(0)
    for (const line of result.task.tests!.split('\n').slice(2))
      expect(Number(/inverse\((-?\d+)\)/.exec(line)![1])).toBeGreaterThan(1)
    expect((await judge.verify(result.task, reference)).pass).toBe(true)
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
