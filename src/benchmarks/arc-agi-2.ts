/**
 * ARC-AGI-2 (github.com/arcprize/ARC-AGI-2): abstract reasoning over coloured grids. One JSON file
 * per task, `{ train: [{ input, output }, …], test: [{ input, output }, …] }`; a grid is rows of
 * integers 0–9. The actor sees the training pairs and the test inputs and answers with the test
 * output grids; `arcGridVerifier()` compares them exactly. The public evaluation split has 120
 * tasks (`evaluation/<id>.json`, their order in `evaluation.txt`).
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { displayPath, select, type SelectOptions } from '../verifiers/rubric/benchmark-files.js'
import { GridSchema, type Grid } from '../verifiers/arc-grid.js'
import { readBenchmarkText } from './text-file.js'
import { describeZodError } from '../core/zod-errors.js'

export { arcGridVerifier } from '../verifiers/arc-grid.js'

/** An ARC task file that cannot be loaded: the message names the file, the field and the fix. */
export class ArcFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ArcFileError'
  }
}

/** One ARC task file. */
export const ArcTaskFileSchema = z.object({
  train: z
    .array(z.object({ input: GridSchema, output: GridSchema }), { message: 'expected the training pairs' })
    .min(1),
  test: z
    .array(z.object({ input: GridSchema, output: GridSchema }), {
      message: 'expected the test pairs, each with its output (the public splits have them)',
    })
    .min(1),
})
export type ArcTaskFile = z.infer<typeof ArcTaskFileSchema>

/** The options of `loadArcAgi2`: which split, and which tasks. */
export interface ArcAgi2Options extends SelectOptions {
  /** The split's folder under the data directory (default `evaluation`). */
  split?: string
}

const grid = (g: Grid) => JSON.stringify(g)

/**
 * The actor's prompt for a task: what the puzzle is, the training pairs, the test input(s), and
 * the answer's shape (our own wording; the reference harness's prompt text is not reproduced).
 *
 * @example
 * arcPrompt({ train: [{ input: [[1]], output: [[2]] }], test: [{ input: [[3]], output: [[4]] }] })
 * // => 'Each example below maps an input grid to an output grid …'
 */
export function arcPrompt(file: ArcTaskFile): string {
  const examples = file.train.flatMap((pair, i) => [
    `--Example ${i}--`,
    'INPUT:',
    grid(pair.input),
    'OUTPUT:',
    grid(pair.output),
    '',
  ])
  const tests =
    file.test.length === 1
      ? ['--Test Input--', grid(file.test[0]!.input), '--End of Test Input--']
      : [
          '--Test Inputs--',
          ...file.test.flatMap((pair, i) => [`--Test Input ${i}--`, grid(pair.input)]),
          '--End of Test Inputs--',
        ]
  return [
    'Each example below maps an input grid to an output grid by one rule. A grid is a list of rows; each cell is a colour 0-9.',
    'Find the rule and apply it to the test input(s).',
    '',
    '--Training Examples--',
    ...examples,
    '--End of Training Examples--',
    '',
    ...tests,
    '',
    `Answer with a JSON object {"test": [grid, …]} holding one output grid per test input (${file.test.length} here), in order.`,
  ].join('\n')
}

/**
 * One ARC task file as a task: id `arc-agi-2/<id>`, the prompt of {@link arcPrompt}, and the test
 * outputs as `expectedGrids` (never shown to the actor).
 *
 * @example
 * const task = arcTask('0934a4d8', JSON.parse(text))
 */
export function arcTask(id: string, file: ArcTaskFile, split = 'evaluation') {
  return {
    id: `arc-agi-2/${id}`,
    prompt: arcPrompt(file),
    expectedGrids: file.test.map((pair) => pair.output),
    metadata: { source: 'arc-agi-2', split, arcId: id, tests: file.test.length },
  }
}

/**
 * Loads ARC-AGI-2 tasks from a data directory holding `<split>/<id>.json` (and `<split>.txt`, the
 * canonical order; without it, ids sorted). Synchronous, so an eval file can call it at
 * declaration time.
 *
 * @throws ArcFileError for a missing directory or a malformed file (naming the file and the field).
 * @example
 * const tasks = loadArcAgi2('../shared/benchmarks/arc-agi-2', { limit: 10 })
 * seqEval('ARC-AGI-2', { tasks, verifier: arcGridVerifier(), modes: { cell_match: { feedback: feedback.cellMatch() } }, ... })
 */
export function loadArcAgi2(dir: string | URL, options: ArcAgi2Options = {}): ReturnType<typeof arcTask>[] {
  const root = dir instanceof URL ? fileURLToPath(dir) : dir
  const split = options.split ?? 'evaluation'
  const where = `loadArcAgi2(${JSON.stringify(displayPath(dir))})`
  const folder = join(root, split)
  if (!existsSync(folder))
    throw new ArcFileError(
      `${where}: no ${split}/ folder in ${root}: pass the directory that holds ${split}/<task id>.json (the ARC-AGI-2 repository's data/ folder)`,
    )
  const listFile = join(root, `${split}.txt`)
  const ids = existsSync(listFile)
    ? readBenchmarkText(listFile, where, 'the split list', (m) => new ArcFileError(m))
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean)
    : readdirSync(folder)
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -'.json'.length))
        .sort()
  const chosen = select(ids, options, (id) => [id, `arc-agi-2/${id}`], where)
  return chosen.map((id) => {
    const path = join(folder, `${id}.json`)
    const text = readBenchmarkText(path, where, `${split}.txt names ${id}`, (m) => new ArcFileError(m))
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      throw new ArcFileError(`${where}: ${path} is not JSON: ${(error as Error).message}`)
    }
    const parsed = ArcTaskFileSchema.safeParse(json, { reportInput: true })
    if (!parsed.success) throw new ArcFileError(`${where}: ${path} is malformed: ${describeZodError(parsed.error)}`)
    return arcTask(id, parsed.data, split)
  })
}
