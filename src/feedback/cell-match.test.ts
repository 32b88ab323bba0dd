import { describe, expect, it } from 'vitest'
import { arcGridVerifier } from '../verifiers/arc-grid.js'
import { checkVerdict } from '../verifiers/verifier.js'
import { cellMatch, cellMatchText } from './cell-match.js'

const verifier = arcGridVerifier()
const verdict = (targets: number[][][], answer: string) =>
  checkVerdict(verifier, verifier.verify({ id: 'arc/t', prompt: 'p', expectedGrids: targets }, answer))

describe('feedback.cellMatch', () => {
  it('reports each grid: its size match and the share of its cells right, in the reference wording', () => {
    const targets = [[[1, 1, 1, 1]], [[2, 2]], [[3]]]
    const text = cellMatchText(verdict(targets, '{"test": [[[1, 1, 1, 0]], [[2]], [[3]]]}'), 8)
    expect(text).toBe(
      [
        'incorrect_output',
        'Output grid 1: size correct: True; content match accuracy: 75.00% (3 of 4 cells match).',
        'Output grid 2: size correct: False.',
        'Output grid 3: size correct: True; content match accuracy: 100.00%.',
      ].join('\n'),
    )
    expect(cellMatchText(verdict([[[1]]], '[[2]]'), 8)).toBe(
      'incorrect_output\nOutput grid: size correct: True; content match accuracy: 0.00% (0 of 1 cells match).',
    )
  })

  it('stops at maxLines grid lines and says so', () => {
    const targets = Array.from({ length: 10 }, () => [[1]])
    const answer = JSON.stringify({ test: targets.map(() => [[0]]) })
    const lines = cellMatchText(verdict(targets, answer), 8).split('\n')
    expect(lines).toHaveLength(1 + 8 + 1)
    expect(lines.at(-1)).toBe('...truncated remaining grid status (cap=8).')
  })

  it('gives a malformed answer the format hint, names its failing grids as requests, and checks its options', async () => {
    const mode = cellMatch()
    expect(mode).toMatchObject({ kind: 'verifier', name: 'cell_match', settings: { maxLines: 8 } })
    const hint = await mode.render({
      task: { id: 't', prompt: 'p' },
      attempt: 1,
      repeat: 0,
      answer: 'x',
      verdict: verdict([[[1]]], 'x'),
      history: [],
    })
    expect(hint.text).toMatch(/^format_error: could not parse/)
    const wrong = await mode.render({
      task: { id: 't', prompt: 'p' },
      attempt: 1,
      repeat: 0,
      answer: '',
      verdict: verdict([[[1]], [[2]]], '{"test": [[[1]], [[0]]]}'),
      history: [],
    })
    expect(wrong.requests).toEqual(['test:1'])
    expect(() => cellMatch({ maxLines: 0 })).toThrow(/maxLines must be an integer from 1 to 100/)
    expect(() => cellMatch({ lines: 3 } as never)).toThrow(/lines/)
  })
})
