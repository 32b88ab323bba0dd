// The bundled offline eval: self-written HumanEval-Pro-style tasks, simulated actors, real Python.
// Written exactly as a user would write theirs. Set SEQK_ACTORS (e.g. `openai:gpt-4.1-mini,
// anthropic:claude-sonnet-4-5`) to run real models instead of the simulations.
import { actors, actorsFromEnv, feedback, seqEval, verifiers } from 'vitest-seqk'
import { tasks } from '../fixtures/code-tasks.js'

seqEval('self-invoking python (fixtures)', {
  tasks,
  // An offline eval: its simulations are what CI measures (SEQK_ACTORS runs real models instead).
  actors: actorsFromEnv(
    () => [
      actors.simulated({ profile: 'reviser' }),
      actors.simulated({ profile: 'stubborn' }),
      actors.simulated({ profile: 'one-shot' }),
      actors.simulated({ profile: 'flaky' }),
    ],
    { fallbackInCi: true },
  ),
  verifier: verifiers.pythonTests(),
  budget: 5,
  repeats: 3,
  history: 'full',
  independent: { expect: { passAt: { 5: 0.8 } } },
  modes: {
    binary: { feedback: feedback.binary(), expect: { seqAt: { 5: 0.5 } } },
    verifier: { feedback: feedback.verifier(), expect: { seqAt: { 5: 0.6 } } },
  },
  // Gate every cell against evals/seqk.baseline.json (committed); refresh it with `npm run evals -- -u`.
  baseline: true,
})
