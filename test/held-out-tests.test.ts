// Held-out tests, end to end: real Python judging, the official openai client over a real local
// socket (the project's test server) as the actor and the critic. The actor special-cases the
// failing call it is shown (the overfitting a held-out test exists to catch); the critic repeats
// its whole input back, so anything a critic is shown reaches the actor's next prompt. Every
// message the server received and every trajectory field an actor sees is scanned for the
// held-out statements' text; the summary's gap must then be exactly what the trajectories say.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { critic } from '../src/feedback/critic.js'
import { feedback, runCell, verifiers, type CellSpec, type FeedbackMode, type Task } from '../src/index.js'
import { cellProtocol } from '../src/protocol/cell.js'
import { cellSpecFixture } from './protocol-fixture.js'
import { protocolFingerprint } from '../src/core/fingerprint.js'
import { heldOutGap } from '../src/metrics/held-out-gap.js'
import { tasks as fixtureTasks } from '../fixtures/code-tasks.js'
import { actors } from '../src/index.js'
import { testServerModel } from '../src/testing/rubric-responders.js'
import { startTestServer } from '../src/testing/server.js'
import type { TestServer, TestServerRequest } from '../src/testing/types.js'
import { heldOutIndices } from '../src/verifiers/python-tests/held-out.js'
import { renderBenchmarkTable } from '../src/report/table.js'
import { stripVTControlCharacters } from 'node:util'

// Statement i of task t checks triple(BASE_t + i); the held-out ones use values no visible one has.
const statements = (base: number, n: number) =>
  Array.from({ length: n }, (_, i) => `assert triple(${base + i}) == ${3 * (base + i)}`)
const tasks: Task[] = [
  // An explicit list: statements 3 and 4 are held out.
  {
    id: 'held/explicit',
    prompt: 'Write triple(x) returning 3 * x.',
    tests: statements(70101, 5).join('\n'),
    entryPoint: 'triple',
    heldOutTests: [3, 4],
  },
  // The verifier's share picks them.
  {
    id: 'held/share-a',
    prompt: 'Write triple(x), three times x.',
    tests: statements(80201, 6).join('\n'),
    entryPoint: 'triple',
  },
  {
    id: 'held/share-b',
    prompt: 'Write triple(x) = x + x + x.',
    tests: statements(90301, 4).join('\n'),
    entryPoint: 'triple',
  },
]
const SPLIT = { share: 0.5, seed: 31 }
/** The text of every held-out statement: its call and its expected value. */
const heldOutTexts = tasks.flatMap((t) => {
  const lines = t.tests!.split('\n')
  const held = t.heldOutTests ?? heldOutIndices(t.id, lines.length, SPLIT)
  return held.flatMap((i) => {
    const [, arg, expected] = /triple\((\d+)\) == (\d+)/.exec(lines[i]!)!
    return [lines[i]!, `triple(${arg})`, arg!, expected!]
  })
})

/**
 * The overfitting actor: first a wrong triple(); then, for each failing call feedback names, a
 * special case returning the expected value, on top of the wrong general logic.
 */
function overfitter(request: TestServerRequest): string {
  const seen = request.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n')
  const cases = [...seen.matchAll(/function call: triple\((\d+)\)\n\s+expected: (\d+)/g)].map(
    ([, x, y]) => `    if x == ${x}:\n        return ${y}`,
  )
  return `\`\`\`python\ndef triple(x):\n${[...new Set(cases)].join('\n')}${cases.length ? '\n' : ''}    return 2 * x\n\`\`\``
}

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({
    responder: (request) => {
      if (request.model === 'echo-critic') return `I read:\n${request.messages.map((m) => m.content).join('\n---\n')}`
      return overfitter(request)
    },
  })
})
afterAll(() => server.close())

