// The reporter driven in process over the events Vitest gives it, in Vitest's order (onInit,
// onTestRunStart, onTestModuleCollected, onTestCaseArtifactRecord, onTestCaseResult,
// onTestModuleEnd, onTestRunEnd), with TestModule and TestCase objects of vitest/node's shape built
// from cells run here: what it writes to the run directory, what it prints, and when it fails the
// run. The child Vitest runs of test/*.e2e.test.ts check the same through real Vitest; these run in
// a second and name the hook that broke. (Integration project: the disclosure emitter asks git.)
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SerializedError, TestArtifact } from 'vitest'
import type { TestCase, TestModule, Vitest } from 'vitest/node'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readCells } from '../artifacts/cells-file.js'
import { PLAN_FILE } from '../artifacts/plan-file.js'
import { readSummary } from '../artifacts/summary-file.js'
import { readTrajectories } from '../artifacts/trajectories-file.js'
import type { Usage } from '../core/contract.js'
import type { CellSummary, Trajectory } from '../core/schemas.js'
import type { ChatModel } from '../models/chat-model.js'
import { runCell } from '../protocol/cell.js'
import { cellSpec, saysCorrect } from '../protocol/test-helpers.js'
import type { Task } from '../protocol/task.js'
import SeqkReporter from './reporter.js'
import { planOf } from './seq-eval.js'
import './artifact-types.js'

const USAGE: Usage = { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 }
const FILE = 'evals/demo.eval.ts'
const BENCHMARK = 'demo benchmark'
const tasks: Task[] = ['a', 'b', 'c'].map((id) => ({ id, prompt: `Task ${id}` }))

/** An actor that answers CORRECT on task `a` at once, on `b` after feedback, never on `c`. */
const actor: ChatModel = {
  id: 'scripted',
  descriptor: { provider: 'test', model: 'scripted', params: {} },
  async chat({ context }) {
    const pass = context.taskId === 'a' || (context.taskId === 'b' && context.attempt >= 2)
    return { text: pass ? 'CORRECT' : 'WRONG', usage: USAGE, latencyMs: 1, finishReason: 'stop', costUsd: 0.001 }
  },
}

/** What one seqEval cell hands Vitest: its summary on meta, and its artifacts (start, then each trajectory). */
interface RecordedCell {
  cellId: string
  summary: CellSummary
  artifacts: TestArtifact[]
  trajectories: Trajectory[]
}

async function recordCell(runId: string, mode: 'binary' | 'independent'): Promise<RecordedCell> {
  const spec = cellSpec(tasks, actor, {
    runId,
    benchmark: BENCHMARK,
    verifier: saysCorrect,
    ...(mode === 'independent' ? { mode: null, cellId: 'scripted · independent' } : {}),
  })
  const { summary, trajectories } = await runCell(spec)
  const plan = planOf(spec, FILE)
  const declared = {
    schema: 'seqk.cell/1' as const,
    type: 'start' as const,
    runId,
    benchmark: BENCHMARK,
    cellId: spec.cellId,
    actorId: plan.actorId,
    mode: plan.mode,
    protocol: plan.protocol,
    fingerprint: plan.fingerprint,
    taskIds: plan.taskIds,
    taskHashes: plan.taskHashes,
    repeats: plan.repeats,
    thresholds: plan.thresholds,
    errors: plan.errors,
    file: plan.file,
    baseline: null,
  }
  const start: TestArtifact = {
    type: 'seqk:cell-start',
    benchmark: BENCHMARK,
    cellId: spec.cellId,
    total: tasks.length,
    plan,
    declared,
  }
  const recorded = trajectories.map((trajectory): TestArtifact => ({ type: 'seqk:trajectory', trajectory }))
  return { cellId: spec.cellId, summary, artifacts: [start, ...recorded], trajectories }
}

type State = 'passed' | 'failed' | 'skipped'

/** A TestCase as vitest/node gives it to a reporter: the parts the seqk reporter reads. */
function testCase(
  cell: { cellId: string; artifacts: TestArtifact[] },
  meta: Record<string, unknown>,
  state: State = 'passed',
  errors: { name: string; message: string }[] = [],
): TestCase {
  const id = `${FILE}_${cell.cellId}`
  return {
    type: 'test',
    id,
    name: cell.cellId,
    fullName: `${BENCHMARK} > ${cell.cellId}`,
    meta: () => ({ seqkCell: { benchmark: BENCHMARK, cellId: cell.cellId, trajectories: tasks.length }, ...meta }),
    artifacts: () => cell.artifacts,
    annotations: () => [],
    result: () => ({ state, errors: errors as unknown as SerializedError[] }),
    diagnostic: () => ({ duration: 12 }),
  } as unknown as TestCase
}

/** A TestModule of these tests; `errors`: the file failed to load. */
function testModule(tests: TestCase[], errors: { message: string }[] = []): TestModule {
  return {
    type: 'module',
    moduleId: join(root, FILE),
    children: { allTests: () => tests[Symbol.iterator]() },
    errors: () => errors,
  } as unknown as TestModule
}

