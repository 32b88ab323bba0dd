// What a strengthened suite catches that the original does not, and what correct answers it
// rejects. Catches: every mechanically broken copy of each reference solution (the breaks the
// simulations use: a constant off by one, a comparison flipped, the last line dropped, ...) judged
// on a benchmark's own tests and on its strengthened copy (`seqk strengthen`): of the copies the
// original tests pass (plausible wrong answers that a weak suite counts as solved), how many the
// strengthened tests fail. False rejections: every honest rewrite of each reference
// (test/honest-rewrites.py: float arithmetic in another order, `%` truncating on negatives, `round`
// half away from zero, sets in another order, zip by index) and the hand-written correct answers of
// test/fixtures/honest-answers.ts, judged the same way: of those the original tests pass, how many
// the strengthened tests fail (each one a correct answer rejected). It measures the suites, not any
// model.
// Held out (--held-out): the strengthened suites aim their search at near misses of the reference
// (mutants of the same kinds as some of the broken copies), so the catch rate above is in part
// measured on what was aimed at. With --held-out, each task with a broken copy the original tests
// pass is strengthened again here (seed 1, 20 inputs, the defaults) with its broken copies left out
// of the search (heldOutMutants): the catch rate on copies the search never saw.
// Usage: npx tsx scripts/strengthened-power.ts <original.json> <strengthened.json> [humaneval-pro|mbpp-pro] [--held-out]
import { basename } from 'node:path'
import { breakReference, loadCodeEvalPro, referenceCode, REFERENCE_BREAKS } from '../src/benchmarks/index.js'
import { strengthenTests } from '../src/benchmarks/strengthen.js'
import { mapConcurrent } from '../src/protocol/concurrency.js'
import { verifiers } from '../src/verifiers/index.js'
import { HONEST_ANSWERS } from '../test/fixtures/honest-answers.js'
import { HONEST_FAMILIES, honestRewrites } from '../test/honest-rewrites.js'

const heldOutSearch = process.argv.includes('--held-out')
const [originalFile, strengthenedFile, named] = process.argv.slice(2).filter((a) => a !== '--held-out')
if (originalFile === undefined || strengthenedFile === undefined) {
  console.error(
    'usage: npx tsx scripts/strengthened-power.ts <original.json> <strengthened.json> [humaneval-pro|mbpp-pro] [--held-out]',
  )
  process.exit(2)
}
const benchmark = (named ?? (/mbpp/i.test(basename(originalFile)) ? 'mbpp-pro' : 'humaneval-pro')) as
  'humaneval-pro' | 'mbpp-pro'
const original = loadCodeEvalPro(originalFile, { benchmark })
const strengthened = new Map(loadCodeEvalPro(strengthenedFile, { benchmark }).map((e) => [e.task.id, e]))
const verifier = verifiers.pythonTests()
const origin = { origin: 'bundled-simulation' as const }
const fence = (code: string) => `\`\`\`python\n${code}\n\`\`\``
type Entry = (typeof original)[number]
interface Copy {
  entry: Entry
  kind: string
  answer: string
}
const broken: Copy[] = original.flatMap((e) => {
  const code = referenceCode(e.record)
  const bases = Array.isArray(e.task.metadata?.baseFunctions) ? (e.task.metadata.baseFunctions as string[]) : []
  return e.task.entryPoint === undefined
    ? []
    : REFERENCE_BREAKS.flatMap((kind) => {
        const copy = breakReference(code, e.task.entryPoint!, kind, bases)
        return copy === undefined || copy.trim() === code.trim() ? [] : [{ entry: e, kind, answer: fence(copy) }]
      })
})
const requests = original.flatMap((e) => HONEST_FAMILIES.map((family) => ({ e, family })))
const rewritten = honestRewrites(requests.map((r) => ({ code: referenceCode(r.e.record), family: r.family })))
const honest: Copy[] = [
  ...requests.flatMap((r, i) =>
    rewritten[i] === null ? [] : [{ entry: r.e, kind: r.family, answer: fence(rewritten[i]!) }],
  ),
  ...HONEST_ANSWERS.flatMap((a) => {
    const entry = original.find((e) => e.task.id === a.task)
    return entry === undefined ? [] : [{ entry, kind: 'hand-written', answer: fence(a.code) }]
  }),
]
const started = performance.now()
/** Each copy judged on the original tests and, when those pass it, on the strengthened ones. */
const judge = (copies: readonly Copy[]) =>
  mapConcurrent(copies, 4, async (c) => {
    const before = await verifier.verify(c.entry.task, c.answer, origin)
    const stronger = strengthened.get(c.entry.task.id)
    if (stronger === undefined) throw new Error(`${strengthenedFile} has no task ${c.entry.task.id}`)
    const after = before.pass ? await verifier.verify(stronger.task, c.answer, origin) : before
    const failed = (after.diagnostics.tests ?? []).find((t) => !t.pass)
    const why =
      failed === undefined ? after.diagnostics.summary : `${failed.call ?? failed.source}: ${failed.error ?? ''}`
    return { kind: c.kind, before: before.pass, after: after.pass, id: c.entry.task.id, why }
  })
