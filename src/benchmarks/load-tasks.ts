/**
 * Tasks from your own file: JSON Lines (one task, or one record to map, per line) or CSV (a header
 * row, then one record per row), each row checked against TaskSchema, every error naming the file,
 * the line and the field.
 */
import { readFileSync } from 'node:fs'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { parse } from 'csv-parse/sync'
import { z } from 'zod'
import { describeZodError } from '../core/zod-errors.js'
import { shown } from '../core/component-error.js'
import { rejectUnknownOptions } from '../core/option-checks.js'
import { TaskSchema, type Task, type TaskInput } from '../protocol/task.js'
import { decodeText, NotUtf8Error } from './text-file.js'

/** One record of the file: a JSON object (JSON Lines) or the row's cells by column name (CSV, all strings). */
export type TaskRow = Record<string, unknown>

/**
 * Which column gives which task field: `{ id: 'qid', prompt: 'question', expected: 'answer' }`.
 * Columns not named here are kept in the task's `metadata` (unless `metadata` lists the ones to keep).
 */
export interface TaskColumns {
  id?: string
  prompt?: string
  expected?: string
  tests?: string
  setup?: string
  entryPoint?: string
  /** The columns kept in `metadata`. Default: every column not mapped to a field. */
  metadata?: readonly string[]
}

/** The options of `loadTasks(path)`. */
export interface LoadTasksOptions {
  /**
   * How a record becomes a task: columns by field ({@link TaskColumns}), or a function from the
   * record (and its line) to a task. Default: the record is the task, its keys the task's fields.
   */
  map?: TaskColumns | ((row: TaskRow, line: number) => TaskInput)
  /** `'jsonl'` or `'csv'`. Default: from the file's extension (`.jsonl`, `.ndjson`, `.csv`, `.tsv`, each also `.gz`). */
  format?: 'jsonl' | 'csv'
  /** The CSV field delimiter (default `','`; `'\t'` for TSV). */
  delimiter?: string
  /** Only the first N tasks. */
  limit?: number
}

/** A task file that cannot be read, parsed or mapped: names the file, the line and the field. */
export class TaskFileError extends Error {
  constructor(
    message: string,
    /** The file, as given. */
    readonly file: string,
    /** The 1-based line the record starts on, when the problem is in one record. */
    readonly line?: number,
    /** The field (or column) at fault, when one is. */
    readonly field?: string,
  ) {
    super(message)
    this.name = 'TaskFileError'
  }
}

const OPTIONS = ['map', 'format', 'delimiter', 'limit'] as const
const FIELDS = ['id', 'prompt', 'expected', 'tests', 'setup', 'entryPoint', 'metadata'] as const
const RowSchema = z.record(z.string(), z.unknown())

interface FileRecord {
  row: TaskRow
  line: number
}

function formatOf(file: string, format: unknown): 'jsonl' | 'csv' {
  if (format === 'jsonl' || format === 'csv') return format
  if (format !== undefined)
    throw new TypeError(`loadTasks(${JSON.stringify(file)}): format must be 'jsonl' or 'csv', got ${shown(format)}`)
  const ext = extensionOf(file)
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl'
  if (ext === '.csv' || ext === '.tsv') return 'csv'
  throw new TypeError(
    `loadTasks(${JSON.stringify(file)}): cannot tell the format from the extension ${JSON.stringify(ext)}; name a .jsonl or .csv file (gzipped: .jsonl.gz, .csv.gz), or pass format: 'jsonl' | 'csv'`,
  )
}

/** The extension that names the format: `.csv` for `tasks.csv` and for `tasks.csv.gz`. */
function extensionOf(file: string): string {
  const ext = extname(file).toLowerCase()
  return ext === '.gz' ? extname(file.slice(0, -ext.length)).toLowerCase() : ext
}

/** The most a gzipped task file may expand to: a bomb is refused, not read into memory. */
export const MAX_TASK_FILE_BYTES = 256 * 2 ** 20

