/**
 * Answer shapes real models produce around a correct program, for parity tests of the
 * `python-tests` verifier against the official CodeEval-Pro harness: the same code in a clean
 * fenced block, with the closing fence glued to its last line, without its imports, with a demo
 * under `if __name__ == "__main__":` that prints or raises, with prose around it, with the closing
 * fence missing, and with a second block (an explanation before, a usage example after).
 *
 * Pure string builders: no interpreter, no I/O. A builder returns `undefined` when its shape does
 * not apply to the code (no import to drop, no call of the entry point in the tests to demo).
 * Not shipped: a test aid, like the simulation scripts.
 */
import { blankStringsAndComments } from './python-source.js'

/** The shapes, in the order the parity corpus builds them. */
export const ANSWER_SHAPES = [
  'reference',
  'glued-fence',
  'missing-imports',
  'demo-prints',
  'demo-raises',
  'prose-around',
  'unclosed-fence',
  'explanation-then-code',
  'code-then-usage',
] as const

export type AnswerShape = (typeof ANSWER_SHAPES)[number]

/** One line per shape, for reports. */
export const ANSWER_SHAPE_DESCRIPTIONS: Record<AnswerShape, string> = {
  reference: 'the code alone in one ```python block',
  'glued-fence': 'the closing fence glued to the last line (`return x```)',
  'missing-imports': 'the top-level import lines dropped',
  'demo-prints': 'a demo under `if __name__ == "__main__":` that prints a call',
  'demo-raises': 'a demo under `if __name__ == "__main__":` that raises (NameError)',
  'prose-around': 'prose and a markdown explanation before and after the block',
  'unclosed-fence': 'the closing fence missing',
  'explanation-then-code': 'an untagged explanation block, then the ```python code block',
  'code-then-usage': 'the ```python code block, then a ```python usage example',
}

/** What a shape is built from. */
export interface ShapeSource {
  /** The program (e.g. a reference solution), without fences. */
  code: string
  /** The function the tests call; demos and usage examples call it. */
  entryPoint?: string
  /** The hidden tests: demos reuse the first call of the entry point found there. */
  tests?: string
}

/**
 * The code as a clean chat answer: one ```python block.
 *
 * @example
 * fencedAnswer('def f():\n    return 1') // => '```python\ndef f():\n    return 1\n```\n'
 */
export function fencedAnswer(code: string): string {
  return `\`\`\`python\n${code.trimEnd()}\n\`\`\`\n`
}

/**
 * The answer with the closing fence glued to the last line of code, as real models often write it.
 *
 * @example
 * gluedFenceAnswer('def f():\n    return 1') // => 'Here is the code:\n\n```python\ndef f():\n    return 1```\n'
 */
export function gluedFenceAnswer(code: string): string {
  return `Here is the code:\n\n\`\`\`python\n${code.trimEnd()}\`\`\`\n`
}

/**
 * The code without its top-level `import x` / `from x import y` statements (a parenthesised or
 * backslash-continued import goes whole), or `undefined` when it has none. Imports inside
 * functions stay: a model that forgets imports forgets the ones at the top.
 *
 * @example
 * withoutTopLevelImports('import math\n\ndef f(x):\n    return math.sqrt(x)') // => 'def f(x):\n    return math.sqrt(x)'
 */
export function withoutTopLevelImports(code: string): string | undefined {
  const lines = code.split('\n')
  const blanked = blankStringsAndComments(code).split('\n')
  const kept: string[] = []
  let removed = 0
  for (let i = 0; i < lines.length; i++) {
    const line = blanked[i] ?? ''
    if (!/^(?:import\s|from\s+\S+\s+import\b)/.test(line)) {
      kept.push(lines[i] ?? '')
      continue
    }
    // The statement's continuation lines: open brackets or a trailing backslash.
    let depth = 0
    let j = i
    for (;;) {
      const text = blanked[j] ?? ''
      for (const ch of text) depth += ch === '(' ? 1 : ch === ')' ? -1 : 0
      if ((depth > 0 || text.trimEnd().endsWith('\\')) && j + 1 < lines.length) j++
      else break
    }
    removed++
    i = j
  }
  return removed === 0 ? undefined : kept.join('\n').replace(/^\n+/, '')
}

