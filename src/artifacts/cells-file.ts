import { appendFileSync, existsSync } from 'node:fs'
import { z } from 'zod'
import { ProtocolSchema } from '../core/schemas.js'
import { CellEstimateSchema } from '../core/estimate.js'
import { BenchmarkProvenanceSchema } from '../core/disclosure.js'
import { CELL_VERDICTS, RATE_METRICS } from '../core/kinds.js'
import { readJsonLines } from './jsonl.js'

/** Beside `trajectories.jsonl`: what each cell declared, so its summary can be recomputed from the files alone. */
export const CELLS_FILE = 'cells.jsonl'

const Rates = z.record(z.string(), z.number())

/**
 * A cell as declared when it started: with its trajectories, everything `summariseCell` needs
 * (the tasks and their hashes, repeats, thresholds, error policy) and what its baseline gate
 * compared against. A resumed cell writes it again; the last one counts.
 */
export const CellStartRecordSchema = z.object({
  schema: z.literal('seqk.cell/1'),
  type: z.literal('start'),
  runId: z.string(),
  benchmark: z.string(),
  cellId: z.string(),
  /** The actor's id, or the variant's name for a variant's cell. */
  actorId: z.string(),
  /** The variant of the eval's subject the cell runs (seqEval's `variants`); absent otherwise. */
  variant: z.string().optional(),
  mode: z.string(),
  protocol: ProtocolSchema,
  fingerprint: z.string(),
  taskIds: z.array(z.string()),
  taskHashes: z.record(z.string(), z.string()),
  repeats: z.number().int().positive(),
  // Every rate a threshold can name (RATE_METRICS), so a recomputed summary holds the cell to what it declared:
  // a hand list here once dropped seqHat, passHat and coverAt thresholds from recomputed and merged runs.
  thresholds: z.object({
    ...(Object.fromEntries(RATE_METRICS.map((m) => [m, Rates.optional()])) as Record<
      (typeof RATE_METRICS)[number],
      z.ZodOptional<typeof Rates>
    >),
    maxErrorRate: z.number().optional(),
  }),
  errors: z.enum(['censored', 'failures', 'left-out']),
  /** The eval file, relative to the project root. */
  file: z.string(),
  /** The baseline the cell is gated against: its file relative to the project root, and the gate's settings. */
  baseline: z
    .object({
      file: z.string(),
      margin: z.number(),
      maxDrop: z.number(),
      ks: z.array(z.number().int().positive()),
      seed: z.number().optional(),
    })
    .nullable(),
  /** This machine's share of a sharded run: `taskIds` is still the whole declaration; the shard ran those with `shardOfTask(id, count) === index`. */
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).optional(),
  /** What the cell was expected to cost before it ran (absent in files written before estimates, and where it could not be made). */
  estimate: CellEstimateSchema.optional(),
  /** Where its tasks came from, as their metadata says (for the disclosure card). */
  provenance: BenchmarkProvenanceSchema.optional(),
  /** Tasks the eval's `stability` report saw flip: the summary's `verifierUnstable.reported` (absent without a report). */
  knownUnstable: z.array(z.string()).optional(),
})
export type CellStartRecord = z.infer<typeof CellStartRecordSchema>

/** A cell that ran to its end, with its wall time (the one number its trajectories cannot give). */
export const CellEndRecordSchema = z.object({
  schema: z.literal('seqk.cell/1'),
  type: z.literal('end'),
  runId: z.string(),
  benchmark: z.string(),
  cellId: z.string(),
  durationMs: z.number().nonnegative(),
  /** Set when the cell did not run to its end (a timeout, a crash, a cancel): why, as the reporter said it. */
  unfinished: z.string().optional(),
  /** The cell's verdict and its failed checks, each counted once (absent in files written before they existed). */
  verdict: z.enum(CELL_VERDICTS).optional(),
  failedChecks: z.number().int().nonnegative().optional(),
  /** In a resumed run: trajectories kept as they had ended in the run it resumed (all of them: the cell was kept whole). */
  kept: z.number().int().nonnegative().optional(),
})
export type CellEndRecord = z.infer<typeof CellEndRecordSchema>

export const CellRecordSchema = z.discriminatedUnion('type', [CellStartRecordSchema, CellEndRecordSchema])
export type CellRecord = z.infer<typeof CellRecordSchema>

/** Appends one record, one `write`, as the cell starts or ends. */
export function appendCellRecord(path: string, record: CellRecord): void {
  appendFileSync(path, `${JSON.stringify(record)}\n`)
}

/** What a run directory's `cells.jsonl` says: per cell (benchmark and cell id), its last start and its last end. */
export interface ReadCells {
  cells: { start: CellStartRecord; end: CellEndRecord | undefined }[]
  truncatedTail: boolean
}

/**
 * Reads and validates a `cells.jsonl` (errors name the file, line and field). A cell declared twice
 * (a resumed run) is one cell: its last start, and the last end after it.
 *
 * @example
 * const { cells } = readCells('.seqk/runs/20261201-101500-9f2c4a/cells.jsonl')
 */
export function readCells(path: string): ReadCells {
  if (!existsSync(path))
    throw new Error(
      `${path}: no such cells file (a run writes it beside trajectories.jsonl; runs written before it existed have none, and cannot be recomputed)`,
    )
  const { items, truncatedTail } = readJsonLines(path, CellRecordSchema, 'cell record')
  return { cells: pairCellRecords(items), truncatedTail }
}

/**
 * Cell records in file order, paired: each start with its end (undefined when the cell did not
 * end). A cell started again (a resume) keeps its last start.
 */
export function pairCellRecords(
  items: readonly CellRecord[],
): { start: CellStartRecord; end: CellEndRecord | undefined }[] {
  const byKey = new Map<string, { start: CellStartRecord; end: CellEndRecord | undefined }>()
  for (const record of items) {
    const key = `${record.runId}\u0000${record.benchmark}\u0000${record.cellId}`
    if (record.type === 'start') {
      byKey.delete(key)
      byKey.set(key, { start: record, end: undefined })
    } else {
      const cell = byKey.get(key)
      if (cell) cell.end = record
    }
  }
  return [...byKey.values()]
}
