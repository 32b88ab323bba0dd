/**
 * Loaders for HumanEval Pro and MBPP Pro (github.com/CodeEval-Pro/CodeEval-Pro): the
 * self-invoking code benchmarks. Each record has a base problem (`raw_problem`, `raw_solution`)
 * and a main problem whose solution must call the base one (`new_problem`, `new_solution`), plus
 * hidden tests (`test_code`). The loaders turn records into tasks with the official prompt, the
 * tests, the prompt's imports as setup and the entry point the tests call, and flag the known
 * defects of the data.
 */
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { describeZodError } from '../core/zod-errors.js'
import { TaskSchema, type Task } from '../protocol/task.js'
import { refuseOtherBenchmark, sniffRecords } from './recognise.js'
import { readBenchmarkText } from './text-file.js'
import {
  PYTHON_BUILTINS,
  blankStringsAndComments,
  callNames,
  functionSpan,
  importLines,
  importedNames,
  topLevelDefs,
} from './python-source.js'

// ---------------------------------------------------------------------------------------------
// The official prompt

/** The instruction line of the official HumanEval Pro / MBPP Pro prompt. */
export const SELF_INVOKING_INSTRUCTION =
  'Write a solution of python file to the following problems, the solution of the second problem requires single or multiple calls to the first solution.'

/**
 * The official self-invoking prompt, as the CodeEval-Pro harness builds it (`eval/utils.py`,
 * `map_humaneval_pro_problem`): the instruction, then one python code block holding the base
 * problem and the main problem, each stripped, joined by one newline.
 *
 * @example
 * selfInvokingPrompt('def f(x: int) -> int:\n    """Double x."""', 'def g(xs):\n    """Double every x with f."""')
 * // => 'Write a solution of python file ... first solution.\n```python\ndef f(x: int) -> int:\n ...\n```'
 */
export function selfInvokingPrompt(baseProblem: string, mainProblem: string): string {
  return `${SELF_INVOKING_INSTRUCTION}\n\`\`\`python\n${baseProblem.trim()}\n${mainProblem.trim()}\n\`\`\``
}

// ---------------------------------------------------------------------------------------------
// Records

/** One record of `humaneval_pro.json` / `mbpp_pro.json`. Fields beyond these are ignored. */
export const CodeEvalProRecordSchema = z.object({
  id: z.union(
    [
      z
        .number()
        .int('the task id must be a non-negative integer')
        .nonnegative('the task id must be a non-negative integer'),
      z.string().min(1, 'the task id must not be empty'),
    ],
    {
      message: 'expected the task id: a non-negative integer (or a non-empty string)',
    },
  ),
  raw_problem: z
    .string({ message: 'expected a string: the base problem (signature and docstring)' })
    .min(1, 'the base problem is empty'),
  raw_solution: z.string({ message: 'expected a string: the body of the base function' }),
  new_problem: z
    .string({ message: 'expected a string: the self-invoking problem (description and signature)' })
    .min(1, 'the self-invoking problem is empty'),
  new_solution: z.string({ message: 'expected a string: the body of the main function' }),
  test_code: z
    .string({ message: 'expected a string: the hidden tests (top-level assert statements)' })
    .refine((s) => s.trim() !== '', 'the hidden tests are empty: expected at least one assert statement'),
})
export type CodeEvalProRecord = z.infer<typeof CodeEvalProRecordSchema>

/** Which of the two benchmarks a file holds: the task id prefix and `metadata.source`. */
export type CodeEvalProBenchmark = 'humaneval-pro' | 'mbpp-pro'

const UPSTREAM: Record<CodeEvalProBenchmark, { name: string; file: string; loader: string }> = {
  'humaneval-pro': { name: 'HumanEval Pro', file: 'humaneval_pro.json', loader: 'loadHumanEvalPro' },
  'mbpp-pro': { name: 'MBPP Pro', file: 'mbpp_pro.json', loader: 'loadMbppPro' },
}

// ---------------------------------------------------------------------------------------------
// Defects

