/**
 * Does a task's test code check anything? A test file with no `assert` and no `raise` passes every
 * answer (each statement runs without error), so `checkTask` refuses it before any model call.
 */

/**
 * The test code with comments and string literals blanked out (each replaced by a space), so a
 * keyword inside a string or a comment is not mistaken for code. Line structure is kept.
 */
export function pythonCodeOnly(source: string): string {
  let out = ''
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string
    if (ch === '#') {
      while (i + 1 < source.length && source[i + 1] !== '\n') i++
      out += ' '
      continue
    }
    if (ch === '"' || ch === "'") {
      const quote = source.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch
      i += quote.length
      while (i < source.length && !source.startsWith(quote, i)) {
        if (source[i] === '\\') i++
        else if (quote.length === 1 && source[i] === '\n') break
        if (source[i] === '\n') out += '\n'
        i++
      }
      i += quote.length - 1
      out += ' '
      continue
    }
    out += ch
  }
  return out
}

/**
 * True when the tests contain an `assert` statement or a `raise` (e.g. `if f(x) != y: raise
 * AssertionError`), outside strings and comments.
 *
 * @example
 * hasAssertion('assert f(1) == 2') // => true
 * hasAssertion('f(1)\n# assert f(1) == 2') // => false
 */
export function hasAssertion(tests: string): boolean {
  return /(?<![\w.])(assert|raise)(?![\w])/.test(pythonCodeOnly(tests))
}

/**
 * Python's built-in functions and types (3.8-3.13, lower-case names): the judge keeps these as
 * Python's own for the tests even when the candidate defines a name like them, so a task cannot
 * ask for a function by one of these names.
 */
export const PYTHON_BUILTIN_NAMES: ReadonlySet<string> = new Set(
  (
    'abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex copyright credits ' +
    'delattr dict dir divmod enumerate eval exec exit filter float format frozenset getattr globals hasattr hash help hex id input ' +
    'int isinstance issubclass iter len license list locals map max memoryview min next object oct open ord pow print property quit ' +
    'range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip'
  ).split(' '),
)
