/**
 * The ARC-AGI-2 verifier: an answer gives one output grid per test input, and the task is solved
 * when every grid equals its target exactly (same size, every cell). Deterministic, no model call.
 * Answers are read leniently, as the paper's reference harness reads them: a fenced JSON block or
 * the first JSON value in the text, small repairs (a missing comma between rows, a trailing comma),
 * and the shapes models write (`{ "test": [grid, …] }`, `[{ "output": grid }, …]`, a bare grid for
 * one test). An answer that holds no such grids is a failure with a format hint, never an error.
 * The diagnostics report per test grid whether its size is right and the share of cells that match,
 * never the target (what `feedback.cellMatch()` shows the actor).
 */
import { z } from 'zod'
import type { AnyTask } from '../core/task.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import type { TestOutcome, Verdict, Verifier } from './verifier.js'

/** A grid: rows of colours 0–9, 1×1 to 30×30, every row as long as the first. */
export const GridSchema = z
  .array(z.array(z.number().int().min(0).max(9)).min(1).max(30), { message: 'expected a grid: a list of rows' })
  .min(1)
  .max(30)
  .refine((g) => g.every((row) => row.length === g[0]!.length), 'every row of a grid must be as long as the first')
/** A grid of colours 0–9 (ARC's format). */
export type Grid = number[][]

/**
 * The task field the ARC grid verifier owns (`protocol/task.ts` adds it to TaskSchema): the target
 * output grid of each test input, in order. Part of the benchmark's content hash.
 *
 * @example
 * ArcGridTaskFieldsSchema.parse({ expectedGrids: [[[1, 0], [0, 1]]] })
 */
export const ArcGridTaskFieldsSchema = z.object({
  /** ARC tasks: the target output grid of each test input (graded by the ARC grid verifier). */
  expectedGrids: z.array(GridSchema).min(1).optional(),
})

const TargetsSchema = ArcGridTaskFieldsSchema.shape.expectedGrids.unwrap()

/** What a grid answer parses to: the grids, or why none could be read. */
export type ParsedGrids = { grids: Grid[] } | { error: string }

/** The text of the first fenced block, else the span from the first `{` or `[` to its last closer. */
function jsonCandidates(answer: string): string[] {
  const out: string[] = []
  for (const m of answer.matchAll(/```[a-zA-Z]*\s*\n?([\s\S]*?)```/g)) out.push(m[1]!.trim())
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ] as const) {
    const start = answer.indexOf(open)
    const end = answer.lastIndexOf(close)
    if (start !== -1 && end > start) out.push(answer.slice(start, end + 1))
  }
  out.push(answer.trim())
  return out
}

/** Small repairs models need: `][` without a comma, trailing commas, typographic quotes. */
function repaired(text: string): string {
  let out = text.replace(/[“”]/g, '"').replace(/[‘’]/g, "'")
  for (let i = 0; i < 4; i++) {
    const before = out
    out = out
      .replace(/([\]}])\s*([[{])/g, '$1,$2')
      .replace(/,\s*([\]}])/g, '$1')
      .replace(/,\s*,+/g, ',')
    if (out === before) break
  }
  return out
}

function firstJson(answer: string): unknown {
  for (const candidate of jsonCandidates(answer)) {
    if (candidate === '') continue
    for (const text of [candidate, repaired(candidate)]) {
      try {
        return JSON.parse(text) as unknown
      } catch {
        // the next reading
      }
    }
  }
  return undefined
}

const isGridLike = (v: unknown): v is unknown[][] =>
  Array.isArray(v) && v.length > 0 && v.every((row) => Array.isArray(row) && row.length > 0)

/**
 * Reads `count` output grids from an answer, leniently (see the module comment). Pure.
 *
 * @example
 * parseGrids('Here it is:\n```json\n{"test": [[[1, 2], [3, 4]]]}\n```', 1) // => { grids: [[[1, 2], [3, 4]]] }
 * parseGrids('I think it is blue.', 1) // => { error: 'no JSON value in the answer' }
 */
export function parseGrids(answer: string, count: number): ParsedGrids {
  let value = firstJson(answer)
  if (value === undefined) return { error: 'no JSON value in the answer' }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const o = value as Record<string, unknown>
    value = o.test ?? o.output ?? o.outputs ?? o.grids
  }
  if (!Array.isArray(value)) return { error: 'the JSON is neither a list of grids nor an object with "test"' }
  if (value.length > 0 && value.every((x) => typeof x === 'object' && x !== null && 'output' in x))
    value = value.map((x) => (x as { output: unknown }).output)
  const list = value as unknown[]
  // One test: a bare grid is its answer (a list of grids is a list of lists of lists).
  const grids = count === 1 && isGridLike(list) && !list.every(isGridLike) ? [list] : list
  if (grids.length !== count) return { error: `expected ${count} output grid(s), got ${grids.length}` }
  const out: Grid[] = []
  for (const [i, g] of grids.entries()) {
    const parsed = GridSchema.safeParse(g)
    if (!parsed.success) return { error: `output grid ${i + 1} is not a grid of integers 0-9 with rows of one length` }
    out.push(parsed.data)
  }
  return { grids: out }
}