/**
 * Known defects of a record, detected from the data (each agrees with our scan
 * `codeeval-pro-defects.json`):
 *
 * - `repeatsBaseSignature`: the self-invoking problem ends with the base function's signature
 *   instead of the main one, so the main function's name can only be learned from test feedback.
 * - `truncatedPrompt`: the self-invoking problem is cut off: it has no signature at all.
 * - `signatureNotCalledByTests`: the self-invoking problem's signature is a new name, but the
 *   tests call another function (MBPP Pro 104: a re-spelt base function), so again the main
 *   function's name can only be learned from test feedback.
 * - `referenceDoesNotCallBase`: the reference main solution never calls the base function (the
 *   task is still solvable as stated; only the reference ignores the self-invoking requirement).
 * - `multipleDefsInNewProblem`: the self-invoking problem defines more than one function (e.g. a
 *   one-line base solution before the main signature): harmless, reported for completeness.
 */
export interface CodeEvalProDefects {
  repeatsBaseSignature: boolean
  truncatedPrompt: boolean
  signatureNotCalledByTests: boolean
  referenceDoesNotCallBase: boolean
  multipleDefsInNewProblem: boolean
}
/** One kind of defect a HumanEval Pro or MBPP Pro record can have. */
export type CodeEvalProDefect = keyof CodeEvalProDefects

/** Defects of the prompt itself: with one of these, the prompt does not say what the tests call. */
export const PROMPT_DEFECTS: readonly CodeEvalProDefect[] = [
  'repeatsBaseSignature',
  'truncatedPrompt',
  'signatureNotCalledByTests',
]

/**
 * The function the hidden tests call: the most common plain-name call in `test_code`, ignoring
 * Python builtins (`set`, `sorted`, `abs`...), attribute calls (`math.isclose`), imported names
 * (`Counter`, given `imports`) and names the tests define themselves. Ties go to the name called
 * first. `undefined` when the tests call no such function.
 *
 * @example
 * entryPointFromTests('assert math.isclose(area(2), 12.56)\nassert area(0) == 0') // => 'area'
 */
export function entryPointFromTests(testCode: string, imports: Iterable<string> = []): string | undefined {
  const excluded = new Set<string>([
    ...PYTHON_BUILTINS,
    ...importedNames([...imports, ...importLines(testCode)]),
    ...topLevelDefs(testCode, { classes: true }),
  ])
  const counts = new Map<string, number>()
  for (const name of callNames(testCode)) if (!excluded.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1)
  let best: string | undefined
  for (const [name, count] of counts) if (best === undefined || count > (counts.get(best) ?? 0)) best = name
  return best
}

/**
 * Detects the known defects of one record (see {@link CodeEvalProDefects}). `entryPoint` is the
 * function the tests call (default: {@link entryPointFromTests}).
 */
export function detectDefects(
  record: CodeEvalProRecord,
  entryPoint = entryPointFromTests(record.test_code, promptImports(record)),
): CodeEvalProDefects {
  const baseDefs = new Set(topLevelDefs(record.raw_problem))
  const newDefs = topLevelDefs(record.new_problem)
  const mainSignature = newDefs.at(-1)
  return {
    repeatsBaseSignature: mainSignature !== undefined && baseDefs.has(mainSignature),
    truncatedPrompt: mainSignature === undefined,
    signatureNotCalledByTests:
      mainSignature !== undefined && !baseDefs.has(mainSignature) && mainSignature !== entryPoint,
    referenceDoesNotCallBase: !callsOutsideDefinitions(record.new_problem + record.new_solution, baseDefs),
    multipleDefsInNewProblem: newDefs.length > 1,
  }
}

/** Whether `source` calls one of `names` anywhere but inside the (re)definitions of those names. */
function callsOutsideDefinitions(source: string, names: ReadonlySet<string>): boolean {
  let lines = source.split('\n')
  for (const name of names) {
    // Blank out each top-level redefinition of a base function (the repeated-signature records
    // restate the base body), so only calls from other code count.
    for (;;) {
      const span = functionSpan(lines.join('\n'), name)
      if (!span) break
      lines = [...lines.slice(0, span.start), ...span.lines.map(() => ''), ...lines.slice(span.end)]
    }
  }
  return callNames(lines.join('\n')).some((n) => names.has(n))
}

