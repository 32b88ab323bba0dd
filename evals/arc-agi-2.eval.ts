// ARC-AGI-2 in the bundled evals, offline: five self-written ARC-style grid tasks
// (fixtures/arc-tasks.ts, in ARC-AGI-2's file shape), simulated actors, and the deterministic grid
// verifier. Cell-match feedback (each grid's size match and share of cells right, never the
// target) against binary feedback and independent samples, under the paper's reference protocol
// (`protocol: 'seq_k-reference'`: its prompt layout, the budget disclosed, feedback after the
// last failure). The public evaluation split (120 tasks) loads the same way:
// `loadArcAgi2('../shared/benchmarks/arc-agi-2')` (test/arc-agi-2.test.ts runs it).
//
// SEQK_ACTORS runs real actors instead of the simulations.
import { actors, actorsFromEnv, arcGridVerifier, feedback, seqEval } from 'vitest-seqk'
import { arcTasks } from '../fixtures/arc-tasks.js'

seqEval('ARC-AGI-2 grids (fixtures, reference protocol)', {
  tasks: arcTasks,
  // An offline eval: its simulations are what CI measures (SEQK_ACTORS runs real models instead).
  actors: actorsFromEnv(
    () => [
      actors.simulated({ profile: 'reviser' }),
      actors.simulated({ profile: 'stubborn' }),
      actors.simulated({ profile: 'one-shot' }),
    ],
    { fallbackInCi: true },
  ),
  verifier: arcGridVerifier(),
  protocol: 'seq_k-reference',
  budget: 5,
  repeats: 3,
  independent: true,
  modes: {
    cell_match: { feedback: feedback.cellMatch(), expect: { seqAt: { 5: 0.5 } } },
    binary: { feedback: feedback.binary() },
  },
})
