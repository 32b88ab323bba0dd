/**
 * Pulling the candidate program out of a chat answer, as the HumanEval Pro / MBPP Pro harness does.
 *
 * The official rule (CodeEval-Pro `eval/run_api.py`, the chat path that scored the API models; read
 * at commit e23fa9339ef10569ab41fe3ea29c696790bfee6a):
 *
 *     completion = answer.split('```python', 1)[-1]
 *     solution = completion[:completion.find('```')]  # all of it when there is no further ```
 *
 * that is the text after the first literal "```python", cut at the next "```" wherever it stands
 * (so a fence glued to the last code line, `return x```, is cut cleanly); an unclosed block runs to
 * the end; an answer without "```python" is cut at its first "```" (taken whole when it has none).
 * The completion path (`eval/inference.py`) cuts at the first "```" too. {@link extractPythonCode}
 * follows that rule, reading the answer as Markdown rather than as a string, and lists where it
 * differs.
 */

/** Info-string words (the first word after the opening fence, any case) that mark a block as Python. */
const PYTHON_TAGS = new Set(['python', 'py', 'python3'])

// An opening fence: up to 3 spaces of indent, 3+ backticks or tildes, then the info string.
const OPENING_FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/
const FENCE_START = /^ {0,3}[`~]/
// What can open or close a Python string: a line without any leaves the string state as it was
// (the common case, checked once, natively, instead of character by character).
const QUOTING = /['"\\]/

// Code, then a run of backticks that ends the line: a closing fence glued to the last code line.
const GLUED_FENCE = /^(.*?[^`\s])[ \t]*(`+)[ \t]*$/

interface Fence {
  marker: string
  /** The language, lower case; '' for an untagged fence. */
  tag: string
}

/** The fence a line opens, if any. */
function openingFence(line: string): Fence | undefined {
  // Most lines are code: a fence starts with ` or ~ within its first 4 characters.
  if (!FENCE_START.test(line)) return undefined
  const match = OPENING_FENCE.exec(line)
  if (!match) return undefined
  const marker = match[1] ?? '```'
  const info = match[2] ?? ''
  // CommonMark: the info string of a backtick fence holds no backtick ("```x = 1```" is inline code).
  if (marker.startsWith('`') && info.includes('`')) return undefined
  // The language is the first word: ```python3 title="x", ```Python, ```python:main.py, ```{.python}.
  const tag = (/^\s*\{?\.?([\w+-]*)/.exec(info)?.[1] ?? '').toLowerCase()
  return { marker, tag }
}

interface FenceEnd {
  /** The code before the fence on its line ('' for a fence on a line of its own). */
  code: string
  /** The line also opens the next block (```python while a block is still open). */
  opens: boolean
}

/**
 * Whether `line`, read as the next line of a block opened by `marker`, closes it; `quote` is the
 * Python string left open by the block's lines before (see {@link quoteAfterLine}).
 *
 * No line of Python consists of fence characters alone or ends with backticks outside a string (a
 * comment could; one that does is cut, as the official harness cuts it), so three kinds of line
 * close a block:
 * - a line of only the fence character, at least as long as the opening fence: at up to 3 spaces
 *   of indent always (CommonMark), deeper only outside a string (so the indented example fence of a
 *   docstring stays in the docstring);
 * - code followed by a backtick run at least as long as the opening fence, at the very end of the
 *   line and outside a string: the glued fence `return x```. `x = "```"` ends with a quote, so it
 *   never matches, and a line of a triple-quoted string ending with ``` is inside the string;
 * - outside a string, a backtick fence with an info string (```python): the model opened its next
 *   block without closing this one.
 * A tilde fence is never glued: `x = ~~~y` is valid Python.
 */
function closingFence(line: string, marker: string, quote: string): FenceEnd | undefined {
  const char = marker[0] ?? '`'
  // Every way a block can end below needs its own fence character on the line.
  if (!line.includes(char)) return undefined
  const trimmed = line.trim()
  if (trimmed.length >= marker.length && trimmed === char.repeat(trimmed.length)) {
    return line.search(/\S/) <= 3 || quote === '' ? { code: '', opens: false } : undefined
  }
  if (char !== '`') return undefined
  const glued = GLUED_FENCE.exec(line)
  const code = glued?.[1]
  if (code !== undefined && (glued?.[2] ?? '').length >= marker.length && openQuote(code, quote).quote === '') {
    return { code, opens: false }
  }
  const next = openingFence(line)
  if (quote === '' && next !== undefined && next.marker.startsWith('`') && next.marker.length >= marker.length) {
    return { code: '', opens: true }
  }
  return undefined
}

/**
 * The Python string still open at the end of `text`, scanning from inside `quote` ('' outside any
 * string, else one of ' " ''' """). A `#` outside a string starts a comment that runs to the end;
 * `escaped` says the text ended in a backslash inside a string.
 */
function openQuote(text: string, quote: string): { quote: string; escaped: boolean } {
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string
    if (quote !== '') {
      if (ch === '\\') {
        if (i + 1 === text.length) return { quote, escaped: true }
        i++
      } else if (text.startsWith(quote, i)) {
        i += quote.length - 1
        quote = ''
      }
    } else if (ch === '#') {
      break
    } else if (ch === '"' || ch === "'") {
      quote = text.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch
      i += quote.length - 1
    }
  }
  return { quote, escaped: false }
}

