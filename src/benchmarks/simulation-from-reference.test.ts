import { describe, expect, it } from 'vitest'
import type { Task } from '../protocol/task.js'
import { extractPythonCode } from '../verifiers/python-tests/extract.js'
import { pythonTests } from '../verifiers/python-tests/python-tests.js'
import type { Verdict, Verifier } from '../verifiers/verifier.js'
import { codeEvalProTask, referenceAnswer, type CodeEvalProRecord } from './codeeval-pro.js'
import {
  REFERENCE_BREAKS,
  breakReference,
  simulationFromReference,
  withCheckedSimulation,
} from './simulation-from-reference.js'

const py = String.raw

// Self-written, in the HumanEval Pro shape.
const code = py`from typing import List


def clamp(x: int, low: int, high: int) -> int:
    """x limited to [low, high]."""
    if x < low:
        return low
    return min(x, high)


def clamp_all(xs: List[int]) -> List[int]:
    """Every x limited to [0, 10]."""
    result = []
    for x in xs:
        result.append(clamp(x, 0, 10))
    return result`

const record: CodeEvalProRecord = {
  id: 9,
  raw_problem:
    'from typing import List\n\n\ndef clamp(x: int, low: int, high: int) -> int:\n    """x limited to [low, high]."""\n',
  raw_solution: '    if x < low:\n        return low\n    return min(x, high)\n',
  new_problem: '\n\ndef clamp_all(xs: List[int]) -> List[int]:\n    """Every x limited to [0, 10]."""\n',
  new_solution: '    result = []\n    for x in xs:\n        result.append(clamp(x, 0, 10))\n    return result\n',
  test_code:
    'assert clamp_all([-5, 5, 15]) == [0, 5, 10]\nassert clamp_all([]) == []\nassert clamp_all([10, 11]) == [10, 10]',
}
const task = codeEvalProTask(record, 'humaneval-pro')

describe('breakReference', () => {
  const broken = (kind: (typeof REFERENCE_BREAKS)[number]) => breakReference(code, 'clamp_all', kind, ['clamp'])

  it('makes one visible edit per break', () => {
    expect(broken('rename-main')).toContain('def clamp_all_solution(xs: List[int]) -> List[int]:')
    expect(broken('off-by-one')).toContain('result.append(clamp(x, 1, 10))')
    expect(broken('return-none')).toContain('    """Every x limited to [0, 10]."""\n    return None\n    result = []')
    expect(broken('drop-last-line')).not.toContain('return result')
    expect(broken('flip-comparison')).toContain('if x <= low:')
    expect(broken('break-base')).toContain('    """x limited to [low, high]."""\n    return None\n    if x < low:')
    expect(broken('misspell-base-call')).toContain('result.append(clamps(x, 0, 10))')
    for (const kind of REFERENCE_BREAKS)
      expect(broken(kind)?.split('\n').length, kind).toBeGreaterThanOrEqual(code.split('\n').length - 1)
  })

  it('returns undefined when a break does not apply', () => {
    expect(breakReference(code, 'missing', 'rename-main')).toBeUndefined()
    const oneLiner = 'def f(xs): return [x for x in xs]'
    expect(breakReference(oneLiner, 'f', 'return-none')).toBeUndefined()
    expect(breakReference(oneLiner, 'f', 'drop-last-line')).toBeUndefined()
    expect(breakReference(oneLiner, 'f', 'off-by-one')).toBeUndefined()
    expect(breakReference(oneLiner, 'f', 'break-base', [])).toBeUndefined()
    expect(breakReference('def f(n):\n    return n * 2', 'f', 'off-by-one')).toBe('def f(n):\n    return n * 3')
    // Never cuts a statement that spans lines, nor the only statement of a block.
    expect(breakReference('def f(n):\n    x = [n,\n         n]\n    return x', 'f', 'drop-last-line')).toBe(
      'def f(n):\n    x = [n,\n         n]',
    )
    expect(breakReference('def f(n):\n    return [n,\n            n]', 'f', 'drop-last-line')).toBeUndefined()
    expect(breakReference('def f(n):\n    if n:\n        return 1', 'f', 'drop-last-line')).toBeUndefined()
  })
})

