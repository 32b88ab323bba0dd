/**
 * The base task: what every component may rely on (an id, a prompt, free-form metadata). Each
 * component owns the task fields it adds — python tests (`verifiers/python-tests/task-fields.ts`),
 * the expected answer (`verifiers/exact-match.ts`), rubric criteria (`verifiers/rubric/criteria.ts`),
 * the simulated actor's script (`models/simulated.ts`) — and validates them where it reads them.
 * `protocol/task.ts` composes them into the TaskSchema users write. Imports nothing of ours outside core/.
 */
import { z } from 'zod'
import { ChatMessageSchema, type ChatMessage } from './contract.js'

/**
 * The fields of every task. Unknown fields are not this schema's business: the full TaskSchema
 * (`protocol/task.ts`) adds the components' fields.
 *
 * @example
 * TaskBaseSchema.parse({ id: 'capital/fr', prompt: 'The capital of France?' })
 */
export const TaskBaseSchema = z.object({
  // Ids are written into JSONL lines, file names, terminal tables and reports: a newline or an
  // escape code in one breaks them (or forges a line), so control characters are refused.
  id: z
    .string()
    .min(1, 'a task id must be a non-empty string')
    // eslint-disable-next-line no-control-regex
    .refine((id) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(id), {
      message:
        'a task id must not contain control characters (a newline, a tab, an escape code): they break JSONL lines, tables and file names; replace them, e.g. with a space or "/"',
    }),
  /** The task prompt: a user message, or a whole chat (system prompt and context first). */
  prompt: z.union([z.string().min(1), z.array(ChatMessageSchema).min(1)]),
  /** Free-form data kept in artifacts (source, tags, split). */
  metadata: z.record(z.string(), z.unknown()).optional(),
})
export type TaskBase = z.infer<typeof TaskBaseSchema>
export type TaskBaseInput = z.input<typeof TaskBaseSchema>

/**
 * A task as a component sees it: the base fields typed, every other field present but `unknown`
 * until the component that owns it validates it (a verifier in `checkTask`, the simulated actor
 * when it answers). Any full Task is one.
 *
 * @example
 * const expected = (task: AnyTask) => (typeof task.expected === 'string' ? task.expected : undefined)
 */
export type AnyTask = TaskBase & { readonly [field: string]: unknown }

/**
 * The prompt as chat messages.
 *
 * @example
 * taskMessages({ id: 'a', prompt: 'hello' }) // [{ role: 'user', content: 'hello' }]
 */
export function taskMessages(task: TaskBase): ChatMessage[] {
  return typeof task.prompt === 'string' ? [{ role: 'user', content: task.prompt }] : task.prompt
}
