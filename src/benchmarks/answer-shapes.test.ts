import { describe, expect, it } from 'vitest'
import {
  ANSWER_SHAPES,
  ANSWER_SHAPE_DESCRIPTIONS,
  answerShape,
  fencedAnswer,
  firstCall,
  gluedFenceAnswer,
  withoutTopLevelImports,
} from './answer-shapes.js'

const py = String.raw

// Self-written, in the HumanEval Pro shape.
const code = py`import math
from typing import List


def norm(x: float) -> float:
    """|x| rounded down."""
    return math.floor(abs(x))


def norms(xs: List[float]) -> List[int]:
    """norm of every x."""
    return [norm(x) for x in xs]`

const tests = 'assert norms([1.5, -2.5]) == [1, 2]\nassert norms([]) == []'
const source = { code, entryPoint: 'norms', tests }

describe('fencedAnswer and gluedFenceAnswer', () => {
  it('puts the code in one python block, closed on its own line or glued to the last line', () => {
    expect(fencedAnswer('def f():\n    return 1\n\n')).toBe('```python\ndef f():\n    return 1\n```\n')
    expect(gluedFenceAnswer('def f():\n    return 1\n')).toBe(
      'Here is the code:\n\n```python\ndef f():\n    return 1```\n',
    )
  })
})

describe('withoutTopLevelImports', () => {
  it('drops every top-level import and leading blank lines', () => {
    expect(withoutTopLevelImports(code)).toBe(code.split('\n').slice(4).join('\n'))
  })

  it('drops a parenthesised or continued import whole, and keeps imports inside functions', () => {
    const source = py`from typing import (
    List,
    Dict,
)
import os, \
    sys


def f():
    import re
    return re`
    expect(withoutTopLevelImports(source)).toBe('def f():\n    import re\n    return re')
  })

  it('ignores import lines inside strings and returns undefined when there is nothing to drop', () => {
    expect(withoutTopLevelImports('def f():\n    """\nimport math\n"""\n    return 1')).toBeUndefined()
    expect(withoutTopLevelImports('x = 1')).toBeUndefined()
  })
})

describe('firstCall', () => {
  it('finds the first call with balanced brackets, brackets in strings skipped', () => {
    expect(firstCall('assert f(g(1), ")", [2, (3)]) == 2', 'f')).toBe('f(g(1), ")", [2, (3)])')
    expect(firstCall('assert math.isclose(area(2), 12.56)', 'area')).toBe('area(2)')
  })

  it('skips method calls, longer names and comments', () => {
    expect(firstCall('# f(0)\nx.f(1)\nff(2)\nassert f (3) == 3', 'f')).toBe('f (3)')
    expect(firstCall('assert g(1) == 1', 'f')).toBeUndefined()
  })
})

describe('answerShape', () => {
  it('has a description for every shape', () => {
    expect(Object.keys(ANSWER_SHAPE_DESCRIPTIONS).sort()).toEqual([...ANSWER_SHAPES].sort())
  })

  it('reference: the code in one block', () => {
    expect(answerShape('reference', source)).toBe(fencedAnswer(code))
  })

  it('glued-fence: the closing fence right after the last character of code', () => {
    expect(answerShape('glued-fence', source)).toMatch(/return \[norm\(x\) for x in xs\]```\n$/)
  })

  it('missing-imports: the block without the import lines, undefined without imports', () => {
    const answer = answerShape('missing-imports', source) as string
    expect(answer).toMatch(/^```python\ndef norm\(/)
    expect(answer).not.toMatch(/import/)
    expect(answerShape('missing-imports', { code: 'def f():\n    return 1' })).toBeUndefined()
  })

  it('demo-prints: a demo printing the first test call', () => {
    expect(answerShape('demo-prints', source)).toBe(
      fencedAnswer(`${code}\n\n\nif __name__ == "__main__":\n    # Example usage\n    print(norms([1.5, -2.5]))`),
    )
    expect(answerShape('demo-prints', { code })).toBeUndefined()
  })

  it('demo-raises: a demo calling the entry point on an input it never defines', () => {
    expect(answerShape('demo-raises', source)).toBe(
      fencedAnswer(
        `${code}\n\n\nif __name__ == "__main__":\n    result = norms(sample_input)\n    print("Result:", result)`,
      ),
    )
    const taken = answerShape('demo-raises', {
      code: 'sample_input = 1\ndef f(x):\n    return x',
      entryPoint: 'f',
    }) as string
    expect(taken).toContain('result = f(sample_input_2)')
  })

  it('prose-around: the block between an introduction and an explanation', () => {
    const answer = answerShape('prose-around', source) as string
    expect(answer.startsWith('Here is a solution.')).toBe(true)
    expect(answer).toContain(`\n\n${fencedAnswer(code)}\n### Explanation`)
    expect(answer).toContain('- `norms` calls it')
  })

  it('unclosed-fence: no closing fence', () => {
    expect(answerShape('unclosed-fence', source)).toBe(`Here is the solution:\n\n\`\`\`python\n${code}\n`)
  })

  it('explanation-then-code: an untagged block first, the python block second', () => {
    const answer = answerShape('explanation-then-code', source) as string
    expect(answer.indexOf('```\n1. Solve')).toBeLessThan(answer.indexOf('```python'))
    expect(answer.endsWith(fencedAnswer(code))).toBe(true)
  })

  it('code-then-usage: the code block first, a python usage block second', () => {
    expect(answerShape('code-then-usage', source)).toBe(
      `${fencedAnswer(code)}\nExample usage:\n\n\`\`\`python\nprint(norms([1.5, -2.5]))\n\`\`\`\n`,
    )
    expect(answerShape('code-then-usage', { code, entryPoint: 'norms', tests: 'assert True' })).toBeUndefined()
  })

  it('a multi-line test call becomes one line in a demo', () => {
    const answer = answerShape('demo-prints', {
      code,
      entryPoint: 'norms',
      tests: 'assert norms([\n    1.5,\n    2.5,\n]) == [1, 2]',
    }) as string
    expect(answer).toContain('    print(norms([ 1.5, 2.5, ]))\n```')
  })
})
