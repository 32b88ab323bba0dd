// Verifier stability with real Python in the python-tests verifier (bubblewrap when available): a
// flaky reference must be caught, a stable one must show no flip, a slow one must be named with the
// limit that would make it stable; and `seqk stability` says the same on a benchmark file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../src/cli/run.js'
import { measureStability, STABILITY_SCHEMA, type StabilityReport } from '../src/protocol/stability.js'
import type { Task } from '../src/protocol/task.js'
import { closeAllPools } from '../src/verifiers/python-tests/pool.js'
import { pythonTests } from '../src/verifiers/python-tests/python-tests.js'
import { rubricGrader, testServerModel } from '../src/testing/rubric-responders.js'
import { startTestServer } from '../src/testing/server.js'
import { rubric } from '../src/verifiers/rubric/rubric-verifier.js'

afterAll(() => closeAllPools())

const fence = (code: string) => `\`\`\`python\n${code}\n\`\`\``
const stable: Task = {
  id: 'stable/add',
  prompt: 'Write add(a, b).',
  tests: 'assert add(1, 2) == 3\nassert add(0, 0) == 0',
}
// Passes or fails on a coin from the kernel's random source: over 2 × 10 runs every verdict is the
// same with probability 2 · 2^-20 (about 2 in a million).
const coin: Task = { id: 'hostile/coin', prompt: 'Write coin().', tests: 'assert coin() == 1' }
const COIN = fence('import os\n\ndef coin():\n    return os.urandom(1)[0] % 2')
const slow: Task = { id: 'slow/sleep', prompt: 'Write late().', tests: 'assert late() == 1' }
const SLOW = fence('import time\n\ndef late():\n    time.sleep(0.6)\n    return 1')

describe('measureStability', () => {
  it('finds the flaky reference, shows no flip for the stable one, and names the slow one with its stable limit', async () => {
    const verifier = pythonTests({ cache: false, timeoutMs: 1000 })
    const report = await measureStability(
      [
        { task: stable, answer: fence('def add(a, b):\n    return a + b') },
        { task: coin, answer: COIN },
        { task: slow, answer: SLOW },
      ],
      verifier,
      { repeats: 10, concurrency: 2 },
    )
    expect(report.schema).toBe(STABILITY_SCHEMA)
    expect(report.concurrency).toEqual([2, 4])
    expect(report.timeoutMs).toBe(1000)
    const [add, flaky, late] = report.tasks
    expect(add).toMatchObject({ runs: 20, passes: 20, errors: 0, flipped: false, nearLimit: false })
    expect(add!.byLoad).toEqual([
      { concurrency: 2, runs: 10, passes: 10 },
      { concurrency: 4, runs: 10, passes: 10 },
    ])
    expect(flaky!.flipped).toBe(true)
    expect(flaky!.passes).toBeGreaterThan(0)
    expect(flaky!.passes).toBeLessThan(flaky!.runs)
    expect(report.unstableTasks).toContain('hostile/coin')
    expect(report.unstableTasks).not.toContain('stable/add')
    // The sleep alone is 600 ms of a 1000 ms limit: more than half, whatever the load.
    expect(late!.nearLimit).toBe(true)
    expect(report.nearLimitTasks).toContain('slow/sleep')
    expect(report.nearLimitTasks).not.toContain('stable/add')
    expect(late!.stableTimeoutMs!).toBeGreaterThanOrEqual(1200)
    expect(late!.stableTimeoutMs! % 100).toBe(0)
    expect(report.recommendedTimeoutMs!).toBeGreaterThanOrEqual(late!.stableTimeoutMs!)
    expect(report.verdictAgreement.items).toBe(3)
    expect(report.verdictAgreement.flipped).toBe(report.unstableTasks.length)
    expect(report.criterionAgreement).toBeNull()
  }, 120_000)

  it('refuses a verifier that answers repeats from its verdict cache, naming the fix', async () => {
    const cached = pythonTests({ timeoutMs: 3000 })
    await expect(
      measureStability([{ task: stable, answer: fence('def add(a, b):\n    return a + b') }], cached, { repeats: 2 }),
    ).rejects.toThrow(/cache: false/)
  }, 60_000)

  it('refuses fewer than two repeats and a concurrency below 1', async () => {
    const verifier = pythonTests({ cache: false })
    await expect(measureStability([], verifier, { repeats: 1 })).rejects.toThrow(/repeats must be an integer >= 2/)
    await expect(measureStability([], verifier, { concurrency: 0 })).rejects.toThrow(/concurrency must be/)
  })
})

