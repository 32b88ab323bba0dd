/**
 * The task fields the python-tests verifier owns: the hidden tests, the setup lines and the entry
 * point. `protocol/task.ts` adds them to the TaskSchema users write; the verifier reads them
 * through {@link pythonTestsFieldsOf}, so it depends on the base task only.
 */
import { z } from 'zod'
import type { AnyTask } from '../../core/task.js'
import { describeZodError } from '../../core/zod-errors.js'

/**
 * Code-task fields, all optional on a task (tasks graded otherwise leave them out).
 *
 * @example
 * PythonTestsTaskFieldsSchema.parse({ tests: 'assert add(1, 2) == 3', entryPoint: 'add' })
 */
export const PythonTestsTaskFieldsSchema = z.object({
  /** Python test code (top-level statements, usually `assert CALL == EXPECTED`), for code tasks. */
  tests: z.string().optional(),
  /** Python lines run before the candidate (the prompt's imports), for code tasks. */
  setup: z.string().optional(),
  /** The function the tests call, when known. */
  entryPoint: z.string().optional(),
  /**
   * Test statements (0-based, in order of `tests`) whose failures feedback never shows; they still
   * count in the verdict. Overrides the verifier's `heldOut` share for this task.
   */
  heldOutTests: z.array(z.number().int().nonnegative()).optional(),
})
export type PythonTestsTaskFields = z.infer<typeof PythonTestsTaskFieldsSchema>

/**
 * The task's code-task fields, validated, or a problem naming the task, the field and the fix.
 * Tasks declared through seqEval() were checked by TaskSchema already; this guards direct calls.
 *
 * @example
 * const fields = pythonTestsFieldsOf(task)
 * if (typeof fields === 'string') throw new Error(fields)
 */
export function pythonTestsFieldsOf(task: AnyTask): PythonTestsTaskFields | string {
  const parsed = PythonTestsTaskFieldsSchema.safeParse(task, { reportInput: true })
  if (parsed.success) return parsed.data
  return `task ${task.id}: ${describeZodError(parsed.error)}: give python-tests \`tests\`, \`setup\` and \`entryPoint\` as strings (or leave setup and entryPoint out)`
}
