import { appendFileSync, existsSync } from 'node:fs'
import { z } from 'zod'
import { ChatMessageSchema } from '../core/contract.js'
import { readJsonLines } from './jsonl.js'

/**
 * Beside `trajectories.jsonl`: each task's prompt as the actor first saw it, once per benchmark,
 * so exports (inspect_ai logs) can show whole conversations. Trajectories keep only what each
 * attempt added.
 */
export const TASKS_FILE = 'tasks.jsonl'

/** One line of tasks.jsonl: a task's first prompt as the prompt builder sent it, for the inspect export. */
export const TaskRecordSchema = z.object({
  schema: z.literal('seqk.task/1'),
  benchmark: z.string(),
  taskId: z.string(),
  /** Hash of the task's id, prompt, tests and setup, as in the protocol. */
  contentHash: z.string(),
  /** The first attempt's messages (the prompt builder's `initial`). */
  messages: z.array(ChatMessageSchema),
  /** The prompt builder that built them (its revision turns are rebuilt from its version). */
  promptBuilder: z.string(),
  /** The task's `expected` answer, where it has one (exact-match tasks). */
  target: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
})
/** One line of tasks.jsonl (see {@link TaskRecordSchema}). */
export type TaskRecord = z.infer<typeof TaskRecordSchema>

/** Appends the records in one write. */
export function appendTaskRecords(path: string, records: readonly TaskRecord[]): void {
  if (records.length > 0) appendFileSync(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''))
}

/**
 * Reads a run's `tasks.jsonl` into a map by benchmark and task id (the last record of each wins);
 * empty when the run has none (older runs, or blobs merged on another machine).
 *
 * @example
 * const prompts = readTaskRecords('.seqk/runs/20261201-101500-9f2c4a/tasks.jsonl')
 * prompts.get(taskRecordKey('capitals', 'au'))?.messages
 */
export function readTaskRecords(path: string): Map<string, TaskRecord> {
  const out = new Map<string, TaskRecord>()
  if (!existsSync(path)) return out
  for (const record of readJsonLines(path, TaskRecordSchema, 'task record').items)
    out.set(taskRecordKey(record.benchmark, record.taskId), record)
  return out
}

export const taskRecordKey = (benchmark: string, taskId: string): string => `${benchmark}\u0000${taskId}`
