// A loader handed another benchmark's file says which file it is and which loader reads it: every
// cross pair of the real files in ../shared/benchmarks/ (read there, never copied), plus the
// shapes we have no file of (string ids, the original HumanEval and MBPP, AdvancedIF as CSV).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { RubricBenchmarkFileError } from '../verifiers/rubric/benchmark-files.js'
import { loadAdvancedIf } from './advancedif.js'
import { loadClBench } from './clbench.js'
import { CodeEvalProFileError, loadHumanEvalPro, loadMbppPro } from './codeeval-pro.js'
import { loadHealthBench } from './healthbench.js'
import { recogniseRecord, sniffRecords, type KnownBenchmark } from './recognise.js'
import { codeEvalProFiles, missingData, sharedFile } from './test-helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-recognise-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const write = (text: string, name = `f${n++}.jsonl`) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

const files = {
  'humaneval-pro': codeEvalProFiles['humaneval-pro'],
  'mbpp-pro': codeEvalProFiles['mbpp-pro'],
  healthbench: sharedFile('healthbench/healthbench_oss_eval_first30.derived.jsonl'),
  advancedif: sharedFile('advancedif/sample_data.jsonl'),
  clbench: sharedFile('clbench/deepseek.v3.2.dkr_rsa_subset.jsonl'),
  'clbench (graded)': sharedFile('clbench/deepseek.v3.2_graded.dkr_rsa_subset.jsonl'),
} as const

type Loaded = 'humaneval-pro' | 'mbpp-pro' | 'healthbench' | 'advancedif' | 'clbench'
const loaders: Record<
  Loaded,
  { name: string; load: (path: string) => unknown; title: string; error: new (message: string) => Error }
> = {
  'humaneval-pro': {
    name: 'loadHumanEvalPro',
    load: loadHumanEvalPro,
    title: 'HumanEval Pro',
    error: CodeEvalProFileError,
  },
  'mbpp-pro': { name: 'loadMbppPro', load: loadMbppPro, title: 'MBPP Pro', error: CodeEvalProFileError },
  healthbench: {
    name: 'loadHealthBench',
    load: loadHealthBench,
    title: 'HealthBench',
    error: RubricBenchmarkFileError,
  },
  advancedif: { name: 'loadAdvancedIf', load: loadAdvancedIf, title: 'AdvancedIF', error: RubricBenchmarkFileError },
  clbench: { name: 'loadClBench', load: loadClBench, title: 'CL-bench', error: RubricBenchmarkFileError },
}
const benchmarkOf = (file: keyof typeof files): Loaded => (file === 'clbench (graded)' ? 'clbench' : file)

const pairs = (Object.keys(files) as (keyof typeof files)[]).flatMap((file) =>
  (Object.keys(loaders) as Loaded[]).filter((l) => l !== benchmarkOf(file)).map((loader) => [file, loader] as const),
)

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

describe.skipIf(missingData(...Object.values(files)))("every loader, given another benchmark's real file", () => {
  it.each(pairs)('the %s file to %s says which file it is and which loader reads it', (file, loader) => {
    const path = fileURLToPath(files[file])
    const { name, load, title, error } = loaders[loader]
    const is = loaders[benchmarkOf(file)]
    let thrown: unknown
    try {
      load(path)
    } catch (e) {
      thrown = e
    }
    expect(thrown).toBeInstanceOf(error)
    expect((thrown as Error).message).toMatch(
      new RegExp(
        `^${escape(name)}\\(${escape(JSON.stringify(path))}\\): this looks like the ${escape(is.title)} file \\(.+\\), not ${escape(title)}; use ${is.name}$`,
      ),
    )
  })

  it('each loader still reads its own file, and a broken record of its own file is named by line and field, not taken for another benchmark', () => {
    expect(loadHumanEvalPro(files['humaneval-pro'])).toHaveLength(164)
    expect(loadMbppPro(files['mbpp-pro'])).toHaveLength(378)
    expect(loadHealthBench(files.healthbench)).toHaveLength(30)
    expect(loadAdvancedIf(files.advancedif)).toHaveLength(30)
    expect(loadClBench(files['clbench (graded)'])).toHaveLength(8)
    const lines = readFileSync(files.healthbench, 'utf8').split('\n')
    const fifth = JSON.parse(lines[4]!) as { prompt_id: string; rubrics: unknown }
    lines[4] = JSON.stringify({ ...fifth, rubrics: 'all of them' })
    expect(() => loadHealthBench(write(lines.join('\n')))).toThrow(
      `line 5 (prompt_id ${JSON.stringify(fifth.prompt_id)}) is malformed: rubrics: expected the rubric: a list of { criterion, points, tags }`,
    )
  })
})

