import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fileLedger, SPEND_FILE } from './spend-ledger.js'

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