/** The prompt's top-level import lines (base problem, then main problem), without duplicates. */
export function promptImports(record: Pick<CodeEvalProRecord, 'raw_problem' | 'new_problem'>): string[] {
  return [...new Set([...importLines(record.raw_problem), ...importLines(record.new_problem)])]
}

// ---------------------------------------------------------------------------------------------
// Records -> tasks

/**
 * The reference solution as a model would answer: one python code block holding
 * `raw_problem + raw_solution + new_problem + new_solution`, the program the official harness
 * checks as ground truth. For tests, benches and simulated actors.
 *
 * @example
 * referenceAnswer(record) // => '```python\nfrom typing import List\n\n\ndef below_zero(...'
 */
export function referenceAnswer(
  record: Pick<CodeEvalProRecord, 'raw_problem' | 'raw_solution' | 'new_problem' | 'new_solution'>,
): string {
  return `\`\`\`python\n${referenceCode(record)}\n\`\`\`\n`
}

/** The reference program (`raw_problem + raw_solution + new_problem + new_solution`), leading and trailing blank lines dropped. */
export function referenceCode(
  record: Pick<CodeEvalProRecord, 'raw_problem' | 'raw_solution' | 'new_problem' | 'new_solution'>,
): string {
  return (record.raw_problem + record.raw_solution + record.new_problem + record.new_solution)
    .replace(/^(?:[ \t]*\n)+/, '')
    .replace(/\s+$/, '')
}

/**
 * One record as a task: id `<benchmark>/<upstream id>`, the official prompt, `tests` = `test_code`,
 * `setup` = the prompt's import lines (run before the candidate only with `pythonTests({
 * prependSetup: true })`, the completion-mode reading; the official chat-mode harness runs the
 * answer as written), `entryPoint` from the tests, and `metadata` with the
 * source, the upstream id, the base function(s) and the defect flags.
 */
export function codeEvalProTask(record: CodeEvalProRecord, benchmark: CodeEvalProBenchmark): Task {
  return analyse(record, benchmark).task
}

function analyse(
  record: CodeEvalProRecord,
  benchmark: CodeEvalProBenchmark,
): { task: Task; defects: CodeEvalProDefects } {
  const imports = promptImports(record)
  const entryPoint = entryPointFromTests(record.test_code, imports)
  const defects = detectDefects(record, entryPoint)
  const task = TaskSchema.parse({
    id: `${benchmark}/${record.id}`,
    prompt: selfInvokingPrompt(record.raw_problem, record.new_problem),
    tests: record.test_code,
    ...(imports.length > 0 ? { setup: imports.join('\n') } : {}),
    ...(entryPoint !== undefined ? { entryPoint } : {}),
    metadata: {
      source: benchmark,
      benchmark: UPSTREAM[benchmark].name,
      upstreamId: record.id,
      baseFunctions: topLevelDefs(record.raw_problem),
      defects: (Object.keys(defects) as CodeEvalProDefect[]).filter((d) => defects[d]),
    },
  })
  return { task, defects }
}

// ---------------------------------------------------------------------------------------------
// Files

/** The options of the HumanEval Pro and MBPP Pro loaders: which records, and whether to drop defective ones. */
export interface CodeEvalProOptions {
  /**
   * Drop flagged tasks: `true` drops the prompt defects ({@link PROMPT_DEFECTS}: the prompt does
   * not name the function the tests call); a list drops tasks with any of those defects.
   * Default false: every task is kept and its flags are in `metadata.defects`.
   */
  excludeDefective?: boolean | readonly CodeEvalProDefect[]
  /** Keep only these tasks: upstream ids (`3`, `'3'`) or task ids (`'humaneval-pro/3'`). Unknown ids throw. */
  ids?: readonly (number | string)[]
  /** Keep only upstream ids in `[from, to]`, both inclusive. */
  range?: readonly [number, number]
  /** Keep at most this many tasks (the first ones in file order), after every other filter. */
  limit?: number
}

