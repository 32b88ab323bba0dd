// Baselines checked for meaning as well as shape: each test writes a real baseline from a real
// cell run into a temp dir, edits the file the way a person (or a bad merge) would, and reads it
// back. Every problem names the file, the benchmark, the cell, the field and the fix.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { binary } from '../feedback/binary.js'
import type { ChatModel } from '../models/chat-model.js'
import { simulatedActor } from '../models/simulated.js'
import { runCell, type CellSpec } from '../protocol/cell.js'
import { protocolFingerprint } from '../core/fingerprint.js'
import { fullHistory } from '../protocol/history.js'
import { defaultPromptBuilder } from '../protocol/prompt-builder.js'
import type { Task } from '../protocol/task.js'
import { saysCorrect } from '../protocol/test-helpers.js'
import { applyBaseline } from '../vitest/baseline.js'
import {
  BaselineFileError,
  baselineCellProblems,
  readBaselineFile,
  writeBaselineCell,
  type BaselineCellJson,
  type BaselineFile,
} from './baseline-file.js'
import type { CellSummary, ErrorPolicy } from '../core/schemas.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-baseline-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const tasks: Task[] = Array.from({ length: 8 }, (_, i) => ({
  id: `t${i}`,
  prompt: `Say CORRECT. #${i}`,
  simulation: { difficulty: 0.5, correct: ['CORRECT'], wrong: ['WRONG A', 'WRONG B'] },
}))
function spec(overrides: Partial<CellSpec> = {}): CellSpec {
  const actor = overrides.actor ?? simulatedActor({ profile: 'reviser' })
  const mode = overrides.mode === undefined ? { name: 'binary', feedback: binary() } : overrides.mode
  return {
    runId: 'test',
    benchmark: 'bench',
    cellId: `${actor.id} · ${mode?.name ?? 'independent'}`,
    tasks,
    actor,
    verifier: saysCorrect,
    mode,
    history: fullHistory,
    promptBuilder: defaultPromptBuilder,
    budget: 4,
    repeats: 3,
    discloseBudget: false,
    concurrency: 4,
    thresholds: {},
    errors: 'censored',
    ...overrides,
  }
}

const cellOf = (summary: CellSummary): BaselineCellJson => ({
  fingerprint: summary.fingerprint,
  protocol: summary.protocol,
  perTask: summary.perTask,
  seqAt: summary.seqAt,
  passAt: summary.passAt,
  recordedAt: '2026-12-01T00:00:00.000Z',
  commit: null,
})

let counter = 0
/** A baseline file written by applyBaseline from a real run of each spec, and its path. */
async function recorded(...specs: CellSpec[]): Promise<{ path: string; summaries: CellSummary[] }> {
  const path = join(dir, `b${++counter}`, 'seqk.baseline.json')
  const summaries: CellSummary[] = []
  for (const s of specs) {
    const { summary } = await runCell(s)
    expect(applyBaseline({ path, benchmark: s.benchmark, summary, mode: 'new', gate: { power: false } }).status).toBe(
      'written',
    )
    summaries.push(summary)
  }
  return { path, summaries }
}

/** Edits the file as JSON, in place. */
function edit(path: string, change: (file: Omit<BaselineFile, 'schema'> & { schema: string }) => void): void {
  const json = JSON.parse(readFileSync(path, 'utf8')) as Omit<BaselineFile, 'schema'> & { schema: string }
  change(json)
  writeFileSync(path, JSON.stringify(json, null, 2))
}
const onlyCell = (file: Pick<BaselineFile, 'benchmarks'>) => Object.values(Object.values(file.benchmarks)[0]!.cells)[0]!

function readError(path: string): BaselineFileError {
  try {
    readBaselineFile(path)
  } catch (error) {
    expect(error).toBeInstanceOf(BaselineFileError)
    return error as BaselineFileError
  }
  throw new Error(`${path} was read without an error`)
}

const sequentialCell = 'simulated:reviser · binary'
const where = `benchmark "bench", cell "${sequentialCell}"`

