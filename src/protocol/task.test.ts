import { WorkspaceTaskFieldsSchema } from '../agents/workspace.js'
import { ToolCallsTaskFieldsSchema } from '../verifiers/tool-calls.js'
import { ArcGridTaskFieldsSchema } from '../verifiers/arc-grid.js'
import { describe, expect, it } from 'vitest'
import { TaskBaseSchema } from '../core/task.js'
import { SimulationTaskFieldsSchema } from '../models/simulated.js'
import { ExactMatchTaskFieldsSchema } from '../verifiers/exact-match.js'
import { PythonTestsTaskFieldsSchema } from '../verifiers/python-tests/task-fields.js'
import { RubricTaskFieldsSchema } from '../verifiers/rubric/criteria.js'
import { TaskSchema, taskMessages } from './task.js'

describe('TaskSchema', () => {
  it('is the base task plus each component’s own fields, in the order tasks have always parsed to', () => {
    expect(Object.keys(TaskSchema.shape)).toEqual([
      'id',
      'prompt',
      'tests',
      'setup',
      'entryPoint',
      'heldOutTests',
      'expected',
      'criteria',
      'metadata',
      'simulation',
      'files',
      'expectedToolCalls',
      'expectedGrids',
    ])
    const owners = [
      TaskBaseSchema,
      PythonTestsTaskFieldsSchema,
      ExactMatchTaskFieldsSchema,
      RubricTaskFieldsSchema,
      SimulationTaskFieldsSchema,
      WorkspaceTaskFieldsSchema,
      ToolCallsTaskFieldsSchema,
      ArcGridTaskFieldsSchema,
    ]
    for (const owner of owners)
      for (const [field, schema] of Object.entries(owner.shape))
        expect(TaskSchema.shape[field as keyof typeof TaskSchema.shape], field).toBe(schema)
  })

  it('defaults a simulation difficulty to 0.5', () => {
    const task = TaskSchema.parse({ id: 'a', prompt: 'p', simulation: { correct: ['c'], wrong: ['w'] } })
    expect(task.simulation?.difficulty).toBe(0.5)
  })

  it('rejects an empty id, an empty prompt and a simulation without wrong answers', () => {
    expect(TaskSchema.safeParse({ id: '', prompt: 'p' }).success).toBe(false)
    expect(TaskSchema.safeParse({ id: 'a', prompt: '' }).success).toBe(false)
    expect(TaskSchema.safeParse({ id: 'a', prompt: [] }).success).toBe(false)
    expect(TaskSchema.safeParse({ id: 'a', prompt: 'p', simulation: { correct: ['c'], wrong: [] } }).success).toBe(
      false,
    )
    expect(
      TaskSchema.safeParse({ id: 'a', prompt: 'p', simulation: { difficulty: 2, correct: ['c'], wrong: ['w'] } })
        .success,
    ).toBe(false)
  })
})

describe('taskMessages', () => {
  it('turns a string prompt into one user message and keeps a chat prompt as is', () => {
    expect(taskMessages({ id: 'a', prompt: 'hello' })).toEqual([{ role: 'user', content: 'hello' }])
    const chat = [
      { role: 'system' as const, content: 's' },
      { role: 'user' as const, content: 'u' },
    ]
    expect(taskMessages({ id: 'b', prompt: chat })).toEqual(chat)
  })
})
