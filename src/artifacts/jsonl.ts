import { closeSync, openSync, readSync } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import type { z } from 'zod'
import { describeZodError } from '../core/zod-errors.js'

/** Bytes read at a time: a run's file is streamed, never held whole. */
const CHUNK = 1024 * 1024

/**
 * Streams a JSON Lines file, validating every line and handing each item to `onItem` as it is
 * read: memory holds one chunk and one line, however large the file. A malformed line throws an
 * error naming the file, the line and the field; only an unterminated last line, which a crash
 * mid-write can leave, is skipped and reported as `truncatedTail`. With `bytes`, only the file's
 * first `bytes` bytes are read (what a resumed run found on disk before it appended anything).
 *
 * @example
 * forEachJsonLine('run/trajectories.jsonl', TrajectorySchema, 'trajectory', (t) => count++)
 */
export function forEachJsonLine<S extends z.ZodType>(
  path: string,
  schema: S,
  what: string,
  onItem: (item: z.output<S>, line: number) => void,
  bytes?: number,
): { truncatedTail: boolean } {
  const fd = openSync(path, 'r')
  const decoder = new StringDecoder('utf8')
  const buffer = Buffer.alloc(CHUNK)
  let pending = ''
  let line = 0
  let position = 0
  const handle = (text: string, unterminated: boolean): boolean => {
    line += 1
    if (text.trim() === '') return false
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      // A line cut off mid-write is the last one, with no newline after it, and is not valid JSON.
      if (unterminated) return true
      throw new Error(`${path}:${line}: not valid JSON; each line must be one ${what}`)
    }
    // A complete JSON object with a wrong field is an error, not a cut-off line.
    const parsed = schema.safeParse(json)
    if (!parsed.success) throw new Error(`${path}:${line}: not a seqk ${what}: ${describeZodError(parsed.error)}`)
    onItem(parsed.data, line)
    return false
  }
  try {
    for (;;) {
      const want = bytes === undefined ? CHUNK : Math.min(CHUNK, bytes - position)
      const n = want > 0 ? readSync(fd, buffer, 0, want, position) : 0
      if (n === 0) break
      position += n
      pending += decoder.write(buffer.subarray(0, n))
      let start = 0
      for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n', start)) {
        handle(pending.slice(start, at), false)
        start = at + 1
      }
      pending = pending.slice(start)
    }
    pending += decoder.end()
    return { truncatedTail: pending === '' ? false : handle(pending, true) }
  } finally {
    closeSync(fd)
  }
}

/**
 * Reads a JSON Lines file into an array, validating every line (see {@link forEachJsonLine}).
 *
 * @example
 * const { items } = readJsonLines('run/trajectories.jsonl', TrajectorySchema, 'trajectory')
 */
export function readJsonLines<S extends z.ZodType>(
  path: string,
  schema: S,
  what: string,
  bytes?: number,
): { items: z.output<S>[]; truncatedTail: boolean } {
  const items: z.output<S>[] = []
  const { truncatedTail } = forEachJsonLine(path, schema, what, (item) => items.push(item), bytes)
  return { items, truncatedTail }
}
