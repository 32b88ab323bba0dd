// Strengthened suites of the shared HumanEval Pro and MBPP Pro tasks never reject a correct
// answer, and still catch wrong ones. A sample of tasks (the hand-written correct answers' tasks,
// those where a broken copy of the reference passes the original tests, and a seeded draw) is
// strengthened as `seqk strengthen` does (20 inputs, seed 1); then every honest rewrite of each
// reference (test/honest-rewrites.py) and every hand-written answer (test/fixtures/honest-answers.ts)
// that passes the original tests must pass the strengthened ones, and the broken copies that pass
// the original tests must mostly fail them. The full figures: scripts/strengthened-power.ts.
import { afterAll, describe, expect, it } from 'vitest'
import { breakReference, loadCodeEvalPro, referenceCode, REFERENCE_BREAKS } from '../src/benchmarks/index.js'
import { strengthenTests } from '../src/benchmarks/strengthen.js'
import { codeEvalProFiles, missingData } from '../src/benchmarks/test-helpers.js'
import { createRng } from '../src/metrics/random.js'
import { mapConcurrent } from '../src/protocol/concurrency.js'
import { closeAllPools } from '../src/verifiers/python-tests/pool.js'
import { verifiers } from '../src/verifiers/index.js'
import { HONEST_ANSWERS } from './fixtures/honest-answers.js'
import { HONEST_FAMILIES, honestRewrites } from './honest-rewrites.js'

afterAll(() => closeAllPools())

const fence = (code: string) => `\`\`\`python\n${code}\n\`\`\``
const origin = { origin: 'bundled-simulation' as const }
const verifier = verifiers.pythonTests()
/** Tasks where a broken copy of the reference passes the original tests and the strengthened suite catches it (full run, seed 1). */
const CAUGHT: Record<'humaneval-pro' | 'mbpp-pro', number[]> = {
  'humaneval-pro': [11, 24, 31, 58, 114],
  'mbpp-pro': [3, 29, 98, 243],
}

describe.runIf(missingData(...Object.values(codeEvalProFiles)) === undefined)(
  'strengthened suites on the shared data',
  () => {
    for (const benchmark of ['humaneval-pro', 'mbpp-pro'] as const)
      it(`${benchmark}: no honest rewrite or hand-written correct answer rejected; broken copies caught`, async () => {
        const entries = loadCodeEvalPro(codeEvalProFiles[benchmark], { benchmark })
        const rng = createRng(48)
        const drawn = Array.from({ length: 6 }, () => entries[Math.floor(rng() * entries.length)]!.task.id)
        const ids = new Set([
          ...HONEST_ANSWERS.filter((a) => a.task.startsWith(`${benchmark}/`)).map((a) => a.task),
          ...CAUGHT[benchmark].map((n) => `${benchmark}/${n}`),
          ...drawn,
        ])
        const sample = entries.filter((e) => ids.has(e.task.id))
        const stronger = new Map(
          await mapConcurrent(sample, 2, async (e) => {
            const r = await strengthenTests(e.task, { seed: 1, inputs: 20, reference: e.reference, verifier })
            return [e.task.id, r] as const
          }),
        )
        const requests = sample.flatMap((e) => HONEST_FAMILIES.map((family) => ({ e, family })))
        const rewritten = honestRewrites(requests.map((r) => ({ code: referenceCode(r.e.record), family: r.family })))
        const honest = [
          ...requests.flatMap((r, i) =>
            rewritten[i] === null ? [] : [{ e: r.e, what: r.family, answer: fence(rewritten[i]!) }],
          ),
          ...HONEST_ANSWERS.flatMap((a) => {
            const e = sample.find((x) => x.task.id === a.task)
            return e === undefined ? [] : [{ e, what: `hand-written (${a.shape})`, answer: fence(a.code) }]
          }),
        ]
        const rejected: string[] = []
        let judged = 0
        await mapConcurrent(honest, 2, async (h) => {
          if (!(await verifier.verify(h.e.task, h.answer, origin)).pass) return
          judged++
          const verdict = await verifier.verify(stronger.get(h.e.task.id)!.task, h.answer, origin)
          const failed = verdict.diagnostics.tests?.find((t) => !t.pass)
          if (!verdict.pass) rejected.push(`${h.e.task.id} ${h.what}: ${failed?.call ?? verdict.diagnostics.summary}`)
        })
        expect(rejected).toEqual([])
        expect(judged).toBeGreaterThan(10)
        // Every hand-written answer of this benchmark was judged (it passes the original tests).
        for (const a of HONEST_ANSWERS.filter((x) => x.task.startsWith(`${benchmark}/`)))
          expect(
            (await verifier.verify(sample.find((e) => e.task.id === a.task)!.task, fence(a.code), origin)).pass,
          ).toBe(true)

        // The catch rate: broken copies that pass the original tests and fail the strengthened ones.
        const copies = sample.flatMap((e) =>
          REFERENCE_BREAKS.flatMap((kind) => {
            const bases = (e.task.metadata?.baseFunctions as string[] | undefined) ?? []
            const code = breakReference(referenceCode(e.record), e.task.entryPoint!, kind, bases)
            return code === undefined ? [] : [{ e, answer: fence(code) }]
          }),
        )
        let passOriginal = 0
        let caught = 0
        await mapConcurrent(copies, 2, async (c) => {
          if (!(await verifier.verify(c.e.task, c.answer, origin)).pass) return
          passOriginal++
          if (!(await verifier.verify(stronger.get(c.e.task.id)!.task, c.answer, origin)).pass) caught++
        })
        expect(passOriginal).toBeGreaterThanOrEqual(CAUGHT[benchmark].length)
        expect(caught).toBeGreaterThanOrEqual(CAUGHT[benchmark].length)
      }, 600_000)
  },
)
