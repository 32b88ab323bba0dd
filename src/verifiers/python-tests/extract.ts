/**
 * Pulling the candidate program out of a chat answer, as the HumanEval Pro harness does: the first
 * Python code block of the answer, or the whole answer when it has no code block.
 */

/** Info strings (the word after the opening fence) that mark a block as Python. */
const PYTHON_TAGS = new Set(['python', 'py', 'python3'])

// An opening or closing fence: up to 3 spaces of indent, 3+ backticks or tildes, then the info string.
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/

interface Block {
  tag: string
  code: string
}

/** Every fenced block in order. An unclosed last block (the answer hit its token limit) runs to the end. */
function fencedBlocks(lines: string[]): Block[] {
  const blocks: Block[] = []
  let i = 0
  while (i < lines.length) {
    const open = FENCE.exec(lines[i] ?? '')
    if (!open) {
      i++
      continue
    }
    const marker = open[1] ?? '```'
    const tag = (open[2] ?? '').toLowerCase()
    const body: string[] = []
    i++
    // CommonMark: the closing fence uses the same character, at least as long, with nothing after it.
    while (i < lines.length && !isClosingFence(lines[i] ?? '', marker)) body.push(lines[i++] ?? '')
    i++
    blocks.push({ tag, code: body.join('\n') })
  }
  return blocks
}

function isClosingFence(line: string, marker: string): boolean {
  const trimmed = line.trim()
  return trimmed.length >= marker.length && /^(`+|~+)$/.test(trimmed) && trimmed[0] === marker[0] && line.search(/\S/) <= 3
}

/**
 * The Python program in a model's answer: the first code block tagged `python`, `py` or `python3`;
 * failing that the first untagged block; failing that the whole text. A block whose closing fence
 * is missing (a truncated answer) runs to the end of the text. Blocks in other languages (```bash,
 * ```text) are skipped. Line endings are normalised to `\n`; the code is otherwise returned as
 * written (no dedent, no tab expansion), so what runs is what the model wrote.
 *
 * @example
 * extractPythonCode('Here you go:\n```python\ndef f():\n    return 1\n```\nDone.')
 * // => 'def f():\n    return 1'
 * extractPythonCode('def f():\n    return 1') // no fence: the whole text
 * // => 'def f():\n    return 1'
 */
export function extractPythonCode(answer: string): string {
  const lines = answer.replace(/\r\n?/g, '\n').split('\n')
  const blocks = fencedBlocks(lines)
  const python = blocks.find((b) => PYTHON_TAGS.has(b.tag))
  if (python) return python.code
  const untagged = blocks.find((b) => b.tag === '')
  if (untagged) return untagged.code
  return lines.join('\n')
}

/**
 * The extracted code in a canonical form for comparing two attempts: trailing whitespace removed
 * from every line and leading/trailing blank lines dropped, so a resubmission that differs only
 * in whitespace at line ends counts as unmodified.
 *
 * @example
 * normalisePythonAnswer('```python\n\ndef f():  \n    return 1\n\n```') // => 'def f():\n    return 1'
 */
export function normalisePythonAnswer(answer: string): string {
  return extractPythonCode(answer)
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/^\n+|\n+$/g, '')
}

/** Where {@link sanitisePythonCode} cut, and what is left. */
export interface SanitisedCode {
  /** The code before the cut line, trailing blank lines removed. */
  code: string
  /** 1-based number of the line the code was cut at. */
  line: number
  /** That line, trimmed (e.g. `if __name__ == "__main__":`). */
  marker: string
}

/**
 * Cut markers of the HumanEval Pro / MBPP Pro sanitiser (`santize.py` of the CodeEval-Pro repo),
 * in its order of precedence: the code is cut at `if __name__` if there is one, else at `# Test`,
 * else at `# Example`.
 */
const CUT_MARKERS: readonly RegExp[] = [/^if\s*\(?\s*__name__\b/, /^# ?Test/, /^# ?Example/]

/**
 * The official harness's second chance for an answer: the code cut where the model's demo or
 * tests begin. The CodeEval-Pro evaluation runs every answer twice, as written and "sanitised",
 * and reports the better score, because demos under `if __name__ == "__main__":` or after a
 * `# Test` comment often crash, loop or wait for input although the functions are right.
 *
 * Differences from the official `str.split`, which cuts at the first occurrence anywhere: a cut
 * happens only at a line that starts at column 0, outside any string or bracket (so a `# Test`
 * inside a function or a docstring never cuts a function in half), and `# Example` matches
 * `# Examples:` too (the official split on `'# Example '` silently misses it).
 *
 * Returns undefined when there is nothing to cut, or when nothing but blank lines would remain.
 *
 * @example
 * sanitisePythonCode('def f():\n    return 1\n\nif __name__ == "__main__":\n    print(f())')
 * // => { code: 'def f():\n    return 1', line: 4, marker: 'if __name__ == "__main__":' }
 */
export function sanitisePythonCode(code: string): SanitisedCode | undefined {
  const lines = code.split('\n')
  const starts = topLevelLineStarts(code)
  for (const marker of CUT_MARKERS) {
    const index = lines.findIndex((line, i) => starts[i] === true && marker.test(line))
    if (index < 0) continue
    const kept = lines.slice(0, index).join('\n').replace(/\s+$/, '')
    if (kept.trim() === '') return undefined
    return { code: kept, line: index + 1, marker: (lines[index] ?? '').trim() }
  }
  return undefined
}

/**
 * For each line: true when it begins a top-level statement or comment, i.e. the scanner is not
 * inside a string, a bracket or a backslash continuation at its first character.
 */
function topLevelLineStarts(code: string): boolean[] {
  const starts: boolean[] = [true]
  let depth = 0
  let quote = '' // '', "'", '"', "'''" or '"""'
  let continued = false
  for (let i = 0; i < code.length; i++) {
    const ch = code[i] as string
    if (ch === '\n') {
      starts.push(quote === '' && depth === 0 && !continued)
      continued = false
      // A single-quoted string cannot span lines: an unterminated one ends here (a SyntaxError anyway).
      if (quote.length === 1) quote = ''
      continue
    }
    continued = false
    if (quote !== '') {
      if (ch === '\\') {
        i++ // skip the escaped character (a newline too: the string continues)
        if (code[i] === '\n') starts.push(false)
      } else if (code.startsWith(quote, i)) {
        i += quote.length - 1
        quote = ''
      }
      continue
    }
    if (ch === '#') {
      while (i + 1 < code.length && code[i + 1] !== '\n') i++
    } else if (ch === '"' || ch === "'") {
      quote = code.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch
      i += quote.length - 1
    } else if (ch === '(' || ch === '[' || ch === '{') {
      depth++
    } else if ((ch === ')' || ch === ']' || ch === '}') && depth > 0) {
      depth--
    } else if (ch === '\\' && code[i + 1] === '\n') {
      continued = true
    }
  }
  return starts
}
