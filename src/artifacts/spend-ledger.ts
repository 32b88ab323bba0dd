import { appendFileSync, closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs'
import type { Charge, SpendLedger, Spent } from '../protocol/cost-cap.js'

/** Beside `trajectories.jsonl`: every model call's spend, one line each, for the run's cost cap. */
export const SPEND_FILE = 'spend.jsonl'

/**
 * A run's spend shared by every worker: each call appends one line (`{"s","c","t"}`: session, USD,
 * tokens; `null` when unknown) and `spent()` reads what was appended since it last looked, so a
 * worker sees the calls of the others. Only this session's lines count: a resumed run continues
 * under its own cap. Lines are a few dozen bytes, each one `write` to a file opened for appending,
 * so lines of concurrent workers do not interleave; a line still being written is read next time.
 *
 * @example
 * const ledger = fileLedger(join(runDir, SPEND_FILE), session)
 * ledger.add({ costUsd: 0.002, tokens: 1200 })
 */
export function fileLedger(path: string, session: string): SpendLedger {
  const total: Spent = { costUsd: 0, tokens: 0 }
  let offset = 0
  let partial = ''
  const read = () => {
    if (!existsSync(path)) return
    const fd = openSync(path, 'r')
    try {
      const size = fstatSync(fd).size
      if (size <= offset) return
      const buffer = Buffer.alloc(size - offset)
      const got = readSync(fd, buffer, 0, buffer.length, offset)
      offset += got
      const text = partial + buffer.subarray(0, got).toString('utf8')
      const lines = text.split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) {
        if (line.trim() === '') continue
        const record = JSON.parse(line) as { s: string; c: number | null; t: number | null }
        if (record.s !== session) continue
        total.costUsd = total.costUsd === null || record.c === null ? null : total.costUsd + record.c
        total.tokens = total.tokens === null || record.t === null ? null : total.tokens + record.t
      }
    } finally {
      closeSync(fd)
    }
  }
  return {
    add(charge: Charge) {
      appendFileSync(path, `${JSON.stringify({ s: session, c: charge.costUsd, t: charge.tokens })}\n`)
    },
    spent() {
      read()
      return { ...total }
    },
  }
}