/** The string open at the start of the next line: a single-quoted one ends with its line unless backslash-continued. */
function quoteAfterLine(line: string, quote: string): string {
  if (!QUOTING.test(line)) return quote.length === 1 ? '' : quote
  const after = openQuote(line, quote)
  return after.quote.length === 1 && !after.escaped ? '' : after.quote
}

interface Body {
  code: string
  /** Where the first line after the block starts in the text (past its end: no line left). */
  next: number
  closed: boolean
}

/** Where the line that starts at `start` ends: its newline, or the end of the text. */
function lineEnd(text: string, start: number): number {
  const end = text.indexOf('\n', start)
  return end < 0 ? text.length : end
}

// What a line must hold to close a block opened with ` or ~, or to open or close a Python string:
// the lines between two hits are skipped at once (a 1 MiB answer is mostly such lines).
const INTERESTING: Record<string, RegExp> = { '`': /[`'"\\]/g, '~': /[~'"\\]/g }

/**
 * The code of the lines from the one at offset `start` up to the fence that closes them, or to
 * the end of the text. Lines are read one at a time only where they hold a fence character, a
 * quote or a backslash; a run of other lines leaves every state as it was (a single-quoted string
 * ends with its line).
 */
function blockBody(text: string, start: number, marker: string): Body {
  const interesting = INTERESTING[marker[0] ?? '`'] ?? (INTERESTING['`'] as RegExp)
  let quote = ''
  let pos = start
  while (pos <= text.length) {
    interesting.lastIndex = pos
    const hit = interesting.exec(text)
    const end = lineEnd(text, pos)
    if (hit === null || hit.index > end) {
      // Plain lines up to the one the next hit is on (or to the end).
      if (quote.length === 1) quote = ''
      if (hit === null) break
      pos = text.lastIndexOf('\n', hit.index) + 1
      continue
    }
    const line = text.slice(pos, end)
    const fence = closingFence(line, marker, quote)
    if (fence !== undefined) {
      const before = pos > start ? text.slice(start, pos - 1) : undefined
      const code = fence.code === '' ? (before ?? '') : before === undefined ? fence.code : `${before}\n${fence.code}`
      return { code, next: fence.opens ? pos : end + 1, closed: true }
    }
    quote = quoteAfterLine(line, quote)
    pos = end + 1
  }
  return { code: start <= text.length ? text.slice(start) : '', next: text.length + 1, closed: false }
}

interface Block {
  tag: string
  code: string
}

// A line that may open a fence: up to 3 spaces, then ` or ~ (checked whole by openingFence).
const FENCE_LINE = /^ {0,3}[`~]/gm

/** The next line at or after offset `from` that opens a fence: its offset and fence. */
function nextOpening(text: string, from: number): { at: number; fence: Fence } | undefined {
  FENCE_LINE.lastIndex = from
  for (let hit = FENCE_LINE.exec(text); hit !== null; hit = FENCE_LINE.exec(text)) {
    const fence = openingFence(text.slice(hit.index, lineEnd(text, hit.index)))
    if (fence) return { at: hit.index, fence }
    FENCE_LINE.lastIndex = lineEnd(text, hit.index) + 1
  }
  return undefined
}

/**
 * The first block tagged as Python, else the first untagged one (none: undefined). An unclosed
 * last block (the answer hit its token limit) runs to the end.
 */
function chosenBlock(text: string): Block | undefined {
  let untagged: Block | undefined
  for (let open = nextOpening(text, 0); open !== undefined;) {
    const body = blockBody(text, lineEnd(text, open.at) + 1, open.fence.marker)
    const { tag } = open.fence
    if (PYTHON_TAGS.has(tag)) return { tag, code: body.code }
    // A bare fence with nothing after it closes code the model never opened a block for
    // (`def f(): ...` then ```): it is no empty block that would hide that code.
    if (tag === '' && untagged === undefined && (body.closed || body.code.trim() !== ''))
      untagged = { tag, code: body.code }
    open = body.next <= text.length ? nextOpening(text, body.next) : undefined
  }
  return untagged
}

