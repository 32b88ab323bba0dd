// Child process for crash.test.ts: runs one slow cell, appending each finished trajectory, until
// the parent kills it with SIGKILL.
import { actors, appendTrajectory, defaultPromptBuilder, feedback, fullHistory, runCell, type Verifier } from '../src/index.js'

const file = process.argv[2]!
const verifier: Verifier = {
  name: 'never',
  version: '1',
  settings: {},
  async verify() {
    return { pass: false, diagnostics: { outcome: 'failed', summary: 'no' } }
  },
}
const tasks = Array.from({ length: 200 }, (_, i) => ({ id: `t${i}`, prompt: 'p', simulation: { difficulty: 0.5, correct: ['OK'], wrong: ['BAD'] } }))
await runCell({
  runId: 'crash',
  benchmark: 'crash',
  cellId: 'slow · binary',
  tasks,
  actor: actors.simulated({ profile: 'memoryless', latencyMs: 20 }),
  verifier,
  mode: { name: 'binary', feedback: feedback.binary() },
  history: fullHistory,
  promptBuilder: defaultPromptBuilder,
  budget: 3,
  repeats: 1,
  discloseBudget: false,
  concurrency: 8,
  thresholds: {},
  countErrorsAsFailures: false,
  bootstrap: { seed: 1, resamples: 200 },
  onTrajectory: (t) => appendTrajectory(file, t),
})
