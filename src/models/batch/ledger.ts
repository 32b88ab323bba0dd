/**
 * The run directory's record of the batches its calls were sent in (`batches.jsonl`), so a run
 * killed while a batch ran and then resumed collects that batch instead of paying for it twice.
 * Models know no run directories: the setup file names the file (`useBatchLedger`).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'

export const BATCHES_FILE = 'batches.jsonl'

export const BatchLedgerRecordSchema = z.object({
  schema: z.literal('seqk.batch/1'),
  provider: z.string(),
  batchId: z.string(),
  /** Each request's custom id in the batch and the hash of its call's identity and body (what a resumed call is matched by). */
  items: z.array(z.object({ customId: z.string(), key: z.string() })),
  submittedAt: z.string(),
})
export type BatchLedgerRecord = z.infer<typeof BatchLedgerRecordSchema>

/**
 * A batch's status as it changes (submitted, in progress, finalizing, ended), appended to the same
 * file for the live view (`seqk view`); a resume reads only the batch records above.
 */
export const BatchStatusRecordSchema = z.object({
  schema: z.literal('seqk.batch-status/1'),
  provider: z.string(),
  batchId: z.string(),
  status: z.string(),
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  at: z.string(),
})
export type BatchStatusRecord = z.infer<typeof BatchStatusRecordSchema>

let where: (() => string | undefined) | undefined

/**
 * Names the ledger file of this process's run (the setup file does, from `currentRun()`);
 * `undefined` keeps none.
 *
 * @example
 * useBatchLedger(() => join(currentRun().runDir, BATCHES_FILE))
 */
export function useBatchLedger(path: (() => string | undefined) | undefined): void {
  where = path
}

function ledgerPath(): string | undefined {
  try {
    return where?.()
  } catch {
    // Outside a seqk run (a script calling a model directly): no ledger.
    return undefined
  }
}

/** The batches recorded so far (a torn or foreign line is skipped: the ledger only saves money, it never decides a verdict). */
export function readLedger(): BatchLedgerRecord[] {
  const path = ledgerPath()
  if (!path || !existsSync(path)) return []
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line) => {
      if (line.trim() === '') return []
      try {
        const parsed = BatchLedgerRecordSchema.safeParse(JSON.parse(line))
        return parsed.success ? [parsed.data] : []
      } catch {
        return []
      }
    })
}

/** Records a submitted batch, or a change of a batch's status, in one write (a crash leaves at most a torn last line). */
export function appendLedger(record: BatchLedgerRecord | BatchStatusRecord): void {
  const path = ledgerPath()
  if (!path) return
  mkdirSync(dirname(path), { recursive: true })
  appendFileSync(path, `${JSON.stringify(record)}\n`)
}
