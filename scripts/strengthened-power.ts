// What a strengthened suite catches that the original does not: every mechanically broken copy of
// each reference solution (the breaks the simulations use: a constant off by one, a comparison
// flipped, the last line dropped, ...) judged on a benchmark's own tests and on its strengthened
// copy (`seqk strengthen`). Prints, per break kind and in all, the copies the original tests pass
// and how many of those the strengthened tests fail: plausible wrong answers that a weak suite
// counts as solved. It measures the suites, not any model.
// Usage: npx tsx scripts/strengthened-power.ts <original.json> <strengthened.json> [humaneval-pro|mbpp-pro]
import { basename } from 'node:path'
import { breakReference, loadCodeEvalPro, referenceCode, REFERENCE_BREAKS } from '../src/benchmarks/index.js'
import { mapConcurrent } from '../src/protocol/concurrency.js'
import { verifiers } from '../src/verifiers/index.js'

const [originalFile, strengthenedFile, named] = process.argv.slice(2)
if (originalFile === undefined || strengthenedFile === undefined) {
  console.error(
    'usage: npx tsx scripts/strengthened-power.ts <original.json> <strengthened.json> [humaneval-pro|mbpp-pro]',
  )
  process.exit(2)
}
const benchmark = (named ?? (/mbpp/i.test(basename(originalFile)) ? 'mbpp-pro' : 'humaneval-pro')) as
  'humaneval-pro' | 'mbpp-pro'
const original = loadCodeEvalPro(originalFile, { benchmark })
const strengthened = new Map(loadCodeEvalPro(strengthenedFile, { benchmark }).map((e) => [e.task.id, e]))
const verifier = verifiers.pythonTests()
const origin = { origin: 'bundled-simulation' as const }
const copies = original.flatMap((e) => {
  const code = referenceCode(e.record)
  const bases = Array.isArray(e.task.metadata?.baseFunctions) ? (e.task.metadata.baseFunctions as string[]) : []
  return e.task.entryPoint === undefined
    ? []
    : REFERENCE_BREAKS.flatMap((kind) => {
        const broken = breakReference(code, e.task.entryPoint!, kind, bases)
        return broken === undefined || broken.trim() === code.trim()
          ? []
          : [{ entry: e, kind, answer: `\`\`\`python\n${broken}\n\`\`\`` }]
      })
})
const started = performance.now()
const verdicts = await mapConcurrent(copies, 4, async (c) => {
  const before = await verifier.verify(c.entry.task, c.answer, origin)
  const stronger = strengthened.get(c.entry.task.id)
  if (stronger === undefined) throw new Error(`${strengthenedFile} has no task ${c.entry.task.id}`)
  const after = before.pass ? await verifier.verify(stronger.task, c.answer, origin) : before
  return { kind: c.kind, before: before.pass, after: after.pass, id: c.entry.task.id }
})
const rows = [...REFERENCE_BREAKS, 'all' as const].map((kind) => {
  const of = verdicts.filter((v) => kind === 'all' || v.kind === kind)
  const passOriginal = of.filter((v) => v.before)
  const caught = passOriginal.filter((v) => !v.after)
  return { kind, copies: of.length, passOriginal: passOriginal.length, caughtByStrengthened: caught.length }
})
console.log(
  JSON.stringify({
    benchmark,
    tasks: original.length,
    rows,
    stillPassing: verdicts.filter((v) => v.before && v.after).map((v) => `${v.id} ${v.kind}`),
    seconds: Math.round((performance.now() - started) / 1000),
  }),
)
process.exit(0)
