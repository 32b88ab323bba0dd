// The reference protocol preset (`protocol: 'seq_k-reference'`) end to end: the prompts the actor
// receives over a real socket (the OpenAI SDK against the local test server), attempt by attempt,
// against the reference harness's layout written out here by hand from its documented text
// (DESIGN §6), not from the builder; the critic after the last failure; independent cells drawing
// K bare samples without stopping; and what the preset changes in the protocol and its fingerprint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, testServerModel, type TestServer } from '../src/testing/index.js'
import { feedback } from '../src/feedback/index.js'
import { verifiers } from '../src/verifiers/index.js'
import { resolveOptions } from '../src/vitest/options.js'
import { planCells } from '../src/vitest/seq-eval.js'
import { runCell } from '../src/protocol/cell.js'
import { protocolFingerprint } from '../src/core/fingerprint.js'

const PROMPT_A = 'Task A: say the magic word.'
const PROMPT_B = 'Task B: say the other word.'
const FIRST = ' If this attempt does not pass, you will receive feedback and can revise it on the remaining attempts.'
const LATER = ' Review your previous attempt(s) and the feedback below, then provide an improved answer.'

let server: TestServer
beforeAll(async () => {
  // Task A is answered right on its third attempt (after two earlier attempts in view); every
  // other answer is wrong and names the attempt it saw, so each prompt's answer is traceable.
  server = await startTestServer({
    responder: (request) => {
      const text = request.messages.map((m) => m.content).join('\n')
      const seen = (text.match(/<PreviousAttempt \d+>/g) ?? []).length
      return text.startsWith('Task A') && seen === 2 ? 'MAGIC' : `guess ${seen + 1}`
    },
  })
})
afterAll(() => server.close())

const tasks = [
  { id: 'a', prompt: PROMPT_A, expected: 'MAGIC' },
  { id: 'b', prompt: PROMPT_B, expected: 'OTHER' },
]

function plan(extra: object = {}) {
  const actor = testServerModel(server, { model: 'actor' })
  return planCells(
    'reference bench',
    resolveOptions('reference bench', {
      tasks,
      actors: [actor],
      verifier: verifiers.exactMatch(),
      budget: 3,
      protocol: 'seq_k-reference',
      independent: true,
      modes: { binary: { feedback: feedback.binary({ text: 'Wrong.' }) } },
      ...extra,
    }),
  )
}

/** The actor prompts the server received for a task, in order (one trajectory at a time). */
function promptsFor(prompt: string) {
  return server.requests.filter((r) => r.messages.some((m) => m.content.startsWith(prompt)))
}

describe("protocol: 'seq_k-reference'", () => {
  it('lays out every attempt as one user message: the task, the note, then numbered earlier attempts and feedback', async () => {
    server.reset()
    const [sequential] = plan()
    const { trajectories } = await runCell({ ...sequential!, runId: 'r', concurrency: 1 })
    const a = promptsFor(PROMPT_A).map((r) => r.messages)
    expect(a).toEqual([
      [{ role: 'user', content: `${PROMPT_A}\n\nThis is attempt 1 of 3.${FIRST}` }],
      [
        {
          role: 'user',
          content: `${PROMPT_A}\n\nThis is attempt 2 of 3.${LATER}\n\n<PreviousAttempt 1>\nguess 1\n</PreviousAttempt 1>\n\n<Feedback 1>\nWrong.\n</Feedback 1>`,
        },
      ],
      [
        {
          role: 'user',
          content: `${PROMPT_A}\n\nThis is attempt 3 of 3.${LATER}\n\n<PreviousAttempt 1>\nguess 1\n</PreviousAttempt 1>\n\n<Feedback 1>\nWrong.\n</Feedback 1>\n\n<PreviousAttempt 2>\nguess 2\n</PreviousAttempt 2>\n\n<Feedback 2>\nWrong.\n</Feedback 2>`,
        },
      ],
    ])
    const [ta, tb] = trajectories
    expect(ta).toMatchObject({ status: 'solved', firstSuccess: 3 })
    // The critic after the last failure: task B's third attempt failed and still got its feedback.
    expect(tb!.status).toBe('failed')
    expect(tb!.attempts.map((x) => x.feedback?.text ?? null)).toEqual(['Wrong.', 'Wrong.', 'Wrong.'])
    // A solved attempt gets none.
    expect(ta!.attempts.at(-1)!.feedback).toBeNull()
  })

  it('draws K bare samples in independent cells, never stopping at a pass', async () => {
    server.reset()
    const independent = plan().find((c) => c.mode === null)!
    const { trajectories } = await runCell({ ...independent, runId: 'r', concurrency: 1 })
    for (const t of trajectories) expect(t.attempts).toHaveLength(3)
    const prompts = server.requests.map((r) => r.messages)
    expect(prompts).toHaveLength(6)
    for (const m of prompts)
      expect([[{ role: 'user', content: PROMPT_A }], [{ role: 'user', content: PROMPT_B }]]).toContainEqual(m)
  })

  it('changes the prompt builder and the budget disclosure in the protocol, so its fingerprint; Seq@k below K is undefined, Score@k is read within the run', async () => {
    server.reset()
    const [reference] = plan()
    const [plain] = planCells(
      'reference bench',
      resolveOptions('reference bench', {
        tasks,
        actors: [reference!.actor],
        verifier: verifiers.exactMatch(),
        budget: 3,
        modes: { binary: { feedback: feedback.binary({ text: 'Wrong.' }) } },
      }),
    )
    const { summary } = await runCell({ ...reference!, runId: 'r', concurrency: 1 })
    expect(summary.protocol).toMatchObject({ promptBuilder: 'seq_k-reference/1', budgetDisclosed: true })
    expect(plain!.promptBuilder.version).toBe('seqk-prompt/1')
    expect(plain!.discloseBudget).toBe(false)
    expect(summary.fingerprint).toBe(protocolFingerprint(summary.protocol))
    expect(summary.fingerprint).not.toBe(
      protocolFingerprint({ ...summary.protocol, promptBuilder: 'seqk-prompt/1', budgetDisclosed: false }),
    )
    expect(summary.seqAt).toEqual([null, null, 0.5])
    expect(summary.score!.at).toEqual([0, 0, 0.5])
  })

  it('refuses options that would make it another protocol, naming each', () => {
    const problems = (extra: object) => {
      try {
        plan(extra)
        return ''
      } catch (error) {
        return (error as Error).message
      }
    }
    expect(problems({ history: 'last' })).toContain("history: protocol 'seq_k-reference' shows every earlier attempt")
    expect(problems({ discloseBudget: false })).toContain("discloseBudget: protocol 'seq_k-reference' tells the actor")
    expect(problems({ promptBuilder: { version: 'x', initial: () => [], revision: () => '' } })).toContain(
      "promptBuilder: protocol 'seq_k-reference' uses the reference harness's prompt layout",
    )
    expect(problems({ protocol: 'seq-k' })).toContain("protocol must be 'seqk' or 'seq_k-reference'")
    expect(problems({ modes: { binary: { feedback: feedback.binary(), expect: { seqAt: { 2: 0.5 } } } } })).toContain(
      'with discloseBudget only Seq@K (k = 3) is defined',
    )
  })
})
