import { existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs'
import type { RunSummary } from '../core/schemas.js'
import { RunSummaryFileSchema } from '../core/summary-upgrade.js'
import { describeZodError } from '../core/zod-errors.js'

/** Writes `summary.json` atomically (temp file, then rename), so readers never see half a file. */
export function writeSummary(path: string, summary: RunSummary): void {
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, `${JSON.stringify(summary, null, 2)}\n`)
  renameSync(tmp, path)
}

/** Reads and validates a `summary.json`; errors name the file and the field. */
export function readSummary(path: string): RunSummary {
  if (!existsSync(path)) throw new Error(`${path}: no such summary file`)
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new Error(`${path}: not valid JSON (${(error as Error).message})`)
  }
  // Older versions read as the current one (core/summary-upgrade.ts).
  const parsed = RunSummaryFileSchema.safeParse(json)
  if (!parsed.success) throw new Error(`${path}: not a seqk summary: ${describeZodError(parsed.error)}`)
  return parsed.data
}