const verifier = verifiers.pythonTests({ heldOut: SPLIT })
function spec(name: string, mode: FeedbackMode): CellSpec {
  return cellSpecFixture({
    runId: 'held-out',
    benchmark: 'held-out fixtures',
    cellId: `overfitter · ${name}`,
    tasks,
    actor: testServerModel(server, { model: 'overfitter' }),
    verifier,
    mode: { name, feedback: mode },
  })
}

describe('held-out tests in a run', () => {
  let cells: Record<string, Awaited<ReturnType<typeof runCell>>>
  beforeAll(async () => {
    server.reset()
    cells = {
      verifier: await runCell(spec('verifier', feedback.verifier())),
      critic: await runCell(
        spec(
          'critic',
          critic({ model: testServerModel(server, { model: 'echo-critic' }), rubric: 'blind', style: 'directive' }),
        ),
      ),
    }
  }, 60_000)

  it('never sends held-out test text to the actor or the critic, nor stores it where an actor reads', () => {
    expect(server.requests.length).toBeGreaterThan(10)
    expect(server.requests.some((r) => r.model === 'echo-critic')).toBe(true)
    for (const request of server.requests) {
      const wire = JSON.stringify(request.body)
      for (const text of heldOutTexts) expect(wire, `request ${request.index} (${request.model})`).not.toContain(text)
    }
    for (const { trajectories } of Object.values(cells)) {
      for (const t of trajectories) {
        for (const a of t.attempts) {
          const seen = JSON.stringify([a.answer, a.feedback, a.verdict.diagnostics])
          for (const text of heldOutTexts) expect(seen, `${t.taskId} attempt ${a.index}`).not.toContain(text)
        }
      }
    }
    // The visible failures did reach the actor, so the scan looked where the text would be.
    const shown = server.requests
      .filter((r) => r.model === 'overfitter')
      .map((r) => JSON.stringify(r.body))
      .join('\n')
    expect(shown).toMatch(/function call: triple\(70101\)/)
  })

  it('counts every test in the verdict: the special-cased revisions pass what feedback showed and still fail', () => {
    const t = cells.verifier!.trajectories.find((x) => x.taskId === 'held/explicit')!
    expect(t.attempts.map((a) => a.verdict.pass)).toEqual([false, false, false])
    expect(t.attempts.map((a) => a.verdict.heldOut?.visiblePass)).toEqual([false, true, true])
    expect(t.attempts[1]!.verdict.heldOut).toEqual({ statements: 5, tests: [3, 4], failed: [3, 4], visiblePass: true })
    expect(t.attempts[1]!.verdict.diagnostics.tests!.map((x) => x.index)).toEqual([0, 1, 2])
  })

  it('puts the gap in the summary, exactly as the trajectories give it', () => {
    const { summary, trajectories } = cells.verifier!
    const gap = summary.heldOut!
    // Every task: visible tests passed at attempt 2, no task passes every test.
    expect(gap.visibleAt).toEqual([0, 1, 1])
    expect(gap.allAt).toEqual([0, 0, 0])
    expect(gap.gapAt).toEqual([0, 1, 1])
    expect({ repairs: gap.visibleRepairs, overfit: gap.overfit, broke: gap.broke }).toEqual({
      repairs: 3,
      overfit: 3,
      broke: 0,
    })
    const direct = heldOutGap(
      trajectories.map((x) => ({
        taskId: x.taskId,
        repeats: [
          x.attempts.map((a) => ({
            pass: a.verdict.pass,
            visiblePass: a.verdict.heldOut!.visiblePass,
            heldOutFailed: a.verdict.heldOut!.failed,
          })),
        ],
      })),
      3,
    )
    expect(gap.gapInterval.lo).toBe(direct.gapInterval.lo)
    expect(gap.gapInterval.hi).toBe(direct.gapInterval.hi)
    expect(gap.overfitShare.point).toBe(1)
    expect(summary.seqAt).toEqual(gap.allAt)
  })

  it('says the gap under the terminal table, within 120 columns', () => {
    const table = renderBenchmarkTable('held-out fixtures', [cells.verifier!.summary, cells.critic!.summary])
    const text = stripVTControlCharacters(table)
    expect(text).toContain(
      'held-out tests, overfitter · verifier: Seq@3 100.0% on the visible tests, 0.0% on every test, gap 100.0 points',
    )
    expect(text.replace(/\n\s+/g, ' ')).toContain(
      '3 of 3 visible repairs (100.0%) still fail a held-out test, 0 broke one',
    )
    for (const line of text.split('\n')) expect([...line].length).toBeLessThanOrEqual(120)
  })

  it('records the split in the fingerprint: another seed or share is another protocol', () => {
    const base = spec('verifier', feedback.verifier())
    const print = (v: CellSpec['verifier'], ts = tasks) =>
      protocolFingerprint(cellProtocol({ ...base, verifier: v, tasks: ts }))
    const same = print(verifiers.pythonTests({ heldOut: SPLIT }))
    expect(print(verifier)).toBe(same)
    expect(print(verifiers.pythonTests({ heldOut: { ...SPLIT, seed: 32 } }))).not.toBe(same)
    expect(print(verifiers.pythonTests({ heldOut: { ...SPLIT, share: 0.25 } }))).not.toBe(same)
    expect(print(verifiers.pythonTests())).not.toBe(same)
    expect(print(verifier, [{ ...tasks[0]!, heldOutTests: [4] }, ...tasks.slice(1)])).not.toBe(same)
  })
})

