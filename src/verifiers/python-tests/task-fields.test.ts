import { describe, expect, it } from 'vitest'
import { pythonTestsFieldsOf } from './task-fields.js'
import { pythonTests } from './python-tests.js'

describe('pythonTestsFieldsOf', () => {
  it('reads the code-task fields of any task and ignores the others', () => {
    expect(
      pythonTestsFieldsOf({ id: 't', prompt: 'p', tests: 'assert f() == 1', entryPoint: 'f', criteria: [] }),
    ).toEqual({ tests: 'assert f() == 1', entryPoint: 'f' })
    expect(pythonTestsFieldsOf({ id: 't', prompt: 'p' })).toEqual({})
  })

  it('names the task, the field and the fix when a field is not a string', () => {
    const problem = pythonTestsFieldsOf({ id: 'add/1', prompt: 'p', tests: 5 })
    expect(problem).toMatch(
      /^task add\/1: tests: .*\(got 5\): give python-tests `tests`, `setup` and `entryPoint` as strings/,
    )
  })

  it('is how checkTask and verify refuse such a task', async () => {
    const verifier = pythonTests({ sandbox: 'none' })
    const task = { id: 'add/1', prompt: 'p', tests: 'assert add(1, 2) == 3', setup: ['import math'] }
    expect(verifier.checkTask?.(task)).toEqual([expect.stringMatching(/^task add\/1: setup: /)])
    await expect(
      verifier.verify(task, 'def add(a, b): return a + b', { origin: 'bundled-simulation' }),
    ).rejects.toThrow(/python-tests: task add\/1: setup: /)
  })
})
