// The bundled prompt-robustness eval: short instruction tasks (fixtures/instruction-tasks.ts), each
// also run under four seeded rewordings of its prompt (`perturb`: its rules reordered, its headings
// and bullets reformatted, another framing, a sentence beside the point). The instrument (tasks,
// verifier, feedback, budget) stays; only the wording changes. summary.json's `robustness`, the
// terminal and the report give Seq@K (and Pass@K) reworded over original, with its interval, and the
// tasks that flipped.
//
// The simulations (src/models/simulated.ts) are not models: `literal` is thrown by a distractor
// sentence and by another framing, and each wording is its own draw; `reviser` reads no wording,
// so its ratios are 1 (a control). Set SEQK_ACTORS to measure real models instead.
import { actors, actorsFromEnv, feedback, seqEval, verifiers } from 'vitest-seqk'
import { instructionTasks } from '../fixtures/instruction-tasks.js'

seqEval('instruction following, reworded (fixtures)', {
  tasks: instructionTasks,
  actors: actorsFromEnv(() => [actors.simulated({ profile: 'literal' }), actors.simulated({ profile: 'reviser' })], {
    fallbackInCi: true,
  }),
  verifier: verifiers.exactMatch(),
  budget: 3,
  repeats: 2,
  independent: true,
  modes: { verifier: { feedback: feedback.verifier() } },
  perturb: { kinds: ['reorder', 'format', 'paraphrase', 'distractor'] },
})
