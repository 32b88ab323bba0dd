// Strengthens the shared HumanEval Pro and MBPP Pro suites in place (read from ../shared/benchmarks,
// never copied) and prints, per benchmark, the strengthened suite's size and how the reference
// solutions do on it. Usage: npx tsx scripts/strengthen-codeeval-pro.ts [inputs per task] [seed]
import { loadCodeEvalPro } from '../src/benchmarks/index.js'
import { strengthenTests } from '../src/benchmarks/strengthen.js'
import { codeEvalProFiles } from '../src/benchmarks/test-helpers.js'
import { mapConcurrent } from '../src/protocol/concurrency.js'
import { verifiers } from '../src/verifiers/index.js'

const inputs = Number(process.argv[2] ?? 20)
const seed = Number(process.argv[3] ?? 1)
const verifier = verifiers.pythonTests()
for (const benchmark of Object.keys(codeEvalProFiles) as (keyof typeof codeEvalProFiles)[]) {
  const entries = loadCodeEvalPro(codeEvalProFiles[benchmark], { benchmark })
  const started = performance.now()
  const results = await mapConcurrent(entries, 4, (e) =>
    strengthenTests(e.task, { seed, inputs, reference: e.reference, verifier }),
  )
  const original = entries.reduce((n, e) => n + e.task.tests!.split('\n').filter((l) => l.trim() !== '').length, 0)
  const added = results.reduce((n, r) => n + r.added, 0)
  const unchanged = results.filter((r) => r.added === 0).length
  const flaky = results.filter((r) => r.referenceFailures > 0).length
  const rechecked = await mapConcurrent(
    results,
    4,
    async (r, i) => (await verifier.verify(r.task, entries[i]!.reference)).pass,
  )
  console.log(
    JSON.stringify({
      benchmark,
      tasks: entries.length,
      inputsPerTask: inputs,
      seed,
      originalStatements: original,
      addedStatements: added,
      strengthenedStatements: original + added,
      tasksUnchanged: unchanged,
      rejectedCandidates: results.reduce((n, r) => n + r.rejected, 0),
      tasksWhoseReferenceFailedARerun: flaky,
      referencesFailingStrengthenedSuite: rechecked.filter((p) => !p).length,
      seconds: Math.round((performance.now() - started) / 1000),
    }),
  )
}
process.exit(0)
