import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { TaskSchema } from '../protocol/task.js'
import {
  CodeEvalProFileError,
  PROMPT_DEFECTS,
  SELF_INVOKING_INSTRUCTION,
  detectDefects,
  entryPointFromTests,
  loadCodeEvalPro,
  loadHumanEvalPro,
  loadMbppPro,
  referenceAnswer,
  referenceCode,
  selfInvokingPrompt,
  type CodeEvalProDefect,
  type CodeEvalProRecord,
} from './codeeval-pro.js'
import { codeEvalProFiles, missingData, sharedFile } from './test-helpers.js'

// ---------------------------------------------------------------------------------------------
// Self-written records in the HumanEval Pro shape (none copied from the benchmark).

const circles: CodeEvalProRecord = {
  id: 1,
  raw_problem:
    '\nimport math\n\n\ndef circle_area(r: float) -> float:\n    """Area of a circle of radius r.\n    >>> round(circle_area(1.0), 2)\n    3.14\n    """\n',
  raw_solution: '    return math.pi * r * r\n',
  new_problem:
    '# The total area of several circles, using circle_area for each one.\nfrom typing import List\n\ndef total_area(radii: List[float]) -> float:\n',
  new_solution: '    return sum(circle_area(r) for r in radii)\n',
  test_code:
    '\nassert math.isclose(total_area([1.0, 2.0]), 5 * math.pi)\nassert total_area([]) == 0\nassert round(total_area([1.0]), 2) == 3.14',
}

/** The prompt repeats the base signature: the tests call `double_all`, which the prompt never names. */
const repeated: CodeEvalProRecord = {
  id: 2,
  raw_problem: 'def double(x: int) -> int:\n    """Twice x."""\n',
  raw_solution: '    return 2 * x\n',
  new_problem: '# Double every number of a list.\ndef double(x: int) -> int:\n',
  new_solution: '    return 2 * x\n\ndef double_all(xs):\n    return [double(x) for x in xs]\n',
  test_code:
    'assert double_all([1, 2]) == [2, 4]\nassert double_all([]) == []\nassert sorted(double_all([3, 1])) == [2, 6]',
}

/** The prompt is cut off before any signature. */
const truncated: CodeEvalProRecord = {
  id: 3,
  raw_problem: 'def word_count(s: str) -> int:\n    """Number of words in s."""\n',
  raw_solution: '    return len(s.split())\n',
  new_problem: '# Given several sentences, the rule is as follows:\n',
  new_solution:
    '# 1. count the words of each sentence\n# 2. add them up\ndef total_words(sentences):\n    return sum(word_count(s) for s in sentences)\n',
  test_code: 'assert total_words(["a b", "c"]) == 3',
}

/** A new signature the tests never call, and a reference main solution that ignores the base function. */
const renamed: CodeEvalProRecord = {
  id: 4,
  raw_problem: 'def squre(x):\n    """x squared (sic)."""\n',
  raw_solution: '    return x * x\n',
  new_problem: '# Sum of squares, using square.\ndef square(x):\n',
  new_solution: '    return x * x\n\ndef sum_squares(xs):\n    return sum(square(x) for x in xs)\n',
  test_code: 'assert sum_squares([1, 2]) == 5',
}

/** A one-line helper before the main signature: harmless, flagged for completeness. */
const helper: CodeEvalProRecord = {
  id: 5,
  raw_problem: 'def is_even(n):\n    """Whether n is even."""\n',
  raw_solution: '    return n % 2 == 0\n',
  new_problem: '# Count the even numbers of a list.\ndef is_even(n): return n % 2 == 0\n\ndef count_even(xs):\n',
  new_solution: '    return sum(1 for x in xs if is_even(x))\n',
  test_code: 'assert count_even([1, 2, 4]) == 2',
}

const RECORDS = [circles, repeated, truncated, renamed, helper]

/** Self-written records in the MBPP Pro shape: the base problem is a `# Write a …` comment over a bare signature. */
const squares: CodeEvalProRecord = {
  id: 1,
  raw_problem: '# Write a function to square a number.\ndef square(x):\n',
  raw_solution: '    return x * x\n',
  new_problem: '# Write a function to sum the squares of a list of numbers, using square.\ndef sum_squares(xs):\n',
  new_solution: '    return sum(square(x) for x in xs)\n',
  test_code: 'assert sum_squares([1, 2]) == 5\nassert sum_squares([]) == 0',
}
const cubes: CodeEvalProRecord = {
  id: 2,
  raw_problem: '# Write a function to cube a number.\nimport math\ndef cube(x):\n',
  raw_solution: '    return x ** 3\n',
  new_problem: '# Write a function to find the largest cube of a list, using cube.\ndef max_cube(xs):\n',
  new_solution: '    return max(cube(x) for x in xs)\n',
  test_code: 'assert max_cube([1, 2]) == 8',
}
const MBPP_RECORDS = [squares, cubes]

