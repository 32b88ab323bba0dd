/**
 * A simulation aid: scripts for simulated actors built from a task's reference solution.
 *
 * Simulated actors (`actors.simulated`) do not write code; they pick scripted answers from the
 * task's `simulation` (correct and wrong answers). Real benchmarks carry no such script, so this
 * module makes one from the reference solution: the reference itself is the correct answer, and
 * mechanically broken copies of it (the main function renamed, a constant off by one, `return
 * None`, the last line dropped, a comparison flipped, the base function broken or misspelt) are
 * the wrong ones. {@link withCheckedSimulation} runs every scripted answer through the verifier
 * and keeps only wrong answers that really fail, so a script never lies.
 *
 * This measures nothing about any model: it lets a protocol run end to end on real tasks offline.
 */
import { extractPythonCode } from '../verifiers/python-tests/extract.js'
import type { Verifier } from '../verifiers/verifier.js'
import { SimulationScriptSchema, type SimulationScript, type Task } from '../protocol/task.js'
import { blankStringsAndComments, functionSpan } from './python-source.js'
import { mapConcurrent } from '../protocol/concurrency.js'

/** The ways a reference solution is broken into a wrong answer. */
export type ReferenceBreak =
  | 'rename-main'
  | 'off-by-one'
  | 'return-none'
  | 'drop-last-line'
  | 'flip-comparison'
  | 'break-base'
  | 'misspell-base-call'

/** Every break, in the order answers are made. */
export const REFERENCE_BREAKS: readonly ReferenceBreak[] = [
  'rename-main',
  'off-by-one',
  'return-none',
  'drop-last-line',
  'flip-comparison',
  'break-base',
  'misspell-base-call',
]

/** What a model-like answer says before its code, per break (so answers read differently). */
const INTROS: Record<ReferenceBreak | 'correct', string> = {
  correct: 'Here is the solution: the first function solves the base problem and the second one calls it.',
  'rename-main': 'Here is my solution.',
  'off-by-one': 'This should handle all the cases.',
  'return-none': 'I implemented both functions below.',
  'drop-last-line': 'Here you go.',
  'flip-comparison': 'The solution iterates once over the input.',
  'break-base': 'Both problems are solved below; the second reuses the first.',
  'misspell-base-call': 'The main function calls the base one for every item.',
}

function answer(intro: string, code: string): string {
  return `${intro}\n\n\`\`\`python\n${code.trim()}\n\`\`\`\n`
}

interface Span {
  start: number
  end: number
  lines: string[]
}

/** Index (into the whole source's lines) of the line that ends the def header (`...):`), or -1 for a one-line def. */
function headerEnd(blankedLines: readonly string[], span: Span): number {
  for (let i = span.start; i < span.end; i++) {
    const line = (blankedLines[i] ?? '').trimEnd()
    if (line.endsWith(':')) return i
    // `def f(x): return x`: code after the colon on the header line.
    if (/\)\s*(->[^:]*)?:\s*\S/.test(line)) return -1
  }
  return -1
}

function replaceLines(lines: readonly string[], start: number, end: number, replacement: readonly string[]): string {
  return [...lines.slice(0, start), ...replacement, ...lines.slice(end)].join('\n')
}

/** `return None` as the first statement of `name`'s body (after its docstring). */
function returnNone(code: string, name: string): string | undefined {
  const span = functionSpan(code, name)
  if (!span) return undefined
  const lines = code.split('\n')
  const blanked = blankStringsAndComments(code).split('\n')
  const header = headerEnd(blanked, span)
  if (header === -1) return undefined
  // The first line of code in the body: docstring and comment lines are blank once blanked.
  let first = header + 1
  while (first < span.end && (blanked[first] ?? '').trim() === '') first++
  const indent = /^\s+/.exec(lines[first] ?? '')?.[0]
  if (first >= span.end || indent === undefined) return undefined
  return replaceLines(lines, first, first, [`${indent}return None`])
}

/** The first match of `pattern` in the body of `name` (code only, not strings or comments) replaced. */
function editBody(code: string, name: string, pattern: RegExp, edit: (match: string) => string): string | undefined {
  const span = functionSpan(code, name)
  if (!span) return undefined
  const lines = code.split('\n')
  const blanked = blankStringsAndComments(code).split('\n')
  const header = headerEnd(blanked, span)
  const from = header === -1 ? span.start : header + 1
  for (let i = from; i < span.end; i++) {
    const source = blanked[i] ?? ''
    // On a one-line def, search only after the header's colon.
    const offset = header === -1 && i === span.start ? source.search(/\)\s*(->[^:]*)?:/) + 1 : 0
    const found = new RegExp(pattern.source, pattern.flags.replace('g', '')).exec(source.slice(offset))
    if (!found) continue
    const at = offset + found.index
    const line = lines[i] ?? ''
    lines[i] = line.slice(0, at) + edit(found[0]) + line.slice(at + found[0].length)
    return lines.join('\n')
  }
  return undefined
}

