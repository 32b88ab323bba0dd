// Held-out rubric criteria, end to end: the official openai client over a real local socket (the
// project's test server) as the actor and the critic. Each criterion asks for one marker word; the
// actor writes exactly the marker words it has been shown (the overfitting a held-out criterion
// exists to catch), and the rubric-aware critic repeats its whole input back, so any criterion a
// critic is shown reaches the actor's next prompt. Every message the server received and every
// trajectory field an actor sees is scanned for the held-out criteria's text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { critic } from '../src/feedback/critic.js'
import { feedback, runCell, verifiers, type AnyTask, type CellSpec, type FeedbackMode } from '../src/index.js'
import { cellProtocol } from '../src/protocol/cell.js'
import { cellSpecFixture } from './protocol-fixture.js'
import { heldOutGapLine } from '../src/protocol/held-out-gap.js'
import { protocolFingerprint } from '../src/core/fingerprint.js'
import { testServerModel } from '../src/testing/rubric-responders.js'
import { startTestServer } from '../src/testing/server.js'
import type { TestServer, TestServerRequest } from '../src/testing/types.js'
import { heldOutIndices } from '../src/verifiers/python-tests/held-out.js'
import { HELD_OUT_CRITERIA_FAILED } from '../src/verifiers/rubric/rubric-verifier.js'

const word = (t: number, i: number) => `marker${t}q${i}z`
const tasks: AnyTask[] = [4, 5, 6].map((n, t) => ({
  id: `criteria/${t}`,
  prompt: 'Write a short note.',
  criteria: Array.from({ length: n }, (_, i) => ({
    id: `c${i}`,
    text: `Mention the word ${word(t, i)}`,
    check: { kind: 'includes' as const, text: word(t, i) },
  })),
}))
const SPLIT = { share: 0.5, seed: 31 }
const held = tasks.map((t) => heldOutIndices(t.id, (t.criteria as unknown[]).length, SPLIT))
const heldOutWords = tasks.flatMap((_, t) => held[t]!.map((i) => word(t, i)))

/** The overfitting actor: writes every marker word its prompt has shown it, nothing else. */
function overfitter(request: TestServerRequest): string {
  const seen = request.messages.map((m) => m.content).join('\n')
  return ['A note.', ...new Set([...seen.matchAll(/Mention the word (\w+)/g)].map((m) => m[1]!))].join(' ')
}

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({
    responder: (request) =>
      request.model === 'echo-critic'
        ? `I read:\n${request.messages.map((m) => m.content).join('\n---\n')}`
        : overfitter(request),
  })
})
afterAll(() => server.close())

const verifier = verifiers.rubric({ heldOut: SPLIT })
function spec(name: string, mode: FeedbackMode): CellSpec {
  return cellSpecFixture({
    runId: 'held-out-criteria',
    benchmark: 'held-out criteria',
    cellId: `overfitter · ${name}`,
    tasks,
    actor: testServerModel(server, { model: 'overfitter' }),
    verifier,
    mode: { name, feedback: mode },
  })
}

describe('verifiers.rubric({ heldOut }) on its own', () => {
  it('counts every criterion in the verdict and shows only the visible ones, by a split fixed by seed', async () => {
    const t = 2
    const all = tasks[t]!.criteria as { text: string }[]
    const visibleWords = all.map((_, i) => word(t, i)).filter((_, i) => !held[t]!.includes(i))
    expect(held[t]!.length).toBe(3)
    const verdict = await verifier.verify(tasks[t]!, visibleWords.join(' '))
    expect(verdict.pass).toBe(false)
    expect(verdict.score).toBe(0.5)
    expect(verdict.diagnostics.outcome).toBe('failed')
    expect(verdict.diagnostics.summary).toBe(`3 of 3 criteria met; ${HELD_OUT_CRITERIA_FAILED}`)
    expect(verdict.criteria!.map((c) => c.id)).toEqual(
      all.map((_, i) => `c${i}`).filter((_, i) => !held[t]!.includes(i)),
    )
    expect(verdict.heldOut).toEqual({ statements: 6, tests: held[t], failed: held[t], visiblePass: true })
    const every = await verifier.verify(tasks[t]!, all.map((_, i) => word(t, i)).join(' '))
    expect(every.pass).toBe(true)
    expect(every.heldOut).toEqual({ statements: 6, tests: held[t], failed: [], visiblePass: true })
  })

  it('refuses a bad share, a points rule and all-at-once grading, naming the fix', () => {
    expect(() => verifiers.rubric({ heldOut: { share: 1, seed: 1 } })).toThrow(/strictly between 0 and 1/)
    expect(() => verifiers.rubric({ heldOut: SPLIT, passRule: { points: 0.5 } })).toThrow(/needs passRule 'all'/)
    expect(() => verifiers.rubric({ heldOut: SPLIT, gradingMode: 'all-at-once' })).toThrow(/'per-criterion'/)
  })
})