/**
 * The file's text: gzip (by its magic bytes, whatever its name) decompressed up to
 * {@link MAX_TASK_FILE_BYTES}, then UTF-8 or UTF-16 with a byte-order mark ({@link decodeText}).
 * Anything else is refused naming the encoding, and invalid UTF-8 naming its line and byte offset.
 * `maxBytes` is for tests (a small bomb); loadTasks uses the default.
 */
export function readTaskText(file: string, maxBytes = MAX_TASK_FILE_BYTES): string {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch (error) {
    throw new TaskFileError(
      `${file}: cannot read the task file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      file,
    )
  }
  let gzipped = false
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    gzipped = true
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: maxBytes })
    } catch (error) {
      const why =
        (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
          ? `it expands past ${maxBytes % 2 ** 20 === 0 ? `${maxBytes / 2 ** 20} MiB` : `${maxBytes} bytes`}; split it or decompress it yourself`
          : `${(error as Error).message}; the file is cut short or not gzip`
      throw new TaskFileError(`${file}: cannot decompress the gzipped task file: ${why}`, file)
    }
  }
  try {
    return decodeText(bytes, file)
  } catch (error) {
    if (!(error instanceof NotUtf8Error)) throw error
    const at = error.line !== undefined ? ` line ${error.line}` : ''
    const inside = gzipped ? ' (decompressed)' : ''
    throw new TaskFileError(`${file}${at}${inside}: ${error.message}`, file, error.line)
  }
}

const DELIMITERS = [',', ';', '\t', '|'] as const
const delimiterName = (d: string) => (d === '\t' ? "'\\t' (tab)" : `'${d}'`)

/**
 * The delimiter the file seems to use when `delimiter` splits its header into one column: one of
 * `,` `;` tab `|` that splits the first lines (up to 20) into the same number of columns, at least
 * two; undefined when none does (a file of one column is left alone).
 */
function seemingDelimiter(text: string, delimiter: string): string | undefined {
  for (const candidate of DELIMITERS) {
    if (candidate === delimiter) continue
    let rows: string[][]
    try {
      rows = parse(text, { bom: true, delimiter: candidate, skip_empty_lines: true, to_line: 20 }) as string[][]
    } catch {
      continue
    }
    const width = rows[0]?.length ?? 0
    if (width >= 2 && rows.every((r) => r.length === width)) return candidate
  }
  return undefined
}

function jsonlRecords(text: string, file: string): FileRecord[] {
  const records: FileRecord[] = []
  text.split('\n').forEach((raw, i) => {
    const source = raw.replace(/\r$/, '')
    if (source.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(source)
    } catch (error) {
      throw new TaskFileError(
        `${file} line ${i + 1}: not valid JSON (${(error as Error).message}); each line must be one JSON object`,
        file,
        i + 1,
      )
    }
    const row = RowSchema.safeParse(value)
    if (!row.success)
      throw new TaskFileError(
        `${file} line ${i + 1}: expected a JSON object, got ${Array.isArray(value) ? 'an array' : shown(value)}`,
        file,
        i + 1,
      )
    records.push({ row: row.data, line: i + 1 })
  })
  return records
}

/**
 * A header of one column under a delimiter the file does not use fails every record as missing its
 * id, or stops at a quote mid-field: refused first, naming the delimiter the file seems to use.
 */
function refuseForeignDelimiter(text: string, file: string, delimiter: string, given: boolean): void {
  let header: string[] | undefined
  try {
    header = (parse(text, { bom: true, delimiter, skip_empty_lines: true, to_line: 1 }) as string[][])[0]
  } catch {
    return // the parse proper names what is wrong with it
  }
  const seeming = header?.length === 1 ? seemingDelimiter(text, delimiter) : undefined
  if (seeming === undefined) return
  throw new TaskFileError(
    `${file} line 1: the header is one column (${JSON.stringify(header![0])}) with the delimiter ${delimiterName(delimiter)}${given ? '' : ' (the default)'}; the file seems to use ${delimiterName(seeming)}: pass { delimiter: ${JSON.stringify(seeming)} }`,
    file,
    1,
  )
}

function csvRecords(text: string, file: string, delimiter: string, given: boolean): FileRecord[] {
  refuseForeignDelimiter(text, file, delimiter, given)
  let header: string[] = []
  let parsed: { record: Record<string, string>; info: { lines: number }; raw: string }[]
  try {
    parsed = parse(text, {
      bom: true,
      delimiter,
      skip_empty_lines: true,
      info: true,
      raw: true,
      columns: (names: string[]) => {
        header = names
        const repeated = names.filter((n, i) => names.indexOf(n) !== i)
        if (repeated.length > 0)
          throw new TaskFileError(
            `${file} line 1: column ${JSON.stringify(repeated[0])} appears twice in the header; name each column once`,
            file,
            1,
            repeated[0],
          )
        return names
      },
    }) as typeof parsed
  } catch (error) {
    if (error instanceof TaskFileError) throw error
    const line = (error as { lines?: unknown }).lines
    const at = typeof line === 'number' ? ` line ${line}` : ''
    throw new TaskFileError(
      `${file}${at}: not valid CSV (${(error as Error).message})`,
      file,
      typeof line === 'number' ? line : undefined,
    )
  }
  if (header.length === 0)
    throw new TaskFileError(
      `${file}: no header row; the first line must name the columns (e.g. id,prompt,expected)`,
      file,
    )
  // A record starts where its raw text does: its last line, less the line breaks inside it.
  return parsed.map(({ record, info, raw }) => ({
    row: record,
    line:
      info.lines -
      (raw
        .replace(/^(\r?\n)+/, '')
        .replace(/\r?\n$/, '')
        .match(/\n/g)?.length ?? 0),
  }))
}

/** A TaskColumns map as a function, after checking that every column it names is a column of the file. */
function columnMapper(map: TaskColumns, file: string): (row: TaskRow, line: number) => TaskInput {
  rejectUnknownOptions(`loadTasks(${JSON.stringify(file)}, { map })`, map, FIELDS)
  const { metadata, ...fields } = map
  const named = Object.entries(fields) as [string, unknown][]
  for (const [field, column] of named) {
    if (typeof column !== 'string' || column === '')
      throw new TypeError(
        `loadTasks(${JSON.stringify(file)}, { map }): map.${field} must be a column name, got ${shown(column)}`,
      )
  }
  if (metadata !== undefined && !(Array.isArray(metadata) && metadata.every((c) => typeof c === 'string'))) {
    throw new TypeError(
      `loadTasks(${JSON.stringify(file)}, { map }): map.metadata must be a list of column names, got ${shown(metadata)}`,
    )
  }
  const mapped = new Set(named.map(([, column]) => column as string))
  return (row, line) => {
    const task: Record<string, unknown> = {}
    for (const [field, column] of named as [string, string][]) {
      if (!(column in row)) {
        const columns = Object.keys(row)
          .map((c) => JSON.stringify(c))
          .join(', ')
        throw new TaskFileError(
          `${file} line ${line}: map.${field} names the column ${JSON.stringify(column)}, which this record lacks (its columns: ${columns})`,
          file,
          line,
          column,
        )
      }
      task[field] = row[column]
    }
    const kept = metadata ?? Object.keys(row).filter((c) => !mapped.has(c))
    // zod's records drop this key (it would set the prototype): refuse it rather than lose it.
    if (kept.includes('__proto__') && Object.hasOwn(row, '__proto__')) {
      throw new TaskFileError(
        `${file} line ${line}: the column "__proto__" cannot be kept in metadata; rename it, or list the columns to keep in map.metadata`,
        file,
        line,
        '__proto__',
      )
    }
    const extra = Object.fromEntries(kept.filter((c) => c in row).map((c) => [c, row[c]]))
    if (Object.keys(extra).length > 0) task.metadata = extra
    return task as TaskInput
  }
}

/**
 * Loads tasks from a JSON Lines or CSV file, synchronously, so an eval file can call it at
 * declaration time. Each record becomes a task through `map` (columns by field, or a function)
 * and is checked against TaskSchema; ids must be unique. Paths are relative to the working
 * directory (pass `new URL('./tasks.csv', import.meta.url)` for one beside the eval file).
 *
 * The file is UTF-8 (a byte-order mark dropped), UTF-16 with a byte-order mark, or either gzipped.
 *
 * @throws TaskFileError naming the file, the line and the field: a missing file, bytes that are
 * not UTF-8 (the line and byte offset, and the encoding they look like), a CSV header that is one
 * column under the delimiter in use (the delimiter it seems to use), a line that is not JSON, a CSV row with the wrong number of cells, a mapped column a record lacks, a task
 * field that fails TaskSchema (`expected: Invalid input …`), a repeated id.
 * @example
 * // tasks.csv: id,question,answer
 * const tasks = loadTasks('evals/capitals.csv', { map: { id: 'id', prompt: 'question', expected: 'answer' } })
 * seqEval('capitals', { tasks, verifier: verifiers.exactMatch({ ignoreCase: true }), ... })
 */
export function loadTasks(path: string | URL, options: LoadTasksOptions = {}): Task[] {
  const file = path instanceof URL ? fileURLToPath(path) : path
  if (typeof file !== 'string' || file === '')
    throw new TypeError(`loadTasks(path): path must be a file path or a file URL, got ${shown(path)}`)
  rejectUnknownOptions(`loadTasks(${JSON.stringify(file)})`, options, OPTIONS)
  const format = formatOf(file, options.format)
  const delimiter = options.delimiter ?? (extensionOf(file) === '.tsv' ? '\t' : ',')
  if (typeof delimiter !== 'string' || delimiter.length !== 1)
    throw new TypeError(`loadTasks(${JSON.stringify(file)}): delimiter must be one character, got ${shown(delimiter)}`)
  if (options.limit !== undefined && !(Number.isInteger(options.limit) && options.limit >= 1))
    throw new RangeError(
      `loadTasks(${JSON.stringify(file)}): limit must be an integer >= 1, got ${shown(options.limit)}`,
    )
  const text = readTaskText(file)
  const records =
    format === 'jsonl' ? jsonlRecords(text, file) : csvRecords(text, file, delimiter, options.delimiter !== undefined)
  if (records.length === 0)
    throw new TaskFileError(
      `${file}: no records; a task file needs at least one ${format === 'csv' ? 'row under the header' : 'line'}`,
      file,
    )
  const map = options.map
  if (map !== undefined && typeof map !== 'function' && (typeof map !== 'object' || map === null)) {
    throw new TypeError(
      `loadTasks(${JSON.stringify(file)}): map must be an object of columns by field or a function (row, line) => task, got ${shown(map)}`,
    )
  }
  const toTask =
    map === undefined ? (row: TaskRow) => row as TaskInput : typeof map === 'function' ? map : columnMapper(map, file)
  const lines = new Map<string, number>()
  const tasks: Task[] = []
  for (const { row, line } of records.slice(0, options.limit ?? records.length)) {
    let input: TaskInput
    try {
      input = toTask(row, line)
    } catch (error) {
      if (error instanceof TaskFileError) throw error
      throw new TaskFileError(`${file} line ${line}: map threw: ${(error as Error).message}`, file, line)
    }
    const parsed = TaskSchema.safeParse(input, { reportInput: true })
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path.join('.') || undefined
      const hint =
        field === 'id' && (input as { id?: unknown } | undefined)?.id === undefined
          ? ' (add an id column, or map one: { map: { id: "<column>" } })'
          : ''
      throw new TaskFileError(`${file} line ${line}: ${describeZodError(parsed.error)}${hint}`, file, line, field)
    }
    const task = parsed.data
    const first = lines.get(task.id)
    if (first !== undefined)
      throw new TaskFileError(
        `${file} line ${line}: id ${JSON.stringify(task.id)} repeats the task on line ${first}; ids must be unique`,
        file,
        line,
        'id',
      )
    lines.set(task.id, line)
    tasks.push(task)
  }
  return tasks
}
