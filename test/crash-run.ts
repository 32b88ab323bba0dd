// Child process for crash.test.ts: runs one slow cell, appending each finished trajectory, until
// the parent kills it with SIGKILL.
import { actors, runCell } from '../src/index.js'
import { appendTrajectory } from '../src/artifacts/index.js'
import { cellSpec } from '../src/protocol/test-helpers.js'

const file = process.argv[2]!
const tasks = Array.from({ length: 200 }, (_, i) => ({
  id: `t${i}`,
  prompt: 'p',
  simulation: { difficulty: 0.5, correct: ['OK'], wrong: ['BAD'] },
}))
await runCell(
  cellSpec(tasks, actors.simulated({ profile: 'memoryless', latencyMs: 20 }), {
    concurrency: 8,
    onTrajectory: (t) => appendTrajectory(file, t),
  }),
)
