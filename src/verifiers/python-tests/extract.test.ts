import { describe, expect, it } from 'vitest'
import { extractPythonCode, normalisePythonAnswer, sanitisePythonCode } from './extract.js'

describe('extractPythonCode', () => {
  it('takes the first python block', () => {
    const answer = 'Here is my solution:\n```python\ndef f():\n    return 1\n```\nAnd a test:\n```python\nprint(f())\n```'
    expect(extractPythonCode(answer)).toBe('def f():\n    return 1')
  })

  it('accepts py and python3 tags, case-insensitively', () => {
    expect(extractPythonCode('```py\nx = 1\n```')).toBe('x = 1')
    expect(extractPythonCode('```Python3\nx = 2\n```')).toBe('x = 2')
  })

  it('prefers a tagged python block over an earlier untagged one', () => {
    const answer = 'Output:\n```\n[1, 2]\n```\nCode:\n```python\nx = 1\n```'
    expect(extractPythonCode(answer)).toBe('x = 1')
  })

  it('falls back to the first untagged block', () => {
    expect(extractPythonCode('Sure.\n```\ny = 2\n```\n```\nz = 3\n```')).toBe('y = 2')
  })

  it('skips blocks in other languages', () => {
    const answer = '```bash\npip install nothing\n```\n```python\nok = True\n```'
    expect(extractPythonCode(answer)).toBe('ok = True')
    // Only a non-python block: the whole text is returned, as the official harness would run it.
    expect(extractPythonCode('```bash\nls\n```')).toBe('```bash\nls\n```')
  })

  it('returns the whole text when there is no fence', () => {
    expect(extractPythonCode('def f():\n    return 1\n')).toBe('def f():\n    return 1\n')
  })

  it('runs an unclosed block (a truncated answer) to the end', () => {
    expect(extractPythonCode('Answer:\n```python\ndef f():\n    return 1')).toBe('def f():\n    return 1')
  })

  it('keeps indentation and inner backticks, normalises CRLF', () => {
    const answer = '```python\r\ndef f():\r\n    s = "``"\r\n    return s\r\n```\r\n'
    expect(extractPythonCode(answer)).toBe('def f():\n    s = "``"\n    return s')
  })

  it('handles longer and tilde fences', () => {
    expect(extractPythonCode('````python\nx = "```"\n````')).toBe('x = "```"')
    expect(extractPythonCode('~~~python\nx = 1\n~~~')).toBe('x = 1')
  })

  it('returns an empty string for an empty block', () => {
    expect(extractPythonCode('```python\n```')).toBe('')
  })
})

describe('normalisePythonAnswer', () => {
  it('trims trailing whitespace per line and surrounding blank lines', () => {
    expect(normalisePythonAnswer('```python\n\n\ndef f():  \n    return 1\t\n\n```')).toBe('def f():\n    return 1')
  })

  it('makes answers that differ only in prose or whitespace equal', () => {
    const a = 'First try:\n```python\ndef f():\n    return 1\n```'
    const b = 'Revised (unchanged):\n```python\ndef f():   \n    return 1\n\n```\nThanks!'
    expect(normalisePythonAnswer(a)).toBe(normalisePythonAnswer(b))
  })
})

describe('sanitisePythonCode (the CodeEval-Pro sanitiser)', () => {
  const body = 'def f(x):\n    return x + 1\n'

  it('cuts at a top-level `if __name__`', () => {
    expect(sanitisePythonCode(`${body}\nif __name__ == "__main__":\n    print(f(1))\n`)).toEqual({
      code: 'def f(x):\n    return x + 1',
      line: 4,
      marker: 'if __name__ == "__main__":',
    })
    expect(sanitisePythonCode(`${body}if __name__=='__main__':\n    pass`)?.line).toBe(3)
  })

  it('cuts at `# Test` / `# Example` comments (also `# Tests`, `# Examples:`), with the official precedence', () => {
    expect(sanitisePythonCode(`${body}\n# Test cases\nassert f(1) == 2`)?.code).toBe(body.trimEnd())
    expect(sanitisePythonCode(`${body}# Tests\nprint(f(2))`)?.marker).toBe('# Tests')
    expect(sanitisePythonCode(`${body}# Examples:\nprint(f(2))`)?.marker).toBe('# Examples:')
    // `if __name__` wins over an earlier `# Test`, as in the official if/elif chain.
    const both = `${body}# Test helper\ndef g():\n    return f(2)\n\nif __name__ == "__main__":\n    print(g())`
    expect(sanitisePythonCode(both)?.marker).toBe('if __name__ == "__main__":')
    expect(sanitisePythonCode(both)?.code).toContain('def g()')
    // `# Test` wins over `# Example`.
    expect(sanitisePythonCode(`${body}# Example\nx = 1\n# Test\ny = 2`)?.marker).toBe('# Test')
  })

  it('never cuts inside a function, a string or brackets', () => {
    expect(sanitisePythonCode('def f():\n    # Test the edge case\n    return 1')).toBeUndefined()
    expect(sanitisePythonCode('DOC = """\n# Example\nif __name__ == 1\n"""\nx = 1')).toBeUndefined()
    expect(sanitisePythonCode("S = '''\n# Test'''")).toBeUndefined()
    expect(sanitisePythonCode('xs = [\n# Test\n1]')).toBeUndefined()
    expect(sanitisePythonCode('x = 1 + \\\n# Test')).toBeUndefined()
    expect(sanitisePythonCode('s = "a\\\n# Test"')).toBeUndefined()
    // A comment holding a quote does not open a string.
    expect(sanitisePythonCode("x = 1  # don't\n# Test\ny = 2")?.code).toBe("x = 1  # don't")
  })

  it('returns undefined when there is no marker or nothing would remain', () => {
    expect(sanitisePythonCode(body)).toBeUndefined()
    expect(sanitisePythonCode('if __name__ == "__main__":\n    def f():\n        return 1')).toBeUndefined()
    expect(sanitisePythonCode('\n\n# Test\nf()')).toBeUndefined()
  })
})
