/**
 * CL-bench (github.com/Tencent-Hunyuan/CL-bench): context learning — a system prompt and a long
 * context first, the task last — graded against a list of requirements. The official grader
 * answers yes/no per requirement (`requirement_status`) and scores 1 only if every requirement is
 * met. Inference output files add `idx` and `model_output`; graded files add `grading_rationale`,
 * `requirement_status` and `score`.
 */
import { z } from 'zod'
import type { ChatModel } from '../models/chat-model.js'
import {
  BenchmarkMessagesSchema,
  assertUniqueIds,
  displayPath,
  parseJsonLines,
  parseRecord,
  RubricBenchmarkFileError,
  select,
  type SelectOptions,
} from '../verifiers/rubric/benchmark-files.js'
import { recognisingFailures } from './recognise.js'
import { readBenchmarkText } from './text-file.js'
import { positionalId, type RubricTask } from '../verifiers/rubric/criteria.js'
import { rubric, type RubricVerifier } from '../verifiers/rubric/rubric-verifier.js'

/** One line of a CL-bench JSONL file (plain, inference output or graded). Fields beyond these are ignored. */
export const ClBenchRecordSchema = z
  .object({
    idx: z.union([z.string(), z.number()]).optional(),
    messages: BenchmarkMessagesSchema,
    rubrics: z
      .array(z.string({ message: 'a requirement must be a string' }).min(1, 'a requirement is empty'), {
        message: 'expected the rubric: a list of requirement strings',
      })
      .min(1, 'the rubric is empty'),
    metadata: z
      .object({
        task_id: z.string({ message: 'expected metadata.task_id' }).min(1, 'metadata.task_id is empty'),
        context_id: z.string().optional(),
        context_category: z.string().optional(),
        sub_category: z.string().optional(),
      })
      .loose(),
    model_output: z.string().optional(),
    grading_rationale: z.string().optional(),
    requirement_status: z
      .array(
        z
          .string()
          .transform((s) => s.trim().toLowerCase())
          .pipe(z.enum(['yes', 'no'], { message: "each requirement status must be 'yes' or 'no'" })),
      )
      .optional(),
    score: z.union([z.literal(0), z.literal(1)], { message: 'the score must be 0 or 1' }).optional(),
  })
  .superRefine((r, ctx) => {
    if (r.requirement_status && r.requirement_status.length !== r.rubrics.length) {
      ctx.addIssue({
        code: 'custom',
        path: ['requirement_status'],
        message: `has ${r.requirement_status.length} entries for ${r.rubrics.length} requirements`,
      })
    }
  })
export type ClBenchRecord = z.infer<typeof ClBenchRecordSchema>

/**
 * The official CL-bench score from per-requirement verdicts: 1 only if every requirement is met.
 *
 * @example
 * clBenchScore(['yes', 'no']) // 0
 */
export function clBenchScore(status: readonly ('yes' | 'no' | boolean)[]): 0 | 1 {
  return status.every((s) => s === 'yes' || s === true) ? 1 : 0
}

/** Initials of a category name: 'Domain Knowledge Reasoning' → 'DKR' (how the paper names the subsets). */
function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase())
    .join('')
}

/** The options of `loadClBench`: which records to load and how to grade them. */
export interface ClBenchOptions extends SelectOptions {
  /** Keep only these context categories: the full name (`Domain Knowledge Reasoning`) or its initials (`DKR`, `RSA`), any case. */
  categories?: readonly string[]
}

/** A loaded record: the task, the validated record, its line, and what the file says about an answer. */
export interface ClBenchEntry {
  task: RubricTask
  record: ClBenchRecord
  line: number
  /** The model's answer (inference output and graded files). */
  modelOutput?: string
  /** The official grading of `modelOutput` (graded files). */
  graded?: { requirementStatus: ('yes' | 'no')[]; score: 0 | 1; rationale?: string }
}

/**
 * One record as a rubric task: id `clbench/<task_id>`, the messages as the prompt, one criterion
 * per requirement (`c1 … cN`, in order, so `requirement_status[i]` is criterion `c<i+1>`).
 *
 * @example
 * clBenchTask(record).criteria[0] // { id: 'c1', text: 'The response should …' }
 */