const dir = mkdtempSync(join(tmpdir(), 'seqk-codeeval-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let fileNo = 0
function write(content: unknown, raw = false): string {
  const file = join(dir, `data-${fileNo++}.json`)
  writeFileSync(file, raw ? String(content) : JSON.stringify(content))
  return file
}
const inline = write(RECORDS)
const mbppInline = write(MBPP_RECORDS)

describe('selfInvokingPrompt', () => {
  it('is the official layout: the instruction, then one python block with both problems stripped', () => {
    expect(selfInvokingPrompt('\n\ndef f(x):\n    """F."""\n', '# G.\ndef g(xs):\n\n')).toBe(
      `${SELF_INVOKING_INSTRUCTION}\n\`\`\`python\ndef f(x):\n    """F."""\n# G.\ndef g(xs):\n\`\`\``,
    )
    expect(SELF_INVOKING_INSTRUCTION).toBe(
      'Write a solution of python file to the following problems, the solution of the second problem requires single or multiple calls to the first solution.',
    )
  })
})

describe('loadHumanEvalPro / loadMbppPro on inline records', () => {
  it('builds tasks with the official prompt, the tests, the prompt imports as setup and the entry point', () => {
    const [task] = loadHumanEvalPro(inline, { ids: [1] })
    expect(TaskSchema.parse(task)).toEqual(task)
    expect(task).toEqual({
      id: 'humaneval-pro/1',
      prompt: selfInvokingPrompt(circles.raw_problem, circles.new_problem),
      tests: circles.test_code,
      setup: 'import math\nfrom typing import List',
      entryPoint: 'total_area',
      metadata: {
        source: 'humaneval-pro',
        benchmark: 'HumanEval Pro',
        upstreamId: 1,
        baseFunctions: ['circle_area'],
        defects: [],
      },
    })
    expect(loadMbppPro(mbppInline, { ids: [1] })[0]).toMatchObject({
      id: 'mbpp-pro/1',
      entryPoint: 'sum_squares',
      metadata: { source: 'mbpp-pro', benchmark: 'MBPP Pro', baseFunctions: ['square'] },
    })
  })

  it('flags the defects from the data', () => {
    const defects = Object.fromEntries(loadHumanEvalPro(inline).map((t) => [t.id, t.metadata?.defects]))
    expect(defects).toEqual({
      'humaneval-pro/1': [],
      'humaneval-pro/2': ['repeatsBaseSignature'],
      'humaneval-pro/3': ['truncatedPrompt'],
      'humaneval-pro/4': ['signatureNotCalledByTests', 'referenceDoesNotCallBase'],
      'humaneval-pro/5': ['multipleDefsInNewProblem'],
    })
    expect(loadHumanEvalPro(inline).map((t) => t.entryPoint)).toEqual([
      'total_area',
      'double_all',
      'total_words',
      'sum_squares',
      'count_even',
    ])
  })

  it('excludeDefective: true drops the prompt defects; a list drops exactly those', () => {
    expect(PROMPT_DEFECTS).toEqual(['repeatsBaseSignature', 'truncatedPrompt', 'signatureNotCalledByTests'])
    expect(loadHumanEvalPro(inline, { excludeDefective: true }).map((t) => t.id)).toEqual([
      'humaneval-pro/1',
      'humaneval-pro/5',
    ])
    expect(loadHumanEvalPro(inline, { excludeDefective: false })).toHaveLength(5)
    expect(
      loadHumanEvalPro(inline, { excludeDefective: ['referenceDoesNotCallBase', 'multipleDefsInNewProblem'] }).map(
        (t) => t.id,
      ),
    ).toEqual(['humaneval-pro/1', 'humaneval-pro/2', 'humaneval-pro/3'])
  })

  it('selects subsets by ids, range and limit, in file order', () => {
    const ids = (options: Parameters<typeof loadHumanEvalPro>[1]) =>
      loadHumanEvalPro(inline, options).map((t) => t.metadata?.upstreamId)
    expect(ids({ ids: [5, '2', 'humaneval-pro/3'] })).toEqual([2, 3, 5])
    expect(ids({ range: [2, 4] })).toEqual([2, 3, 4])
    expect(ids({ limit: 2 })).toEqual([1, 2])
    expect(ids({ range: [2, 5], excludeDefective: true, limit: 1 })).toEqual([5])
    expect(ids({ range: [6, 9] })).toEqual([])
  })

  it('rejects unknown ids and bad options with the fix', () => {
    expect(() => loadHumanEvalPro(inline, { ids: [1, 99] })).toThrow(
      /ids: no record with id "99" in this file \(ids 1\.\.5, 5 records\)/,
    )
    expect(() => loadHumanEvalPro(inline, { limit: 0 })).toThrow(/limit must be an integer >= 1, got 0/)
    expect(() => loadHumanEvalPro(inline, { range: [5, 1] })).toThrow(/range must be \[from, to\] with from <= to/)
    expect(() => loadHumanEvalPro(inline, { excludeDefective: ['typo' as CodeEvalProDefect] })).toThrow(
      /excludeDefective: unknown defect "typo"/,
    )
  })

  it('reads JSON Lines too, and accepts a file URL', () => {
    const jsonl = write(RECORDS.map((r) => JSON.stringify(r)).join('\n') + '\n', true)
    expect(loadHumanEvalPro(jsonl).map((t) => t.id)).toEqual(loadHumanEvalPro(inline).map((t) => t.id))
    expect(loadHumanEvalPro(new URL(`file://${inline}`))).toHaveLength(5)
    expect(loadMbppPro(write(MBPP_RECORDS.map((r) => JSON.stringify(r)).join('\n'), true)).map((t) => t.id)).toEqual([
      'mbpp-pro/1',
      'mbpp-pro/2',
    ])
  })

  it('names the record (index, id and line), the field and what was expected for a malformed record', () => {
    const text = JSON.stringify([circles, { ...repeated, test_code: 42 }], null, 2)
    const bad = write(`\n${text}`, true)
    // The record starts on the line before its id (the blank first line counts too).
    const line = text.split('\n').findIndex((l) => l.includes('"id": 2')) + 1
    let message = ''
    try {
      loadHumanEvalPro(bad)
    } catch (error) {
      expect(error).toBeInstanceOf(CodeEvalProFileError)
      message = (error as Error).message
    }
    expect(message).toContain(`loadHumanEvalPro(${JSON.stringify(bad)})`)
    expect(message).toContain(`record [1] (id 2) on line ${line} is malformed`)
    expect(message).toContain('test_code: expected a string: the hidden tests (top-level assert statements) (got 42)')

    const missing = { ...squares } as Partial<CodeEvalProRecord>
    delete missing.new_problem
    expect(() => loadMbppPro(write([missing]))).toThrow(
      /loadMbppPro\(.*\): record \[0\] \(id 1\) on line 1 is malformed: new_problem: expected a string: the self-invoking problem/,
    )
    expect(() => loadMbppPro(write([{ ...squares, id: -1 }]))).toThrow(
      'record [0] (id -1) on line 1 is malformed: id: the task id must be a non-negative integer (got -1)',
    )
    expect(() => loadMbppPro(write([{ ...squares, id: null }]))).toThrow(
      'record [0] (id null) on line 1 is malformed: id: expected the task id: a non-negative integer (or a non-empty string)',
    )
    expect(() => loadMbppPro(write([{ ...squares, test_code: '\n\n' }]))).toThrow(
      /record \[0\] \(id 1\) on line 1 is malformed: test_code: the hidden tests are empty/,
    )
    expect(() => loadMbppPro(write(['not a record']))).toThrow(/record \[0\] on line 1 is malformed: \(root\)/)
    expect(() =>
      loadMbppPro(
        write(
          MBPP_RECORDS.concat(squares)
            .map((r) => JSON.stringify(r))
            .join('\n\n'),
          true,
        ),
      ),
    ).toThrow(/record \[2\] on line 5 repeats id 1 of record \[0\] on line 1; ids must be unique/)
  })

  it('says what is wrong with a file that is missing, empty or not JSON', () => {
    const nowhere = join(dir, 'nowhere', 'humaneval_pro.json')
    expect(() => loadHumanEvalPro(nowhere)).toThrow(CodeEvalProFileError)
    expect(() => loadHumanEvalPro(nowhere)).toThrow(
      `cannot read ${nowhere}: no such file. Download dataset/humaneval_pro.json from github.com/CodeEval-Pro/CodeEval-Pro`,
    )
    expect(() => loadMbppPro(dir)).toThrow(/this is a directory; pass the path of mbpp_pro\.json inside it/)
    expect(() => loadMbppPro(write('', true))).toThrow(/the file is empty/)
    expect(() => loadMbppPro(write('[]', true))).toThrow(/holds no records/)
    expect(() => loadMbppPro(write('[{"id": 1,', true))).toThrow(
      /not valid JSON .*expected a JSON array of records as in dataset\/mbpp_pro\.json/,
    )
    expect(() => loadMbppPro(write('[\n  {"id": 1,\n   "raw_problem" "x"}\n]', true))).toThrow(
      /not valid JSON \(.* at position 31, line 3\)/,
    )
    expect(() => loadMbppPro(write('{"id": 1}\n{oops', true))).toThrow(/line 2 is not valid JSON/)
    expect(() => loadMbppPro(write('id,prompt', true))).toThrow(/starts with "id,prompt"/)
  })
})

describe('entryPointFromTests', () => {
  it('is the most called plain function, ignoring builtins, attribute calls, imports and names the tests define', () => {
    expect(entryPointFromTests('assert math.isclose(area(2), 12.56)\nassert area(0) == 0')).toBe('area')
    expect(entryPointFromTests('assert sorted(f([1])) == [1]\nassert set(f([])) == set()')).toBe('f')
    expect(
      entryPointFromTests('assert main(Counter("ab")) == Counter("ab")\nassert main(Counter()) == Counter()', [
        'from collections import Counter',
      ]),
    ).toBe('main')
    expect(
      entryPointFromTests(
        'def helper(x):\n    return x\nassert g(helper(1)) == 1\nassert helper(2) == 2 and g(3) == 3',
      ),
    ).toBe('g')
    expect(entryPointFromTests('assert f("g(1)") == 1  # g(2) g(3)')).toBe('f')
    expect(entryPointFromTests('assert True')).toBeUndefined()
  })

  it('breaks ties toward the name called first', () => {
    expect(entryPointFromTests('assert b(1) == a(1)')).toBe('b')
  })
})

describe('referenceAnswer', () => {
  it('is one python block of raw_problem + raw_solution + new_problem + new_solution', () => {
    expect(referenceCode(repeated)).toBe(
      repeated.raw_problem + repeated.raw_solution + repeated.new_problem + repeated.new_solution.trimEnd(),
    )
    expect(referenceAnswer(circles)).toBe(
      `\`\`\`python\n${(circles.raw_problem + circles.raw_solution + circles.new_problem + circles.new_solution).trim()}\n\`\`\`\n`,
    )
  })

  it('detectDefects agrees with the defects on the task', () => {
    const entries = loadCodeEvalPro(inline, { benchmark: 'humaneval-pro' })
    for (const e of entries) {
      expect(detectDefects(e.record)).toEqual(e.defects)
      expect(e.task.metadata?.defects).toEqual(Object.keys(e.defects).filter((d) => e.defects[d as CodeEvalProDefect]))
    }
  })
})

// ---------------------------------------------------------------------------------------------
// The real files, read from ../shared/benchmarks/ next to the repository (never copied into it).

const real = {
  'humaneval-pro': { file: codeEvalProFiles['humaneval-pro'], scanKey: 'humaneval_pro', count: 164 },
  'mbpp-pro': { file: codeEvalProFiles['mbpp-pro'], scanKey: 'mbpp_pro', count: 378 },
} as const
const scanFile = sharedFile('codeeval-pro-defects.json')
const skipReason = missingData(scanFile, ...Object.values(codeEvalProFiles))
const present = skipReason === undefined

/** Our flag names for the scan's. */
const SCAN_FLAGS: Record<string, CodeEvalProDefect> = {
  new_problem_repeats_base_signature: 'repeatsBaseSignature',
  new_problem_truncated_no_signature: 'truncatedPrompt',
  new_problem_signature_not_called_by_tests: 'signatureNotCalledByTests',
  reference_new_solution_does_not_call_base_fn: 'referenceDoesNotCallBase',
  new_problem_has_multiple_defs: 'multipleDefsInNewProblem',
}

interface Scan {
  n_tasks: number
  flags: Record<string, string[]>
  entry_point_from_tests: Record<string, string[]>
}

// Without the data: Vitest's own skip with a note, so the reporter shows why.
if (!present) {
  describe('the real CodeEval-Pro files', () => {
    it('needs ../shared/benchmarks/', (ctx) => ctx.skip(skipReason!))
  })
}

describe.runIf(present)('the real CodeEval-Pro files', () => {
  const scan = present ? (JSON.parse(readFileSync(scanFile, 'utf8')) as Record<string, Scan>) : {}

  describe.each(Object.entries(real))('%s', (benchmark, { file, scanKey, count }) => {
    const entries = present ? loadCodeEvalPro(file, { benchmark: benchmark as keyof typeof real }) : []
    const ourScan = scan[scanKey] as Scan

    it(`has ${count} tasks, each valid and with an entry point and setup made of import lines`, () => {
      expect(entries).toHaveLength(count)
      expect(ourScan.n_tasks).toBe(count)
      for (const { task } of entries) {
        expect(TaskSchema.parse(task)).toEqual(task)
        expect(task.id).toMatch(new RegExp(`^${benchmark}/\\d+$`))
        expect(task.prompt).toMatch(new RegExp(`^${SELF_INVOKING_INSTRUCTION}\\n\`\`\`python\\n[\\s\\S]+\\n\`\`\`$`))
        expect(task.entryPoint).toMatch(/^[A-Za-z_]\w*$/)
        for (const line of (task.setup ?? '').split('\n').filter(Boolean)) expect(line).toMatch(/^(import|from) [\w.]+/)
      }
    })

    it('finds the entry point the scan found in the tests, for every task', () => {
      const ours = Object.fromEntries(entries.map((e) => [String(e.record.id), [e.task.entryPoint]]))
      expect(ours).toEqual(ourScan.entry_point_from_tests)
    })

    it('detects the defect flags the scan found, for every task', () => {
      const ours = Object.fromEntries(
        entries
          .map(
            (e) =>
              [
                String(e.record.id),
                (Object.keys(e.defects) as CodeEvalProDefect[]).filter((d) => e.defects[d]),
              ] as const,
          )
          .filter(([, flags]) => flags.length > 0),
      )
      const theirs = Object.fromEntries(
        Object.entries(ourScan.flags).map(([id, flags]) => [
          id,
          flags.map((f) => SCAN_FLAGS[f] ?? `unknown scan flag ${f}`),
        ]),
      )
      expect(Object.fromEntries(Object.entries(ours).map(([id, f]) => [id, [...f].sort()]))).toEqual(
        Object.fromEntries(Object.entries(theirs).map(([id, f]) => [id, [...f].sort()])),
      )
    })

    it('excludeDefective drops exactly the tasks with a prompt defect', () => {
      const flagged = Object.values(ourScan.flags).filter((flags) =>
        flags.some((f) => PROMPT_DEFECTS.includes(SCAN_FLAGS[f] as CodeEvalProDefect)),
      ).length
      expect(loadCodeEvalPro(file, { benchmark: benchmark as keyof typeof real, excludeDefective: true })).toHaveLength(
        count - flagged,
      )
    })

    it('selects subsets by ids, range and limit', () => {
      const b = benchmark as keyof typeof real
      expect(loadCodeEvalPro(file, { benchmark: b, ids: [7, '0', `${b}/3`] }).map((e) => e.record.id)).toEqual([
        0, 3, 7,
      ])
      expect(loadCodeEvalPro(file, { benchmark: b, range: [10, 19] }).map((e) => e.record.id)).toEqual([
        10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
      ])
      expect(loadCodeEvalPro(file, { benchmark: b, limit: 20, excludeDefective: true })).toHaveLength(20)
      expect(() => loadCodeEvalPro(file, { benchmark: b, ids: [count] })).toThrow(
        `no record with id "${count}" in this file (ids 0..${count - 1}, ${count} records)`,
      )
    })

    it('names the record and the field when one record of the real file is broken', () => {
      const records = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[]
      records[7] = { ...records[7], raw_solution: null }
      // The upstream layout: a JSON array indented by 4, each record starting on the line before its id.
      const text = JSON.stringify(records, null, 4)
      const line = text.split('\n').findIndex((l) => l.trim() === '"id": 7,')
      const broken = write(text, true)
      expect(() => loadCodeEvalPro(broken, { benchmark: benchmark as keyof typeof real })).toThrow(
        `record [7] (id 7) on line ${line} is malformed: raw_solution: expected a string: the body of the base function`,
      )
    })
  })

  it('counts: 12 HumanEval Pro and 25 MBPP Pro prompts do not name the function the tests call', () => {
    expect(loadHumanEvalPro(real['humaneval-pro'].file, { excludeDefective: true })).toHaveLength(164 - 12)
    expect(loadMbppPro(real['mbpp-pro'].file, { excludeDefective: true })).toHaveLength(378 - 25)
    const flagged = (benchmark: keyof typeof real, defect: CodeEvalProDefect) =>
      loadCodeEvalPro(real[benchmark].file, { benchmark }).filter((e) => e.defects[defect]).length
    expect(flagged('humaneval-pro', 'repeatsBaseSignature')).toBe(9)
    expect(flagged('humaneval-pro', 'truncatedPrompt')).toBe(3)
    expect(flagged('mbpp-pro', 'repeatsBaseSignature')).toBe(24)
    expect(flagged('mbpp-pro', 'signatureNotCalledByTests')).toBe(1)
  })
})