describe('seqk stability', () => {
  it('reports the flaky reference of a HumanEval-Pro-shaped file, in the text and in --json, and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-stability-'))
    try {
      const record = (id: number, name: string, body: string, test: string) => ({
        id,
        raw_problem: 'def base(x):\n    """Return x."""\n',
        raw_solution: '    return x\n',
        new_problem: `import os\n\ndef ${name}():\n    """Call base."""\n`,
        new_solution: body,
        test_code: test,
      })
      const file = join(dir, 'humaneval_pro.json')
      writeFileSync(
        file,
        JSON.stringify([
          record(0, 'steady', '    return base(1)\n', 'assert steady() == 1\n'),
          record(1, 'coin', '    return base(os.urandom(1)[0] % 2)\n', 'assert coin() == 1\n'),
        ]),
      )
      let out = ''
      let err = ''
      const io = {
        stdout: (t: string) => (out += t),
        stderr: (t: string) => (err += t),
        isTTY: false,
        env: {},
        cwd: dir,
      }
      const code = await runCli(
        ['stability', file, '--repeats', '10', '--concurrency', '1', '--json', 'report.json'],
        io,
      )
      expect(err).toBe('')
      expect(code).toBe(0)
      const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as StabilityReport
      expect(report.schema).toBe(STABILITY_SCHEMA)
      expect(report.unstableTasks).toEqual(['humaneval-pro/1'])
      expect(report.tasks.map((t) => t.runs)).toEqual([20, 20])
      expect(report.timeoutMs).toBe(3000)
      expect(out).toMatch(/verdict flips: 1 of 2 tasks \(the verifier is unstable on humaneval-pro\/1\)/)
      expect(out).toMatch(/flips humaneval-pro\/1: passed \d+\/10 at 1, \d+\/10 at 2/)
      expect(out).toContain(`wrote ${join(dir, 'report.json')}`)
      // Fewer than two repeats is bad input, named with its flag.
      err = ''
      expect(await runCli(['stability', file, '--repeats', '1'], io)).toBe(1)
      expect(err).toMatch(/--repeats/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)
})

describe('seqk stability with answers that never finish', () => {
  it('recommends a limit from the answers that finish and names the loop; a slow answer finishes with the longer limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-stability-'))
    try {
      const task = (id: string, reference: string) => ({
        id,
        prompt: `Write ${id}().`,
        tests: `assert ${id}() == 1`,
        reference: fence(reference),
      })
      const file = join(dir, 'tasks.jsonl')
      writeFileSync(
        file,
        [
          task('spin', 'def spin():\n    while True:\n        pass'),
          task('late', 'import time\n\ndef late():\n    time.sleep(1.5)\n    return 1'),
          task('quick', 'def quick():\n    return 1'),
        ]
          .map((t) => JSON.stringify(t))
          .join('\n'),
      )
      let out = ''
      let err = ''
      const io = {
        stdout: (t: string) => (out += t),
        stderr: (t: string) => (err += t),
        isTTY: false,
        env: {},
        cwd: dir,
      }
      const code = await runCli(
        [
          'stability',
          file,
          '--repeats',
          '2',
          '--concurrency',
          '1',
          '--timeout-ms',
          '1000',
          '--long-timeout-ms',
          '8000',
        ],
        io,
      )
      expect(err).toBe('')
      expect(code).toBe(0)
      // A 1.5 s sleep under a 1 s limit times out however idle the machine; the loop never ends.
      expect(out).toMatch(
        /never finished: 1 \(spin: every run timed out, also with a limit of 8000 ms; left out of the recommendation\)/,
      )
      expect(out).toMatch(
        / {2}slow late: every run timed out at 1000 ms, finished in \d+ ms with 8000 ms; stable at \d+ ms/,
      )
      const late = /slow late: .* finished in (\d+) ms/.exec(out)!
      const recommended = /recommended limit (\d+) ms, from the answers that finish/.exec(out)!
      // From the slow answer's own time (twice it), not from the loop's 8 s.
      expect(Number(recommended[1])).toBeGreaterThanOrEqual(2 * Number(late[1]))
      expect(Number(recommended[1])).toBeLessThan(16_000)
      expect(out).not.toMatch(/at least/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)
})

describe('measureStability with an LLM grader (the openai SDK on the local test server)', () => {
  it("gives each criterion's self-agreement: a flickering criterion flips, a steady one does not; a cached grader is refused", async () => {
    // The grader meets `tone` on every other request it sees (a grader that flickers), `facts` always.
    let toneCalls = 0
    const server = await startTestServer({
      responder: rubricGrader({ judge: (c) => (c.id === 'tone' ? toneCalls++ % 2 === 0 : true) }),
    })
    try {
      const grader = testServerModel(server, { model: 'rule-grader' })
      const task = {
        id: 'rubric/1',
        prompt: 'Explain the result politely.',
        criteria: [
          { id: 'facts', text: 'States the result correctly' },
          { id: 'tone', text: 'Is polite' },
        ],
      }
      const report = await measureStability(
        [{ task, answer: 'The result is 4, thank you.' }],
        rubric({ grader, cache: false }),
        {
          repeats: 3,
          concurrency: 1,
        },
      )
      const criteria = Object.fromEntries(report.tasks[0]!.criteria.map((c) => [c.id, c.agreement]))
      expect(criteria.facts).toMatchObject({ items: 1, flipped: 0, identical: 1 })
      expect(criteria.tone).toMatchObject({ items: 1, flipped: 1, identical: 0 })
      expect(report.unstableTasks).toEqual(['rubric/1'])
      expect(report.criterionAgreement).toMatchObject({ items: 2, flipped: 1, identical: 0.5 })
      expect(report.timeoutMs).toBeNull()
      await expect(
        measureStability([{ task, answer: 'The result is 4, thank you.' }], rubric({ grader }), { repeats: 2 }),
      ).rejects.toThrow(/cache: false/)
    } finally {
      await server.close()
    }
  }, 60_000)
})