function inMainOrBase(
  code: string,
  entryPoint: string,
  baseFunctions: readonly string[],
  pattern: RegExp,
  edit: (match: string) => string,
): string | undefined {
  for (const name of [entryPoint, ...baseFunctions.filter((b) => b !== entryPoint)]) {
    const edited = editBody(code, name, pattern, edit)
    if (edited !== undefined) return edited
  }
  return undefined
}

const FLIPS: Record<string, string> = { '<=': '<', '>=': '>', '<': '<=', '>': '>=', '==': '!=', '!=': '==' }

/**
 * The reference code broken one way, or `undefined` when that break does not apply to this code
 * (e.g. no integer constant in the main function). The result is not guaranteed to fail the
 * tests: {@link withCheckedSimulation} checks that.
 *
 * @param code the reference program (base and main function)
 * @param entryPoint the main function, the one the tests call
 * @param baseFunctions the base function(s), for `break-base` and `misspell-base-call`
 * @example
 * breakReference('def f(x):\n    return x + 1', 'f', 'off-by-one') // => 'def f(x):\n    return x + 2'
 */
export function breakReference(
  code: string,
  entryPoint: string,
  kind: ReferenceBreak,
  baseFunctions: readonly string[] = [],
): string | undefined {
  const span = functionSpan(code, entryPoint)
  if (!span) return undefined
  const lines = code.split('\n')
  switch (kind) {
    case 'rename-main':
      return replaceLines(lines, span.start, span.start + 1, [
        (lines[span.start] ?? '').replace(new RegExp(`def\\s+${entryPoint}\\b`), `def ${entryPoint}_solution`),
      ])
    case 'off-by-one':
      // An integer constant (not part of a name or a float) one higher: in the main function, else in the base one.
      return inMainOrBase(code, entryPoint, baseFunctions, /(?<![\w.])\d+(?![\w.])/, (n) => String(BigInt(n) + 1n))
    case 'return-none':
      return returnNone(code, entryPoint)
    case 'drop-last-line': {
      const blanked = blankStringsAndComments(code).split('\n')
      const header = headerEnd(blanked, span)
      if (header === -1) return undefined
      const body = [...Array(span.end - header - 1).keys()]
        .map((k) => header + 1 + k)
        .filter((i) => (blanked[i] ?? '').trim() !== '')
      const last = body.at(-1)
      // Keep at least one statement, and never cut a multi-line statement in half.
      if (
        last === undefined ||
        body.length < 2 ||
        /[([{,\\]\s*$/.test(blanked[body.at(-2) ?? last] ?? '') ||
        /^\s*[)\]}]/.test(blanked[last] ?? '')
      )
        return undefined
      if (/^\s*(elif|else|except|finally)\b/.test(blanked[last] ?? '')) return undefined
      if (/:\s*$/.test(blanked[body.at(-2) ?? last] ?? '')) return undefined // the dropped line is a block's only statement
      return replaceLines(lines, last, last + 1, [])
    }
    case 'flip-comparison':
      return inMainOrBase(
        code,
        entryPoint,
        baseFunctions,
        /<=|>=|==|!=|(?<![<>=-])[<>](?![<>=])/,
        (op) => FLIPS[op] ?? op,
      )
    case 'break-base': {
      const base = baseFunctions.find((b) => b !== entryPoint && functionSpan(code, b))
      return base === undefined ? undefined : returnNone(code, base)
    }
    case 'misspell-base-call': {
      const base = baseFunctions.find((b) => b !== entryPoint && functionSpan(code, b))
      if (base === undefined) return undefined
      return editBody(code, entryPoint, new RegExp(`(?<![\\w.])${base}(?=\\s*\\()`), (name) => `${name}s`)
    }
  }
}

/** The options of `simulationFromReference`: the difficulty, and the breaks that make wrong answers from the reference. */
export interface SimulationFromReferenceOptions {
  /** The simulated task difficulty (0 easy to 1 hard). Default 0.5. */
  difficulty?: number
  /** Which breaks to make wrong answers from. Default: all of {@link REFERENCE_BREAKS}. */
  breaks?: readonly ReferenceBreak[]
}

/**
 * A simulation script for one task from its reference answer: the reference is the correct
 * answer, and each applicable break of it is a wrong answer. The wrong answers are candidates:
 * a break can leave the tests passing (a constant nothing checks), so run them through the
 * verifier, as {@link withCheckedSimulation} does, before trusting the script.
 *
 * @throws Error when the task has no `entryPoint` or no break applies.
 * @example
 * const script = simulationFromReference(task, referenceAnswer(record))
 * script.wrong.length // up to 7 broken variants
 */
