import { appendFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { appendPlanRecord, firstLine, planLoadErrors, planNotRun, type PlanRecord } from './plan-file.js'

describe('plan.jsonl', () => {
  let dir: string
  let path: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'seqk-plan-'))
    path = join(dir, 'plan.jsonl')
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  const skipped = (cellId: string, reason: string): PlanRecord => ({
    schema: 'seqk.plan/1',
    type: 'skipped',
    runId: 'r',
    file: 'a.eval.ts',
    benchmark: 'a',
    cellId,
    reason,
  })

  it('the skipped cells without a summary, each once with its last reason; none without a plan', () => {
    expect(planNotRun(path, [])).toEqual([])
    appendPlanRecord(path, { schema: 'seqk.plan/1', type: 'files', runId: 'r', files: ['a.eval.ts'] })
    appendPlanRecord(path, skipped('openai:gpt · binary', 'OPENAI_API_KEY is not set'))
    appendPlanRecord(path, skipped('openai:gpt · binary', 'still no key'))
    // Skipped in the first run, run by a resume: it has a summary now.
    appendPlanRecord(path, skipped('sim · binary', 'data absent'))
    expect(planNotRun(path, [{ name: 'a', cells: [{ cellId: 'sim · binary' }] }])).toEqual([
      { file: 'a.eval.ts', benchmark: 'a', cellId: 'openai:gpt · binary', reason: 'still no key' },
    ])
  })

  it('a skipped record never hides or invents a load error', () => {
    appendPlanRecord(path, { schema: 'seqk.plan/1', type: 'load-error', runId: 'r', file: 'b.eval.ts', error: 'boom' })
    appendPlanRecord(path, { ...(skipped('x', 'y') as PlanRecord & { type: 'skipped' }), file: 'b.eval.ts' })
    expect(planLoadErrors(path)).toEqual([{ file: 'b.eval.ts', error: 'boom' }])
  })

  it('refuses a malformed line, naming the file and line', () => {
    appendFileSync(path, '{"schema":"seqk.plan/1","type":"skipped","runId":"r"}\n')
    expect(() => planNotRun(path, [])).toThrow(/plan\.jsonl:1/)
  })
})

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
