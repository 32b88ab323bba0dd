import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { criteriaOf } from '../verifiers/rubric/criteria.js'
import { fakeModel } from '../verifiers/rubric/test-helpers.js'
import {
  healthBenchTask,
  healthBenchVerifier,
  HealthBenchRecordSchema,
  loadHealthBench,
  loadHealthBenchEntries,
} from './healthbench.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-healthbench-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const jsonl = (name: string, records: unknown[]) => {
  const path = join(dir, name)
  writeFileSync(path, records.map((r) => JSON.stringify(r)).join('\n') + '\n')
  return path
}

const record = (id: string, extra: Record<string, unknown> = {}) => ({
  prompt: [{ role: 'user', content: `Question ${id}` }],
  prompt_id: id,
  example_tags: ['theme:hedging', 'physician_agreed_category:x'],
  rubrics: [
    { criterion: 'Advises rest.', points: 5, tags: ['axis:completeness'] },
    { criterion: 'Recommends an unsafe dose.', points: -8, tags: [] },
  ],
  ideal_completions_data: null,
  canary: 'ignored',
  ...extra,
})

describe('healthBenchTask', () => {
  it('makes a rubric task: id, conversation, criteria c1…cN with points and tags, metadata', () => {
    const task = healthBenchTask(HealthBenchRecordSchema.parse(record('p1')))
    expect(task).toEqual({
      id: 'healthbench/p1',
      prompt: [{ role: 'user', content: 'Question p1' }],
      criteria: [
        { id: 'c1', text: 'Advises rest.', points: 5, tags: ['axis:completeness'] },
        { id: 'c2', text: 'Recommends an unsafe dose.', points: -8 },
      ],
      metadata: {
        source: 'healthbench',
        promptId: 'p1',
        tags: ['theme:hedging', 'physician_agreed_category:x'],
        theme: 'hedging',
      },
    })
    expect(criteriaOf(task)).toEqual(task.criteria)
  })
})

describe('loadHealthBench', () => {
  it('loads, filters by theme and id, limits, and keeps the ideal completion', () => {
    const path = jsonl('ok.jsonl', [
      record('a'),
      record('b', {
        example_tags: ['theme:communication'],
        ideal_completions_data: { ideal_completion: 'Rest well.' },
      }),
      record('c'),
    ])
    expect(loadHealthBench(path).map((t) => t.id)).toEqual(['healthbench/a', 'healthbench/b', 'healthbench/c'])
    expect(loadHealthBench(path, { themes: ['communication'] }).map((t) => t.id)).toEqual(['healthbench/b'])
    expect(loadHealthBench(path, { ids: ['c', 'healthbench/a'] }).map((t) => t.id)).toEqual([
      'healthbench/a',
      'healthbench/c',
    ])
    expect(loadHealthBench(path, { limit: 1 })).toHaveLength(1)
    expect(loadHealthBenchEntries(path, { ids: ['b'] })[0]).toMatchObject({ line: 2, idealCompletion: 'Rest well.' })
  })

  it.each([
    [{ prompt_id: 7 }, /line 1 is malformed: prompt_id: expected the prompt id/],
    [{ rubrics: [] }, /line 1 \(prompt_id "x"\) is malformed: rubrics: the rubric is empty/],
    [{ rubrics: [{ criterion: 'A', points: 0 }] }, /rubrics\[0\]\.points: points must not be 0/],
    [{ rubrics: [{ criterion: 'A', points: -1 }] }, /no item with positive points/],
    [{ rubrics: [{ criterion: 'A' }] }, /rubrics\[0\]\.points: expected points/],
    [{ prompt: [{ role: 'assistant', content: 'x' }] }, /prompt: the conversation must end with a user message/],
  ])('names the line, the prompt id and the field of a malformed record (%j)', (patch, message) => {
    const path = jsonl('bad.jsonl', [{ ...record('x'), ...patch }])
    expect(() => loadHealthBench(path)).toThrow(message)
    expect(() => loadHealthBench(path)).toThrow(/^loadHealthBench\(".*bad\.jsonl"\): line 1/)
  })

  it('rejects duplicate prompt ids, unknown ids and themes, and a missing file', () => {
    expect(() => loadHealthBench(jsonl('dup.jsonl', [record('a'), record('a')]))).toThrow(
      'line 2 repeats the task id "healthbench/a" of line 1',
    )
    const path = jsonl('two.jsonl', [record('a'), record('b')])
    expect(() => loadHealthBench(path, { ids: ['zz'] })).toThrow('ids: no record with id "zz"')
    expect(() => loadHealthBench(path, { themes: ['nope'] })).toThrow(
      'themes: no record has theme "nope" (themes here: hedging)',
    )
    expect(() => loadHealthBench(join(dir, 'missing.jsonl'))).toThrow(/no such file. HealthBench ships as/)
  })
})

describe('healthBenchVerifier', () => {
  it('grades per criterion with a points threshold or "all"', () => {
    const grader = fakeModel(() => '')
    expect(healthBenchVerifier({ grader, threshold: 0.6 }).settings).toMatchObject({
      gradingMode: 'per-criterion',
      passRule: 'points>=0.6',
    })
    expect(healthBenchVerifier({ grader, threshold: 'all' }).settings).toMatchObject({ passRule: 'all' })
  })
})

const shared = new URL(
  '../../../shared/benchmarks/healthbench/healthbench_oss_eval_first30.derived.jsonl',
  import.meta.url,
)
const present = existsSync(shared)
if (!present) {
  describe('the real HealthBench sample', () => {
    it('needs ../shared/benchmarks/', (ctx) => ctx.skip(`no benchmark data at ${fileURLToPath(shared)}`))
  })
}

describe.runIf(present)('the real HealthBench sample', () => {
  it('loads all 30 records with valid criteria and points', () => {
    const entries = loadHealthBenchEntries(shared)
    expect(entries).toHaveLength(30)
    expect(entries.reduce((n, e) => n + e.task.criteria.length, 0)).toBe(352)
    for (const { task } of entries) {
      expect(criteriaOf(task)).toHaveLength(task.criteria.length)
      expect(task.criteria.some((c) => (c.points ?? 0) > 0)).toBe(true)
    }
    expect(entries.filter((e) => e.idealCompletion).length).toBeGreaterThan(0)
    expect(entries[0]!.task.id).toBe('healthbench/1f548d5b-cd00-49a0-b327-283a2e00debd')
  })
})