/** A Vitest of the parts the reporter reads: its config, provide(), its logger. */
function vitest(config: Record<string, unknown> = {}): {
  vitest: Vitest
  printed: string[]
  provided: Map<string, unknown>
} {
  const printed: string[] = []
  const provided = new Map<string, unknown>()
  const fake = {
    config: { root, reporters: [['vitest-seqk/reporter', {}]], watch: false, ...config },
    provide: (key: string, value: unknown) => provided.set(key, value),
    logger: { log: (text: string) => printed.push(text) },
  }
  return { vitest: fake as unknown as Vitest, printed, provided }
}

/** One test run, hook by hook in Vitest's order; the run directory and what was printed. */
async function run(
  modules: { module: TestModule; cases: { test: TestCase; artifacts: TestArtifact[] }[] }[],
  options: { config?: Record<string, unknown>; unhandled?: SerializedError[] } = {},
) {
  const reporter = new SeqkReporter({
    outputDir: 'runs',
    html: false,
    historyFile: false,
    progress: 'off',
    color: false,
  })
  const { vitest: fake, printed, provided } = vitest(options.config)
  reporter.onInit(fake)
  reporter.onTestRunStart(modules.map((m) => ({ moduleId: m.module.moduleId }) as never))
  for (const { module, cases } of modules) {
    reporter.onTestModuleCollected(module)
    for (const { test, artifacts } of cases) {
      for (const artifact of artifacts) reporter.onTestCaseArtifactRecord(test, artifact)
      reporter.onTestCaseResult(test)
    }
    reporter.onTestModuleEnd(module)
  }
  await reporter.onTestRunEnd(
    modules.map((m) => m.module),
    options.unhandled ?? [],
  )
  const seqkRun = provided.get('seqkRun') as { runDir: string; runId: string; refused?: string }
  // Lines wrapped at 120 columns, joined back for matching.
  const text = printed.join('\n').replace(/\n {2,}/g, ' ')
  return { runDir: seqkRun.runDir, runId: seqkRun.runId, seqkRun, printed: text }
}

const ENV = [
  'SEQK_RUN_DIR',
  'SEQK_RESUME',
  'SEQK_RUN_ID',
  'SEQK_OUTPUT_DIR',
  'SEQK_SHARD',
  'SEQK_WIDE',
  'GITHUB_STEP_SUMMARY',
]
let root: string
let saved: Record<string, string | undefined>
let exitCode: typeof process.exitCode

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'seqk-reporter-'))
  saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]))
  for (const name of ENV) delete process.env[name]
  process.env.SEQK_RUN_ID = 'reporter-test'
  exitCode = process.exitCode
})

afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  process.exitCode = exitCode
  rmSync(root, { recursive: true, force: true })
})

const passedCase = (cell: RecordedCell) => ({
  test: testCase(cell, { seqk: { ...cell.summary, file: FILE } }),
  artifacts: cell.artifacts,
})

