/**
 * Small lexical helpers for the Python sources of code benchmarks (prompts, reference solutions,
 * test code). They read Python the way a careful regex can: strings and comments are blanked out
 * first, then top-level definitions, import lines and call names are found line by line. No
 * Python interpreter is needed, so a loader stays synchronous and pure.
 */

/**
 * The source with every string literal (quotes included) and every comment replaced by spaces
 * (line breaks kept), so positions and line numbers are unchanged and a `foo(` inside a string or
 * a comment is no longer seen as a call. Handles single, double and triple quotes and backslash
 * escapes; f-string expressions are blanked too.
 *
 * @example
 * blankStringsAndComments('x = "f(1)"  # g(2)\ny(3)') // => 'x =                 \ny(3)'
 */
export function blankStringsAndComments(source: string): string {
  const out = source.split('')
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' '
  }
  let i = 0
  while (i < source.length) {
    const ch = source[i]
    if (ch === '#') {
      const end = source.indexOf('\n', i)
      const stop = end === -1 ? source.length : end
      blank(i, stop)
      i = stop
      continue
    }
    if (ch === '"' || ch === "'") {
      // A prefix (r, b, f, u, ...) stays: it reads as a name, never as a call.
      const quote = source.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch
      let j = i + quote.length
      while (j < source.length && !source.startsWith(quote, j)) {
        // A backslash keeps the next character (a quote too, even in a raw string) inside the string.
        if (source[j] === '\\') j += 2
        else if (quote.length === 1 && source[j] === '\n')
          break // an unterminated string ends at the line
        else j++
      }
      const stop = Math.min(source.length, j + (source.startsWith(quote, j) ? quote.length : 0))
      blank(i, stop)
      i = stop
      continue
    }
    i++
  }
  return out.join('')
}

/**
 * Names of the functions (and classes, with `classes: true`) defined at the top level (column 0)
 * of a Python source, in order of appearance; a name defined twice appears twice.
 *
 * @example
 * topLevelDefs('def f(x):\n    def g(): pass\n    return x\n\ndef h(): pass') // => ['f', 'h']
 */
export function topLevelDefs(source: string, options: { classes?: boolean } = {}): string[] {
  const pattern = options.classes
    ? /^(?:async\s+def|def|class)\s+([A-Za-z_]\w*)/gm
    : /^(?:async\s+def|def)\s+([A-Za-z_]\w*)\s*\(/gm
  return [...blankStringsAndComments(source).matchAll(pattern)].map((m) => m[1] as string)
}

// `import a`, `import a.b as c, d` / `from a.b import c, d as e` / `from . import x`, alone on a line at column 0.
const IMPORT_LINE =
  /^(?:import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*|from\s+[\w.]+\s+import\s+(?:\*|\w+(?:\s+as\s+\w+)?(?:\s*,\s*\w+(?:\s+as\s+\w+)?)*))\s*(?:#.*)?$/

/**
 * The top-level import statements of a Python source (`import x`, `import x as y`,
 * `from x import y, z`), trimmed, in order. Lines inside strings (docstrings) are not counted.
 *
 * @example
 * importLines('import math\nfrom typing import List\n\ndef f():\n    """import this"""') // => ['import math', 'from typing import List']
 */
export function importLines(source: string): string[] {
  const blanked = blankStringsAndComments(source).split('\n')
  const original = source.split('\n')
  const lines: string[] = []
  for (let i = 0; i < original.length; i++) {
    const line = (original[i] ?? '').trimEnd()
    // The blanked line starts the same way when the line is code, not the inside of a docstring.
    if (!IMPORT_LINE.test(line) || !(blanked[i] ?? '').startsWith(line.split(/\s+/)[0] ?? '')) continue
    lines.push(line.replace(/\s*#.*$/, '').trim())
  }
  return lines
}

/** Names bound by import statements (`import a.b` binds `a`; `import a as b` binds `b`). */
export function importedNames(lines: readonly string[]): Set<string> {
  const names = new Set<string>()
  for (const line of lines) {
    const from = /^from\s+[\w.]+\s+import\s+(.*)$/.exec(line)
    const parts = from ? (from[1] ?? '').split(',') : line.replace(/^import\s+/, '').split(',')
    for (const part of parts) {
      const m = /^\s*([\w.]+)(?:\s+as\s+(\w+))?\s*$/.exec(part)
      if (!m) continue
      names.add(m[2] ?? (m[1] ?? '').split('.')[0] ?? '')
    }
  }
  names.delete('')
  return names
}

/** Python's builtin functions and types: never a task's entry point. */
export const PYTHON_BUILTINS: ReadonlySet<string> = new Set(
  (
    'abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex ' +
    'delattr dict dir divmod enumerate eval exec filter float format frozenset getattr globals hasattr hash help ' +
    'hex id input int isinstance issubclass iter len list locals map max memoryview min next object oct open ord ' +
    'pow print property range repr reversed round set setattr slice sorted staticmethod str sum super tuple type ' +
    'vars zip __import__ ' +
    'BaseException Exception ArithmeticError AssertionError AttributeError EOFError IndexError KeyError ' +
    'LookupError NameError NotImplementedError OverflowError RecursionError RuntimeError StopIteration ' +
    'TypeError ValueError ZeroDivisionError'
  ).split(' '),
)

const KEYWORDS: ReadonlySet<string> = new Set(
  'and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
)

/**
 * Every plain-name call in a Python source, in order: `f(` counts, `obj.f(` (a method or a module
 * function such as `math.isclose`) does not, nor do keywords (`assert (`, `not (`). Strings and
 * comments are ignored.
 *
 * @example
 * callNames('assert math.isclose(area(2), 4.0)\nassert f(g(1)) == "h(2)"') // => ['area', 'f', 'g']
 */
export function callNames(source: string): string[] {
  const names: string[] = []
  for (const m of blankStringsAndComments(source).matchAll(/(\.\s*)?\b([A-Za-z_]\w*)\s*\(/g)) {
    if (m[1] !== undefined) continue
    const name = m[2] as string
    if (!KEYWORDS.has(name)) names.push(name)
  }
  return names
}

/**
 * The span of a top-level function definition: from its `def` line (decorators excluded) up to,
 * not including, the next line at column 0 that is code. `undefined` when `name` is not defined
 * at the top level; the last definition wins when it is defined twice (as Python does).
 */
export function functionSpan(
  source: string,
  name: string,
): { start: number; end: number; lines: string[] } | undefined {
  const lines = source.split('\n')
  const blanked = blankStringsAndComments(source).split('\n')
  const header = new RegExp(`^(?:async\\s+)?def\\s+${name}\\s*\\(`)
  let start = -1
  for (let i = 0; i < lines.length; i++) if (header.test(blanked[i] ?? '')) start = i
  if (start === -1) return undefined
  let end = start + 1
  for (; end < lines.length; end++) {
    const line = blanked[end] ?? ''
    // Column-0 code ends the function; blank lines and lines inside strings (blanked) do not.
    if (line.trim() !== '' && !/^\s/.test(line) && !/^[)\]}]/.test(line)) break
  }
  // Trailing blank lines belong to the gap, not to the function.
  while (end > start + 1 && (lines[end - 1] ?? '').trim() === '') end--
  return { start, end, lines: lines.slice(start, end) }
}
