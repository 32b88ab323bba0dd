/**
 * The task users write: the base task (core/) and every bundled component's fields, each owned
 * and documented where it is read. Composed here, above the components, so none of them imports it.
 */
import { z } from 'zod'
import { TaskBaseSchema } from '../core/task.js'
import { SimulationTaskFieldsSchema } from '../models/simulated.js'
import { ExactMatchTaskFieldsSchema } from '../verifiers/exact-match.js'
import { PythonTestsTaskFieldsSchema } from '../verifiers/python-tests/task-fields.js'
import { RubricTaskFieldsSchema } from '../verifiers/rubric/criteria.js'
import { WorkspaceTaskFieldsSchema } from '../agents/workspace.js'
import { ToolCallsTaskFieldsSchema } from '../verifiers/tool-calls.js'
import { ArcGridTaskFieldsSchema } from '../verifiers/arc-grid.js'

export { taskMessages } from '../core/task.js'
export { SimulationScriptSchema, type SimulationScript } from '../models/simulated.js'

/**
 * One benchmark task: a prompt and what its verifier needs. Fields a verifier does not use are
 * ignored by it; each verifier checks at declaration time that the fields it needs are present.
 * Its fields, in this order (the order tasks have always parsed to): `id`, `prompt` (core/task.ts);
 * `tests`, `setup`, `entryPoint` (python-tests); `expected` (exact-match); `criteria` (rubric);
 * `metadata` (core/task.ts); `simulation` (the simulated actor); `files` (an agent's workspace); `expectedToolCalls` (tool-calls);
 * `expectedGrids` (the ARC grid verifier).
 *
 * @example
 * const task: Task = TaskSchema.parse({ id: 'capital/fr', prompt: 'The capital of France? One word.', expected: 'Paris' })
 */
export const TaskSchema = z.object({
  id: TaskBaseSchema.shape.id,
  prompt: TaskBaseSchema.shape.prompt,
  ...PythonTestsTaskFieldsSchema.shape,
  ...ExactMatchTaskFieldsSchema.shape,
  ...RubricTaskFieldsSchema.shape,
  metadata: TaskBaseSchema.shape.metadata,
  ...SimulationTaskFieldsSchema.shape,
  ...WorkspaceTaskFieldsSchema.shape,
  ...ToolCallsTaskFieldsSchema.shape,
  ...ArcGridTaskFieldsSchema.shape,
})
export type Task = z.infer<typeof TaskSchema>
/** A task as you write it, before TaskSchema fills in its defaults. */
export type TaskInput = z.input<typeof TaskSchema>
