import { readFileSync } from 'node:fs'
import type { z } from 'zod'
import { describeZodError } from './zod-errors.js'

/**
 * Reads a JSON Lines file, validating every line. A malformed line throws an error naming the file,
 * the line and the field; only an unterminated last line, which a crash mid-write can leave, is
 * skipped and reported as `truncatedTail`. With `bytes`, only the file's first `bytes` bytes are
 * read (what a resumed run found on disk before it appended anything).
 *
 * @example
 * const { items } = readJsonLines('run/trajectories.jsonl', TrajectorySchema, 'trajectory')
 */
export function readJsonLines<S extends z.ZodType>(path: string, schema: S, what: string, bytes?: number): { items: z.output<S>[]; truncatedTail: boolean } {
  const raw = readFileSync(path)
  const text = (bytes === undefined ? raw : raw.subarray(0, bytes)).toString('utf8')
  const lines = text.split('\n')
  const items: z.output<S>[] = []
  let truncatedTail = false
  lines.forEach((line, i) => {
    if (line.trim() === '') return
    // A line cut off mid-write is the last one, with no newline after it, and is not valid JSON.
    const unterminated = i === lines.length - 1 && !text.endsWith('\n')
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      if (unterminated) {
        truncatedTail = true
        return
      }
      throw new Error(`${path}:${i + 1}: not valid JSON; each line must be one ${what}`)
    }
    // A complete JSON object with a wrong field is an error, not a cut-off line.
    const parsed = schema.safeParse(json)
    if (!parsed.success) {
      throw new Error(`${path}:${i + 1}: not a seqk ${what}: ${describeZodError(parsed.error)}`)
    }
    items.push(parsed.data)
  })
  return { items, truncatedTail }
}
