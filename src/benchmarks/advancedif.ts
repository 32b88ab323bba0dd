/**
 * AdvancedIF (github.com/facebookresearch/AdvancedIF): instruction following in three
 * sub-benchmarks — complex single-turn instructions, context carried across turns, and system
 * prompt steerability. Records are JSONL or CSV whose fields hold JSON strings; the rubric is
 * double-encoded (`prompt_metadata` is a JSON string whose `rubrics` is another JSON string).
 * Verdict: a judge answers every rubric question; pass only if all are satisfied.
 */
import { z } from 'zod'
import type { ChatModel } from '../models/chat-model.js'
import { sha256 } from '../core/fingerprint.js'
import {
  BenchmarkMessagesSchema,
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
import { recognisingFailures } from './recognise.js'
import { readBenchmarkText } from './text-file.js'
import { positionalId, type RubricTask } from '../verifiers/rubric/criteria.js'
import { rubric, type RubricVerifier } from '../verifiers/rubric/rubric-verifier.js'

/** The three sub-benchmarks, by our name. */
export type AdvancedIfSubset = 'complex-if' | 'carried-context' | 'system-steerability'

/** The AdvancedIF subsets, in the order the loader reads them. */
export const ADVANCEDIF_SUBSETS: readonly AdvancedIfSubset[] = ['complex-if', 'carried-context', 'system-steerability']

/**
 * Our name of a sub-benchmark from any spelling of its `benchmark_name`: the released
 * `if_complex_if_oss` / `if_carried_context_oss` / `if_system_steerability_oss`, the upstream
 * docs' `system_steerability_v2` style, or our own `complex-if`; undefined for anything else.
 *
 * @example
 * advancedIfSubset('if_system_steerability_oss') // 'system-steerability'
 * advancedIfSubset('system_steerability_v2') // 'system-steerability'
 */
export function advancedIfSubset(name: string): AdvancedIfSubset | undefined {
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_')
    .replace(/^if_(?=complex_if|carried_context|system_steerability)/, '')
    .replace(/_(oss|v\d+)$/, '')
  const known: Record<string, AdvancedIfSubset> = {
    complex_if: 'complex-if',
    carried_context: 'carried-context',
    system_steerability: 'system-steerability',
  }
  return Object.hasOwn(known, key) ? known[key] : undefined
}

/** The example answer as upstream's processor reads it: a JSON list of messages (the last one's content), one message, or plain text. */
function responseText(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  try {
    const parsed: unknown = JSON.parse(raw)
    if (Array.isArray(parsed)) {
      const last = parsed.at(-1) as { content?: unknown } | undefined
      return typeof last?.content === 'string' ? last.content : undefined
    }
    if (parsed !== null && typeof parsed === 'object') {
      const content = (parsed as { content?: unknown }).content
      return typeof content === 'string' ? content : undefined
    }
    return raw
  } catch {
    return raw
  }
}

/** One record of an AdvancedIF JSONL or CSV file, decoded. Fields beyond these are ignored. */
export const AdvancedIfRecordSchema = z.object({
  conversation_history: jsonString(BenchmarkMessagesSchema, 'the conversation history, a JSON list of messages'),
  prompt_metadata: jsonString(
    z
      .object({
        rubrics: jsonString(
          z
            .array(z.string().min(1, 'a rubric question is empty'), { message: 'expected a list of rubric questions' })
            .min(1, 'the rubric is empty'),
          'the rubric, a JSON list of questions',
        ),
      })
      .loose(),
    'the prompt metadata, a JSON object with "rubrics"',
  ),
  benchmark_name: z
    .string({ message: 'expected the sub-benchmark name, e.g. if_complex_if_oss' })
    .refine(
      (n) => advancedIfSubset(n) !== undefined,
      'unknown sub-benchmark: expected if_complex_if_oss, if_carried_context_oss or if_system_steerability_oss (or complex_if_v2 / carried_context_v2 / system_steerability_v2)',
    ),
  response: z.string().optional(),
})
export type AdvancedIfRecord = z.infer<typeof AdvancedIfRecordSchema>

/** The options of `loadAdvancedIf`: which records to load and how to grade them. */
export interface AdvancedIfOptions extends SelectOptions {
  /** Keep only these sub-benchmarks (any spelling of their names). */
  subsets?: readonly string[]
  /** `jsonl` or `csv`; default from the file extension (`.csv` is CSV, anything else JSON Lines). */
  format?: 'jsonl' | 'csv'
}

/** A loaded record: the task, the decoded record, its line, and the record's example answer when it has one. */
export interface AdvancedIfEntry {
  task: RubricTask
  record: AdvancedIfRecord
  line: number
  subset: AdvancedIfSubset
  response?: string
}

/**
 * One record as a rubric task. Records carry no id, so the task id is
 * `advancedif/<subset>/<8 hex digits of the conversation and rubric>`: stable however the file is
 * filtered or reordered. Criteria are `c1 … cN`, one per rubric question.
 *
 * @example
 * advancedIfTask(record).id // 'advancedif/complex-if/3f9a0c1b'
 */
export function advancedIfTask(record: AdvancedIfRecord, line?: number): RubricTask {
  const subset = advancedIfSubset(record.benchmark_name)!
  const rubrics = record.prompt_metadata.rubrics
  const hash = sha256(JSON.stringify([record.conversation_history, rubrics])).slice(0, 8)
  return {
    id: `advancedif/${subset}/${hash}`,
    prompt: record.conversation_history.map((m) => ({ role: m.role, content: m.content })),
    criteria: rubrics.map((text, i) => ({ id: positionalId(i), text })),
    metadata: {
      source: 'advancedif',
      benchmark: subset,
      benchmarkName: record.benchmark_name,
      ...(line !== undefined ? { line } : {}),
    },
  }
}

/**
 * Loads an AdvancedIF JSONL or CSV file with everything known about each record.
 *
 * @throws RubricBenchmarkFileError for a missing or malformed file (naming the line and the field).
 * @example
 * for (const { task, response } of loadAdvancedIfEntries('examples/sample_data.jsonl')) console.log(task.id, response?.length)
 */
export function loadAdvancedIfEntries(path: string | URL, options: AdvancedIfOptions = {}): AdvancedIfEntry[] {
  const where = `loadAdvancedIf(${JSON.stringify(displayPath(path))})`
  const format = options.format ?? (displayPath(path).toLowerCase().endsWith('.csv') ? 'csv' : 'jsonl')
  if (format !== 'jsonl' && format !== 'csv')
    throw new TypeError(`${where}: format must be 'jsonl' or 'csv', got ${JSON.stringify(format)}`)
  const text = readBenchmarkText(
    path,
    where,
    'AdvancedIF records are JSONL or CSV (see github.com/facebookresearch/AdvancedIF, examples/sample_data.jsonl); pass the file path',
    (message) => new RubricBenchmarkFileError(message),
  )
  const entries = recognisingFailures(
    text,
    'advancedif',
    where,
    (m) => new RubricBenchmarkFileError(m),
    () =>
      (format === 'csv' ? parseCsv(text, where) : parseJsonLines(text, where)).map(
        ({ line, value }): AdvancedIfEntry => {
          const record = parseRecord(
            AdvancedIfRecordSchema,
            value,
            `${where}: ${format === 'csv' ? 'row on line' : 'line'} ${line}`,
          )
          const response = responseText(record.response)
          return {
            task: advancedIfTask(record, line),
            record,
            line,
            subset: advancedIfSubset(record.benchmark_name)!,
            ...(response !== undefined ? { response } : {}),
          }
        },
      ),
  )
  assertUniqueIds(
    entries.map((e) => ({ id: e.task.id, line: e.line })),
    where,
  )
  let kept = entries
  if (options.subsets !== undefined) {
    const wanted = options.subsets.map((s) => {
      const subset = advancedIfSubset(s)
      if (!subset)
        throw new RubricBenchmarkFileError(
          `${where}: subsets: unknown sub-benchmark ${JSON.stringify(s)}; use ${ADVANCEDIF_SUBSETS.join(', ')} (or the file's names, e.g. if_complex_if_oss)`,
        )
      return subset
    })
    kept = kept.filter((e) => wanted.includes(e.subset))
  }
  return select(kept, options, (e) => [e.task.id], where)
}

/**
 * Loads an AdvancedIF file (JSONL or CSV, as the upstream processor reads) as rubric tasks.
 * Synchronous, so an eval file can call it at declaration time.
 *
 * @throws RubricBenchmarkFileError for a missing or malformed file (naming the line and the field).
 * @example
 * const tasks = loadAdvancedIf('data/advancedif.jsonl', { subsets: ['carried-context'], limit: 30 })
 * seqEval('AdvancedIF', { tasks, verifier: advancedIfVerifier({ grader }), ... })
 */
export function loadAdvancedIf(path: string | URL, options: AdvancedIfOptions = {}): RubricTask[] {
  return loadAdvancedIfEntries(path, options).map((e) => e.task)
}

/**
 * The AdvancedIF verifier: the whole rubric judged in one grader call (as the official judge), and
 * pass only if every question is satisfied. The official judge is o3-mini with AdvancedIF's own
 * prompt; this one uses `grader` with our versioned grader prompt.
 *
 * @example
 * const verifier = advancedIfVerifier({ grader: actors.openai({ model: 'o3-mini' }) })
 */
export function advancedIfVerifier(options: { grader: ChatModel }): RubricVerifier {
  return rubric({ grader: options.grader, gradingMode: 'all-at-once', passRule: 'all' })
}