describe('held-out criteria in a run', () => {
  let cells: Record<string, Awaited<ReturnType<typeof runCell>>>
  beforeAll(async () => {
    server.reset()
    cells = {
      verifier: await runCell(spec('verifier', feedback.verifier())),
      critic: await runCell(
        spec(
          'critic',
          critic({ model: testServerModel(server, { model: 'echo-critic' }), rubric: 'aware', style: 'directive' }),
        ),
      ),
    }
  }, 60_000)

  it('never sends a held-out criterion to the actor or the critic, nor stores it where an actor reads', () => {
    expect(server.requests.some((r) => r.model === 'echo-critic')).toBe(true)
    for (const request of server.requests) {
      const wire = JSON.stringify(request.body)
      for (const text of heldOutWords) expect(wire, `request ${request.index} (${request.model})`).not.toContain(text)
    }
    for (const { trajectories } of Object.values(cells))
      for (const t of trajectories)
        for (const a of t.attempts) {
          const seen = JSON.stringify([a.answer, a.feedback, a.verdict.diagnostics, a.verdict.criteria])
          for (const text of heldOutWords) expect(seen, `${t.taskId} attempt ${a.index}`).not.toContain(text)
        }
    // The visible criteria did reach the critic and the actor, so the scan looked where the text would be.
    const critiques = server.requests.filter((r) => r.model === 'echo-critic').map((r) => JSON.stringify(r.body))
    expect(critiques.join('\n')).toContain(`Mention the word ${word(0, visibleOf(0)[0]!)}`)
  })

  it('passes the visible criteria after one revision and still fails every task: the gap is the whole of Seq@3', () => {
    for (const { trajectories, summary } of Object.values(cells)) {
      for (const t of trajectories) {
        expect(t.attempts.map((a) => a.verdict.pass)).toEqual([false, false, false])
        expect(t.attempts.map((a) => a.verdict.heldOut?.visiblePass)).toEqual([false, true, true])
      }
      expect(summary.heldOut!.visibleAt).toEqual([0, 1, 1])
      expect(summary.heldOut!.allAt).toEqual([0, 0, 0])
      expect(summary.seqAt).toEqual([0, 0, 0])
      expect(heldOutGapLine(summary)).toMatch(
        /^held-out criteria, overfitter · \w+: Seq@3 100\.0% on the visible criteria, 0\.0% on every criterion, gap 100\.0 points .*still fail a held-out criterion/,
      )
    }
  })

  it('records the split in the fingerprint: another seed or share is another protocol', () => {
    const base = spec('verifier', feedback.verifier())
    const print = (v: CellSpec['verifier']) => protocolFingerprint(cellProtocol({ ...base, verifier: v }))
    const same = print(verifiers.rubric({ heldOut: SPLIT }))
    expect(print(verifier)).toBe(same)
    expect(print(verifiers.rubric({ heldOut: { ...SPLIT, seed: 32 } }))).not.toBe(same)
    expect(print(verifiers.rubric({ heldOut: { ...SPLIT, share: 0.25 } }))).not.toBe(same)
    expect(print(verifiers.rubric())).not.toBe(same)
  })
})

/** The visible criterion indices of task t. */
function visibleOf(t: number): number[] {
  return (tasks[t]!.criteria as unknown[]).map((_, i) => i).filter((i) => !held[t]!.includes(i))
}