export function clBenchTask(record: ClBenchRecord): RubricTask {
  const m = record.metadata
  const category = m.context_category
  return {
    id: `clbench/${m.task_id}`,
    prompt: record.messages.map((x) => ({ role: x.role, content: x.content })),
    criteria: record.rubrics.map((text, i) => ({ id: positionalId(i), text })),
    metadata: {
      source: 'clbench',
      taskId: m.task_id,
      ...(m.context_id ? { contextId: m.context_id } : {}),
      ...(category ? { category, subset: initials(category) } : {}),
      ...(m.sub_category ? { subCategory: m.sub_category } : {}),
    },
  }
}

/**
 * Loads a CL-bench JSONL file (plain, inference output or graded) with everything known about each record.
 *
 * @throws RubricBenchmarkFileError for a missing or malformed file (naming the line, the task id and the field).
 * @example
 * for (const { task, modelOutput, graded } of loadClBenchEntries('outputs/model_graded.jsonl')) console.log(task.id, graded?.score)
 */
export function loadClBenchEntries(path: string | URL, options: ClBenchOptions = {}): ClBenchEntry[] {
  const where = `loadClBench(${JSON.stringify(displayPath(path))})`
  const text = readBenchmarkText(
    path,
    where,
    'CL-bench files are JSONL (github.com/Tencent-Hunyuan/CL-bench); pass the file path',
    (message) => new RubricBenchmarkFileError(message),
  )
  const entries = recognisingFailures(
    text,
    'clbench',
    where,
    (m) => new RubricBenchmarkFileError(m),
    () =>
      parseJsonLines(text, where).map(({ line, value }): ClBenchEntry => {
        const id = (value as { metadata?: { task_id?: unknown } }).metadata?.task_id
        const record = parseRecord(
          ClBenchRecordSchema,
          value,
          `${where}: line ${line}${typeof id === 'string' ? ` (task_id ${JSON.stringify(id)})` : ''}`,
        )
        const graded =
          record.requirement_status !== undefined && record.score !== undefined
            ? {
                requirementStatus: record.requirement_status,
                score: record.score,
                ...(record.grading_rationale !== undefined ? { rationale: record.grading_rationale } : {}),
              }
            : undefined
        return {
          task: clBenchTask(record),
          record,
          line,
          ...(record.model_output !== undefined ? { modelOutput: record.model_output } : {}),
          ...(graded ? { graded } : {}),
        }
      }),
  )
  assertUniqueIds(
    entries.map((e) => ({ id: e.task.id, line: e.line })),
    where,
  )
  let kept = entries
  if (options.categories !== undefined) {
    const wanted = options.categories.map((c) => c.trim().toLowerCase())
    const categoryOf = (e: ClBenchEntry) => (e.record.metadata.context_category ?? '').trim()
    const known = new Set(entries.map(categoryOf).filter(Boolean))
    const matches = (e: ClBenchEntry) =>
      wanted.some((w) => categoryOf(e).toLowerCase() === w || initials(categoryOf(e)).toLowerCase() === w)
    const unknown = wanted.filter(
      (w) => ![...known].some((k) => k.toLowerCase() === w || initials(k).toLowerCase() === w),
    )
    if (unknown.length > 0)
      throw new RubricBenchmarkFileError(
        `${where}: categories: no record in category ${unknown.map((u) => JSON.stringify(u)).join(', ')} (categories here: ${[...known].map((k) => `${k} (${initials(k)})`).join(', ')})`,
      )
    kept = kept.filter(matches)
  }
  return select(kept, options, (e) => [e.task.id, e.record.metadata.task_id], where)
}

/**
 * Loads a CL-bench JSONL file as rubric tasks. Synchronous, so an eval file can call it at
 * declaration time.
 *
 * @throws RubricBenchmarkFileError for a missing or malformed file (naming the line, the task id and the field).
 * @example
 * const tasks = loadClBench('data/CL-bench.jsonl', { categories: ['DKR'], limit: 30 })
 * seqEval('CL-bench DKR', { tasks, verifier: clBenchVerifier({ grader }), ... })
 */
export function loadClBench(path: string | URL, options: ClBenchOptions = {}): RubricTask[] {
  return loadClBenchEntries(path, options).map((e) => e.task)
}

/**
 * The CL-bench verifier: every requirement judged in one grader call (as the official grader),
 * pass (score 1) only if all are met.
 *
 * @example
 * const verifier = clBenchVerifier({ grader: actors.openai({ model: 'gpt-4.1', temperature: 0 }) })
 */
export function clBenchVerifier(options: { grader: ChatModel }): RubricVerifier {
  return rubric({ grader: options.grader, gradingMode: 'all-at-once', passRule: 'all' })
}