/** One test grid against its target: whether the size matches, and if so how many cells do. */
export interface GridComparison {
  sizeMatch: boolean
  /** Cells that match (when the size matches) and the target's cells. */
  matching?: number
  cells?: number
  exact: boolean
}

/**
 * Compares each predicted grid with its target, cell by cell. Pure.
 *
 * @example
 * compareGrids([[[1, 2]]], [[[1, 3]]]) // => [{ sizeMatch: true, matching: 1, cells: 2, exact: false }]
 */
export function compareGrids(predicted: readonly Grid[], targets: readonly Grid[]): GridComparison[] {
  return targets.map((target, i) => {
    const p = predicted[i]!
    const sizeMatch = p.length === target.length && p[0]!.length === target[0]!.length
    if (!sizeMatch) return { sizeMatch, exact: false }
    let matching = 0
    for (let r = 0; r < target.length; r++)
      for (let c = 0; c < target[0]!.length; c++) if (p[r]![c] === target[r]![c]) matching++
    const cells = target.length * target[0]!.length
    return { sizeMatch, matching, cells, exact: matching === cells }
  })
}

/** A grid's status line, as the reference harness words it (never the target: its size only as "correct"). */
export function gridStatus(c: GridComparison): string {
  if (c.exact) return 'size correct: True; content match accuracy: 100.00%.'
  if (!c.sizeMatch) return 'size correct: False.'
  const share = ((c.matching! / c.cells!) * 100).toFixed(2)
  return `size correct: True; content match accuracy: ${share}% (${c.matching} of ${c.cells} cells match).`
}

/** The label of test grid i of n: `Output grid` alone, else numbered from 1. */
export function gridLabel(i: number, n: number): string {
  return n === 1 ? 'Output grid' : `Output grid ${i + 1}`
}

/** The hint a malformed answer gets: the shape to write, never the target's. */
export function formatHint(count: number): string {
  return [
    'format_error: could not parse your response as valid grid JSON.',
    'hint: return a JSON object with key "test" mapping to a list of grids; each grid is a list of rows of integers 0-9.',
    ...(count === 1 ? [] : [`hint: expected ${count} test output grids.`]),
  ].join('\n')
}

/** The target grids of an ARC task, or why it has none. */
export function targetsOf(task: AnyTask): Grid[] | string {
  if (task.expectedGrids === undefined) return 'needs `expectedGrids` (the target output grid of each test input)'
  const parsed = TargetsSchema.safeParse(task.expectedGrids)
  if (!parsed.success) return 'has `expectedGrids` that are not a non-empty list of grids of integers 0-9'
  return parsed.data
}

/**
 * The ARC grid verifier (ARC-AGI-2): pass when every output grid equals its target; score 1 or 0.
 * A malformed answer fails with outcome `no-answer` and a format hint; a wrong one with outcome
 * `failed` and one test per grid (`source` its label, `actual` its size match and cell accuracy).
 *
 * @example
 * seqEval('ARC-AGI-2', { tasks: loadArcAgi2(dir, { limit: 10 }), verifier: arcGridVerifier(), modes: { cell_match: { feedback: feedback.cellMatch() } }, ... })
 */
export function arcGridVerifier(options: Record<string, never> = {}): Verifier {
  rejectUnknownOptions('arcGridVerifier()', options, [])
  return {
    name: 'arc-grid',
    version: '1',
    settings: {},
    checkTask(task) {
      const targets = targetsOf(task)
      return typeof targets === 'string' ? [targets] : []
    },
    normalise: (answer) => {
      const parsed = firstJson(answer)
      return parsed === undefined ? answer.trim() : JSON.stringify(parsed)
    },
    verify(task, answer): Verdict {
      const targets = targetsOf(task)
      if (typeof targets === 'string') throw new Error(`arc-grid verifier: task ${JSON.stringify(task.id)} ${targets}`)
      const parsed = parseGrids(answer, targets.length)
      if ('error' in parsed)
        return {
          pass: false,
          score: 0,
          diagnostics: {
            outcome: 'no-answer',
            summary: `format_error: ${parsed.error}`,
            error: formatHint(targets.length),
          },
        }
      const report = compareGrids(parsed.grids, targets)
      const wrong = report.filter((c) => !c.exact).length
      // `actual` is the grid's status; a wrong grid's is its `error` too, which verifier feedback prints.
      const tests: TestOutcome[] = report.map((c, i) => ({
        index: i,
        source: gridLabel(i, report.length),
        pass: c.exact,
        actual: gridStatus(c),
        ...(c.exact ? {} : { error: gridStatus(c) }),
      }))
      const pass = wrong === 0
      return {
        pass,
        score: pass ? 1 : 0,
        extracted: JSON.stringify(parsed.grids),
        diagnostics: {
          outcome: pass ? 'passed' : 'failed',
          summary: pass
            ? `correct_output: all ${report.length} output grid(s) match`
            : `incorrect_output: ${wrong} of ${report.length} output grid(s) wrong`,
          tests,
        },
      }
    },
  }
}
