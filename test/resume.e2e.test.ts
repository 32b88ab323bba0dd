// Resume (issue 15, item 4): a run killed with SIGKILL, resumed, killed again and resumed again
// ends with the summary of one uninterrupted run, and no finished trajectory is paid for twice:
// the test server sees zero requests for them. Errored trajectories run again and supersede their
// old line; a torn last line is cut; an existing run directory is refused without resume, and a
// resume is refused when the protocol changed.
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { cleanEnv, fixtureProject, runNode, SAYS_CORRECT_SOURCE, SEQK, unwrapped, VITEST } from './fixture-project.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RunSummarySchema, type RunSummary } from '../src/core/schemas.js'
import { readTrajectories } from '../src/artifacts/trajectories-file.js'
import { startTestServer, type TestServer } from '../src/testing/index.js'

const dir = fixtureProject('seqk-resume-')
writeFileSync(
  join(dir, 'resume.eval.ts'),
  `import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
${SAYS_CORRECT_SOURCE}
const tasks = Array.from({ length: 30 }, (_, i) => ({ id: 't' + i, prompt: 'Task ' + i + ': say CORRECT.' }))
const actor = actors.openaiCompatible({ model: 'mock-coder', baseURL: process.env.SEQK_TEST_URL, apiKey: process.env.SEQK_TEST_KEY, retry: { maxRetries: 0 } })
seqEval('resume fixture', { tasks, actors: [actor], verifier, budget: Number(process.env.SEQK_TEST_BUDGET ?? 3), discloseBudget: process.env.SEQK_TEST_DISCLOSE === '1', repeats: 1, concurrency: 2, modes: { binary: { feedback: feedback.binary() } } })
`,
)

