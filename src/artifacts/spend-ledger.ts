import { appendFileSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Charge, SpendLedger, Spent } from '../protocol/cost-cap.js'

/** Beside `trajectories.jsonl`: every model call's spend, one line each, for the run's cost cap. */
export const SPEND_FILE = 'spend.jsonl'

/** One line of a spend file: session, USD, tokens (`null` when unknown). */
interface SpendLine {
  s: string
  c: number | null
  t: number | null
}

/** Reads the complete lines appended to a file since the last call (a line still being written waits). */
function tail(path: string): () => SpendLine[] {
  let offset = 0
  let partial = ''
  return () => {
    if (!existsSync(path)) return []
    const fd = openSync(path, 'r')
    try {
      const size = fstatSync(fd).size
      if (size <= offset) return []
      const buffer = Buffer.alloc(size - offset)
      const got = readSync(fd, buffer, 0, buffer.length, offset)
      offset += got
      const lines = (partial + buffer.subarray(0, got).toString('utf8')).split('\n')
      partial = lines.pop() ?? ''
      return lines.filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as SpendLine)
    } finally {
      closeSync(fd)
    }
  }
}

/** Adds a line to a running total: once anything counted was unknown, the total is. */
function count(total: Spent, line: SpendLine): void {
  total.costUsd = total.costUsd === null || line.c === null ? null : total.costUsd + line.c
  total.tokens = total.tokens === null || line.t === null ? null : total.tokens + line.t
}

const lineOf = (session: string, charge: Charge) =>
  `${JSON.stringify({ s: session, c: charge.costUsd, t: charge.tokens } satisfies SpendLine)}\n`

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
  const read = tail(path)
  return {
    add(charge: Charge) {
      appendFileSync(path, lineOf(session, charge))
    },
    spent() {
      for (const line of read()) if (line.s === session) count(total, line)
      return { ...total }
    },
  }
}

/**
 * The spend of every shard of a sharded run, kept in a directory on storage they all mount
 * (`SEQK_SHARDS_SPEND_DIR`). Each process writes a file of its own (`spend-<host>-<pid>-<random>.jsonl`),
 * so no two writers, on one machine or several, ever append to the same file: appends from several
 * machines to one file are not atomic on network file systems (NFS among them), separate files are.
 * `spent()` adds every file in the directory, this process's included, whatever session wrote it:
 * the directory is the scope, so a shard that is resumed keeps counting what it spent before, and a
 * new job needs a new directory. What another machine wrote is seen once its storage shows it
 * (NFS: within its attribute cache, seconds).
 *
 * @example
 * const ledger = directoryLedger('/shared/seqk-spend/job-42')
 * ledger.add({ costUsd: 0.002, tokens: 1200 }) // another shard's spent() now includes it
 */
export function directoryLedger(dir: string): SpendLedger {
  mkdirSync(dir, { recursive: true })
  const own = join(dir, `spend-${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}.jsonl`)
  const total: Spent = { costUsd: 0, tokens: 0 }
  const files = new Map<string, () => SpendLine[]>()
  return {
    add(charge: Charge) {
      appendFileSync(own, lineOf('shards', charge))
    },
    spent() {
      for (const name of readdirSync(dir))
        if (name.startsWith('spend-') && name.endsWith('.jsonl') && !files.has(name))
          files.set(name, tail(join(dir, name)))
      for (const read of files.values()) for (const line of read()) count(total, line)
      return { ...total }
    },
  }
}
