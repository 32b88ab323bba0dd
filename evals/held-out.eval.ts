// Held-out tests, offline: the self-written HumanEval-Pro-style tasks with half of each task's test
// statements held out of feedback. The `overfitter` special-cases the failing calls verifier
// feedback shows; its visible Seq@5 runs ahead of its Seq@5 on every test, and the table says by
// how much (the feedback-overfitting gap). The `reviser` repairs the logic: little or no gap.
import { actors, actorsFromEnv, feedback, seqEval, verifiers } from 'vitest-seqk'
import { tasks } from '../fixtures/code-tasks.js'

seqEval('self-invoking python, half the tests held out (fixtures)', {
  tasks,
  // An offline eval: its simulations are what CI measures.
  actors: actorsFromEnv(() => [actors.simulated({ profile: 'overfitter' }), actors.simulated({ profile: 'reviser' })], {
    fallbackInCi: true,
  }),
  verifier: verifiers.pythonTests({ heldOut: { share: 0.5, seed: 1 } }),
  budget: 5,
  repeats: 3,
  history: 'full',
  modes: { verifier: { feedback: feedback.verifier() } },
})