/** One loaded record: the task, the validated record, its defects and the reference answer. */
export interface CodeEvalProEntry {
  task: Task
  record: CodeEvalProRecord
  defects: CodeEvalProDefects
  /** The reference solution as a model-style answer (see {@link referenceAnswer}). */
  reference: string
}

/** A CodeEval-Pro file that cannot be loaded: missing, not JSON, or a record of the wrong shape. */
export class CodeEvalProFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CodeEvalProFileError'
  }
}

/**
 * Loads HumanEval Pro (`dataset/humaneval_pro.json` of github.com/CodeEval-Pro/CodeEval-Pro, 164
 * tasks) as tasks for the `python-tests` verifier. Synchronous, so an eval file can call it at
 * declaration time. The file is a JSON array of records (JSON Lines is accepted too).
 *
 * @throws CodeEvalProFileError for a missing or malformed file (naming the record and the field).
 * @example
 * const tasks = loadHumanEvalPro('data/humaneval_pro.json', { excludeDefective: true, limit: 20 })
 * seqEval('HumanEval Pro', { tasks, verifier: verifiers.pythonTests(), ... })
 */
export function loadHumanEvalPro(path: string | URL, options: CodeEvalProOptions = {}): Task[] {
  return loadCodeEvalPro(path, { ...options, benchmark: 'humaneval-pro' }).map((e) => e.task)
}

/**
 * Loads MBPP Pro (`dataset/mbpp_pro.json` of github.com/CodeEval-Pro/CodeEval-Pro, 378 tasks),
 * like {@link loadHumanEvalPro}.
 *
 * @example
 * const tasks = loadMbppPro('data/mbpp_pro.json', { range: [0, 49] })
 */
export function loadMbppPro(path: string | URL, options: CodeEvalProOptions = {}): Task[] {
  return loadCodeEvalPro(path, { ...options, benchmark: 'mbpp-pro' }).map((e) => e.task)
}

/**
 * Loads a HumanEval Pro or MBPP Pro file with everything known about each record: the task, the
 * validated record, its defect flags and the reference solution as a model-style answer.
 *
 * @example
 * for (const { task, reference } of loadCodeEvalPro(path, { benchmark: 'mbpp-pro' })) {
 *   expect((await verifier.verify(task, reference)).pass).toBe(true)
 * }
 */
export function loadCodeEvalPro(
  path: string | URL,
  options: CodeEvalProOptions & { benchmark: CodeEvalProBenchmark },
): CodeEvalProEntry[] {
  const { benchmark } = options
  const upstream = UPSTREAM[benchmark]
  if (!upstream)
    throw new TypeError(
      `loadCodeEvalPro: benchmark must be 'humaneval-pro' or 'mbpp-pro', got ${JSON.stringify(benchmark)}`,
    )
  const where = `${upstream.loader}(${JSON.stringify(displayPath(path))})`
  checkOptions(where, options)

  const records = readRecords(path, where, benchmark)
  let entries = records.map((record): CodeEvalProEntry => ({
    ...analyse(record, benchmark),
    record,
    reference: referenceAnswer(record),
  }))

  const excluded =
    options.excludeDefective === true
      ? PROMPT_DEFECTS
      : options.excludeDefective === false || options.excludeDefective === undefined
        ? []
        : options.excludeDefective
  if (excluded.length > 0) entries = entries.filter((e) => !excluded.some((d) => e.defects[d]))

  if (options.ids !== undefined) {
    const wanted = options.ids.map((id) => String(id).replace(new RegExp(`^${benchmark}/`), ''))
    const known = new Set(records.map((r) => String(r.id)))
    const unknown = wanted.filter((id) => !known.has(id))
    if (unknown.length > 0) {
      throw new CodeEvalProFileError(
        `${where}: ids: no record with id ${unknown.map((u) => JSON.stringify(u)).join(', ')} in this file (${describeIds(records)})`,
      )
    }
    const keep = new Set(wanted)
    entries = entries.filter((e) => keep.has(String(e.record.id)))
  }
  if (options.range !== undefined) {
    const [from, to] = options.range
    entries = entries.filter((e) => {
      const id = typeof e.record.id === 'number' ? e.record.id : Number(e.record.id)
      return Number.isFinite(id) && id >= from && id <= to
    })
  }
  if (options.limit !== undefined) entries = entries.slice(0, options.limit)
  return entries
}