describe('simulationFromReference', () => {
  it('scripts the reference as the correct answer and every applicable break as a wrong one', () => {
    const script = simulationFromReference(task, referenceAnswer(record))
    expect(script.difficulty).toBe(0.5)
    expect(script.correct.map(extractPythonCode)).toEqual([code])
    expect(script.wrong).toHaveLength(REFERENCE_BREAKS.length)
    for (const answer of script.wrong) expect(answer).toMatch(/^[A-Z].*\n\n```python\n[\s\S]+\n```\n$/)
    expect(
      simulationFromReference(task, referenceAnswer(record), { breaks: ['rename-main'], difficulty: 0.8 }),
    ).toMatchObject({ difficulty: 0.8, wrong: [expect.stringContaining('clamp_all_solution')] })
  })

  it('needs an entry point', () => {
    expect(() => simulationFromReference({ ...task, entryPoint: undefined }, referenceAnswer(record))).toThrow(
      /has no entryPoint/,
    )
  })
})

describe('withCheckedSimulation', () => {
  /** A verifier that passes answers containing `needle` and nothing else, counting its calls. */
  function fakeVerifier(
    passes: (code: string) => boolean,
    outcome: 'failed' | 'timeout' = 'failed',
  ): Verifier & { calls: number } {
    const verifier = {
      name: 'fake',
      version: '1',
      settings: {},
      calls: 0,
      async verify(_task: Task, answer: string): Promise<Verdict> {
        verifier.calls++
        const pass = passes(extractPythonCode(answer))
        return { pass, diagnostics: { outcome: pass ? 'passed' : outcome, summary: pass ? 'ok' : 'no' } }
      },
    }
    return verifier
  }

  it('keeps only wrong answers that fail, and drops those that time out', async () => {
    const survivesFlip = fakeVerifier((c) => c === code || c.includes('if x <= low:'))
    const [scripted] = await withCheckedSimulation([{ task, reference: referenceAnswer(record) }], {
      verifier: survivesFlip,
    })
    expect(survivesFlip.calls).toBe(1 + REFERENCE_BREAKS.length)
    expect(scripted?.simulation?.wrong).toHaveLength(REFERENCE_BREAKS.length - 1)
    expect(scripted?.simulation?.wrong.some((w) => w.includes('if x <= low:'))).toBe(false)
    expect(scripted).toMatchObject({ id: task.id, tests: task.tests, entryPoint: 'clamp_all' })

    const hangs = fakeVerifier((c) => c === code, 'timeout')
    await expect(
      withCheckedSimulation([{ task, reference: referenceAnswer(record) }], { verifier: hangs }),
    ).rejects.toThrow(/every broken variant .* passes its tests/)
  })

  it('throws when the reference fails, or when no variant fails (unless dropUnscriptable)', async () => {
    const entry = { task, reference: referenceAnswer(record) }
    await expect(withCheckedSimulation([entry], { verifier: fakeVerifier(() => false) })).rejects.toThrow(
      /the reference answer of task humaneval-pro\/9 fails the verifier/,
    )
    await expect(withCheckedSimulation([entry], { verifier: fakeVerifier(() => true) })).rejects.toThrow(
      /pass dropUnscriptable: true/,
    )
    await expect(
      withCheckedSimulation([entry], { verifier: fakeVerifier(() => true), dropUnscriptable: true }),
    ).resolves.toEqual([])
    await expect(
      withCheckedSimulation([entry], { verifier: fakeVerifier(() => true), concurrency: 0 }),
    ).rejects.toThrow(/concurrency must be an integer >= 1/)
  })

  it('with the real python-tests verifier: keeps the variants that fail, drops the one that still passes', async () => {
    const verifier = pythonTests()
    const [scripted] = await withCheckedSimulation([{ task, reference: referenceAnswer(record) }], { verifier })
    // `if x <= low: return low` is the same function as `if x < low: return low`: that break is dropped.
    expect(scripted?.simulation?.wrong).toHaveLength(REFERENCE_BREAKS.length - 1)
    expect(scripted?.simulation?.wrong.some((w) => w.includes('if x <= low:'))).toBe(false)
    for (const answer of scripted?.simulation?.wrong ?? [])
      expect((await verifier.verify(task, answer)).pass).toBe(false)
    expect((await verifier.verify(task, scripted?.simulation?.correct[0] ?? '')).pass).toBe(true)
  })
})
