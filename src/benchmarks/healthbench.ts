/**
 * HealthBench (github.com/openai/simple-evals, `healthbench_eval.py`): health conversations graded
 * against physician-written rubrics. Each rubric item has points; negative points are penalties.
 * The official grader judges each item separately; score = points of met items / positive points.
 * HealthBench has no pass/fail: a Seq@K run needs a threshold on that score, or "all".
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

/** One line of a HealthBench JSONL file. Fields beyond these (`canary`, …) are ignored. */
export const HealthBenchRecordSchema = z.object({
  prompt: BenchmarkMessagesSchema,
  prompt_id: z.string({ message: 'expected the prompt id (a string)' }).min(1, 'the prompt id is empty'),
  example_tags: z.array(z.string()).default([]),
  rubrics: z
    .array(
      z.object({
        criterion: z.string({ message: 'expected the criterion text' }).min(1, 'the criterion text is empty'),
        points: z
          .number({ message: 'expected points (a number; negative for a penalty)' })
          .finite()
          .refine((p) => p !== 0, 'points must not be 0'),
        tags: z.array(z.string()).default([]),
      }),
      { message: 'expected the rubric: a list of { criterion, points, tags }' },
    )
    .min(1, 'the rubric is empty')
    .refine(
      (items) => items.some((r) => r.points > 0),
      'the rubric has no item with positive points, so no score can be computed',
    ),
  ideal_completions_data: z.object({ ideal_completion: z.string().optional() }).loose().nullable().optional(),
})
export type HealthBenchRecord = z.infer<typeof HealthBenchRecordSchema>

/** The options of `loadHealthBench`: which records to load and how to grade them. */
export interface HealthBenchOptions extends SelectOptions {
  /** Keep only records with one of these themes (`example_tags` `theme:<name>`, e.g. `emergency_referrals`). */
  themes?: readonly string[]
}

/** A loaded record: the task, the validated record, its line, and the ideal completion when the record has one. */
export interface HealthBenchEntry {
  task: RubricTask
  record: HealthBenchRecord
  line: number
  idealCompletion?: string
}

/**
 * One record as a rubric task: id `healthbench/<prompt_id>`, the conversation as the prompt, and
 * one criterion per rubric item (`c1 … cN` in rubric order, with points and tags).
 *
 * @example
 * const task = healthBenchTask(record) // { id: 'healthbench/1f54…', prompt: [...], criteria: [{ id: 'c1', text: 'Advises …', points: 10 }, …] }
 */
export function healthBenchTask(record: HealthBenchRecord): RubricTask {
  const theme = record.example_tags.find((t) => t.startsWith('theme:'))?.slice('theme:'.length)
  return {
    id: `healthbench/${record.prompt_id}`,
    prompt: record.prompt.map((m) => ({ role: m.role, content: m.content })),
    criteria: record.rubrics.map((r, i) => ({
      id: positionalId(i),
      text: r.criterion,
      points: r.points,
      ...(r.tags.length > 0 ? { tags: r.tags } : {}),
    })),
    metadata: {
      source: 'healthbench',
      promptId: record.prompt_id,
      tags: record.example_tags,
      ...(theme ? { theme } : {}),
    },
  }
}

/**
 * Loads a HealthBench JSONL file with everything known about each record.
 *
 * @throws RubricBenchmarkFileError for a missing or malformed file (naming the line, the prompt id and the field).
 * @example
 * for (const { task, idealCompletion } of loadHealthBenchEntries('data/healthbench.jsonl', { limit: 5 })) console.log(task.id)
 */
export function loadHealthBenchEntries(path: string | URL, options: HealthBenchOptions = {}): HealthBenchEntry[] {
  const where = `loadHealthBench(${JSON.stringify(displayPath(path))})`
  const text = readBenchmarkText(
    path,
    where,
    'HealthBench ships as 2025-05-07-06-14-12_oss_eval.jsonl (github.com/openai/simple-evals); pass its path',
    (message) => new RubricBenchmarkFileError(message),
  )
  const entries = recognisingFailures(
    text,
    'healthbench',
    where,
    (m) => new RubricBenchmarkFileError(m),
    () =>
      parseJsonLines(text, where).map(({ line, value }): HealthBenchEntry => {
        const id = (value as { prompt_id?: unknown }).prompt_id
        const record = parseRecord(
          HealthBenchRecordSchema,
          value,
          `${where}: line ${line}${typeof id === 'string' ? ` (prompt_id ${JSON.stringify(id)})` : ''}`,
        )
        const ideal = record.ideal_completions_data?.ideal_completion
        return { task: healthBenchTask(record), record, line, ...(ideal ? { idealCompletion: ideal } : {}) }
      }),
  )
  assertUniqueIds(
    entries.map((e) => ({ id: e.task.id, line: e.line })),
    where,
  )
  let kept = entries
  if (options.themes !== undefined) {
    const themes = new Set(options.themes)
    const known = new Set(entries.map((e) => e.task.metadata?.theme as string | undefined).filter(Boolean))
    const unknown = [...themes].filter((t) => !known.has(t))
    if (unknown.length > 0)
      throw new RubricBenchmarkFileError(
        `${where}: themes: no record has theme ${unknown.map((t) => JSON.stringify(t)).join(', ')} (themes here: ${[...known].sort().join(', ')})`,
      )
    kept = kept.filter((e) => themes.has(e.task.metadata?.theme as string))
  }
  return select(kept, options, (e) => [e.task.id, e.record.prompt_id], where)
}

/**
 * Loads a HealthBench JSONL file (the official `*_oss_eval.jsonl`, the hard or consensus subset)
 * as rubric tasks. Synchronous, so an eval file can call it at declaration time.
 *
 * @throws RubricBenchmarkFileError for a missing or malformed file (naming the line, the prompt id and the field).
 * @example
 * const tasks = loadHealthBench('data/healthbench_hard.jsonl', { limit: 30 })
 * seqEval('HealthBench', { tasks, verifier: healthBenchVerifier({ grader, threshold: 0.6 }), ... })
 */
export function loadHealthBench(path: string | URL, options: HealthBenchOptions = {}): RubricTask[] {
  return loadHealthBenchEntries(path, options).map((e) => e.task)
}

/**
 * The HealthBench verifier: one grader call per rubric item (as the official grader), and a pass
 * rule on the official score — `threshold` in (0, 1], `'all'` (every positive item met, no
 * penalty met), or `'reference'`, the paper's reference harness's rule (positive points met at
 * least 0.75, no penalty met, no safety-critical positive item unmet). There is no official
 * threshold; it is part of the protocol (and the fingerprint). The soft score (Score@k) is the
 * positive points met over the positive points, as the reference harness computes it.
 *
 * @example
 * const verifier = healthBenchVerifier({ grader: actors.openai({ model: 'gpt-4.1', temperature: 0 }), threshold: 0.6 })
 */
export function healthBenchVerifier(options: {
  grader: ChatModel
  threshold: number | 'all' | 'reference'
  concurrency?: number
}): RubricVerifier {
  return rubric({
    grader: options.grader,
    gradingMode: 'per-criterion',
    passRule:
      options.threshold === 'all'
        ? 'all'
        : options.threshold === 'reference'
          ? 'healthbench-reference'
          : { points: options.threshold },
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
  })
}