describe('SeqkReporter over recorded Vitest events', () => {
  it('writes one summary, the trajectories and the cells from what two finished cells recorded', async () => {
    const cells = [await recordCell('reporter-test', 'binary'), await recordCell('reporter-test', 'independent')]
    const module = testModule(cells.map((c) => passedCase(c).test))
    const { runDir, printed, seqkRun } = await run([{ module, cases: cells.map(passedCase) }])
    expect(runDir).toBe(join(root, 'runs', 'reporter-test'))
    expect(seqkRun.refused).toBeUndefined()

    const summary = readSummary(join(runDir, 'summary.json'))
    expect(summary.runId).toBe('reporter-test')
    expect(summary.verdict?.status).toBe('no-thresholds')
    expect(summary.benchmarks.map((b) => [b.name, b.file])).toEqual([[BENCHMARK, FILE]])
    const [binary, independent] = summary.benchmarks[0]!.cells
    expect([binary!.cellId, binary!.seqAt]).toEqual(['scripted · binary', [1 / 3, 2 / 3, 2 / 3]])
    expect([independent!.cellId, independent!.passAt?.at(-1)]).toEqual(['scripted · independent', 2 / 3])
    // The cells' summaries as they were put on meta.
    expect(binary).toMatchObject(cells[0]!.summary)
    // Not on file in this directory (as after --merge-reports): rebuilt from the recorded copies.
    const written = readTrajectories(join(runDir, 'trajectories.jsonl')).trajectories
    expect(written).toEqual(cells.flatMap((c) => c.trajectories))
    const declared = readCells(join(runDir, 'cells.jsonl')).cells
    expect(declared.map(({ start, end }) => [start.cellId, end?.type])).toEqual([
      ['scripted · binary', 'end'],
      ['scripted · independent', 'end'],
    ])
    // The plan a live view reads from the start: the files, then each file's cells and their size.
    const plan = readFileSync(join(runDir, PLAN_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(plan.map((r: { type: string }) => r.type)).toEqual(['files', 'file'])
    expect(plan[1].cells).toEqual([
      { benchmark: BENCHMARK, cellId: 'scripted · binary', trajectories: 3 },
      { benchmark: BENCHMARK, cellId: 'scripted · independent', trajectories: 3 },
    ])
    // The terminal: the benchmark's table and the files it wrote; the run did not fail.
    expect(printed).toContain(BENCHMARK)
    expect(printed).toMatch(/scripted · binary/)
    expect(printed).toMatch(/seqk: wrote summary\.json, trajectories\.jsonl, cells\.jsonl, .*pr-comment\.md/)
    expect(existsSync(join(runDir, 'pr-comment.md'))).toBe(true)
    expect(process.exitCode).toBe(exitCode)
  })

  it('summarises a cell that timed out from its plan and the trajectories it recorded, and fails it', async () => {
    const cell = await recordCell('reporter-test', 'binary')
    // Timed out after two of its three trajectories: no summary on meta.
    const cut = { ...cell, artifacts: cell.artifacts.slice(0, 3) }
    const test = testCase(cut, {}, 'failed', [{ name: 'Error', message: 'Test timed out in 5000ms.\nmore' }])
    const { runDir } = await run([{ module: testModule([test]), cases: [{ test, artifacts: cut.artifacts }] }])
    const [summarised] = readSummary(join(runDir, 'summary.json')).benchmarks[0]!.cells
    expect(summarised!.verdict).toBe('fail')
    expect(summarised!.thresholds[0]!.message).toMatch(/Test timed out in 5000ms/)
    expect(summarised!.perTask.map((t) => t.firstSuccess)).toEqual([[1], [2], []])
    const [declared] = readCells(join(runDir, 'cells.jsonl')).cells
    expect(declared?.end).toMatchObject({ unfinished: 'Test timed out in 5000ms.' })
  })

  it('fails the run, loudly, for a cell it cannot show (a summary of another schema and no plan)', async () => {
    const cell = await recordCell('reporter-test', 'binary')
    const test = testCase({ cellId: cell.cellId, artifacts: [] }, { seqk: { cellId: cell.cellId, file: FILE } })
    const { printed } = await run([{ module: testModule([test]), cases: [{ test, artifacts: [] }] }])
    expect(printed).toMatch(
      /"demo benchmark > scripted · binary" is missing from the tables and summary\.json: its summary does not match this version's schema/,
    )
    expect(process.exitCode).toBe(1)
  })

  it('names an eval file that failed to load in summary.json, and fails the run', async () => {
    const module = testModule([], [{ message: "SyntaxError: Unexpected token '}'\n    at evals/demo.eval.ts:3" }])
    const { runDir } = await run([{ module, cases: [] }])
    const summary = readSummary(join(runDir, 'summary.json'))
    expect(summary.loadErrors).toEqual([{ file: FILE, error: "SyntaxError: Unexpected token '}'" }])
    expect(summary.verdict?.status).toBe('fail')
  })

  it('writes nothing into a directory that holds another run, and says how to resume it', async () => {
    const taken = join(root, 'taken')
    process.env.SEQK_RUN_DIR = taken
    const cell = await recordCell('reporter-test', 'binary')
    mkdirSync(taken)
    writeFileSync(join(taken, 'summary.json'), '{}')
    const { printed, seqkRun } = await run([{ module: testModule([passedCase(cell).test]), cases: [passedCase(cell)] }])
    expect(seqkRun.refused).toMatch(/already holds a run \(summary\.json\).*SEQK_RESUME=/)
    expect(printed).toMatch(/seqk: wrote nothing to .*taken/)
    expect(readFileSync(join(taken, 'summary.json'), 'utf8')).toBe('{}')
    expect(existsSync(join(taken, 'trajectories.jsonl'))).toBe(false)
    expect(process.exitCode).toBe(1)
  })

  it('leaves no run directory after plain tests, and says when -t matched no cell of an eval file', async () => {
    const plain = { type: 'test', id: 'p', fullName: 'math > adds', meta: () => ({}), artifacts: () => [] }
    const plainTest = { ...plain, result: () => ({ state: 'passed' }) } as unknown as TestCase
    const { runDir } = await run([{ module: testModule([plainTest]), cases: [{ test: plainTest, artifacts: [] }] }])
    expect(existsSync(runDir)).toBe(false)

    process.env.SEQK_RUN_ID = 'filtered'
    const cell = await recordCell('filtered', 'binary')
    const skipped = testCase({ cellId: cell.cellId, artifacts: [] }, {}, 'skipped')
    const filtered = await run([{ module: testModule([skipped]), cases: [] }], {
      config: { testNamePattern: /scripted \(binary\)/ },
    })
    // The pattern as typed (JSON-quoted), and names that would match.
    expect(filtered.printed).toContain(
      String.raw`seqk: -t "scripted \\(binary\\)" matched no cell, so nothing was measured.`,
    )
    expect(filtered.printed).toContain('Test names here look like: "demo benchmark scripted · binary"')
    expect(process.exitCode).toBe(1)
  })
})
