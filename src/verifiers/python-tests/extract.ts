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
