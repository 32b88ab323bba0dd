// Seq@K vs Pass@K on real HumanEval Pro tasks: 20 tasks (those with a defective prompt left out),
// budget 5, binary and verifier feedback next to independent sampling, real Python verdicts.
//
// The data is read from ../shared/benchmarks/ (next to the repository, never copied into it); the
// eval is skipped, with the reason, when it is absent.
//
// Without SEQK_ACTORS the actors are simulated: they pick scripted answers, built from each
// task's reference solution (correct) and mechanically broken copies of it (wrong), every one
// checked against the verifier first. That exercises the protocol end to end offline; it measures
// no model. With SEQK_ACTORS (e.g. `openai:gpt-4.1-mini`) the same eval runs real models.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, test } from 'vitest'
import {
  actors,
  actorsFromEnv,
  feedback,
  loadCodeEvalPro,
  seqEval,
  verifiers,
  withCheckedSimulation,
} from 'vitest-seqk'

const repoRoot = new URL('../', import.meta.url)
const dataFile = new URL('../shared/benchmarks/humaneval-pro/humaneval_pro.json', repoRoot)
const NAME = 'HumanEval Pro (20 tasks, simulated actors)'

if (existsSync(dataFile)) {
  const verifier = verifiers.pythonTests()
  // The disclosure card names the data's upstream revision and the subset rule (../shared/benchmarks/SOURCES.md).
  const provenance = {
    revision: 'CodeEval-Pro/CodeEval-Pro@36f292eafc597b38535fbc8b4aafea8e5c654e3c',
    subset: 'first 20 tasks without a prompt defect',
  }
  const entries = loadCodeEvalPro(dataFile, { benchmark: 'humaneval-pro', excludeDefective: true, limit: 20 }).map(
    (e) => ({ ...e, task: { ...e.task, metadata: { ...e.task.metadata, ...provenance } } }),
  )
  // The models SEQK_ACTORS names, else none: then (and with SEQK_ACTORS=simulated) the simulations, also in CI.
  const listed = actorsFromEnv(() => [], { fallbackInCi: true })
  const real = listed.length > 0 ? listed : undefined
  // Real models need no scripts; simulations need checked ones.
  const tasks = real ? entries.map((e) => e.task) : await withCheckedSimulation(entries, { verifier, concurrency: 4 })

  seqEval(NAME, {
    tasks,
    actors: real ?? [
      actors.simulated({ profile: 'reviser' }),
      actors.simulated({ profile: 'stubborn' }),
      actors.simulated({ profile: 'one-shot' }),
    ],
    verifier,
    budget: 5,
    repeats: 2,
    history: 'full',
    independent: { expect: { passAt: { 5: 0.8 } } },
    modes: {
      binary: { feedback: feedback.binary(), expect: { seqAt: { 5: 0.5 } } },
      verifier: { feedback: feedback.verifier(), expect: { seqAt: { 5: 0.6 } } },
    },
  })
} else {
  // Vitest's own skip with a note: the reporter shows why.
  describe(NAME, () => {
    test('Seq@K and Pass@K on HumanEval Pro', (ctx) =>
      ctx.skip(`no benchmark data at ${fileURLToPath(dataFile)} (the CodeEval-Pro files live next to the repository)`))
  })
}
