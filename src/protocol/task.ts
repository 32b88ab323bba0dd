import { z } from 'zod'
import { ChatMessageSchema } from '../models/chat-model.js'
import { CriterionSchema } from '../verifiers/rubric/criteria.js'

/**
 * Answers a simulated actor chooses between for one task. Fixture data only: real benchmarks do
 * not carry it. `correct` answers pass the task's verifier, each `wrong` answer fails it.
 */
export const SimulationScriptSchema = z.object({
  /** 0 (easy) to 1 (hard): scales the simulated first-try and repair probabilities. */
  difficulty: z.number().min(0).max(1).default(0.5),
  correct: z.array(z.string().min(1)).min(1),
  wrong: z.array(z.string().min(1)).min(1),
})
export type SimulationScript = z.infer<typeof SimulationScriptSchema>

/**
 * One benchmark task: a prompt and what its verifier needs. Fields a verifier does not use are
 * ignored by it; each verifier checks at declaration time that the fields it needs are present.
 */
export const TaskSchema = z.object({
  id: z.string().min(1, 'a task id must be a non-empty string'),
  /** The task prompt: a user message, or a whole chat (system prompt and context first). */
  prompt: z.union([z.string().min(1), z.array(ChatMessageSchema).min(1)]),
  /** Python test code (top-level statements, usually `assert CALL == EXPECTED`), for code tasks. */
  tests: z.string().optional(),
  /** Python lines run before the candidate (the prompt's imports), for code tasks. */
  setup: z.string().optional(),
  /** The function the tests call, when known. */
  entryPoint: z.string().optional(),
  /**
   * The expected answer, for exact-match tasks (graded by `verifiers.exactMatch()`): one string,
   * or every accepted answer (aliases). Part of the benchmark's content hash when set.
   */
  expected: z.union([z.string(), z.array(z.string()).min(1)]).optional(),
  /** Rubric criteria, for rubric tasks (graded by `verifiers.rubric()`). */
  criteria: z.array(CriterionSchema).optional(),
  /** Free-form data kept in artifacts (source, tags, split). */
  metadata: z.record(z.string(), z.unknown()).optional(),
  simulation: SimulationScriptSchema.optional(),
})
export type Task = z.infer<typeof TaskSchema>
export type TaskInput = z.input<typeof TaskSchema>

/** The prompt as chat messages. */
export function taskMessages(task: Task): { role: 'system' | 'user' | 'assistant'; content: string }[] {
  return typeof task.prompt === 'string' ? [{ role: 'user', content: task.prompt }] : task.prompt
}