describe('pythonTests({ heldOut }) on its own', () => {
  it('names a held-out index past the tests, and a repeated one', async () => {
    const v = verifiers.pythonTests({ sandbox: 'none' })
    const task = { id: 'held/bad', prompt: 'p', tests: statements(1, 2).join('\n'), heldOutTests: [5] }
    await expect(v.verify(task, 'def triple(x): return 3 * x', { origin: 'bundled-simulation' })).rejects.toThrow(
      /task held\/bad holds out test statement 5, but its tests have 2 statements \(0 to 1\)/,
    )
    expect(v.checkTask?.({ ...task, heldOutTests: [1, 1] })).toEqual([expect.stringMatching(/list a statement twice/)])
    expect(() => verifiers.pythonTests({ heldOut: { share: 0, seed: 1 } })).toThrow(
      /heldOut.share must be a number strictly between 0 and 1/,
    )
  })
})

describe('the bundled held-out cell (fixtures, simulated actors)', () => {
  it('shows the overfitter’s gap offline, and a smaller one for the reviser', async () => {
    const cell = (profile: 'overfitter' | 'reviser') =>
      runCell({
        ...spec('verifier', feedback.verifier()),
        cellId: `simulated:${profile} · verifier`,
        tasks: fixtureTasks as Task[],
        actor: actors.simulated({ profile }),
        verifier: verifiers.pythonTests({ heldOut: { share: 0.5, seed: 1 } }),
        budget: 5,
        repeats: 3,
        concurrency: 4,
      })
    const [overfitter, reviser] = [await cell('overfitter'), await cell('reviser')]
    const gap = (r: typeof overfitter) => r.summary.heldOut!.gapAt[4]!
    expect(overfitter.summary.errors.count).toBe(0)
    expect(gap(overfitter)).toBeGreaterThan(0.15)
    expect(gap(overfitter)).toBeGreaterThan(gap(reviser))
    expect(overfitter.summary.heldOut!.overfit).toBeGreaterThan(reviser.summary.heldOut!.overfit)
    // Its special cases are real code: some of them pass every visible test.
    const special = overfitter.trajectories
      .flatMap((t) => t.attempts)
      .filter((a) => a.answer.includes('# special cases'))
    expect(special.some((a) => a.verdict.heldOut?.visiblePass === true && !a.verdict.pass)).toBe(true)
  }, 120_000)
})
