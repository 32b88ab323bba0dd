/**
 * The reader of summaries written in version 1 (`seqk.summary/1`, `seqk.cell/1`): a cell then
 * named each per-cell statistic as a field of its own; version 2 keeps them in one map,
 * `statistics`, computed by the modules of `protocol/statistics/`. Version 1 is frozen, so this
 * mapping is too: a statistic added later has no field here, and never needs a line in this file.
 */
import { z } from 'zod'
import { CELL_SUMMARY_SCHEMA, RunSummarySchema, SUMMARY_SCHEMA, type StatisticValue } from './schemas.js'

/** The schema ids of version 1. */
export const SUMMARY_SCHEMA_V1 = 'seqk.summary/1'
export const CELL_SUMMARY_SCHEMA_V1 = 'seqk.cell/1'

type Json = Record<string, unknown>
const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x)
const num = (x: unknown): number | null => (typeof x === 'number' ? x : null)

/** The fields of a version-1 cell that version 2 keeps in `statistics`. */
const V1_FIELDS = [
  'gain',
  'egs',
  'lgs',
  'timingNote',
  'meanAttempts',
  'unmodifiedRevisions',
  'nextAttemptSuccess',
  'criterionRepair',
] as const

/** A version-1 cell's statistics as version 2 stores them (the same values the modules compute). */
function statisticsOfV1(cell: Json): Record<string, StatisticValue> {
  const out: Record<string, StatisticValue> = {}
  const sequential = isObject(cell.protocol) && cell.protocol.kind !== 'independent'
  if ('gain' in cell) out.gain = { value: num(cell.gain) }
  if ('meanAttempts' in cell) out.meanAttempts = { value: num(cell.meanAttempts) }
  if (sequential) {
    const note = typeof cell.timingNote === 'string' ? { note: cell.timingNote } : {}
    out.egs = { value: num(cell.egs), ...note }
    out.lgs = { value: num(cell.lgs), ...note }
    const u = cell.unmodifiedRevisions
    if (isObject(u) && typeof u.revisions === 'number')
      out.unmodifiedRevisions = { value: num(u.rate), n: u.revisions, detail: { unmodified: u.unmodified } }
    const next = cell.nextAttemptSuccess
    if (isObject(next) && isObject(next.changed))
      out.nextAttemptSuccess = { value: num(next.changed.rate), n: num(next.changed.revisions) ?? 0, detail: next }
  }
  const repair = cell.criterionRepair
  if (isObject(repair))
    out.criterionRepair = { value: num(repair.repairRate), n: num(repair.failedFirst) ?? 0, detail: repair }
  return out
}

/**
 * A cell summary of version 1 as version 2 (its statistics moved into the map); any other value
 * unchanged, so the schema then names what is wrong with it.
 *
 * @example
 * upgradeCell({ schema: 'seqk.cell/1', gain: 0.2, … }).statistics.gain // => { value: 0.2 }
 */
export function upgradeCell(cell: unknown): unknown {
  if (!isObject(cell) || cell.schema !== CELL_SUMMARY_SCHEMA_V1) return cell
  const rest: Json = { ...cell, schema: CELL_SUMMARY_SCHEMA, statistics: statisticsOfV1(cell) }
  for (const field of V1_FIELDS) delete rest[field]
  return rest
}

/**
 * A `summary.json` of version 1 as version 2; any other value unchanged.
 *
 * @example
 * RunSummaryFileSchema.parse(JSON.parse(readFileSync('old/summary.json', 'utf8'))).schema // => 'seqk.summary/2'
 */
export function upgradeSummary(json: unknown): unknown {
  if (!isObject(json) || json.schema !== SUMMARY_SCHEMA_V1 || !Array.isArray(json.benchmarks)) return json
  return {
    ...json,
    schema: SUMMARY_SCHEMA,
    benchmarks: json.benchmarks.map((b) =>
      isObject(b) && Array.isArray(b.cells) ? { ...b, cells: b.cells.map(upgradeCell) } : b,
    ),
  }
}

/** A `summary.json` of any version read as the current one: what every reader of a summary file parses with. */
export const RunSummaryFileSchema = z.preprocess(upgradeSummary, RunSummarySchema)
