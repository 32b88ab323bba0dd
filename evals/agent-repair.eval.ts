// The bundled offline agent benchmark: small repository-repair tasks (fixtures/repair-tasks.ts: a
// module with a bug, its visible tests, hidden tests the verifier runs), solved by simulated
// agents that list, read and rewrite files and run the tests through the real workspace tools,
// inside the Python verifier's bubblewrap sandbox. No key, no network. The verifier judges the
// files each episode leaves (pythonTests({ workspace: true })); verifier feedback starts the next
// episode in a fresh workspace.
//
// The profiles (src/agents/simulated-agent.ts) are simulations, not models: `repairs` edits once
// and repairs from feedback, `thrashes` rewrites the file several times per episode, `stops-early`
// has the best first try and mostly gives up on a revision. Their order by Seq@K differs from their
// order by Pass@K. The agent table under the cells gives each one's steps and tool calls per
// attempt, tool error rate, how its episodes ended, cost per solved task, and the trajectory
// consistency of its successful repeats.
import { actors, feedback, seqEval, verifiers } from 'vitest-seqk'
import { repairScripts, repairTasks } from '../fixtures/repair-tasks.js'

const agent = (profile: 'repairs' | 'thrashes' | 'stops-early') =>
  actors.agent({
    id: `agent:${profile}`,
    model: actors.simulatedAgent({ profile, scripts: repairScripts }),
    tools: [],
    workspace: { timeoutMs: 10_000 },
    maxSteps: 12,
  })

seqEval('repository repair (agents, fixtures)', {
  tasks: repairTasks,
  actors: [agent('repairs'), agent('thrashes'), agent('stops-early')],
  verifier: verifiers.pythonTests({ workspace: true }),
  budget: 3,
  repeats: 2,
  history: 'full',
  independent: true,
  modes: { verifier: { feedback: feedback.verifier() } },
})