describe('recognising the shapes we hold no file of', () => {
  const codeRecord = (id: unknown, rawProblem: string) => ({
    id,
    raw_problem: rawProblem,
    raw_solution: '    return x\n',
    new_problem: '# g.\ndef g(x):\n',
    new_solution: '    return f(x)\n',
    test_code: 'assert g(1) == 1',
  })

  it('string ids say HumanEval/ or Mbpp/, whatever the style of the base problem', () => {
    const mbppIds = write(
      JSON.stringify([
        codeRecord('Mbpp/2', 'def f(x):\n    """F."""\n'),
        codeRecord('Mbpp/3', 'def f(x):\n    """F."""\n'),
      ]),
      'ids.json',
    )
    expect(() => loadHumanEvalPro(mbppIds)).toThrow(
      `loadHumanEvalPro(${JSON.stringify(mbppIds)}): this looks like the MBPP Pro file (ids like "Mbpp/2"), not HumanEval Pro; use loadMbppPro`,
    )
    const heIds = write(JSON.stringify([codeRecord('HumanEval/0', '# Write f.\ndef f(x):\n')]), 'he-ids.json')
    expect(() => loadMbppPro(heIds)).toThrow(
      'this looks like the HumanEval Pro file (ids like "HumanEval/0"), not MBPP Pro; use loadHumanEvalPro',
    )
    // Their own loader takes them.
    expect(loadMbppPro(mbppIds).map((t) => t.id)).toEqual(['mbpp-pro/Mbpp/2', 'mbpp-pro/Mbpp/3'])
  })

  it('the original HumanEval and MBPP (self-written records in their shapes) are named, with where the Pro files are', () => {
    const humaneval = write(
      JSON.stringify({
        task_id: 'HumanEval/0',
        prompt: 'def f(x):\n    """F."""\n',
        canonical_solution: '    return x\n',
        test: 'def check(candidate):\n    assert candidate(1) == 1\n',
        entry_point: 'f',
      }),
    )
    expect(() => loadHumanEvalPro(humaneval)).toThrow(
      `loadHumanEvalPro(${JSON.stringify(humaneval)}): this looks like the original HumanEval (or HumanEval+) file (task ids like "HumanEval/0"), not HumanEval Pro; vitest-seqk has no loader for it; loadHumanEvalPro reads HumanEval Pro, the self-invoking benchmark (dataset/humaneval_pro.json of github.com/CodeEval-Pro/CodeEval-Pro)`,
    )
    const mbpp = write(
      JSON.stringify({
        task_id: 11,
        text: 'Write a function to remove a character.',
        code: 'def f(s): return s',
        test_list: ['assert f("a") == "a"'],
      }),
    )
    expect(() => loadMbppPro(mbpp)).toThrow(
      'this looks like the original MBPP (or MBPP+) file (records with task_id, text, code and test_list), not MBPP Pro; vitest-seqk has no loader for it; loadMbppPro reads MBPP Pro',
    )
    expect(() => loadClBench(mbpp)).toThrow('this looks like the original MBPP (or MBPP+) file')
  })

  it('AdvancedIF as CSV, to the JSON loaders', () => {
    const csv = write(
      'conversation_history,prompt_metadata,benchmark_name\n"[{""role"": ""user"", ""content"": ""Hi""}]","{""rubrics"": ""[\\""Q?\\""]""}",if_complex_if_oss\n',
      'advancedif.csv',
    )
    expect(loadAdvancedIf(csv)).toHaveLength(1)
    for (const [load, name] of [
      [loadHealthBench, 'loadHealthBench'],
      [loadMbppPro, 'loadMbppPro'],
    ] as const) {
      expect(() => load(csv)).toThrow(
        `${name}(${JSON.stringify(csv)}): this looks like the AdvancedIF file (records with conversation_history, prompt_metadata and benchmark_name), not`,
      )
    }
  })

  it("a file like none of them gets the loader's own error, naming line and field", () => {
    const other = write(JSON.stringify({ question: 'q', answer: 'a' }))
    expect(() => loadHealthBench(other)).toThrow(/^loadHealthBench\(".*"\): line 1 is malformed: prompt: /)
    expect(() => loadMbppPro(other)).toThrow(
      /record \[0\] on line 1 is malformed: id: .*; raw_problem: expected a string/,
    )
  })

  it('recogniseRecord and sniffRecords', () => {
    const cases: [unknown, KnownBenchmark | undefined][] = [
      [{ prompt_id: 'p', prompt: [], rubrics: [{ criterion: 'c', points: 1 }] }, 'healthbench'],
      [{ messages: [], rubrics: ['r'], metadata: { task_id: 't' } }, 'clbench'],
      [{ conversation_history: '[]', benchmark_name: 'if_complex_if_oss' }, 'advancedif'],
      [{ id: 0, raw_problem: 'def f():\n    """F."""\n', new_problem: 'x' }, 'humaneval-pro'],
      [{ id: 0, raw_problem: 'def f():\n', new_problem: 'x' }, undefined],
      [{ question: 'q' }, undefined],
      ['not a record', undefined],
    ]
    for (const [record, expected] of cases) expect(recogniseRecord(record)?.benchmark).toBe(expected)
    expect(sniffRecords('\uFEFFa,b\n1,2')).toEqual([{ a: '', b: '' }])
    expect(sniffRecords('{"a": 1}\n{torn\n{"b": 2}')).toEqual([{ a: 1 }, { b: 2 }])
    expect(sniffRecords('[1, 2')).toEqual([])
  })
})
