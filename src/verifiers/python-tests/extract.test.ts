import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { extractPythonCode, normalisePythonAnswer, sanitisePythonCode } from './extract.js'

const FENCE = '```'

describe('extractPythonCode', () => {
  it('takes the first python block', () => {
    const answer =
      'Here is my solution:\n```python\ndef f():\n    return 1\n```\nAnd a test:\n```python\nprint(f())\n```'
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
    // Only a non-python block: the text before it, as the official harness cuts at the first ```.
    expect(extractPythonCode('```bash\nls\n```')).toBe('')
    expect(extractPythonCode('Run it with:\n```bash\npython f.py\n```')).toBe('Run it with:')
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

  it('cuts a closing fence glued to the last code line', () => {
    const code = 'def f(x):\n    return x'
    expect(extractPythonCode('```python\ndef f(x):\n    return x```')).toBe(code)
    // Spaces after the fence, or between the code and the fence, are dropped with it.
    expect(extractPythonCode('```python\ndef f(x):\n    return x```   ')).toBe(code)
    expect(extractPythonCode('```python\ndef f(x):\n    return x ```\n')).toBe(code)
    expect(extractPythonCode('Sure:\n```python\ndef f(x):\n    return x```\nThis returns x.')).toBe(code)
    // The only line of the block.
    expect(extractPythonCode('```python\nx = 1```')).toBe('x = 1')
  })

  it('ends the first of several blocks at its glued fence', () => {
    const answer = '```python\ndef f():\n    return 1```\nTest it:\n```python\nprint(f())\n```'
    expect(extractPythonCode(answer)).toBe('def f():\n    return 1')
    const untagged = 'Code:\n```\ny = 2```\nOutput:\n```\n2\n```'
    expect(extractPythonCode(untagged)).toBe('y = 2')
  })

  it('cuts a glued fence after a comment, as the official harness does', () => {
    expect(extractPythonCode('```python\nx = 1  # done```\n')).toBe('x = 1  # done')
  })

  it('ignores prose before and after the block', () => {
    const code = 'def f():\n    return "ok"'
    const answer = `Let's think step by step.\nThe "first" function returns 'ok'.\n\n${FENCE}python\n${code}\n${FENCE}\n\nIt's done; \`f()\` returns "ok".`
    expect(extractPythonCode(answer)).toBe(code)
  })

  it('runs an unclosed block to the end, backticks in its strings included', () => {
    expect(extractPythonCode('Answer:\n```python\nFENCE = "```"\ndef f():\n    return FENCE')).toBe(
      'FENCE = "```"\ndef f():\n    return FENCE',
    )
  })

  it('reads the language from the first word of the info string, in any case', () => {
    expect(extractPythonCode('```python3 title="solution.py"\nx = 1\n```')).toBe('x = 1')
    expect(extractPythonCode('```Python\nx = 2\n```')).toBe('x = 2')
    expect(extractPythonCode('``` python\nx = 3\n```')).toBe('x = 3')
    expect(extractPythonCode('```python:main.py\nx = 4\n```')).toBe('x = 4')
    expect(extractPythonCode('```{.python}\nx = 5\n```')).toBe('x = 5')
    // Not Python, so skipped for the untagged block.
    expect(extractPythonCode('```pycon\n>>> x\n```\n```\nx = 6\n```')).toBe('x = 6')
  })

  it('normalises CRLF around a glued fence', () => {
    expect(extractPythonCode('Here:\r\n```python\r\ndef f():\r\n    return 1```\r\nBye\r\n')).toBe(
      'def f():\n    return 1',
    )
  })

  it('never closes a block at backticks inside a Python string', () => {
    // The quote after the backticks shows they are in a string.
    expect(extractPythonCode('```python\nx = "```"\n```')).toBe('x = "```"')
    expect(extractPythonCode("```python\ns = '```'\nt = f'{s}```'\n```")).toBe("s = '```'\nt = f'{s}```'")
    // A string, then the glued fence.
    expect(extractPythonCode('```python\nx = "```"```')).toBe('x = "```"')
    // A docstring line that ends with backticks, and its indented example fence.
    const doc = 'def f():\n    """Wrap code like ```\n    ```\n    f()\n    ```\n    """\n    return 1'
    expect(extractPythonCode(`${FENCE}python\n${doc}\n${FENCE}\nDone.`)).toBe(doc)
    // A backslash-continued string is still open on the next line.
    expect(extractPythonCode('```python\ns = "a\\\n```"\n```')).toBe('s = "a\\\n```"')
  })

  it('closes a block that a new ```python fence follows', () => {
    expect(extractPythonCode('```python\ndef f():\n    return 1\n```python\nprint(f())\n```')).toBe(
      'def f():\n    return 1',
    )
    expect(extractPythonCode('```\n[1, 2]\n```python\nx = 1\n```')).toBe('x = 1')
  })

  it('takes code before a stray closing fence when no block was opened', () => {
    expect(extractPythonCode('def f():\n    return 1\n```')).toBe('def f():\n    return 1')
    expect(extractPythonCode('def f():\n    return 1```')).toBe('def f():\n    return 1')
    expect(extractPythonCode('def f():\n    return 1\n\n```bash\npython f.py\n```')).toBe('def f():\n    return 1\n')
  })

  it('closes a long fence only at a fence as long, glued or not', () => {
    expect(extractPythonCode('````python\nx = "```"\ny = 2````\n')).toBe('x = "```"\ny = 2')
    expect(extractPythonCode('````python\nprint("""\n```\n""")\n````')).toBe('print("""\n```\n""")')
  })
})

describe('extractPythonCode laws', () => {
  const PLAIN = [...'abcxyzXY_019 ()[]{}=+-*/%<>:,.!?']
  const plain = (units: string[] = PLAIN) => fc.string({ unit: fc.constantFrom(...units), maxLength: 12 })
  /** A string literal that is closed on its line; with `ticks`, its body may hold backticks. */
  const literal = (ticks: boolean) =>
    fc.constantFrom('"', "'", '"""', "'''").chain((quote) => {
      const other = quote.startsWith('"') ? "'" : '"'
      return plain([...PLAIN, other, '#', ...(ticks ? ['`', FENCE] : [])]).map((body) => `${quote}${body}${quote}`)
    })
  /** One line of code, its strings closed, ending in an optional comment (quotes allowed, no backticks). */
  const line = (ticks: boolean) =>
    fc
      .tuple(
        fc.nat({ max: 8 }),
        fc.array(fc.oneof(plain(), literal(ticks)), { maxLength: 4 }),
        fc.option(
          plain([...PLAIN, '"', "'", '#']).map((text) => `# ${text}`),
          { nil: undefined },
        ),
      )
      .map(
        ([indent, parts, comment]) =>
          ' '.repeat(indent) + [...parts, ...(comment === undefined ? [] : [comment])].join(' '),
      )
  /** A docstring over several lines; with `ticks`, its lines may end with backticks. */
  const docstring = (ticks: boolean) =>
    fc
      .array(
        fc
          .tuple(plain([...PLAIN, "'"]), fc.boolean())
          .map(([text, fence]) => `    ${text}${ticks && fence ? FENCE : ''}`),
        { maxLength: 3 },
      )
      .map((lines) => ['    """', ...lines, '    """'].join('\n'))
  /** Code as models write it, with no backtick outside its strings. */
  const code = (ticks = false) =>
    fc
      .array(fc.oneof({ weight: 4, arbitrary: line(ticks) }, { weight: 1, arbitrary: docstring(ticks) }), {
        minLength: 1,
        maxLength: 6,
      })
      .map((lines) => lines.join('\n'))
  const lastLineNotBlank = (text: string) => (text.split('\n').at(-1) ?? '').trim() !== ''
  /** The code, its last line cut of trailing spaces: what a glued fence leaves. */
  const gluedResult = (text: string) => text.replace(/[ \t]+$/, '')
  /** Prose lines that open no fence (no backtick, no tilde). */
  const prose = fc
    .array(fc.string({ unit: fc.constantFrom(...PLAIN, '"', "'", '#', '\\', '\t'), maxLength: 30 }), { maxLength: 3 })
    .map((lines) => lines.map((l) => `${l}\n`).join(''))
  /** Anything at all after the block, more fences included. */
  const tail = fc
    .array(
      fc.oneof(fc.string(), fc.constantFrom(FENCE, `${FENCE}python`, 'x = 1```', `${FENCE}python\nother()\n${FENCE}`)),
      { maxLength: 4 },
    )
    .map((parts) => parts.join('\n'))
  const options = { seed: 20261201, numRuns: 300 }

  it('returns the code of a fenced rendering exactly, glued or not', () => {
    fc.assert(
      fc.property(code(), fc.constantFrom('python', 'py', 'Python3', ''), (text, tag) => {
        expect(extractPythonCode(`${FENCE}${tag}\n${text}\n${FENCE}`)).toBe(text)
        if (lastLineNotBlank(text)) expect(extractPythonCode(`${FENCE}${tag}\n${text}${FENCE}`)).toBe(gluedResult(text))
      }),
      options,
    )
  })

  it('never changes the result for prose before the block or anything after it', () => {
    fc.assert(
      fc.property(prose, code(), tail, fc.boolean(), (before, text, after, glued) => {
        const block =
          glued && lastLineNotBlank(text) ? `${FENCE}python\n${text}${FENCE}` : `${FENCE}python\n${text}\n${FENCE}`
        expect(extractPythonCode(`${before}${block}\n${after}`)).toBe(extractPythonCode(block))
      }),
      options,
    )
  })

  it('keeps backticks that are inside strings', () => {
    fc.assert(
      fc.property(code(true), (text) => {
        expect(extractPythonCode(`${FENCE}python\n${text}\n${FENCE}`)).toBe(text)
        if (lastLineNotBlank(text)) expect(extractPythonCode(`${FENCE}python\n${text}${FENCE}`)).toBe(gluedResult(text))
      }),
      options,
    )
  })

  it('runs an unclosed block to the end, and takes unfenced code whole', () => {
    fc.assert(
      fc.property(prose, code(true), (before, text) => {
        expect(extractPythonCode(`${before}${FENCE}python\n${text}`)).toBe(text)
        expect(extractPythonCode(text)).toBe(text)
      }),
      options,
    )
  })

  it('reads CRLF answers as LF ones', () => {
    fc.assert(
      fc.property(prose, code(true), tail, (before, text, after) => {
        const answer = `${before}${FENCE}python\n${text}${FENCE}\n${after}`
        expect(extractPythonCode(answer.replace(/\n/g, '\r\n'))).toBe(extractPythonCode(answer))
      }),
      options,
    )
  })

  it('gives the same normalised answer for a glued and a separate fence', () => {
    fc.assert(
      fc.property(code(true).filter(lastLineNotBlank), (text) => {
        expect(normalisePythonAnswer(`${FENCE}python\n${text}${FENCE}`)).toBe(
          normalisePythonAnswer(`${FENCE}python\n${text}\n${FENCE}\n`),
        )
      }),
      options,
    )
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

  it('makes a glued closing fence equal to one on its own line', () => {
    const glued = '```python\ndef f():\n    return 1```'
    const apart = 'Here:\n```python\ndef f():\n    return 1\n```\n'
    expect(normalisePythonAnswer(glued)).toBe('def f():\n    return 1')
    expect(normalisePythonAnswer(glued)).toBe(normalisePythonAnswer(apart))
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
