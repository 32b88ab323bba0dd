import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cellMatchText } from '../feedback/cell-match.js'
import { arcGridVerifier, compareGrids, parseGrids, type Grid } from './arc-grid.js'
import { checkVerdict } from './verifier.js'

const target: Grid = [
  [1, 2, 3],
  [4, 5, 6],
]
const task = (grids: Grid[]) => ({ id: 'arc/t', prompt: 'solve', expectedGrids: grids })

describe('parseGrids: lenient, as the reference harness reads answers', () => {
  it.each([
    ['a fenced JSON block', 'Here:\n```json\n{"test": [[[1, 2, 3], [4, 5, 6]]]}\n```\nDone.'],
    ['a bare grid for one test', 'The answer is [[1,2,3],[4,5,6]] I think'],
    ['an object with output', '{"output": [[1, 2, 3], [4, 5, 6]]}'],
    ['a list of { output }', '[{"output": [[1, 2, 3], [4, 5, 6]]}]'],
    ['a missing comma between rows', '{"test": [[[1, 2, 3] [4, 5, 6]]]}'],
    ['a trailing comma', '{"test": [[[1, 2, 3], [4, 5, 6],],]}'],
    ['an unlabelled fence', '```\n[[[1,2,3],[4,5,6]]]\n```'],
  ])('reads %s', (_, answer) => {
    expect(parseGrids(answer, 1)).toEqual({ grids: [target] })
  })

  it('reads several grids in order, and refuses the wrong count', () => {
    expect(parseGrids('{"test": [[[1]], [[2, 3]]]}', 2)).toEqual({ grids: [[[1]], [[2, 3]]] })
    expect(parseGrids('{"test": [[[1]]]}', 2)).toEqual({ error: 'expected 2 output grid(s), got 1' })
  })

  it('says why an answer holds no grid', () => {
    expect(parseGrids('blue, probably', 1)).toEqual({ error: 'no JSON value in the answer' })
    expect(parseGrids('{"grid": 3}', 1)).toMatchObject({ error: expect.stringContaining('neither a list of grids') })
    expect(parseGrids('[[1, 2], [3]]', 1)).toMatchObject({ error: expect.stringContaining('rows of one length') })
    expect(parseGrids('[[1, 12]]', 1)).toMatchObject({ error: expect.stringContaining('integers 0-9') })
  })
})

describe('compareGrids', () => {
  it('reports size match and matching cells', () => {
    expect(
      compareGrids(
        [
          [
            [1, 2, 3],
            [4, 0, 6],
          ],
        ],
        [target],
      ),
    ).toEqual([{ sizeMatch: true, matching: 5, cells: 6, exact: false }])
    expect(compareGrids([[[1]]], [target])).toEqual([{ sizeMatch: false, exact: false }])
    expect(compareGrids([target], [target])[0]!.exact).toBe(true)
  })
})

describe('arcGridVerifier', () => {
  const verifier = arcGridVerifier()

  it('passes exactly the target, scores 1 or 0, and its verdicts meet the contract', () => {
    const good = verifier.verify(task([target]), JSON.stringify({ test: [target] }))
    expect(checkVerdict(verifier, good)).toMatchObject({ pass: true, score: 1 })
    const bad = verifier.verify(task([target]), '[[1, 2, 3], [4, 5, 5]]')
    expect(checkVerdict(verifier, bad)).toMatchObject({
      pass: false,
      score: 0,
      diagnostics: { outcome: 'failed', summary: 'incorrect_output: 1 of 1 output grid(s) wrong' },
    })
  })

  it('fails a malformed answer with a format hint (never an error)', () => {
    const v = verifier.verify(task([target, target]), 'no idea')
    expect(v).toMatchObject({ pass: false, score: 0, diagnostics: { outcome: 'no-answer' } })
    expect((v as { diagnostics: { error: string } }).diagnostics.error).toBe(
      'format_error: could not parse your response as valid grid JSON.\nhint: return a JSON object with key "test" mapping to a list of grids; each grid is a list of rows of integers 0-9.\nhint: expected 2 test output grids.',
    )
  })

  it('names a task without target grids at declaration', () => {
    expect(verifier.checkTask!({ id: 'x', prompt: 'p' })).toEqual([
      'needs `expectedGrids` (the target output grid of each test input)',
    ])
    expect(verifier.checkTask!({ id: 'x', prompt: 'p', expectedGrids: [[[10]]] })[0]).toMatch(/not a non-empty list/)
  })

  it('never puts a target cell the answer got wrong into its verdict or the cell-match text (fast-check)', () => {
    // Targets of a colour the answers never use (7): any 7 in the verdict's text would be a leak.
    const grid = (colour: fc.Arbitrary<number>) =>
      fc
        .tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }))
        .chain(([h, w]) => fc.array(fc.array(colour, { minLength: w, maxLength: w }), { minLength: h, maxLength: h }))
    fc.assert(
      fc.property(grid(fc.constant(7)), grid(fc.integer({ min: 0, max: 6 })), (t, answer) => {
        const v = verifier.verify(task([t]), JSON.stringify({ test: [answer] }))
        const text = JSON.stringify(v) + cellMatchText(checkVerdict(verifier, v), 8)
        expect(text).not.toMatch(/\b7\b/)
      }),
      { seed: 46, numRuns: 200 },
    )
  })
})