function checkOptions(where: string, options: CodeEvalProOptions): void {
  const { limit, range, ids, excludeDefective } = options
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1))
    throw new RangeError(`${where}: limit must be an integer >= 1, got ${String(limit)}`)
  if (range !== undefined) {
    const ok =
      Array.isArray(range) && range.length === 2 && range.every((n) => Number.isFinite(n)) && range[0] <= range[1]
    if (!ok)
      throw new RangeError(
        `${where}: range must be [from, to] with from <= to (upstream ids, both inclusive), got ${JSON.stringify(range)}`,
      )
  }
  if (ids !== undefined && !Array.isArray(ids))
    throw new TypeError(
      `${where}: ids must be an array of upstream ids (e.g. [0, 3]) or task ids (e.g. ['humaneval-pro/3'])`,
    )
  if (Array.isArray(excludeDefective)) {
    const names: readonly string[] = [
      'repeatsBaseSignature',
      'truncatedPrompt',
      'signatureNotCalledByTests',
      'referenceDoesNotCallBase',
      'multipleDefsInNewProblem',
    ] satisfies CodeEvalProDefect[]
    const bad = excludeDefective.filter((d) => !names.includes(d))
    if (bad.length > 0)
      throw new TypeError(
        `${where}: excludeDefective: unknown defect ${bad.map((b) => JSON.stringify(b)).join(', ')}; use true or some of ${names.join(', ')}`,
      )
  }
}

function displayPath(path: string | URL): string {
  return path instanceof URL ? (path.protocol === 'file:' ? fileURLToPath(path) : path.href) : path
}

function describeIds(records: readonly CodeEvalProRecord[]): string {
  const numeric = records.map((r) => r.id).filter((id): id is number => typeof id === 'number')
  if (numeric.length === records.length && numeric.length > 0)
    return `ids ${Math.min(...numeric)}..${Math.max(...numeric)}, ${records.length} records`
  return `${records.length} records`
}

/**
 * The 1-based line on which each item of the top-level JSON array in `text` starts (one pass,
 * strings and nesting skipped), so a malformed record can be named by its line.
 */
export function arrayItemLines(text: string): number[] {
  const lines: number[] = []
  let line = 1
  let depth = 0
  let inString = false
  let expectItem = false
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (inString) {
      if (ch === 92)
        i++ // a backslash escapes the next character
      else if (ch === 34) inString = false
      else if (ch === 10) line++
      continue
    }
    if (ch === 10) {
      line++
      continue
    }
    if (ch === 32 || ch === 9 || ch === 13) continue
    if (depth === 1 && expectItem && ch !== 93) lines.push(line)
    expectItem = false
    if (ch === 34) inString = true
    else if (ch === 91 || ch === 123) {
      depth++
      if (depth === 1) expectItem = true
    } else if (ch === 93 || ch === 125) depth--
    else if (ch === 44 && depth === 1) expectItem = true
  }
  return lines
}

