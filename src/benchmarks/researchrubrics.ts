/**
 * ResearchRubrics (github.com/scaleapi/researchrubrics, DATA_FORMAT.md): research questions graded
 * against weighted rubric items. A compiled row per task: `task_name` (its id), `prompt` and
 * `rubrics`, a JSON string holding a list of `{ title, weight, category }` (weights positive,
 * typically 1 or 0.5; the paper's harness also allows negative weights for penalty items). Its
 * processed JSONL (the paper's harness reads it) has `sample_id`, `prompt`, `rubrics` as a list of
 * `{ criterion, weight, axis }` and `domain`: both are read. CSV or JSON Lines, by extension.
 *
 * As the paper grades it: every item Satisfied or Not Satisfied, the soft score the weighted
 * compliance Σ(met × weight) / Σ(positive weights) (a met penalty subtracts; clamped at 0), and
 * the task solved when every positive item is satisfied and no penalty is triggered.
 */
import { z } from 'zod'
import type { ChatModel } from '../models/chat-model.js'
import {
  assertUniqueIds,
  displayPath,
  jsonString,
  parseCsv,
  parseJsonLines,
  parseRecord,
  RubricBenchmarkFileError,
  select,
  type SelectOptions,
} from '../verifiers/rubric/benchmark-files.js'
import { readBenchmarkText } from './text-file.js'
import { positionalId, type RubricTask } from '../verifiers/rubric/criteria.js'
import { rubric, type RubricVerifier } from '../verifiers/rubric/rubric-verifier.js'

const Weight = z.coerce
  .number({ message: 'expected the weight (a number; negative for a penalty)' })
  .finite()
  .refine((w) => w !== 0, 'a weight of 0 counts for nothing: leave the item out or give it a weight')

const DocumentedItem = z.object({
  title: z.string({ message: 'expected the item title' }).min(1, 'the item title is empty'),
  weight: Weight,
  category: z.string().optional(),
  row_index: z.unknown().optional(),
})
const ProcessedItem = z.object({
  criterion: z.string({ message: 'expected the criterion text' }).min(1, 'the criterion text is empty'),
  weight: Weight.default(1),
  axis: z.string().optional(),
})
const Items = z
  .array(z.union([DocumentedItem, ProcessedItem]), {
    message: 'expected the rubric: a list of { title, weight, category }',
  })
  .min(1, 'the rubric is empty')
  .refine((items) => items.some((i) => i.weight > 0), 'the rubric has no item with a positive weight')

/** One ResearchRubrics record (a compiled row, or a processed line). Other fields are ignored. */
export const ResearchRubricsRecordSchema = z
  .object({
    task_name: z.string().min(1).optional(),
    sample_id: z.string().min(1).optional(),
    prompt: z.string({ message: 'expected the research prompt (a string)' }).min(1, 'the prompt is empty'),
    // A compiled row holds its rubric as a JSON string (CSV cells always do); a processed line, a list.
    rubrics: jsonString(Items, 'the rubric items'),
    domain: z.string().optional(),
  })
  .refine((r) => r.task_name !== undefined || r.sample_id !== undefined, {
    message: 'expected task_name (the task id; sample_id in the processed file)',
    path: ['task_name'],
  })
export type ResearchRubricsRecord = z.infer<typeof ResearchRubricsRecordSchema>

/**
 * One record as a rubric task: id `researchrubrics/<task_name>`, the research prompt, and one
 * criterion per item (`c1 … cN` in order; the weight as points, the category as a tag).
 *
 * @example
 * researchRubricsTask(record).criteria[0] // => { id: 'c1', text: 'Names at least two …', points: 1, tags: ['Accuracy'] }
 */
export function researchRubricsTask(record: ResearchRubricsRecord): RubricTask {
  const id = record.task_name ?? record.sample_id!
  return {
    id: `researchrubrics/${id}`,
    prompt: record.prompt,
    criteria: record.rubrics.map((item, i) => {
      const text = 'title' in item ? item.title : item.criterion
      const category = 'title' in item ? item.category : item.axis
      return { id: positionalId(i), text, points: item.weight, ...(category ? { tags: [category] } : {}) }
    }),
    metadata: { source: 'researchrubrics', taskName: id, ...(record.domain ? { domain: record.domain } : {}) },
  }
}

/**
 * Loads ResearchRubrics records from a CSV or JSON Lines file (by extension) as rubric tasks.
 * Synchronous, so an eval file can call it at declaration time.
 *
 * @throws RubricBenchmarkFileError naming the file, the line and the field.
 * @example
 * const tasks = loadResearchRubrics('data/researchrubrics.jsonl', { limit: 20 })
 * seqEval('ResearchRubrics', { tasks, verifier: researchRubricsVerifier({ grader }), ... })
 */
export function loadResearchRubrics(path: string | URL, options: SelectOptions = {}): RubricTask[] {
  const where = `loadResearchRubrics(${JSON.stringify(displayPath(path))})`
  const text = readBenchmarkText(
    path,
    where,
    'ResearchRubrics is published as compiled rows (see github.com/scaleapi/researchrubrics, DATA_FORMAT.md); pass the path of a .csv or .jsonl of them',
    (m) => new RubricBenchmarkFileError(m),
  )
  const csv = /\.csv$/i.test(displayPath(path))
  const raw = csv ? parseCsv(text, where) : parseJsonLines(text, where)
  const entries = raw.map(({ line, value }) => {
    const id =
      (value as { task_name?: unknown; sample_id?: unknown }).task_name ?? (value as { sample_id?: unknown }).sample_id
    const record = parseRecord(
      ResearchRubricsRecordSchema,
      value,
      `${where}: ${csv ? 'row' : 'line'} ${line}${typeof id === 'string' ? ` (task ${JSON.stringify(id)})` : ''}`,
    )
    return { task: researchRubricsTask(record), line, id: record.task_name ?? record.sample_id! }
  })
  assertUniqueIds(
    entries.map((e) => ({ id: e.task.id, line: e.line })),
    where,
  )
  return select(entries, options, (e) => [e.task.id, e.id], where).map((e) => e.task)
}

/**
 * The ResearchRubrics verifier as the paper grades it: one grader call per item (Satisfied or
 * Not Satisfied), solved when every positive item is satisfied and no penalty is triggered (the
 * `all` rule), its soft score the weighted compliance (`score: 'weighted'`).
 *
 * @example
 * const verifier = researchRubricsVerifier({ grader: actors.openai({ model: 'gpt-4.1', temperature: 0 }) })
 */
export function researchRubricsVerifier(options: { grader: ChatModel; concurrency?: number }): RubricVerifier {
  return rubric({
    grader: options.grader,
    gradingMode: 'per-criterion',
    passRule: 'all',
    score: 'weighted',
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
  })
}
