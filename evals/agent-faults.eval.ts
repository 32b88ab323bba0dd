// The bundled fault-robustness eval: the repository-repair tasks (fixtures/repair-tasks.ts) solved by
// one simulated agent twice, once with its tools as they are and once with a fault injector that
// makes two in five of its tool calls fail, time out or come back cut short (seeded, each fault
// recorded on its call in trajectories.jsonl). The run's robustness table gives Seq@K (and Pass@K)
// with faults over without, paired over the tasks; the agent table gives the recovery rate: of the
// episodes a fault hit, the share that still passed, beside the episodes no fault hit.
//
// The simulation (src/agents/simulated-agent.ts) is not a model: `repairs` retries a failed call
// once and then goes on with its plan, so a write that fails twice leaves the file unrepaired.
import { actors, feedback, seqEval, verifiers } from 'vitest-seqk'
import { repairScripts, repairTasks } from '../fixtures/repair-tasks.js'

const agent = (faults?: { share: number; seed: number }) =>
  actors.agent({
    id: faults ? 'agent:repairs + faults' : 'agent:repairs',
    model: actors.simulatedAgent({ profile: 'repairs', scripts: repairScripts, retries: 1 }),
    tools: [],
    workspace: { timeoutMs: 10_000 },
    maxSteps: 16,
    ...(faults ? { faults: { ...faults, kinds: ['error', 'timeout', 'truncate'] } } : {}),
  })

seqEval('repository repair under tool faults (agents, fixtures)', {
  tasks: repairTasks,
  actors: [agent(), agent({ share: 0.4, seed: 1 })],
  verifier: verifiers.pythonTests({ workspace: true }),
  budget: 3,
  repeats: 4,
  history: 'full',
  independent: true,
  modes: { verifier: { feedback: feedback.verifier() } },
})