/**
 * The first call of `name` in Python `source` (`name(args)`, balanced brackets, strings
 * skipped), not a method call (`x.name(`), or `undefined` when there is none.
 *
 * @example
 * firstCall('assert f(g(1), ")") == 2', 'f') // => 'f(g(1), ")")'
 */
export function firstCall(source: string, name: string): string | undefined {
  const blanked = blankStringsAndComments(source)
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const found = new RegExp(`(?<![\\w.])${escaped}\\s*\\(`).exec(blanked)
  if (!found) return undefined
  let depth = 0
  // Brackets inside strings are blanked, so the blanked text is scanned and the source sliced.
  for (let i = found.index + found[0].length - 1; i < blanked.length; i++) {
    const ch = blanked[i]
    if (ch === '(' || ch === '[' || ch === '{') depth++
    else if (ch === ')' || ch === ']' || ch === '}') depth--
    if (depth === 0) return source.slice(found.index, i + 1)
  }
  return undefined
}

/** A name not used in `code` (for a variable a demo forgets to define). */
function unusedName(code: string, base: string): string {
  let name = base
  for (let k = 2; new RegExp(`\\b${name}\\b`).test(code); k++) name = `${base}_${k}`
  return name
}

/** A demo call: the first call of the entry point in the tests. */
function demoCall(source: ShapeSource): string | undefined {
  if (source.entryPoint === undefined || source.tests === undefined) return undefined
  const call = firstCall(source.tests, source.entryPoint)
  // One line only: a demo is indented under `if __name__`.
  return call === undefined ? undefined : call.replace(/\s*\n\s*/g, ' ')
}

/**
 * The answer of one shape for this code, or `undefined` when the shape does not apply (no
 * top-level import for `missing-imports`; no call of the entry point in the tests for
 * `demo-prints` and `code-then-usage`).
 *
 * @example
 * answerShape('unclosed-fence', { code: 'def f():\n    return 1' }) // => 'Here is the solution:\n\n```python\ndef f():\n    return 1\n'
 */
export function answerShape(shape: AnswerShape, source: ShapeSource): string | undefined {
  const code = source.code.trimEnd()
  const main = source.entryPoint ?? 'the main function'
  switch (shape) {
    case 'reference':
      return fencedAnswer(code)
    case 'glued-fence':
      return gluedFenceAnswer(code)
    case 'missing-imports': {
      const stripped = withoutTopLevelImports(code)
      return stripped === undefined ? undefined : fencedAnswer(stripped)
    }
    case 'demo-prints': {
      const call = demoCall(source)
      if (call === undefined) return undefined
      return fencedAnswer(`${code}\n\n\nif __name__ == "__main__":\n    # Example usage\n    print(${call})`)
    }
    case 'demo-raises': {
      // The demo uses an input it never defines: a NameError when the demo runs.
      const input = unusedName(code, 'sample_input')
      const call = source.entryPoint === undefined ? input : `${source.entryPoint}(${input})`
      return fencedAnswer(`${code}\n\n\nif __name__ == "__main__":\n    result = ${call}\n    print("Result:", result)`)
    }
    case 'prose-around':
      return [
        `Here is a solution. The first function solves the base problem, and \`${main}\` calls it.`,
        '',
        fencedAnswer(code).trimEnd(),
        '',
        '### Explanation',
        '',
        '- The base function handles one input at a time.',
        `- \`${main}\` calls it for every case, as the second problem requires.`,
        '',
        'Let me know if you have any questions!',
        '',
      ].join('\n')
    case 'unclosed-fence':
      return `Here is the solution:\n\n\`\`\`python\n${code}\n`
    case 'explanation-then-code':
      return [
        'The approach, step by step:',
        '',
        '```',
        '1. Solve the base problem in its own function.',
        `2. Call it from ${main} for each input.`,
        '```',
        '',
        'The code:',
        '',
        fencedAnswer(code),
      ].join('\n')
    case 'code-then-usage': {
      const call = demoCall(source)
      if (call === undefined) return undefined
      return `${fencedAnswer(code)}\nExample usage:\n\n\`\`\`python\nprint(${call})\n\`\`\`\n`
    }
  }
}