/** Reads, parses and validates every record; errors name the file, the record, its line and the field. */
function readRecords(path: string | URL, where: string, benchmark: CodeEvalProBenchmark): CodeEvalProRecord[] {
  const upstreamFile = UPSTREAM[benchmark].file
  const fileError = (message: string) => new CodeEvalProFileError(message)
  const hint = `Download dataset/${upstreamFile} from github.com/CodeEval-Pro/CodeEval-Pro and pass its path`
  const text = readBenchmarkText(path, where, hint, fileError, upstreamFile)

  let raw: unknown[]
  let lines: number[]
  const trimmed = text.trimStart()
  // Blank lines before the first record: lines count from the file's start.
  const leadingLines = text.slice(0, text.length - trimmed.length).split('\n').length - 1
  if (trimmed.startsWith('[')) {
    try {
      raw = JSON.parse(trimmed) as unknown[]
    } catch (error) {
      throw new CodeEvalProFileError(
        `${where}: the file is not valid JSON (${jsonErrorAt(error as Error, trimmed, leadingLines)}); expected a JSON array of records as in dataset/${upstreamFile}`,
      )
    }
    if (!Array.isArray(raw))
      throw new CodeEvalProFileError(`${where}: expected a JSON array of records (as in dataset/${upstreamFile})`)
    lines = arrayItemLines(trimmed).map((l) => l + leadingLines)
  } else if (trimmed.startsWith('{')) {
    raw = []
    lines = []
    const all = text.split('\n')
    for (let i = 0; i < all.length; i++) {
      const line = (all[i] ?? '').trim()
      if (line === '') continue
      try {
        raw.push(JSON.parse(line))
        lines.push(i + 1)
      } catch (error) {
        // Another benchmark's JSON Lines fail here no sooner than a torn line of ours: say which first.
        refuseOtherBenchmark(sniffRecords(text), benchmark, where, fileError)
        throw new CodeEvalProFileError(
          `${where}: line ${i + 1} is not valid JSON (${(error as Error).message}); expected one record per line (JSON Lines) or one JSON array`,
        )
      }
    }
  } else {
    refuseOtherBenchmark(sniffRecords(text), benchmark, where, fileError)
    throw new CodeEvalProFileError(
      `${where}: expected a JSON array of records (as in dataset/${upstreamFile}) or JSON Lines, but the file ${trimmed === '' ? 'is empty' : `starts with ${JSON.stringify(trimmed.slice(0, 20))}`}`,
    )
  }
  if (raw.length === 0) throw new CodeEvalProFileError(`${where}: the file holds no records`)
  // HumanEval Pro and MBPP Pro records have one shape: the wrong file would load, as the wrong benchmark.
  refuseOtherBenchmark(raw, benchmark, where, fileError)

  const records: CodeEvalProRecord[] = []
  const seen = new Map<string, number>()
  const at = (index: number) => (lines[index] !== undefined ? ` on line ${lines[index]}` : '')
  for (let index = 0; index < raw.length; index++) {
    const item = raw[index]
    const parsed = CodeEvalProRecordSchema.safeParse(item, { reportInput: true })
    if (!parsed.success) {
      const id =
        typeof item === 'object' && item !== null && 'id' in item
          ? ` (id ${JSON.stringify((item as { id: unknown }).id)})`
          : ''
      throw new CodeEvalProFileError(
        `${where}: record [${index}]${id}${at(index)} is malformed: ${describeZodError(parsed.error)}`,
      )
    }
    const key = String(parsed.data.id)
    const first = seen.get(key)
    if (first !== undefined)
      throw new CodeEvalProFileError(
        `${where}: record [${index}]${at(index)} repeats id ${JSON.stringify(parsed.data.id)} of record [${first}]${at(first)}; ids must be unique`,
      )
    seen.set(key, index)
    if (
      topLevelDefs(parsed.data.raw_problem).length === 0 &&
      blankStringsAndComments(parsed.data.raw_problem).trim() === ''
    ) {
      throw new CodeEvalProFileError(
        `${where}: record [${index}] (id ${JSON.stringify(parsed.data.id)})${at(index)}: raw_problem: expected the base function's signature, found only comments`,
      )
    }
    records.push(parsed.data)
  }
  return records
}

/** A JSON.parse message with the line of its position, when it gives a position but no line. */
function jsonErrorAt(error: Error, parsed: string, leadingLines: number): string {
  const position = /at position (\d+)/.exec(error.message)
  if (!position || /\bline \d+/.test(error.message)) return error.message
  return `${error.message}, line ${parsed.slice(0, Number(position[1])).split('\n').length + leadingLines}`
}
