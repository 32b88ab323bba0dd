import { describe, expect, it } from 'vitest'
import { ambiguityText, matchBaselineCell, modeOfCell } from './gate-match.js'

const ref = (actor: string, mode = 'verifier') => ({ cellId: `${actor} · ${mode}`, mode })

describe('matchBaselineCell', () => {
  it('takes the cell of the same id first, whatever else the baseline holds', () => {
    const baseline = [ref('a'), ref('b')]
    expect(matchBaselineCell(ref('a'), baseline, [ref('a'), ref('c')])).toEqual({
      kind: 'same-id',
      cellId: 'a · verifier',
    })
  })

  it('matches a renamed subject by its mode when it is the only one on each side', () => {
    // One actor per mode: a new model's cell is the old model's cell under a new subject.
    expect(
      matchBaselineCell(ref('new'), [ref('old'), ref('old', 'independent')], [ref('new'), ref('new', 'independent')]),
    ).toEqual({
      kind: 'by-mode',
      cellId: 'old · verifier',
    })
    // Two actors, one of them replaced: the other claims its own cell by id.
    expect(matchBaselineCell(ref('c'), [ref('a'), ref('b')], [ref('a'), ref('c')])).toEqual({
      kind: 'by-mode',
      cellId: 'b · verifier',
    })
  })

  it('is ambiguous when either side has several candidates, and names them', () => {
    const two = matchBaselineCell(ref('c'), [ref('a'), ref('b')], [ref('c')])
    expect(two).toEqual({ kind: 'ambiguous', baseline: ['a · verifier', 'b · verifier'], run: ['c · verifier'] })
    const added = matchBaselineCell(ref('c'), [ref('a')], [ref('c'), ref('d')])
    expect(added).toEqual({ kind: 'ambiguous', baseline: ['a · verifier'], run: ['c · verifier', 'd · verifier'] })
    const text = ambiguityText(ref('c'), added as Extract<typeof added, { kind: 'ambiguous' }>)
    expect(text).toContain('"a · verifier"')
    expect(text).toContain('"c · verifier", "d · verifier"')
    expect(text).toContain('stable id')
    expect(text).toContain('vitest run -u')
  })

  it('finds nothing in another mode: a new cell is new', () => {
    expect(matchBaselineCell(ref('a', 'binary'), [ref('a')], [ref('a'), ref('a', 'binary')])).toEqual({ kind: 'none' })
    expect(matchBaselineCell(ref('a'), [], [ref('a')])).toEqual({ kind: 'none' })
  })

  it('reads the mode of older stored cells from their id', () => {
    expect(modeOfCell({ cellId: 'openai:gpt-4.1 · critic-aware' })).toBe('critic-aware')
    expect(modeOfCell({ cellId: 'x · y', mode: 'z' })).toBe('z')
    expect(matchBaselineCell(ref('new'), [{ cellId: 'old · verifier' }], [ref('new')])).toEqual({
      kind: 'by-mode',
      cellId: 'old · verifier',
    })
  })
})