export function simulationFromReference(
  task: Task,
  reference: string,
  options: SimulationFromReferenceOptions = {},
): SimulationScript {
  const entryPoint = task.entryPoint
  if (entryPoint === undefined)
    throw new Error(`simulationFromReference: task ${task.id} has no entryPoint, so its main function cannot be broken`)
  const code = extractPythonCode(reference).trim()
  const baseFunctions = Array.isArray(task.metadata?.baseFunctions)
    ? task.metadata.baseFunctions.filter((b): b is string => typeof b === 'string')
    : []
  const wrong: string[] = []
  for (const kind of options.breaks ?? REFERENCE_BREAKS) {
    const broken = breakReference(code, entryPoint, kind, baseFunctions)
    if (
      broken !== undefined &&
      broken.trim() !== code &&
      !wrong.some((w) => extractPythonCode(w).trim() === broken.trim())
    )
      wrong.push(answer(INTROS[kind], broken))
  }
  if (wrong.length === 0)
    throw new Error(
      `simulationFromReference: task ${task.id}: no break applies to its reference solution (main function ${entryPoint} not found?)`,
    )
  return SimulationScriptSchema.parse({
    difficulty: options.difficulty ?? 0.5,
    correct: [answer(INTROS.correct, code)],
    wrong,
  })
}

/** The options of `withCheckedSimulation`: the simulation's options and the verifier that checks it. */
export interface CheckedSimulationOptions extends SimulationFromReferenceOptions {
  /** The verifier the eval uses (e.g. `verifiers.pythonTests()`): every scripted answer is run through it. */
  verifier: Verifier
  /** Verifications in flight at once. Default 4. */
  concurrency?: number
  /** Drop tasks left with no failing wrong answer instead of throwing. Default false. */
  dropUnscriptable?: boolean
}

/**
 * Tasks with a checked `simulation` script, for simulated actors on a real benchmark: for each
 * task, the reference answer must pass the verifier (else this throws: the task or the verifier is
 * broken), and each broken variant is kept only if it fails, and fails without timing out (a
 * variant that hangs would cost a full timeout at every pick). A task left with no wrong answer
 * throws, or is dropped with `dropUnscriptable`.
 *
 * @example
 * const verifier = verifiers.pythonTests()
 * const tasks = await withCheckedSimulation(loadCodeEvalPro(path, { benchmark: 'humaneval-pro', limit: 20 }), { verifier })
 * seqEval('HumanEval Pro (simulated)', { tasks, verifier, actors: [actors.simulated({ profile: 'reviser' })], ... })
 */
export async function withCheckedSimulation(
  entries: readonly { task: Task; reference: string }[],
  options: CheckedSimulationOptions,
): Promise<Task[]> {
  const { verifier } = options
  const concurrency = options.concurrency ?? 4
  if (!(Number.isInteger(concurrency) && concurrency >= 1))
    throw new RangeError(`withCheckedSimulation: concurrency must be an integer >= 1, got ${concurrency}`)

  const scripted = await mapConcurrent(entries, concurrency, async ({ task, reference }): Promise<Task | undefined> => {
    const script = simulationFromReference(task, reference, options)
    // The scripts are the benchmark's reference and this project's mechanical breaks of it: what the
    // bundled simulated actors will answer, so they may run where `auto` found no sandbox.
    const [correct, ...wrong] = await Promise.all(
      [script.correct[0] as string, ...script.wrong].map((a) =>
        verifier.verify(task, a, { origin: 'bundled-simulation' }),
      ),
    )
    if (!correct?.pass) {
      throw new Error(
        `withCheckedSimulation: the reference answer of task ${task.id} fails the verifier (${correct?.diagnostics.summary ?? 'no verdict'}); the task or the verifier is broken`,
      )
    }
    // A variant that hangs (an off-by-one in a while loop) fails too, but costs a whole timeout at
    // every pick and is never cached: leave it out, as the fixtures leave out answers that hang.
    const failing = script.wrong.filter(
      (_, i) => wrong[i]?.pass === false && wrong[i]?.diagnostics.outcome !== 'timeout',
    )
    if (failing.length === 0) {
      if (options.dropUnscriptable) return undefined
      throw new Error(
        `withCheckedSimulation: every broken variant of task ${task.id}'s reference passes its tests; pass dropUnscriptable: true to skip such tasks`,
      )
    }
    return { ...task, simulation: { ...script, wrong: failing } }
  })
  return scripted.filter((t): t is Task => t !== undefined)
}
