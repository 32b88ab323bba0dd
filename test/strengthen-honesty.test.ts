// Strengthened suites of the shared HumanEval Pro and MBPP Pro tasks never reject a correct
// answer, and catch at least as many wrong ones as the suites before input contracts did. A fixed
// sample of tasks (below), the hand-written correct answers' tasks and a seeded draw are
// strengthened as `seqk strengthen` does (20 inputs, seed 1); then every honest rewrite of each
// reference (test/honest-rewrites.py) and every hand-written answer (test/fixtures/honest-answers.ts)
// that passes the original tests must pass the strengthened ones, and of the broken copies of the
// references that pass the original tests, the strengthened suites must fail at least as many as
// the suites before did on the same sample. The full figures: scripts/strengthened-power.ts.
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
/**
 * The fixed sample for the catch rate: tasks where some broken copy of the reference passes the
 * original tests (scripts/strengthened-power.ts), all 38 of HumanEval Pro's and 20 of MBPP Pro's 95
 * drawn once with createRng(48).
 */
const SAMPLE: Record<'humaneval-pro' | 'mbpp-pro', number[]> = {
  'humaneval-pro': [
    3, 11, 16, 19, 20, 24, 25, 31, 32, 33, 35, 38, 39, 43, 46, 52, 58, 59, 63, 74, 88, 108, 111, 114, 116, 118, 119,
    124, 128, 129, 136, 145, 146, 147, 151, 154, 159, 160,
  ],
  'mbpp-pro': [24, 25, 29, 56, 83, 84, 87, 98, 165, 183, 197, 220, 226, 237, 289, 304, 309, 325, 329, 330],
}
/**
 * The broken copies in the sample that the suites before input contracts caught (commit 291dda2's
 * parent, 20 inputs, seed 1; measured by scripts/strengthened-power.ts: 20 of 54 and 17 of 134 in
 * all). The catch rate must not fall below it.
 */
const BEFORE: Record<'humaneval-pro' | 'mbpp-pro', string[]> = {
  'humaneval-pro': [
    '11 flip-comparison',
    '20 flip-comparison',
    '24 drop-last-line',
    '24 break-base',
    '24 misspell-base-call',
    '31 off-by-one',
    '31 flip-comparison',
    '32 return-none',
    '32 drop-last-line',
    '33 off-by-one',
    '38 off-by-one',
    '46 flip-comparison',
    '52 flip-comparison',
    '58 off-by-one',
    '63 misspell-base-call',
    '74 flip-comparison',
    '114 flip-comparison',
    '116 off-by-one',
    '129 off-by-one',
    '160 drop-last-line',
  ],
  'mbpp-pro': ['24 flip-comparison', '87 flip-comparison', '325 drop-last-line'],
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
          ...SAMPLE[benchmark].map((n) => `${benchmark}/${n}`),
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

        // The catch rate: broken copies in the fixed sample that pass the original tests and fail the strengthened ones.
        const fixed = new Set(SAMPLE[benchmark].map((n) => `${benchmark}/${n}`))
        const copies = sample
          .filter((e) => fixed.has(e.task.id))
          .flatMap((e) =>
            REFERENCE_BREAKS.flatMap((kind) => {
              const bases = (e.task.metadata?.baseFunctions as string[] | undefined) ?? []
              const code = breakReference(referenceCode(e.record), e.task.entryPoint!, kind, bases)
              return code === undefined ? [] : [{ e, kind, answer: fence(code) }]
            }),
          )
        let passOriginal = 0
        const caught: string[] = []
        await mapConcurrent(copies, 2, async (c) => {
          if (!(await verifier.verify(c.e.task, c.answer, origin)).pass) return
          passOriginal++
          if (!(await verifier.verify(stronger.get(c.e.task.id)!.task, c.answer, origin)).pass)
            caught.push(`${c.e.task.id.slice(benchmark.length + 1)} ${c.kind}`)
        })
        // Every task of the sample has a copy the original tests pass.
        expect(passOriginal).toBeGreaterThanOrEqual(SAMPLE[benchmark].length)
        const lost = BEFORE[benchmark].filter((c) => !caught.includes(c))
        const gained = caught.filter((c) => !BEFORE[benchmark].includes(c))
        expect(caught.length, `lost ${lost.join(', ')}; gained ${gained.join(', ')}`).toBeGreaterThanOrEqual(
          BEFORE[benchmark].length,
        )
      }, 1_200_000)
  },
)
