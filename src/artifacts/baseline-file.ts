import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'
import { CellSummarySchema, ProtocolSchema } from './schemas.js'
import { describeZodError } from './zod-errors.js'

export const BaselineCellSchema = z.object({
  fingerprint: z.string(),
  protocol: ProtocolSchema,
  perTask: CellSummarySchema.shape.perTask,
  seqAt: z.array(z.number().nullable()),
  passAt: z.array(z.number().nullable()).nullable(),
  recordedAt: z.string(),
  commit: z.string().nullable().optional(),
})

/** A committed baseline: per benchmark, per cell, what the gate compares against. */
export const BaselineFileSchema = z.object({
  schema: z.literal('seqk.baseline/1'),
  benchmarks: z.record(z.string(), z.object({ cells: z.record(z.string(), BaselineCellSchema) })),
})
export type BaselineFile = z.infer<typeof BaselineFileSchema>
export type BaselineCellJson = z.infer<typeof BaselineCellSchema>

/** Reads a baseline file; a bad or hand-edited one fails naming the file, the field and the fix. Missing → undefined. */
export function readBaselineFile(path: string): BaselineFile | undefined {
  if (!existsSync(path)) return undefined
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new Error(`${path}: the baseline is not valid JSON (${(error as Error).message}). Restore it from git, or delete it and write a new one with \`vitest run -u\`.`)
  }
  const parsed = BaselineFileSchema.safeParse(json)
  if (!parsed.success) throw new Error(`${path}: not a seqk baseline (${describeZodError(parsed.error)}). Restore it from git, or delete it and write a new one with \`vitest run -u\`.`)
  return parsed.data
}

/** Sorted keys at every level of the two records, so a refreshed baseline diffs cleanly in review. */
function sorted(file: BaselineFile): BaselineFile {
  const benchmarks = Object.fromEntries(
    Object.keys(file.benchmarks)
      .sort()
      .map((b) => [b, { cells: Object.fromEntries(Object.keys(file.benchmarks[b]!.cells).sort().map((c) => [c, file.benchmarks[b]!.cells[c]!])) }]),
  )
  return { schema: file.schema, benchmarks }
}

/** Holds a lock directory while `fn` runs: eval files in parallel workers may share one baseline file. */
function withLock<T>(path: string, fn: () => T): T {
  const lock = `${path}.lock`
  const deadline = Date.now() + 10_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock}: could not take the baseline lock within 10 s; delete it if no seqk run is writing`)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
    }
  }
  try {
    return fn()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/** Writes (or replaces) one cell's baseline, keeping every other cell, atomically and under a lock. `replaceInvalid` (for -u) starts afresh when the file cannot be read. */
export function writeBaselineCell(path: string, benchmark: string, cellId: string, cell: BaselineCellJson, options: { replaceInvalid?: boolean } = {}): void {
  mkdirSync(dirname(path), { recursive: true })
  withLock(path, () => {
    let existing: BaselineFile | undefined
    try {
      existing = readBaselineFile(path)
    } catch (error) {
      // Refreshing (-u) may replace a file this version cannot read; anything else must not.
      if (!options.replaceInvalid) throw error
    }
    const file = existing ?? { schema: 'seqk.baseline/1' as const, benchmarks: {} }
    const cells = (file.benchmarks[benchmark] ??= { cells: {} }).cells
    cells[cellId] = cell
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, `${JSON.stringify(sorted(file), null, 2)}\n`)
    renameSync(tmp, path)
  })
}
