import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { criteriaOf } from '../verifiers/rubric/criteria.js'
import { fakeModel } from '../verifiers/rubric/test-helpers.js'
import {
  ADVANCEDIF_SUBSETS,
  advancedIfSubset,
  advancedIfVerifier,
  loadAdvancedIf,
  loadAdvancedIfEntries,
} from './advancedif.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-advancedif-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const write = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}
const csvField = (s: string) => `"${s.replace(/"/g, '""')}"`
const toCsv = (records: Record<string, string>[]) => {
  const header = ['response', 'conversation_history', 'benchmark_name', 'prompt_metadata']
  return [header.join(','), ...records.map((r) => header.map((h) => csvField(r[h] ?? '')).join(','))].join('\n') + '\n'
}

/** A record encoded as the upstream files are: string fields holding JSON, the rubric double-encoded. */
const record = (name: string, rubrics: string[], user = 'Write a haiku.') => ({
  response: JSON.stringify([{ role: 'assistant', content: `An answer to: ${user}` }]),
  conversation_history: JSON.stringify([
    { role: 'system', content: 'Be terse.' },
    { role: 'user', content: user },
  ]),
  benchmark_name: name,
  prompt_metadata: JSON.stringify({ rubrics: JSON.stringify(rubrics) }),
})

describe('advancedIfSubset', () => {
  it('maps both spellings of every sub-benchmark', () => {
    expect(['if_complex_if_oss', 'complex_if_v2', 'Complex IF', 'complex-if'].map(advancedIfSubset)).toEqual(
      Array(4).fill('complex-if'),
    )
    expect(['if_carried_context_oss', 'carried_context_v2'].map(advancedIfSubset)).toEqual([
      'carried-context',
      'carried-context',
    ])
    expect(
      ['if_system_steerability_oss', 'system_steerability_v2', 'SYSTEM_STEERABILITY'].map(advancedIfSubset),
    ).toEqual(Array(3).fill('system-steerability'))
    expect(['if_math_oss', 'steerability', ''].map(advancedIfSubset)).toEqual([undefined, undefined, undefined])
    expect(ADVANCEDIF_SUBSETS).toHaveLength(3)
  })
})

