// The bundled offline rubric eval: self-written rubric tasks (fixtures/rubric-tasks.ts), simulated
// actors, and a deterministic rule-based grader, critic and summariser served by the local test
// server through the real OpenAI SDK — no API key. It shows feedback that names the failed
// criteria (a rubric-aware critic, raw verifier feedback) against feedback that does not (a
// rubric-blind critic, binary) and independent retries, and the same cells under `full` and
// `summary` history (paper, table 6). The critic cells' revisions are annotated by a rule-based
// LLM annotator on the same server (did the revision address the critique? paper §5.2.2); the
// verifier cells' by the derived annotator, from the criteria the feedback named.
//
// SEQK_ACTORS runs real actors instead of the simulations (the grader, critic and summariser stay
// rule-based, so the numbers measure the actors alone). The simulated actors' cost of a summarised
// history is a profile setting (`summaryRepairFactor`), not a measurement: only real actors can
// show what a summary really costs.
import { afterAll } from 'vitest'
import { actors, actorsFromEnv, feedback, seqEval, verifiers } from 'vitest-seqk'
import { rubricRules, startTestServer, testServerModel } from 'vitest-seqk/testing'
import { rubricTasks } from '../fixtures/rubric-tasks.js'

const server = await startTestServer({ responder: rubricRules() })
afterAll(() => server.close())

const grader = testServerModel(server, { model: 'rule-grader' })
const criticModel = testServerModel(server, { model: 'rule-critic' })
const summariser = testServerModel(server, { model: 'rule-summariser' })
// A critique names its requests in prose: the annotator reads them (the derived annotator cannot).
const annotate = { model: testServerModel(server, { model: 'rule-annotator' }) }

const shared = {
  tasks: rubricTasks,
  // An offline eval: its simulations are what CI measures (SEQK_ACTORS runs real models instead).
  actors: actorsFromEnv(
    () => [
      actors.simulated({ profile: 'reviser' }),
      actors.simulated({ profile: 'stubborn' }),
      actors.simulated({ profile: 'one-shot' }),
    ],
    { fallbackInCi: true },
  ),
  // One grader call per model-graded criterion; the code-checked criteria cost nothing.
  verifier: verifiers.rubric({ grader, gradingMode: 'per-criterion', passRule: 'all' }),
  budget: 5,
  repeats: 3,
  modes: {
    'critic-aware': {
      feedback: feedback.critic({ model: criticModel, rubric: 'aware', style: 'directive' }),
      expect: { seqAt: { 5: 0.5 } },
      annotate,
    },
    'critic-blind': {
      feedback: feedback.critic({ model: criticModel, rubric: 'blind', style: 'directive' }),
      annotate,
    },
    verifier: { feedback: feedback.verifier() },
    binary: { feedback: feedback.binary() },
  },
}

seqEval('rubric fixtures (full history)', {
  ...shared,
  history: 'full',
  independent: true,
})

seqEval('rubric fixtures (summary history)', {
  ...shared,
  history: 'summary',
  summariser,
})
