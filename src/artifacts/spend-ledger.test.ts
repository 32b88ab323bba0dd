import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { directoryLedger, fileLedger, SPEND_FILE } from './spend-ledger.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-spend-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('fileLedger', () => {
  it("adds what every writer of the session appended, not other sessions', and keeps unknown unknown", () => {
    const path = join(dir, SPEND_FILE)
    const a = fileLedger(path, 's1')
    const b = fileLedger(path, 's1')
    const other = fileLedger(path, 's0')
    expect(a.spent()).toEqual({ costUsd: 0, tokens: 0 })
    a.add({ costUsd: 0.25, tokens: 100 })
    b.add({ costUsd: 0.5, tokens: 20 })
    other.add({ costUsd: 10, tokens: 10 })
    expect(a.spent()).toEqual({ costUsd: 0.75, tokens: 120 })
    expect(b.spent()).toEqual({ costUsd: 0.75, tokens: 120 })
    b.add({ costUsd: null, tokens: 5 })
    expect(a.spent()).toEqual({ costUsd: null, tokens: 125 })
    expect(other.spent()).toEqual({ costUsd: 10, tokens: 10 })
  })
})

describe('directoryLedger', () => {
  it("adds every shard's file in the directory, each writer appending to a file of its own", () => {
    const shared = join(dir, 'shards')
    const [a, b, c] = [directoryLedger(shared), directoryLedger(shared), directoryLedger(shared)]
    expect(a.spent()).toEqual({ costUsd: 0, tokens: 0 })
    a.add({ costUsd: 0.25, tokens: 100 })
    b.add({ costUsd: 0.5, tokens: 20 })
    c.add({ costUsd: 1, tokens: 1 })
    for (const l of [a, b, c]) expect(l.spent()).toEqual({ costUsd: 1.75, tokens: 121 })
    expect(readdirSync(shared).filter((n) => n.startsWith('spend-'))).toHaveLength(3)
    // A released reservation is a negative line; an unknown cost stays unknown for everyone.
    b.add({ costUsd: -0.5, tokens: -20 })
    c.add({ costUsd: null, tokens: 4 })
    expect(a.spent()).toEqual({ costUsd: null, tokens: 105 })
  })

  it('reads a line another machine is still writing once it is complete, and a file that appears later', () => {
    const shared = join(dir, 'late')
    const a = directoryLedger(shared)
    const other = join(shared, 'spend-elsewhere-1-abcd.jsonl')
    appendFileSync(other, '{"s":"shards","c":0.1,')
    expect(a.spent()).toEqual({ costUsd: 0, tokens: 0 })
    appendFileSync(other, '"t":10}\n')
    expect(a.spent()).toEqual({ costUsd: 0.1, tokens: 10 })
  })
})
