/**
 * Rubric criteria: what a rubric task carries and a rubric verifier grades.
 *
 * A criterion is judged either by code (a declarative `check`, so tasks stay plain JSON and
 * hashable into the protocol fingerprint) or by a grader model. Predicate functions are allowed
 * only through the verifier's options (`verifiers.rubric({ predicates })`), never on the task.
 */
import { z } from 'zod'
import { describeZodError } from '../../core/zod-errors.js'
import type { AnyTask, TaskBase, TaskBaseInput } from '../../core/task.js'

const RegexCheckSchema = z
  .object({
    kind: z.literal('regex'),
    /** A JavaScript regular expression source, e.g. `"Stay hydrated\\.\\s*$"`. */
    pattern: z.string().min(1, 'the pattern must not be empty'),
    /** RegExp flags (default none): any of d g i m s u v y. */
    flags: z
      .string()
      .regex(/^[dgimsuvy]*$/, 'flags must be RegExp flags (d, g, i, m, s, u, v, y)')
      .optional(),
    /** true (default): met when the pattern matches; false: met when it does not. */
    mustMatch: z.boolean().optional(),
  })
  .strict()

const WordLimitSchema = (kind: 'max-words' | 'min-words') =>
  z
    .object({
      kind: z.literal(kind),
      limit: z
        .number({ message: 'limit must be a whole number of words' })
        .int('limit must be a whole number of words')
        .nonnegative('limit must be >= 0'),
    })
    .strict()

/**
 * A code check: judged without any model call. `max-words` / `min-words` count whitespace-separated
 * tokens holding a letter or a digit; `json` accepts the whole answer (or one fenced block that is
 * the whole answer) as valid JSON; `includes` is case-insensitive unless `caseSensitive`.
 */
export const CriterionCheckSchema = z.discriminatedUnion('kind', [
  RegexCheckSchema,
  WordLimitSchema('max-words'),
  WordLimitSchema('min-words'),
  z.object({ kind: z.literal('json') }).strict(),
  z
    .object({
      kind: z.literal('includes'),
      text: z.string().min(1, 'the text to look for must not be empty'),
      caseSensitive: z.boolean().optional(),
    })
    .strict(),
])
/** A criterion checked by code: a word count, a pattern, a required or forbidden phrase. */
export type CriterionCheck = z.infer<typeof CriterionCheckSchema>

/**
 * One rubric criterion. `id` is stable within its task (verdicts, feedback and criterion-repair
 * metrics key on it). `points` weigh it under a points pass rule; negative points make it a
 * penalty (HealthBench): met means the answer did the undesirable thing.
 *
 * @example
 * const criterion: Criterion = { id: 'short', text: 'At most 40 words', check: { kind: 'max-words', limit: 40 } }
 */
export const CriterionSchema = z
  .object({
    id: z
      .string({ message: 'a criterion id must be a string' })
      .min(1, 'a criterion id must not be empty')
      // Ids appear in grader prompts as attributes and in metric keys: keep them plain.
      .regex(/^[A-Za-z0-9_.:-]+$/, 'a criterion id may hold only letters, digits and _ . : -'),
    text: z.string({ message: 'a criterion needs its text' }).min(1, 'the criterion text must not be empty'),
    points: z
      .number()
      .finite()
      .refine((p) => p !== 0, 'points must not be 0 (leave points out for an unweighted criterion)')
      .optional(),
    tags: z.array(z.string()).optional(),
    check: CriterionCheckSchema.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.check?.kind !== 'regex') return
    try {
      new RegExp(c.check.pattern, c.check.flags)
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        path: ['check', 'pattern'],
        message: `not a valid regular expression: ${(error as Error).message}`,
      })
    }
  })
/** One rubric criterion: its id, its text, its points and how it is checked. */
export type Criterion = z.infer<typeof CriterionSchema>
/** A rubric criterion as you write it, before its defaults are filled in. */
export type CriterionInput = z.input<typeof CriterionSchema>

/**
 * The task field the rubric verifier owns; `protocol/task.ts` adds it to TaskSchema.
 *
 * @example
 * RubricTaskFieldsSchema.parse({ criteria: [{ id: 'short', text: 'At most 40 words', check: { kind: 'max-words', limit: 40 } }] })
 */
export const RubricTaskFieldsSchema = z.object({
  /** Rubric criteria, for rubric tasks (graded by `verifiers.rubric()`). */
  criteria: z.array(CriterionSchema).optional(),
})

/** A task with its rubric: the base task and its criteria (what the benchmark loaders return). */
export type RubricTask = TaskBase & { criteria: Criterion[] }

/**
 * Input form of a rubric task, for fixtures and loaders. Other components' fields (a simulated
 * actor's `simulation` script) may ride along: their owners validate them, TaskSchema at seqEval().
 */
export type RubricTaskInput = TaskBaseInput & { criteria: CriterionInput[]; readonly [field: string]: unknown }

/** A task's criteria are missing or malformed; names the task and the field. */
export class RubricTaskError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RubricTaskError'
  }
}

const CriteriaListSchema = z.array(CriterionSchema).min(1, 'a rubric task needs at least one criterion')

// Verifiers and critics ask for a task's criteria on every attempt: parse each task object once.
const parsedCriteria = new WeakMap<object, Criterion[]>()

/**
 * The task's criteria, validated, or undefined when it has none. Reads `task.criteria` through
 * zod: the rubric verifier and the critic depend on the base task only.
 *
 * @throws RubricTaskError when criteria are present but malformed or their ids repeat.
 * @example
 * const criteria = criteriaOf(task) ?? []
 */
export function criteriaOf(task: AnyTask): Criterion[] | undefined {
  const cached = parsedCriteria.get(task)
  if (cached) return cached
  const raw = task.criteria
  if (raw === undefined) return undefined
  const parsed = CriteriaListSchema.safeParse(raw, { reportInput: true })
  if (!parsed.success) {
    const detail = describeZodError(parsed.error)
      .split('; ')
      .map((p) => `criteria${p.startsWith('[') ? '' : '.'}${p}`)
      .join('; ')
    throw new RubricTaskError(`task ${JSON.stringify(task.id)}: ${detail}`)
  }
  const seen = new Set<string>()
  for (const c of parsed.data) {
    if (seen.has(c.id))
      throw new RubricTaskError(
        `task ${JSON.stringify(task.id)}: criteria: duplicate criterion id ${JSON.stringify(c.id)}; ids must be unique within a task`,
      )
    seen.add(c.id)
  }
  parsedCriteria.set(task, parsed.data)
  return parsed.data
}

/**
 * Criterion ids `c1 … cN` in rubric order: how the benchmark loaders name criteria that have no id
 * of their own. Positional, so a grader's list of verdicts (CL-bench `requirement_status`) maps
 * onto them one to one.
 *
 * @example
 * positionalId(0) // 'c1'
 */
export function positionalId(index: number): string {
  return `c${index + 1}`
}
