import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cutTornTail } from '../../artifacts/trajectories-file.js'
import { LineTail } from './tail.js'

describe('LineTail', () => {
  let dir: string
  let file: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seqk-tail-'))
    file = join(dir, 'trajectories.jsonl')
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))
  const texts = (tail: LineTail) => tail.read().lines.map((l) => [l.line, l.text])

  it('reads a file that appears later, then only what each append adds, by byte offset', () => {
    const tail = new LineTail(file)
    expect(tail.read()).toMatchObject({ lines: [], reset: false })
    writeFileSync(file, 'a\nb\n')
    expect(texts(tail)).toEqual([
      [1, 'a'],
      [2, 'b'],
    ])
    expect(tail.position).toBe(4)
    expect(texts(tail)).toEqual([])
    appendFileSync(file, 'c\n')
    expect(texts(tail)).toEqual([[3, 'c']])
  })

  it('keeps a torn last line until its newline arrives, even split inside a multi-byte character', () => {
    const tail = new LineTail(file)
    const euro = Buffer.from('{"x":"€"}\n')
    writeFileSync(file, Buffer.concat([Buffer.from('one\n'), euro.subarray(0, 7)]))
    expect(texts(tail)).toEqual([[1, 'one']])
    expect(tail.position).toBe(4)
    appendFileSync(file, euro.subarray(7, 9))
    expect(texts(tail)).toEqual([])
    appendFileSync(file, euro.subarray(9))
    expect(texts(tail)).toEqual([[2, '{"x":"€"}']])
  })

  it('skips blank lines but counts them, so line numbers match the file', () => {
    writeFileSync(file, 'a\n\n  \nb\n')
    expect(texts(new LineTail(file))).toEqual([
      [1, 'a'],
      [4, 'b'],
    ])
  })

  it('reads on after a torn tail is cut back to the last newline (a resumed run)', () => {
    const tail = new LineTail(file)
    writeFileSync(file, 'a\n{"torn')
    expect(texts(tail)).toEqual([[1, 'a']])
    cutTornTail(file)
    appendFileSync(file, 'b\n')
    expect(tail.read()).toMatchObject({ lines: [{ text: 'b', line: 2 }], reset: false })
  })

  it('starts over when the file is truncated below what was read, or replaced by another file', () => {
    const tail = new LineTail(file)
    writeFileSync(file, 'a\nb\n')
    tail.read()
    truncateSync(file, 0)
    appendFileSync(file, 'x\n')
    expect(tail.read()).toMatchObject({ lines: [{ text: 'x', line: 1 }], reset: true })
    // Rotation: a new file renamed over the old one, even a longer one.
    writeFileSync(join(dir, 'next'), 'p\nq\nr\n')
    renameSync(join(dir, 'next'), file)
    expect(tail.read()).toMatchObject({
      lines: [
        { text: 'p', line: 1 },
        { text: 'q', line: 2 },
        { text: 'r', line: 3 },
      ],
      reset: true,
    })
  })

  it('reads a line longer than its read buffer whole', () => {
    const long = 'x'.repeat(3 * 1024 * 1024 + 17)
    writeFileSync(file, `${long}\nshort\n`)
    const lines = new LineTail(file).read().lines
    expect(lines.map((l) => l.text.length)).toEqual([long.length, 5])
  })
})
