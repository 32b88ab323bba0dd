import { describe, expect, it } from 'vitest'
import type { TestModule } from 'vitest/node'
import { skipLines } from './skipped.js'

const test = (fullName: string, state: string, note?: string) => ({
  fullName,
  result: () => ({ state, ...(note ? { note } : {}) }),
})
const module = (...tests: ReturnType<typeof test>[]) =>
  ({
    children: {
      *allTests() {
        yield* tests
      },
    },
  }) as unknown as TestModule

describe('skipLines', () => {
  it('says why each test skipped with a reason was skipped, one line per reason, and nothing for a plain skip', () => {
    const data = 'no benchmark data at /x/humaneval_pro.json (the CodeEval-Pro files live next to the repository)'
    const lines = skipLines([
      module(
        test('HumanEval Pro > Seq@K and Pass@K on HumanEval Pro', 'skipped', data),
        test('other > a', 'passed'),
        test('other > b', 'skipped'),
      ),
      module(
        test('bench > gpt · binary', 'skipped', 'gpt: no OPENAI_API_KEY'),
        test('bench > gpt · verifier', 'skipped', 'gpt: no OPENAI_API_KEY'),
      ),
    ])
    expect(lines).toEqual([
      `seqk: skipped "HumanEval Pro › Seq@K and Pass@K on HumanEval Pro": ${data}`,
      'seqk: skipped 2 tests ("bench › gpt · binary", "bench › gpt · verifier"): gpt: no OPENAI_API_KEY',
    ])
  })
})
