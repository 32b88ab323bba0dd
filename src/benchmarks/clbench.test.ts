import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { criteriaOf } from '../verifiers/rubric/criteria.js'
import { fakeModel } from '../verifiers/rubric/test-helpers.js'
import { clBenchScore, clBenchVerifier, loadClBench, loadClBenchEntries } from './clbench.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-clbench-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const jsonl = (name: string, records: unknown[]) => {
  const path = join(dir, name)
  writeFileSync(path, records.map((r) => JSON.stringify(r)).join('\n'))
  return path
}
const record = (id: string, category = 'Domain Knowledge Reasoning', extra: Record<string, unknown> = {}) => ({
  idx: id,
  messages: [
    { role: 'system', content: 'Context: the rules of a game.' },
    { role: 'user', content: 'Who wins?' },
  ],
  rubrics: ['Names the winner.', 'Cites rule 3.'],
  metadata: { task_id: id, context_id: 'ctx', context_category: category, sub_category: 'Games' },
  ...extra,
})

describe('loadClBench', () => {
  it('makes rubric tasks with positional criteria and the metadata', () => {
    const [task] = loadClBench(jsonl('a.jsonl', [record('t1')]))
    expect(task).toEqual({
      id: 'clbench/t1',
      prompt: [
        { role: 'system', content: 'Context: the rules of a game.' },
        { role: 'user', content: 'Who wins?' },
      ],
      criteria: [
        { id: 'c1', text: 'Names the winner.' },
        { id: 'c2', text: 'Cites rule 3.' },
      ],
      metadata: {
        source: 'clbench',
        taskId: 't1',
        contextId: 'ctx',
        category: 'Domain Knowledge Reasoning',
        subset: 'DKR',
        subCategory: 'Games',
      },
    })
    expect(criteriaOf(task!)).toHaveLength(2)
  })

  it('keeps the model output and the official grading of graded files', () => {
    const [entry] = loadClBenchEntries(
      jsonl('g.jsonl', [
        record('t1', undefined, {
          model_output: 'Alice',
          requirement_status: ['Yes', 'no'],
          score: 0,
          grading_rationale: 'r',
        }),
      ]),
    )
    expect(entry).toMatchObject({
      modelOutput: 'Alice',
      graded: { requirementStatus: ['yes', 'no'], score: 0, rationale: 'r' },
    })
  })

  it('filters by category name or initials, any case', () => {
    const path = jsonl('c.jsonl', [record('t1'), record('t2', 'Rule System Application'), record('t3')])
    expect(loadClBench(path, { categories: ['rsa'] }).map((t) => t.id)).toEqual(['clbench/t2'])
    expect(loadClBench(path, { categories: ['Domain knowledge reasoning'] }).map((t) => t.id)).toEqual([
      'clbench/t1',
      'clbench/t3',
    ])
    expect(() => loadClBench(path, { categories: ['XYZ'] })).toThrow(
      'categories: no record in category "xyz" (categories here: Domain Knowledge Reasoning (DKR), Rule System Application (RSA))',
    )
  })

  it.each([
    [{ rubrics: [] }, /line 1 \(task_id "t1"\) is malformed: rubrics: the rubric is empty/],
    [{ metadata: {} }, /line 1 is malformed: metadata\.task_id/],
    [{ requirement_status: ['yes'] }, /requirement_status: has 1 entries for 2 requirements/],
    [
      { requirement_status: ['yes', 'maybe'] },
      /requirement_status\[1\]: each requirement status must be 'yes' or 'no'/,
    ],
    [{ score: 0.5 }, /score: the score must be 0 or 1/],
    [{ messages: [] }, /messages: the conversation is empty/],
  ])('names the line, the task id and the field of a malformed record (%j)', (patch, message) => {
    expect(() => loadClBench(jsonl('bad.jsonl', [{ ...record('t1'), ...patch }]))).toThrow(message)
  })
})

describe('clBenchScore and clBenchVerifier', () => {
  it('scores 1 only when every requirement is met', () => {
    expect(clBenchScore(['yes', 'yes'])).toBe(1)
    expect(clBenchScore(['yes', 'no'])).toBe(0)
    expect(clBenchScore([true, true])).toBe(1)
  })

  it('grades every requirement in one call, all must be met', () => {
    expect(clBenchVerifier({ grader: fakeModel(() => '') }).settings).toMatchObject({
      gradingMode: 'all-at-once',
      passRule: 'all',
    })
  })
})

const shared = new URL('../../../shared/benchmarks/clbench/', import.meta.url)
const present = existsSync(new URL('deepseek.v3.2_graded.dkr_rsa_subset.jsonl', shared))
if (!present) {
  describe('the real CL-bench files', () => {
    it('needs ../shared/benchmarks/', (ctx) => ctx.skip(`no benchmark data at ${fileURLToPath(shared)}`))
  })
}

describe.runIf(present)('the real CL-bench files', () => {
  it('loads the inference and graded files as the same 8 tasks, 4 DKR and 4 RSA', () => {
    const output = loadClBenchEntries(new URL('deepseek.v3.2.dkr_rsa_subset.jsonl', shared))
    const graded = loadClBenchEntries(new URL('deepseek.v3.2_graded.dkr_rsa_subset.jsonl', shared))
    expect(output.map((e) => e.task)).toEqual(graded.map((e) => e.task))
    expect(graded.map((e) => e.task.metadata?.subset)).toEqual(['DKR', 'DKR', 'DKR', 'DKR', 'RSA', 'RSA', 'RSA', 'RSA'])
    expect(output.every((e) => e.modelOutput && !e.graded)).toBe(true)
    for (const e of graded) {
      expect(e.graded!.requirementStatus).toHaveLength(e.task.criteria.length)
      // The file follows the official rule: score 1 only if every requirement is met.
      expect(e.graded!.score).toBe(clBenchScore(e.graded!.requirementStatus))
    }
  })
})