describe('readBaselineFile checks meaning as well as shape', () => {
  it('reads back what a run wrote: sequential and independent cells, told the budget or not', async () => {
    const { path, summaries } = await recorded(
      spec(),
      spec({ mode: null }),
      spec({ cellId: 'disclosed', discloseBudget: true }),
    )
    const file = readBaselineFile(path)!
    expect(Object.keys(file.benchmarks.bench!.cells).sort()).toEqual([
      'disclosed',
      'simulated:reviser · binary',
      'simulated:reviser · independent',
    ])
    expect(summaries[2]!.seqAt.slice(0, 3)).toEqual([null, null, null])
  })

  it('has no problem with a cell that had errors, under every error policy (what writeBaselineCell accepts)', async () => {
    // A provider that fails the second attempt of every even task: errored trajectories, censored or not.
    const base = simulatedActor({ profile: 'stubborn' })
    const flaky: ChatModel = {
      ...base,
      async chat(request) {
        if (
          request.context.attempt === 2 &&
          Number(request.context.taskId.slice(1)) % 2 === 0 &&
          request.context.repeat !== 1
        )
          throw new Error('HTTP 400: bad request')
        return base.chat(request)
      },
    }
    for (const errors of ['censored', 'failures', 'left-out'] satisfies ErrorPolicy[]) {
      for (const mode of [undefined, null]) {
        const { summary } = await runCell(spec({ actor: flaky, errors, ...(mode === null ? { mode } : {}) }))
        expect(summary.errors.count, `${errors} ${mode}`).toBeGreaterThan(0)
        expect(
          baselineCellProblems('bench', summary.cellId, cellOf(summary)),
          `${errors}, ${mode === null ? 'independent' : 'sequential'}`,
        ).toEqual([])
      }
    }
  })

  it('a first success beyond K names the file, the cell, the row, the field and the fix', async () => {
    const { path } = await recorded(spec())
    edit(path, (f) => {
      onlyCell(f).perTask[2]!.firstSuccess[1] = 99
    })
    const error = readError(path)
    expect(error.message).toBe(
      `${path}: ${where}: perTask[2] (task "t2").firstSuccess[1]: is 99, beyond the budget K = 4 (protocol.budget): a first success is an attempt 1..K, or null. Re-record it with \`vitest run -u\` (or SEQK_UPDATE_BASELINE=1), or restore the file from git.`,
    )
  })

  it('an extra repeat in one task: repeat counts must agree', async () => {
    const { path } = await recorded(spec())
    edit(path, (f) => {
      onlyCell(f).perTask[5]!.firstSuccess.push(1)
      onlyCell(f).perTask[5]!.costAtK = [0, 0, 0, 0]
    })
    expect(readError(path).problems).toEqual([
      `${where}: perTask[5]: task "t5" has 4 repeats, but the other tasks have 3: every task runs the same repeats.`,
    ])
  })

  it('a duplicated row: tasks must be unique and match the protocol task count', async () => {
    const { path } = await recorded(spec())
    edit(path, (f) => {
      const cell = onlyCell(f)
      cell.perTask.push({ ...cell.perTask[0]! })
    })
    expect(readError(path).problems).toEqual([
      `${where}: perTask: has 9 rows, but the protocol's benchmark has 8 tasks (protocol.benchmark.tasks): one row per task.`,
      `${where}: perTask[8].taskId: repeats task "t0" of perTask[0]: one row per task.`,
    ])
  })

  it('a row dropped: fewer rows than the protocol has tasks', async () => {
    const { path } = await recorded(spec())
    edit(path, (f) => {
      onlyCell(f).perTask.pop()
    })
    expect(readError(path).problems).toEqual([
      `${where}: perTask: has 7 rows, but the protocol's benchmark has 8 tasks (protocol.benchmark.tasks): one row per task.`,
    ])
  })

  it('an edited fingerprint, or a protocol edited under its fingerprint, is recomputed and caught', async () => {
    const { path } = await recorded(spec())
    const stored = onlyCell(readBaselineFile(path)!).fingerprint
    edit(path, (f) => {
      onlyCell(f).fingerprint = '0123456789abcdef'
    })
    expect(readError(path).problems).toEqual([
      `${where}: fingerprint: is "0123456789abcdef", but the stored protocol's fingerprint is "${stored}": the protocol or the fingerprint was edited.`,
    ])
    edit(path, (f) => {
      const cell = onlyCell(f)
      cell.fingerprint = stored
      cell.protocol.verifier.version = '2'
    })
    const edited = { ...onlyCell(JSON.parse(readFileSync(path, 'utf8')) as BaselineFile).protocol }
    expect(readError(path).problems).toEqual([
      `${where}: fingerprint: is "${stored}", but the stored protocol's fingerprint is "${protocolFingerprint(edited)}": the protocol or the fingerprint was edited.`,
    ])
  })

  it('a budget edited in the protocol and its fingerprint: the curves and costs no longer have K entries, and first successes beyond it', async () => {
    const { path } = await recorded(spec())
    edit(path, (f) => {
      const cell = onlyCell(f)
      cell.protocol.budget = 2
      cell.fingerprint = protocolFingerprint(cell.protocol)
    })
    const { problems } = readError(path)
    expect(problems[0]).toBe(
      `${where}: seqAt: has 4 entries, but the budget is K = 2 (protocol.budget): one per k = 1..K.`,
    )
    expect(
      problems.some((p) =>
        /perTask\[\d\] \(task "t\d"\)\.firstSuccess\[\d\]: is [34], beyond the budget K = 2/.test(p),
      ),
    ).toBe(true)
    expect(problems).toContain(
      `${where}: perTask[0] (task "t0").costAtK: has 4 entries, but the budget is K = 2: one per k = 1..K.`,
    )
  })

  it('stored Seq@k that the rows do not give (a number edited to pass the gate)', async () => {
    const { path, summaries } = await recorded(spec())
    const real = summaries[0]!.seqAt[3]!
    edit(path, (f) => {
      onlyCell(f).seqAt[3] = 1
    })
    expect(readError(path).problems).toEqual([
      `${where}: seqAt: Seq@4 is 1 where the rows give ${real}: the stored numbers do not match the per-task rows.`,
    ])
  })

  it('an independent cell: samples and passes that contradict each other or the stored Pass@k', async () => {
    const { path, summaries } = await recorded(spec({ mode: null }))
    const at = 'benchmark "bench", cell "simulated:reviser · independent"'
    edit(path, (f) => {
      onlyCell(f).perTask[0]!.passes = 13
    })
    expect(readError(path).problems).toEqual([
      `${at}: perTask[0] (task "t0").passes: is 13, more than its 12 samples.`,
      `${at}: perTask[0] (task "t0").passes: is 13, but its first successes (${JSON.stringify(summaries[0]!.perTask[0]!.firstSuccess)}) leave room for at most ${summaries[0]!.perTask[0]!.firstSuccess.reduce<number>((s, f) => s + (f === null ? 0 : 4 - f + 1), 0)} passing samples.`,
    ])
    edit(path, (f) => {
      const cell = onlyCell(f)
      cell.perTask[0]!.passes = summaries[0]!.perTask[0]!.passes
      cell.passAt = cell.passAt!.map((v) => (v === null ? null : Math.min(1, v + 0.1)))
    })
    expect(readError(path).problems[0]).toMatch(
      new RegExp(
        `^${at}: passAt: Pass@1 is [\\d.]+ where the rows give [\\d.]+, .*: the stored numbers do not match the per-task samples\\.$`,
      ),
    )
    edit(path, (f) => {
      onlyCell(f).passAt = null
    })
    expect(readError(path).problems).toEqual([
      `${at}: passAt: is null, but an independent cell has one Pass@k per k = 1..K (K = 4).`,
    ])
  })

  it('a censored repeat where the row has no error, and counts that are not integers or are negative (shape)', async () => {
    const { path } = await recorded(spec())
    edit(path, (f) => {
      onlyCell(f).perTask[1]!.censoredAt = [2]
    })
    // The extra censored repeat also makes the task's repeats 4 against 3.
    expect(readError(path).problems).toEqual([
      `${where}: perTask[1] (task "t1").errors: is 0, but the row censors 1 errored repeats (censoredAt).`,
      `${where}: perTask[1]: task "t1" has 4 repeats, but the other tasks have 3: every task runs the same repeats.`,
    ])
    edit(path, (f) => {
      delete onlyCell(f).perTask[1]!.censoredAt
      onlyCell(f).perTask[1]!.errors = -1
    })
    expect(readError(path).message).toMatch(
      /seqk\.baseline\.json: not a seqk baseline \(benchmarks\.bench\.cells\.simulated:reviser · binary\.perTask\[1\]\.errors: .*\)\. Restore it from git, or delete it and write a new one with `vitest run -u`\.$/,
    )
    edit(path, (f) => {
      onlyCell(f).perTask[1]!.errors = 0
      onlyCell(f).perTask[1]!.firstSuccess[0] = 1.5
    })
    expect(readError(path).message).toContain('perTask[1].firstSuccess[0]: ')
  })

  it('unknown schema versions: a newer file, a newer protocol, another seqk file', async () => {
    const { path } = await recorded(spec())
    const original = readFileSync(path, 'utf8')
    edit(path, (f) => {
      f.schema = 'seqk.baseline/2'
    })
    expect(readError(path).message).toBe(
      `${path}: the file has schema "seqk.baseline/2", written by a newer vitest-seqk; this version reads "seqk.baseline/1". Upgrade vitest-seqk to the version that wrote it, or re-record it with this one (\`vitest run -u\`).`,
    )
    writeFileSync(path, original)
    edit(path, (f) => {
      ;(onlyCell(f).protocol as { schema: string }).schema = 'seqk.protocol/3'
    })
    expect(readError(path).message).toContain(
      `${path}: ${where}: the protocol has schema "seqk.protocol/3", written by a newer vitest-seqk`,
    )
    writeFileSync(path, JSON.stringify({ schema: 'seqk.summary/1', runId: 'r', benchmarks: [] }))
    expect(readError(path).message).toBe(
      `${path}: the file is a run summary (summary.json) (schema "seqk.summary/1"), not a baseline ("seqk.baseline/1"): a baseline is written by a run with \`baseline: true\`.`,
    )
    writeFileSync(path, JSON.stringify({ schema: 'seqk.baseline/0', benchmarks: {} }))
    expect(readError(path).message).toContain('the file has schema "seqk.baseline/0", which no vitest-seqk writes')
  })

  it('lists many problems one per line, the fix once at the end', async () => {
    const { path } = await recorded(spec())
    edit(path, (f) => {
      const cell = onlyCell(f)
      cell.fingerprint = 'ffffffffffffffff'
      cell.perTask[0]!.firstSuccess[0] = 7
    })
    const { message } = readError(path)
    expect(message.split('\n')).toEqual([
      `${path}: 2 problems:`,
      expect.stringMatching(
        /^ {2}- benchmark "bench", cell "simulated:reviser · binary": fingerprint: is "ffffffffffffffff", but/,
      ),
      `  - ${where}: perTask[0] (task "t0").firstSuccess[0]: is 7, beyond the budget K = 4 (protocol.budget): a first success is an attempt 1..K, or null.`,
      'Re-record it with `vitest run -u` (or SEQK_UPDATE_BASELINE=1), or restore the file from git.',
    ])
  })
})

