/**
 * Reading rubric benchmark files (HealthBench, AdvancedIF, CL-bench): JSON Lines and CSV, with
 * errors that name the file, the record and the field. Shared by the loaders in src/benchmarks/.
 */
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import { describeZodError } from '../../core/zod-errors.js'

/** A rubric benchmark file is missing or malformed; the message names the record and the field. */
export class RubricBenchmarkFileError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RubricBenchmarkFileError'
  }
}

/** A path as the user gave it, for messages. */
export function displayPath(path: string | URL): string {
  return path instanceof URL ? (path.protocol === 'file:' ? fileURLToPath(path) : path.href) : path
}

/** One raw record and the 1-based line (JSONL) or row (CSV) it came from. */
export interface RawRecord {
  line: number
  value: unknown
}

/**
 * Parses JSON Lines: one JSON object per non-blank line.
 *
 * @throws RubricBenchmarkFileError naming the line that is not a JSON object.
 */
export function parseJsonLines(text: string, where: string): RawRecord[] {
  const out: RawRecord[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line === '') continue
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      const hint =
        i === 0 && line.startsWith('[')
          ? '; the file looks like one JSON array, but this loader reads JSON Lines (one record per line)'
          : ''
      throw new RubricBenchmarkFileError(
        `${where}: line ${i + 1} is not valid JSON (${(error as Error).message})${hint}`,
      )
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new RubricBenchmarkFileError(`${where}: line ${i + 1} is not a JSON object (one record per line)`)
    out.push({ line: i + 1, value })
  }
  if (out.length === 0) throw new RubricBenchmarkFileError(`${where}: the file holds no records`)
  return out
}

/**
 * Parses CSV (RFC 4180: a header row, quoted fields, `""` for a quote inside one, newlines inside
 * quotes) into one object per row, keyed by the header.
 *
 * @throws RubricBenchmarkFileError for an unterminated quote or a row with the wrong field count.
 * @example
 * parseCsv('a,b\n1,"x ""y"""\n', 'f.csv') // [{ line: 2, value: { a: '1', b: 'x "y"' } }]
 */
export function parseCsv(text: string, where: string): RawRecord[] {
  const rows: { line: number; fields: string[] }[] = []
  let fields: string[] = []
  let field = ''
  let quoted = false
  let line = 1
  let rowLine = 1
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const endRow = () => {
    fields.push(field)
    if (!(fields.length === 1 && fields[0] === '')) rows.push({ line: rowLine, fields })
    fields = []
    field = ''
  }
  for (; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else {
        if (ch === '\n') line++
        field += ch
      }
    } else if (ch === '"' && field === '') quoted = true
    else if (ch === ',') {
      fields.push(field)
      field = ''
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++
      endRow()
      line++
      rowLine = line
    } else field += ch
  }
  if (quoted)
    throw new RubricBenchmarkFileError(`${where}: row starting on line ${rowLine} has an unterminated quoted field`)
  if (field !== '' || fields.length > 0) endRow()
  const [header, ...body] = rows
  if (!header) throw new RubricBenchmarkFileError(`${where}: the file is empty`)
  if (body.length === 0) throw new RubricBenchmarkFileError(`${where}: the file holds a header and no records`)
  return body.map((row) => {
    if (row.fields.length !== header.fields.length) {
      throw new RubricBenchmarkFileError(
        `${where}: the row on line ${row.line} has ${row.fields.length} fields, the header ${header.fields.length} (${header.fields.join(', ')})`,
      )
    }
    return { line: row.line, value: Object.fromEntries(header.fields.map((name, k) => [name.trim(), row.fields[k]!])) }
  })
}

/**
 * Validates one record, or throws naming the record and the field.
 *
 * @example
 * parseRecord(HealthBenchRecordSchema, raw.value, `loadHealthBench("hb.jsonl"): line ${raw.line}`)
 */
export function parseRecord<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(value, { reportInput: true })
  if (!parsed.success) throw new RubricBenchmarkFileError(`${where} is malformed: ${describeZodError(parsed.error)}`)
  return parsed.data
}

/**
 * A string field that holds JSON (AdvancedIF double-encodes its fields), decoded; an
 * already-decoded value passes through unchanged (as the upstream processor accepts both).
 */
export function jsonString<S extends z.ZodType>(inner: S, what: string) {
  return z.preprocess((value, ctx) => {
    if (typeof value !== 'string') return value
    try {
      return JSON.parse(value) as unknown
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `expected a string holding JSON (${what}), but it does not parse: ${(error as Error).message}`,
        input: value.length > 40 ? `${value.slice(0, 40)}…` : value,
      })
      return z.NEVER
    }
  }, inner)
}

/** Chat messages as benchmark files give them (system, user, assistant; text content). */
export const BenchmarkMessagesSchema = z
  .array(
    z.object({
      role: z.enum(['system', 'user', 'assistant'], {
        message: "a message role must be 'system', 'user' or 'assistant'",
      }),
      content: z.string({ message: 'a message content must be a string' }),
    }),
    { message: 'expected a list of chat messages [{ role, content }]' },
  )
  .min(1, 'the conversation is empty')
  .refine((ms) => ms.at(-1)?.role === 'user', {
    message: 'the conversation must end with a user message (the turn the model answers)',
  })

/** Options every rubric benchmark loader takes. */
export interface SelectOptions {
  /** Keep only these tasks: upstream ids or task ids. */
  ids?: readonly string[]
  /** Keep at most this many tasks (after the other filters). */
  limit?: number
}

/**
 * Applies `ids` and `limit`, failing on unknown ids (a typo must not silently shrink a benchmark).
 */
export function select<T>(
  entries: readonly T[],
  options: SelectOptions,
  keysOf: (entry: T) => readonly string[],
  where: string,
): T[] {
  const { ids, limit } = options
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1))
    throw new RangeError(`${where}: limit must be an integer >= 1, got ${String(limit)}`)
  let out = [...entries]
  if (ids !== undefined) {
    if (!Array.isArray(ids)) throw new TypeError(`${where}: ids must be an array of ids`)
    const known = new Set(entries.flatMap(keysOf))
    const unknown = ids.filter((id) => !known.has(id))
    if (unknown.length > 0)
      throw new RubricBenchmarkFileError(
        `${where}: ids: no record with id ${unknown.map((u) => JSON.stringify(u)).join(', ')} in this file (${entries.length} records)`,
      )
    const wanted = new Set(ids)
    out = out.filter((e) => keysOf(e).some((k) => wanted.has(k)))
  }
  return limit !== undefined ? out.slice(0, limit) : out
}

/** Throws when two tasks would share an id. */
export function assertUniqueIds(ids: readonly { id: string; line: number }[], where: string): void {
  const seen = new Map<string, number>()
  for (const { id, line } of ids) {
    const first = seen.get(id)
    if (first !== undefined)
      throw new RubricBenchmarkFileError(
        `${where}: line ${line} repeats the task id ${JSON.stringify(id)} of line ${first}; ids must be unique`,
      )
    seen.set(id, line)
  }
}
