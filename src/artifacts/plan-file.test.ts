import { describe, expect, it } from 'vitest'
import { firstLine } from './plan-file.js'

describe('firstLine: how every output names a file that failed to load', () => {
  it('takes the line after one that announces it, and the first problem under a heading of problems', () => {
    expect(firstLine('Transform failed with 1 error:\n/p/x.eval.ts:2:28: ERROR: Unexpected "}"\nmore')).toBe(
      'Transform failed with 1 error: /p/x.eval.ts:2:28: ERROR: Unexpected "}"',
    )
    // Before: "seqEval("x"): invalid options", which names no field.
    expect(
      firstLine('seqEval("x"): invalid options\n  - budget: budget (K) must be an integer >= 1\n  - tasks: required'),
    ).toBe('seqEval("x"): invalid options: budget: budget (K) must be an integer >= 1 (and 1 more)')
    expect(firstLine('\n\n')).toBe('unknown error')
  })

  it('redacts a credential the error quotes (a key where a model name goes), since it is written to every output', () => {
    const key = ['sk', 'proj', 'Zq7'.repeat(10)].join('-')
    const line = firstLine(`actors.openai({ model: "${key}" }): unknown option "temprature"`)
    expect(line).not.toContain(key.slice(8))
    expect(line).toContain('[REDACTED]')
  })
})