const rowsOf = (verdicts: Awaited<ReturnType<typeof judge>>, kinds: readonly string[]) =>
  [...kinds, 'all'].map((kind) => {
    const of = verdicts.filter((v) => kind === 'all' || v.kind === kind)
    const passOriginal = of.filter((v) => v.before)
    const failStrengthened = passOriginal.filter((v) => !v.after)
    return { kind, copies: of.length, passOriginal: passOriginal.length, failStrengthened: failStrengthened.length }
  })
const breaks = await judge(broken)
const rewrites = await judge(honest)
/** Each task with a copy the original tests pass, strengthened with its copies held out of the search: the copies it fails. */
const heldOut = heldOutSearch
  ? (
      await mapConcurrent([...new Set(breaks.filter((v) => v.before).map((v) => v.id))], 2, async (id) => {
        const entry = original.find((e) => e.task.id === id)!
        const copies = broken.filter((c) => c.entry === entry)
        const { task } = await strengthenTests(entry.task, {
          seed: 1,
          inputs: 20,
          reference: entry.reference,
          verifier,
          heldOutMutants: copies.map((c) => c.answer.slice('```python\n'.length, -'\n```'.length)),
        })
        return mapConcurrent(copies, 2, async (c) => {
          if (!(await verifier.verify(entry.task, c.answer, origin)).pass) return undefined
          return { id: `${id} ${c.kind}`, caught: !(await verifier.verify(task, c.answer, origin)).pass }
        })
      })
    )
      .flat()
      .filter((v) => v !== undefined)
  : undefined
console.log(
  JSON.stringify({
    benchmark,
    tasks: original.length,
    // Broken copies the strengthened suite fails among those the original passes: its catch rate.
    rows: rowsOf(breaks, REFERENCE_BREAKS).map(({ failStrengthened, ...r }) => ({
      ...r,
      caughtByStrengthened: failStrengthened,
    })),
    caught: breaks.filter((v) => v.before && !v.after).map((v) => `${v.id} ${v.kind}`),
    stillPassing: breaks.filter((v) => v.before && v.after).map((v) => `${v.id} ${v.kind}`),
    // Honest rewrites the strengthened suite fails among those the original passes: false rejections.
    honest: rowsOf(rewrites, [...HONEST_FAMILIES, 'hand-written']),
    falselyRejected: rewrites
      .filter((v) => v.before && !v.after)
      .map((v) => `${v.id} ${v.kind}: ${v.why.slice(0, 200)}`),
    ...(heldOut
      ? {
          heldOut: {
            passOriginal: heldOut.length,
            caught: heldOut.filter((v) => v.caught).length,
            caughtCopies: heldOut.filter((v) => v.caught).map((v) => v.id),
          },
        }
      : {}),
    seconds: Math.round((performance.now() - started) / 1000),
  }),
)
process.exit(0)