describe('loadAdvancedIf', () => {
  const records = [
    record('if_complex_if_oss', ['Is it a haiku?', 'Is it about rain?']),
    record('system_steerability_v2', ['Is it terse?'], 'Hello'),
    record('if_carried_context_oss', ['Q?'], 'More'),
  ]

  it('decodes the double-encoded rubric into criteria c1…cN, with the conversation as the prompt', () => {
    const [entry] = loadAdvancedIfEntries(write('a.jsonl', records.map((r) => JSON.stringify(r)).join('\n')))
    expect(entry!.task).toEqual({
      id: expect.stringMatching(/^advancedif\/complex-if\/[0-9a-f]{8}$/),
      prompt: [
        { role: 'system', content: 'Be terse.' },
        { role: 'user', content: 'Write a haiku.' },
      ],
      criteria: [
        { id: 'c1', text: 'Is it a haiku?' },
        { id: 'c2', text: 'Is it about rain?' },
      ],
      metadata: { source: 'advancedif', benchmark: 'complex-if', benchmarkName: 'if_complex_if_oss', line: 1 },
    })
    expect(entry!.response).toBe('An answer to: Write a haiku.')
    expect(criteriaOf(entry!.task)).toHaveLength(2)
  })

  it('reads CSV the same as JSONL, and filters by sub-benchmark in any spelling', () => {
    const fromJsonl = loadAdvancedIf(write('b.jsonl', records.map((r) => JSON.stringify(r)).join('\n')))
    const fromCsv = loadAdvancedIf(write('b.csv', toCsv(records)))
    expect(fromCsv.map((t) => ({ ...t, metadata: undefined }))).toEqual(
      fromJsonl.map((t) => ({ ...t, metadata: undefined })),
    )
    expect(
      loadAdvancedIf(write('c.jsonl', records.map((r) => JSON.stringify(r)).join('\n')), {
        subsets: ['if_system_steerability_oss', 'carried-context'],
      }).map((t) => t.id.split('/')[1]),
    ).toEqual(['system-steerability', 'carried-context'])
  })

  it('keeps task ids stable when the file is filtered or reordered', () => {
    const a = loadAdvancedIf(write('d.jsonl', records.map((r) => JSON.stringify(r)).join('\n')))
    const b = loadAdvancedIf(
      write(
        'e.jsonl',
        [...records]
          .reverse()
          .map((r) => JSON.stringify(r))
          .join('\n'),
      ),
    )
    expect(new Set(b.map((t) => t.id))).toEqual(new Set(a.map((t) => t.id)))
  })

  it('reads a plain-text response and a single-message response', () => {
    const plain = { ...record('if_complex_if_oss', ['Q?']), response: 'just text' }
    const single = {
      ...record('if_complex_if_oss', ['Q?'], 'Other'),
      response: JSON.stringify({ role: 'assistant', content: 'one message' }),
    }
    expect(
      loadAdvancedIfEntries(write('f.jsonl', [plain, single].map((r) => JSON.stringify(r)).join('\n'))).map(
        (e) => e.response,
      ),
    ).toEqual(['just text', 'one message'])
  })

  it.each([
    [
      { prompt_metadata: '{"rubrics": "not json"}' },
      /line 1 is malformed: prompt_metadata\.rubrics: expected a string holding JSON \(the rubric, a JSON list of questions\)/,
    ],
    [{ prompt_metadata: '{"rubrics": "[]"}' }, /prompt_metadata\.rubrics: the rubric is empty/],
    [{ prompt_metadata: '{"other": 1}' }, /prompt_metadata\.rubrics/],
    [
      { conversation_history: '[{"role": "user"}]' },
      /conversation_history\[0\]\.content: a message content must be a string/,
    ],
    [{ conversation_history: '{not json' }, /conversation_history: expected a string holding JSON/],
    [{ benchmark_name: 'if_math_oss' }, /benchmark_name: unknown sub-benchmark/],
  ])('names the line and the field of a malformed record (%j)', (patch, message) => {
    expect(() =>
      loadAdvancedIf(write('bad.jsonl', JSON.stringify({ ...record('if_complex_if_oss', ['Q?']), ...patch }))),
    ).toThrow(message)
  })

  it('names the CSV row, and rejects unknown subsets', () => {
    const bad = toCsv([records[0]!, { ...records[1]!, prompt_metadata: 'x' }])
    expect(() => loadAdvancedIf(write('bad.csv', bad))).toThrow(/row on line 3 is malformed: prompt_metadata/)
    expect(() => loadAdvancedIf(write('g.jsonl', JSON.stringify(records[0])), { subsets: ['math'] })).toThrow(
      /subsets: unknown sub-benchmark "math"/,
    )
  })
})

describe('advancedIfVerifier', () => {
  it('grades the whole rubric at once and passes only when all are met', () => {
    expect(advancedIfVerifier({ grader: fakeModel(() => '') }).settings).toMatchObject({
      gradingMode: 'all-at-once',
      passRule: 'all',
    })
  })
})

const shared = new URL('../../../shared/benchmarks/advancedif/sample_data.jsonl', import.meta.url)
const present = existsSync(shared)
if (!present) {
  describe('the real AdvancedIF sample', () => {
    it('needs ../shared/benchmarks/', (ctx) => ctx.skip(`no benchmark data at ${fileURLToPath(shared)}`))
  })
}

describe.runIf(present)('the real AdvancedIF sample', () => {
  it('loads all 30 records, 10 per sub-benchmark, each with its example response', () => {
    const entries = loadAdvancedIfEntries(shared)
    expect(entries).toHaveLength(30)
    for (const subset of ADVANCEDIF_SUBSETS) expect(entries.filter((e) => e.subset === subset)).toHaveLength(10)
    expect(entries.every((e) => typeof e.response === 'string' && e.response.length > 0)).toBe(true)
    expect(entries.reduce((n, e) => n + e.task.criteria.length, 0)).toBe(217)
    expect(
      entries
        .filter((e) => e.subset === 'system-steerability')
        .every((e) => (e.task.prompt as { role: string }[])[0]!.role === 'system'),
    ).toBe(true)
  })

  it('reads the same tasks from a CSV rendering of the file', () => {
    const rows = readFileSync(shared, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>)
    const fromCsv = loadAdvancedIf(write('sample.csv', toCsv(rows)))
    expect(fromCsv.map((t) => t.id)).toEqual(loadAdvancedIf(shared).map((t) => t.id))
  })
})