/** The text before its first fence (all of it when there is none), a glued fence included. */
function beforeFirstFence(text: string): string {
  const first = nextOpening(text, 0)
  if (first === undefined) return blockBody(text, 0, '```').code
  return first.at === 0 ? '' : blockBody(text.slice(0, first.at - 1), 0, '```').code
}

/**
 * The Python program in a model's answer:
 * 1. the first fenced block tagged `python`, `py` or `python3` (the first word of the info string,
 *    in any case: ```python3 title="x" and ```Python count);
 * 2. failing that, the first untagged block (a bare ```);
 * 3. failing that, the text before the first fence: the whole text when it has none.
 *
 * A block ends at its closing fence, which may be glued to the last code line (`return x```, as
 * 51 of 164 answers of one real model have it): the backticks and the spaces before them
 * are dropped. A fence on a line of its own, a run of backticks ending a line outside a Python
 * string, or a new ```python fence closes a block; backticks inside a string (`s = "```"`, or a
 * docstring line ending with ```) do not. A block whose closing fence is missing (the answer hit its
 * token limit) runs to the end of the text. Blocks in other languages (```bash, ```text) are
 * skipped. Line endings are normalised to `\n`; the code is otherwise returned as written (no
 * dedent, no tab expansion), so what runs is what the model wrote.
 *
 * The official rule (module comment) takes the same code in the common case: one or more
 * ```python blocks, closed, glued or cut off, with any prose around them. The differences:
 * - The opening fence must start a line and is read as Markdown: the tag is the first word of the
 *   info string, in any case, and `py` counts. Officially "```python" is a case-sensitive
 *   substring, so a ```Python or ```py answer runs the prose before the fence (and fails), and the
 *   rest of the fence line is run as code (` title="x"` is an IndentationError; the `3` left by
 *   ```python3 is a harmless expression statement).
 * - With no Python block the first untagged block is taken. Officially the answer is cut at that
 *   block's fence and the prose before it runs and fails: in a Python benchmark a lone ``` block
 *   is the program, and failing it would score the Markdown, not the code.
 * - A closing fence must end its line (or stand alone, or open the next block), and backticks
 *   inside a Python string never close a block; officially the first "```" anywhere cuts, even
 *   inside a string, leaving a SyntaxError. A block opened with 4+ backticks or with tildes closes
 *   only at a matching fence (CommonMark), not at the first "```".
 * - The official code keeps the newline after "```python", so its line numbers are one higher.
 *
 * @example
 * extractPythonCode('Here you go:\n```python\ndef f():\n    return 1\n```\nDone.')
 * // => 'def f():\n    return 1'
 * extractPythonCode('```python\ndef f():\n    return 1```') // the closing fence glued to the code
 * // => 'def f():\n    return 1'
 * extractPythonCode('def f():\n    return 1') // no fence: the whole text
 * // => 'def f():\n    return 1'
 */
export function extractPythonCode(answer: string): string {
  const text = answer.includes('\r') ? answer.replace(/\r\n?/g, '\n') : answer
  return chosenBlock(text)?.code ?? beforeFirstFence(text)
}

/**
 * The extracted code in a canonical form for comparing two attempts: trailing whitespace removed
 * from every line and leading/trailing blank lines dropped, so a resubmission that differs only
 * in whitespace at line ends, in its prose or in where the closing fence stands (glued or on its
 * own line) counts as unmodified.
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
const ANY_MARKER = /__name__|# ?Test|# ?Example/

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
  // Most code holds no marker at all: one native scan instead of a walk through every character.
  if (!ANY_MARKER.test(code)) return undefined
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
