import { describe, expect, it } from 'vitest'
import { extractPythonCode, normalisePythonAnswer } from './extract.js'

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
