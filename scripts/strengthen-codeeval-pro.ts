// Strengthens the shared HumanEval Pro and MBPP Pro suites in place (read from ../shared/benchmarks,
// never copied) and prints, per benchmark, the strengthened suite's size and how the reference
// solutions do on it, naming the tasks whose reference fails its original or its strengthened
// tests. Usage: npx tsx scripts/strengthen-codeeval-pro.ts [inputs per task] [seed] [benchmark]
import { loadCodeEvalPro } from '../src/benchmarks/index.js'
import { strengthenTests } from '../src/benchmarks/strengthen.js'
import { codeEvalProFiles } from '../src/benchmarks/test-helpers.js'
import { mapConcurrent } from '../src/protocol/concurrency.js'
import { verifiers } from '../src/verifiers/index.js'

const inputs = Number(process.argv[2] ?? 20)
const seed = Number(process.argv[3] ?? 1)
const only = process.argv[4]
const verifier = verifiers.pythonTests()
const count = (tests: string | undefined) => (tests ?? '').split('\n').filter((l) => l.trim() !== '').length
for (const benchmark of Object.keys(codeEvalProFiles) as (keyof typeof codeEvalProFiles)[]) {
  if (only !== undefined && only !== benchmark) continue
  const entries = loadCodeEvalPro(codeEvalProFiles[benchmark], { benchmark })
  const started = performance.now()
  // The reference on its own original tests first: a task it fails there is defective as given.
  const original = await mapConcurrent(entries, 4, async (e) => (await verifier.verify(e.task, e.reference)).pass)
  const results = await mapConcurrent(entries, 4, (e) =>
    strengthenTests(e.task, { seed, inputs, reference: e.reference, verifier }),
  )
  const before = entries.map((e) => count(e.task.tests))
  const after = results.map((r) => count(r.task.tests))
  const rechecked = await mapConcurrent(
    results,
    4,
    async (r, i) => (await verifier.verify(r.task, entries[i]!.reference)).pass,
  )
  const ids = (keep: (i: number) => boolean) => entries.flatMap((e, i) => (keep(i) ? [e.task.id] : []))
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0)
  const median = (xs: readonly number[]) => {
    const s = [...xs].sort((a, b) => a - b)
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
  }
  console.log(
    JSON.stringify({
      benchmark,
      tasks: entries.length,
      inputsPerTask: inputs,
      seed,
      originalStatements: sum(before),
      strengthenedStatements: sum(after),
      perTaskBefore: { mean: sum(before) / before.length, median: median(before), max: Math.max(...before) },
      perTaskAfter: { mean: sum(after) / after.length, median: median(after), max: Math.max(...after) },
      tasksUnchanged: ids((i) => results[i]!.added === 0),
      rejectedCandidates: sum(results.map((r) => r.rejected)),
      overStepBudget: sum(results.map((r) => r.overBudget)),
      overTimeLimitAlone: ids((i) => results[i]!.timedOut > 0),
      referencesFailingOriginalSuite: ids((i) => !original[i]),
      referencesFailingARerun: ids((i) => results[i]!.referenceFailures > 0),
      referencesFailingStrengthenedSuite: ids((i) => !rechecked[i]),
      seconds: Math.round((performance.now() - started) / 1000),
    }),
  )
}
process.exit(0)