describe('the gate on a baseline that does not add up', () => {
  it('fails just the broken cell, naming file, cell, field and fix; -u re-records it; the other cells still gate', async () => {
    const { path, summaries } = await recorded(spec(), spec({ mode: null }))
    edit(path, (f) => {
      f.benchmarks.bench!.cells[sequentialCell]!.perTask[0]!.firstSuccess[0] = 99
    })
    const gate = (summary: CellSummary, mode: 'new' | 'all' | 'none' = 'none') =>
      applyBaseline({ path, benchmark: 'bench', summary, mode, gate: { power: false } })
    const broken = gate(summaries[0]!)
    expect(broken.status).toBe('fail')
    expect(broken.messages).toEqual([
      expect.stringMatching(
        new RegExp(
          `seqk\\.baseline\\.json: ${where}: perTask\\[0\\] \\(task "t0"\\)\\.firstSuccess\\[0\\]: is 99, beyond the budget K = 4`,
        ),
      ),
      'Re-record it with `vitest run -u` (or SEQK_UPDATE_BASELINE=1), or restore the file from git.',
    ])
    expect(gate(summaries[1]!).status).toBe('pass')
    expect(gate(summaries[0]!, 'all').status).toBe('updated')
    expect(readBaselineFile(path)!.benchmarks.bench!.cells[sequentialCell]!.perTask[0]).toEqual(
      summaries[0]!.perTask[0],
    )
    expect(gate(summaries[0]!).status).toBe('pass')
  })

  it('a shape error fails the gate (not the reporter) with the file and the field', async () => {
    const { path, summaries } = await recorded(spec())
    edit(path, (f) => {
      ;(onlyCell(f) as { seqAt: unknown }).seqAt = 'high'
    })
    const result = applyBaseline({
      path,
      benchmark: 'bench',
      summary: summaries[0]!,
      mode: 'new',
      gate: { power: false },
    })
    expect(result.status).toBe('fail')
    expect(result.messages[0]).toMatch(
      /seqk\.baseline\.json: not a seqk baseline \(benchmarks\.bench\.cells\.simulated:reviser · binary\.seqAt: /,
    )
    expect(result.messages[1]).toBe('Restore it from git, or delete it and write a new one with `vitest run -u`.')
  })
})

describe('writeBaselineCell', () => {
  it('keeps a broken other cell as it is, drops it under -u, and never writes a cell that would not read back', async () => {
    const { path, summaries } = await recorded(spec())
    edit(path, (f) => {
      onlyCell(f).fingerprint = 'eeeeeeeeeeeeeeee'
    })
    const { summary: independent } = await runCell(spec({ mode: null }))
    writeBaselineCell(path, 'bench', independent.cellId, cellOf(independent))
    expect(readError(path).problems).toEqual([expect.stringContaining(`${where}: fingerprint: is "eeeeeeeeeeeeeeee"`)])
    writeBaselineCell(path, 'bench', independent.cellId, cellOf(independent), { replaceInvalid: true })
    expect(Object.keys(readBaselineFile(path)!.benchmarks.bench!.cells)).toEqual([independent.cellId])

    const bad = { ...cellOf(summaries[0]!), seqAt: [0.1, 0.2] }
    expect(() => writeBaselineCell(path, 'bench', 'bad', bad)).toThrow(
      /benchmark "bench", cell "bad": seqAt: has 2 entries, but the budget is K = 4 .*Not written: this cell would not read back/s,
    )
    expect(Object.keys(readBaselineFile(path)!.benchmarks.bench!.cells)).toEqual([independent.cellId])
  })

  it('rewrites the other cells as stored, fields this version does not know included', async () => {
    const { path, summaries } = await recorded(spec())
    edit(path, (f) => {
      const cell = onlyCell(f)
      ;(cell.protocol as Record<string, unknown>).futureField = 'kept'
      cell.fingerprint = protocolFingerprint(cell.protocol)
    })
    expect(readBaselineFile(path)).toBeDefined()
    const { summary } = await runCell(spec({ mode: null }))
    writeBaselineCell(path, 'bench', summary.cellId, cellOf(summary))
    expect(readFileSync(path, 'utf8')).toContain('"futureField": "kept"')
    expect(readBaselineFile(path)!.benchmarks.bench!.cells[sequentialCell]!.perTask).toEqual(summaries[0]!.perTask)
  })
})
