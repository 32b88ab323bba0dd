import { fc, test as prop } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { decodeDiff, diffLines, diffStats, encodeDiff, splitLines, type DiffOp } from './diff.js'

/** Applies a diff to the old lines: must give the new ones. */
function apply(before: string[], ops: readonly DiffOp[]): { before: string[]; after: string[] } {
  return {
    before: ops.filter((o) => o.op !== 'insert').map((o) => o.line),
    after: ops.filter((o) => o.op !== 'delete').map((o) => o.line),
  }
}

/** Textbook LCS length, as an independent check of minimality. */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0)
  for (const x of a) {
    let diag = 0
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!
      row[j] = x === b[j - 1] ? diag + 1 : Math.max(row[j]!, row[j - 1]!)
      diag = up
    }
  }
  return row[b.length]!
}

describe('splitLines', () => {
  it('treats \\r\\n as one line end and ignores a final line end', () => {
    expect(splitLines('a\r\nb\n')).toEqual(['a', 'b'])
    expect(splitLines('a')).toEqual(['a'])
    expect(splitLines('')).toEqual([])
    expect(splitLines('\n')).toEqual([''])
    expect(splitLines('a\n\nb')).toEqual(['a', '', 'b'])
  })
})

describe('diffLines', () => {
  it('marks a changed line as deleted then inserted, keeping the rest', () => {
    const ops = diffLines('a\nb\nc', 'a\nx\nc')
    expect(ops.map((o) => `${o.op}:${o.line}`)).toEqual(['equal:a', 'delete:b', 'insert:x', 'equal:c'])
    expect(ops[0]).toMatchObject({ a: 0, b: 0 })
    expect(ops[1]).toMatchObject({ a: 1 })
    expect(ops[2]).toMatchObject({ b: 1 })
    expect(ops[3]).toMatchObject({ a: 2, b: 2 })
  })

  it('handles identical, empty and fully different texts', () => {
    expect(diffLines('a\nb', 'a\nb').every((o) => o.op === 'equal')).toBe(true)
    expect(diffLines('', '')).toEqual([])
    expect(diffLines('', 'a\nb').map((o) => o.op)).toEqual(['insert', 'insert'])
    expect(diffLines('a\nb', '').map((o) => o.op)).toEqual(['delete', 'delete'])
    expect(diffLines('a', 'b').map((o) => o.op)).toEqual(['delete', 'insert'])
  })

  it('finds the longest common subsequence, not just a common head and tail', () => {
    const before = 'def f(x):\n    y = 1\n    return x\n\ndef g():\n    pass'
    const after = 'def f(x):\n    return x\n\ndef h():\n    pass\n# end'
    const ops = diffLines(before, after)
    expect(ops.filter((o) => o.op === 'equal').map((o) => o.line)).toEqual([
      'def f(x):',
      '    return x',
      '',
      '    pass',
    ])
    expect(diffStats(ops)).toEqual({ added: 2, removed: 2 })
  })

  it('ignores a missing final newline and \\r\\n line ends', () => {
    expect(diffLines('a\r\nb\r\n', 'a\nb').every((o) => o.op === 'equal')).toBe(true)
  })

  it('falls back to delete-then-insert beyond maxCells, still a correct diff', () => {
    const ops = diffLines('h\na\nb\nt', 'h\nb\na\nt', { maxCells: 1 })
    expect(ops.map((o) => o.op)).toEqual(['equal', 'delete', 'delete', 'insert', 'insert', 'equal'])
    expect(apply(['h', 'a', 'b', 't'], ops).after).toEqual(['h', 'b', 'a', 't'])
  })

  const lines = fc.array(fc.constantFrom('a', 'b', 'c', '', '  x = 1'), { maxLength: 14 })
  prop.prop([lines, lines])('rebuilds both texts and keeps a longest common subsequence', (a, b) => {
    const ops = diffLines(a.join('\n'), b.join('\n'))
    const rebuilt = apply(a, ops)
    // A lone empty line is the same text as none: `splitLines` reads '' as no line.
    const norm = (x: string[]) => splitLines(x.join('\n'))
    expect(rebuilt.before).toEqual(norm(a))
    expect(rebuilt.after).toEqual(norm(b))
    expect(ops.filter((o) => o.op === 'equal').length).toBe(lcsLength(norm(a), norm(b)))
    expect(decodeDiff(encodeDiff(ops), a.join('\n'), b.join('\n'))).toEqual(ops)
  })
})

describe('encodeDiff / decodeDiff', () => {
  it('writes run lengths and reads them back against the texts', () => {
    const ops = diffLines('a\nb\nc\nd', 'a\nx\ny\nd')
    expect(encodeDiff(ops)).toBe('=1-2+2=1')
    expect(decodeDiff('=1-2+2=1', 'a\nb\nc\nd', 'a\nx\ny\nd')).toEqual(ops)
    expect(encodeDiff([])).toBe('')
  })

  it('refuses runs that do not fit the texts', () => {
    expect(() => decodeDiff('=3', 'a', 'a')).toThrow(/cover/)
  })
})