let server: TestServer
/** Tasks whose every request fails with a 500 (an infrastructure error, not a wrong answer). */
const failing = new Set<number>()
/** While set, every answer waits for it: a run held mid-way, for as long as a test needs. */
let gate: Promise<void> | undefined
beforeAll(async () => {
  server = await startTestServer({
    responder: async (request) => {
      await gate
      const task = taskOf(request.messages)
      if (failing.has(task)) throw new Error('upstream exploded')
      // Task i is solved at attempt i % 3 + 1, except every seventh, never solved.
      const attempt = request.messages.filter((m) => m.role === 'assistant').length + 1
      return { text: task % 7 === 6 || attempt <= task % 3 ? 'WRONG' : 'CORRECT', delayMs: 40 }
    },
  })
})
afterAll(async () => {
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

function taskOf(messages: readonly { role: string; content: string }[]): number {
  const first = messages.find((m) => m.role === 'user')!.content
  return Number(/Task (\d+):/.exec(first)![1])
}

function env(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return cleanEnv({
    SEQK_TEST_URL: server.openaiBaseURL,
    SEQK_TEST_KEY: ['test', 'key'].join('-'),
    SEQK_HISTORY_FILE: join(dir, 'history.jsonl'),
    ...extra,
  })
}

const vitest = VITEST
const seqk = SEQK

/** Runs `args` to its end. Never spawnSync: the test server answers from this process's event loop. */
async function runToEnd(
  args: string[],
  extra: Record<string, string>,
): Promise<{ status: number | null; out: string }> {
  return runIn(dir, args, extra)
}

function runIn(
  cwd: string,
  args: string[],
  extra: Record<string, string>,
): Promise<{ status: number | null; out: string }> {
  return runNode(args, { cwd, env: env(extra) })
}

/** Starts `args`, and kills it and its workers with SIGKILL once `file` holds `lines` trajectories. */
async function killAfter(args: string[], extra: Record<string, string>, file: string, lines: number): Promise<void> {
  return killAfterIn(dir, args, extra, file, lines)
}

async function killAfterIn(
  cwd: string,
  args: string[],
  extra: Record<string, string>,
  file: string,
  lines: number,
): Promise<void> {
  const count = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0)
  await runNode(args, { cwd, env: env(extra), timeoutMs: 60_000, killWhen: () => count() >= lines })
  expect(count()).toBeGreaterThanOrEqual(lines)
}

const tasksOf = (from: number) => new Set(server.requests.slice(from).map((r) => taskOf(r.messages)))
const perTask = (s: RunSummary) =>
  s.benchmarks[0]!.cells[0]!.perTask.map((r) => `${r.taskId}:${r.firstSuccess.join(',')}`)
const readRun = (d: string) => RunSummarySchema.parse(JSON.parse(readFileSync(join(d, 'summary.json'), 'utf8')))

describe('resume', () => {
  const whole = join(dir, 'whole')
  const broken = join(dir, 'broken')
  const file = join(broken, 'trajectories.jsonl')

  it('kill -9, resume, kill -9 again, resume again: the summary of one uninterrupted run, no finished trajectory asked twice', async () => {
    const uninterrupted = await runToEnd([vitest, 'run'], { SEQK_RUN_DIR: whole })
    expect(uninterrupted.status, uninterrupted.out).toBe(0)
    const requestsOfWhole = server.requests.length

    // First run: task 5 errors (the server fails it), and the run is killed part-way.
    failing.add(5)
    let from = server.requests.length
    await killAfter([vitest, 'run'], { SEQK_RUN_DIR: broken }, file, 8)
    failing.clear()
    // A crash mid-write leaves a torn last line.
    appendFileSync(file, '{"schema":"seqk.trajectory/1","runId":"bro')
    const first = readTrajectories(file)
    expect(first.truncatedTail).toBe(true)
    // Task 5 fails at its first call, long before 8 trajectories have ended.
    expect(first.trajectories.filter((t) => t.status === 'error').map((t) => t.taskId)).toEqual(['t5'])
    const phases = [server.requests.length - from]

    // Resume, killed again part-way (a resume of a resume follows).
    let ended = new Set(first.trajectories.filter((t) => t.status !== 'error').map((t) => Number(t.taskId.slice(1))))
    from = server.requests.length
    await killAfter([...seqk, 'resume', broken], {}, file, first.trajectories.length + 6)
    expect([...tasksOf(from)].filter((t) => ended.has(t))).toEqual([])

    phases.push(server.requests.length - from)
    const second = readTrajectories(file)
    ended = new Set(second.trajectories.filter((t) => t.status !== 'error').map((t) => Number(t.taskId.slice(1))))
    from = server.requests.length
    const done = await runToEnd([...seqk, 'resume', broken], {})
    expect(done.status, done.out).toBe(0)
    expect([...tasksOf(from)].filter((t) => ended.has(t))).toEqual([])
    expect(done.out).toMatch(
      new RegExp(`seqk: resumed: kept ${ended.size} trajectories that had ended, ran ${30 - ended.size}`),
    )

    phases.push(server.requests.length - from)
    const final = readTrajectories(file)
    expect(final.trajectories).toHaveLength(30)
    // The errored line is still on file, superseded by the rerun; it counts once.
    expect(final.superseded).toBeGreaterThanOrEqual(1)
    expect(final.trajectories.every((t) => t.status !== 'error')).toBe(true)
    const [resumed, reference] = [readRun(broken), readRun(whole)]
    expect(perTask(resumed)).toEqual(perTask(reference))
    expect(resumed.benchmarks[0]!.cells[0]!.seqAt).toEqual(reference.benchmarks[0]!.cells[0]!.seqAt)
    // The fixture declares no thresholds: checked nothing, in both runs alike.
    expect(resumed.benchmarks[0]!.cells[0]!.verdict).toBe('no-thresholds')
    expect(reference.benchmarks[0]!.cells[0]!.verdict).toBe('no-thresholds')
    // What a resume saved: the finished trajectories' requests were not sent again.
    console.log(
      `resume e2e: uninterrupted run ${requestsOfWhole} requests; killed run ${phases[0]}, killed resume ${phases[1]}, final resume ${phases[2]} (a rerun from scratch instead of the final resume: ${requestsOfWhole})`,
    )
  }, 180_000)

  it('refuses to run into a directory that holds a run, and leaves it untouched', async () => {
    const before = readFileSync(file)
    const r = await runToEnd([vitest, 'run'], { SEQK_RUN_DIR: broken })
    expect(r.status, r.out).toBe(1)
    expect(unwrapped(r.out)).toContain(
      `${broken} already holds a run (trajectories.jsonl, summary.json); running into it again would mix two runs. To run only what it lacks or what errored, resume it: SEQK_RESUME=${broken}`,
    )
    expect(readFileSync(file).equals(before)).toBe(true)
  }, 60_000)

  it('refuses a resume whose protocol changed, naming the field, and leaves the directory untouched', async () => {
    const before = readFileSync(file)
    const r = await runToEnd([...seqk, 'resume', broken], { SEQK_TEST_DISCLOSE: '1' })
    expect(r.status, r.out).toBe(1)
    expect(unwrapped(r.out)).toMatch(
      /cannot resume "compat:mock-coder · binary" from .*: its protocol changed since those trajectories ran \(budgetDisclosed: false → true/,
    )
    expect(readFileSync(file).equals(before)).toBe(true)
  }, 60_000)

  it('seqk resume --budget 5 extends the K = 3 run: only the unsolved go on, from attempt 4, and it equals a K = 5 run', async () => {
    const fresh = join(dir, 'whole5')
    const atFive = await runToEnd([vitest, 'run'], { SEQK_RUN_DIR: fresh, SEQK_TEST_BUDGET: '5' })
    expect(atFive.status, atFive.out).toBe(0)
    const onFile = readTrajectories(file).trajectories
    const unsolved = new Set(onFile.filter((t) => t.status === 'failed').map((t) => Number(t.taskId.slice(1))))
    expect(unsolved.size).toBeGreaterThan(0)
    const from = server.requests.length
    const cut = await runToEnd([...seqk, 'resume', broken, '--budget', '2'], {})
    expect(cut.status, cut.out).toBe(1)
    expect(unwrapped(cut.out)).toContain('--budget 2 is not larger than the budget the run used (K = 3)')
    const r = await runToEnd([...seqk, 'resume', broken, '--budget', '5'], {})
    expect(r.status, r.out).toBe(0)
    // Only the unsolved trajectories asked the model again, and only for attempts 4 and 5.
    const asked = server.requests.slice(from)
    expect(new Set(asked.map((q) => taskOf(q.messages)))).toEqual(unsolved)
    expect(new Set(asked.map((q) => q.messages.filter((m) => m.role === 'assistant').length + 1))).toEqual(
      new Set([4, 5]),
    )
    const [extended, reference] = [readRun(broken), readRun(fresh)]
    const cell = extended.benchmarks[0]!.cells[0]!
    expect(cell.budget).toBe(5)
    expect(cell.extended).toEqual({ from: 3, trajectories: 30 })
    expect(perTask(extended)).toEqual(perTask(reference))
    expect(cell.seqAt).toEqual(reference.benchmarks[0]!.cells[0]!.seqAt)
    expect(unwrapped(r.out)).toContain('extended from K = 3 to K = 5 (30 trajectories kept their attempts')
    // seqk summarize recomputes it from the files alone: every line of the extended run is on file at K = 5.
    const again = await runToEnd([...seqk, 'summarize', broken, '--out', join(dir, 'again.json')], {})
    expect(again.status, again.out).toBe(0)
    const recomputed = RunSummarySchema.parse(JSON.parse(readFileSync(join(dir, 'again.json'), 'utf8')))
    expect(recomputed.benchmarks[0]!.cells[0]!.seqAt).toEqual(cell.seqAt)
    expect(recomputed.benchmarks[0]!.cells[0]!.extended).toEqual(cell.extended)
  }, 120_000)
})

describe('one writer per run directory', () => {
  it('a second resume (and a plain SEQK_RESUME run) of a directory being resumed refuses at once, naming the holder; nothing runs twice', async () => {
    // Before: both ran, 52 trajectories twice and 160 extra calls, the duplicates hidden as superseded.
    const twice = join(dir, 'twice')
    const file = join(twice, 'trajectories.jsonl')
    await killAfter([vitest, 'run'], { SEQK_RUN_DIR: twice }, file, 4)
    const lock = join(twice, 'seqk.lock')
    // The killed run left its lock behind: stale, so the first resume takes it over.
    expect(existsSync(lock)).toBe(true)
    const stalePid = (JSON.parse(readFileSync(lock, 'utf8')) as { pid: number }).pid
    // The first resume is held mid-way (its calls wait) until the other two have been refused.
    let open = () => {}
    gate = new Promise<void>((resolve) => (open = resolve))
    const asked = server.requests.length
    const first = runToEnd([...seqk, 'resume', twice], {})
    let pid = stalePid
    await waitFor(() => {
      const text = existsSync(lock) ? readFileSync(lock, 'utf8') : ''
      if (text !== '') pid = (JSON.parse(text) as { pid: number }).pid
      // Both of its calls (the fixture's concurrency is 2) are at the gate: any later request is another run's.
      return pid !== stalePid && server.requests.length >= asked + 2
    })
    const started = performance.now()
    const before = server.requests.length
    const second = await runToEnd([...seqk, 'resume', twice], {})
    const secondMs = performance.now() - started
    expect(second.status, second.out).toBe(1)
    expect(unwrapped(second.out)).toContain(`${twice} is in use by process ${pid} on this host`)
    expect(secondMs).toBeLessThan(15_000)
    // Vitest itself, with SEQK_RESUME: the reporter refuses, every cell fails, nothing is written.
    const third = await runToEnd([vitest, 'run'], { SEQK_RESUME: twice })
    expect(third.status, third.out).toBe(1)
    expect(unwrapped(third.out)).toContain(`is in use by process ${pid} on this host`)
    // Neither asked the server anything (the first's calls wait at the gate, so any request is theirs).
    expect(server.requests.length - before).toBe(0)
    console.log(
      `one writer: a second seqk resume refused in ${Math.round(secondMs)} ms (load ${loadavg()[0]!.toFixed(1)})`,
    )
    gate = undefined
    open()
    const done = await first
    expect(done.status, done.out).toBe(0)
    const final = readTrajectories(file)
    expect(final.trajectories).toHaveLength(30)
    expect(final.superseded).toBe(0)
    expect(new Set(final.trajectories.map((t) => t.taskId)).size).toBe(30)
    // Released at the end of the run.
    expect(existsSync(lock)).toBe(false)
  }, 180_000)
})

/** Polls `condition` until it holds (a condition, not a fixed sleep), for at most a minute. */
async function waitFor(condition: () => boolean): Promise<void> {
  const until = performance.now() + 60_000
  while (!condition()) {
    if (performance.now() > until) throw new Error('condition not met within a minute')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('resume with simulated actors', () => {
  const sim = fixtureProject('seqk-resume-sim-')
  writeFileSync(
    join(sim, 'sim.eval.ts'),
    `import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
${SAYS_CORRECT_SOURCE}
const tasks = Array.from({ length: 40 }, (_, i) => ({ id: 't' + i, prompt: 'Say CORRECT #' + i, simulation: { difficulty: (i % 5) / 5, correct: ['CORRECT'], wrong: ['WRONG'] } }))
seqEval('sim fixture', { tasks, actors: [actors.simulated({ profile: 'reviser', latencyMs: 15 })], verifier, budget: 4, repeats: 2, concurrency: 2, independent: true, modes: { binary: { feedback: feedback.binary() } } })
`,
  )
  afterAll(() => rmSync(sim, { recursive: true, force: true }))
  const simEnv = (extra: Record<string, string>) => ({ ...extra, SEQK_HISTORY_FILE: join(sim, 'history.jsonl') })

  it('kill -9 and resume give the per-task outcomes of an uninterrupted run', async () => {
    const run = (args: string[], extra: Record<string, string>) => runIn(sim, args, simEnv(extra))
    const whole = await run([VITEST, 'run'], { SEQK_RUN_DIR: join(sim, 'whole') })
    expect(whole.status, whole.out).toBe(0)
    const file = join(sim, 'broken', 'trajectories.jsonl')
    await killAfterIn(sim, [VITEST, 'run'], simEnv({ SEQK_RUN_DIR: join(sim, 'broken') }), file, 20)
    const before = readTrajectories(file).trajectories.length
    expect(before).toBeLessThan(160)
    const resumed = await run([...SEQK, 'resume', join(sim, 'broken')], {})
    expect(resumed.status, resumed.out).toBe(0)
    expect(resumed.out).toMatch(
      new RegExp(`seqk: resumed: kept ${before} trajectories that had ended, ran ${160 - before}`),
    )
    const [a, b] = [readRun(join(sim, 'whole')), readRun(join(sim, 'broken'))]
    for (const i of [0, 1]) {
      expect(b.benchmarks[0]!.cells[i]!.perTask.map((r) => `${r.taskId}:${r.firstSuccess.join(',')}`)).toEqual(
        a.benchmarks[0]!.cells[i]!.perTask.map((r) => `${r.taskId}:${r.firstSuccess.join(',')}`),
      )
      expect(b.benchmarks[0]!.cells[i]!.seqAt).toEqual(a.benchmarks[0]!.cells[i]!.seqAt)
    }
  }, 120_000)
})
