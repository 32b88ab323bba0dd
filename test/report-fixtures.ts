// A small synthetic run for the report tests: trajectories built by rule, summarised by the real
// cell summariser, so summary.json and trajectories.jsonl agree as they do in a real run.
import {
  SUMMARY_SCHEMA,
  type Attempt,
  type CellSummary,
  type Protocol,
  type RunSummary,
  type Trajectory,
} from '../src/core/schemas.js'
import type { CellStartRecord } from '../src/artifacts/cells-file.js'
import { createRng } from '../src/metrics/index.js'
import { summariseCell, type Thresholds } from '../src/protocol/cell-summary.js'
import { protocolFingerprint } from '../src/core/fingerprint.js'
import { simulatedTrajectory } from '../src/analysis/simulated-runs.js'
import { protocolFixture } from './protocol-fixture.js'
import { equalCostComparisons } from '../src/protocol/equal-cost.js'

export interface FakeRunOptions {
  runId?: string
  benchmark?: string
  file?: string
  actors?: { id: string; skill: number }[]
  modes?: string[]
  tasks?: string[]
  repeats?: number
  budget?: number
  seed?: number
  /** Cost per attempt in USD (null: unpriced, 0: free). */
  costPerAttempt?: number | null
  thresholds?: (actorId: string, mode: string) => Thresholds
  /** Replaces the answer of every attempt of this task (e.g. hostile text). */
  answerFor?: (taskId: string, attempt: number) => string | undefined
  budgetDisclosed?: boolean
  history?: string
  /** Verifier feedback names the failing test as a request, so its revisions are annotated (default true). */
  requests?: boolean
  /** The server reports token usage (default true); false: every usage is 0, as from a server that sends none. */
  usage?: boolean
  /** An infrastructure error for this trajectory (the actor failed at attempt 1 with this message), or undefined. */
  errorFor?: (taskId: string, repeat: number, actorId: string, mode: string) => string | undefined
  /** A failed attempt's score (default 0, as a code verifier's): 0.5 gives soft scores, so a score curve of its own. */
  failedScore?: number
}

const ZERO = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }

function code(taskId: string, attempt: number, pass: boolean): string {
  const body = pass ? '    return x + 1' : `    return x + ${attempt + 1}`
  return `def f(x):\n    # task ${taskId}\n${body}\n\n\ndef g(xs):\n    return [f(x) for x in xs]`
}

function attempt(
  taskId: string,
  index: number,
  pass: boolean,
  mode: string,
  last: boolean,
  options: FakeRunOptions,
): Attempt {
  const extracted = code(taskId, index, pass)
  const answer = options.answerFor?.(taskId, index) ?? `Attempt ${index}:\n\n\`\`\`python\n${extracted}\n\`\`\`\n`
  const tests = [
    { index: 0, source: 'assert g([1]) == [2]', pass: true, call: 'g([1])', expected: '[2]', actual: '[2]' },
    {
      index: 1,
      source: 'assert g([2, 3]) == [3, 4]',
      pass,
      call: 'g([2, 3])',
      expected: '[3, 4]',
      actual: pass ? '[3, 4]' : `[${2 + index + 1}, ${3 + index + 1}]`,
      ...(pass ? {} : { error: 'AssertionError' }),
    },
  ]
  const cost = options.costPerAttempt === undefined ? 0.001 : options.costPerAttempt
  const feedbackText =
    mode === 'verifier'
      ? `Failed test details:\n- test_2 function call: g([2, 3])\n  expected: [3, 4]\n  got: ${tests[1]!.actual}\nUse this feedback to fix the general logic.`
      : 'Your answer is not correct.'
  return {
    index,
    answer,
    verdict: {
      pass,
      score: pass ? 1 : (options.failedScore ?? 0),
      extracted,
      diagnostics: {
        outcome: pass ? 'passed' : 'failed',
        summary: pass ? 'all 2 tests passed' : '1 of 2 tests failed',
        tests,
      },
      durationMs: 3,
    },
    feedback:
      pass || last || mode === 'independent'
        ? null
        : mode === 'verifier'
          ? { kind: 'verifier', text: feedbackText, ...(options.requests === false ? {} : { requests: ['test:1'] }) }
          : { kind: 'binary', text: feedbackText },
    finishReason: 'stop',
    usage: options.usage === false ? ZERO : { ...ZERO, inputTokens: 100 * index, outputTokens: 50 },
    latencyMs: 1,
    costUsd: cost === null ? null : cost * index,
    costUsdWithoutCache: cost === null ? null : cost * index,
    replayed: false,
    helperCalls: [],
    unmodified: index === 1 || mode === 'independent' ? null : false,
  }
}

/** A run with every (actor × mode) cell over the tasks, deterministic for a seed. */
export function fakeRun(options: FakeRunOptions = {}): { summary: RunSummary; trajectories: Trajectory[] } {
  const runId = options.runId ?? '20260101-000000-abcdef'
  const benchmark = options.benchmark ?? 'toy benchmark'
  const actors = options.actors ?? [
    { id: 'sim:careful', skill: 0.35 },
    { id: 'sim:quick', skill: 0.6 },
  ]
  const modes = options.modes ?? ['binary', 'verifier', 'independent']
  const tasks = options.tasks ?? ['t/1', 't/2', 't/3', 't/4', 't/5']
  const repeats = options.repeats ?? 2
  const K = options.budget ?? 4
  const rng = createRng(options.seed ?? 7)
  const trajectories: Trajectory[] = []
  const cells = actors.flatMap((actor) =>
    modes.map((mode) => {
      const independent = mode === 'independent'
      const protocol: Protocol = protocolFixture({
        kind: independent ? 'independent' : 'sequential',
        benchmark: { name: benchmark, tasks: tasks.length, contentHash: 'c0ffee' },
        verifier: { name: 'python-tests', version: '2', settings: { timeoutMs: 3000 } },
        feedback: independent
          ? null
          : { kind: mode === 'verifier' ? 'verifier' : 'binary', name: mode, version: '1', settings: {} },
        history: independent ? null : { name: options.history ?? 'full', settings: {} },
        actor: { provider: 'simulated', model: actor.id, params: {} },
        budget: K,
        budgetDisclosed: options.budgetDisclosed ?? false,
      })
      const fingerprint = protocolFingerprint(protocol)
      const cellId = `${actor.id} · ${mode}`
      const cellTrajectories: Trajectory[] = []
      for (const taskId of tasks) {
        for (let r = 0; r < repeats; r++) {
          // Revisions help more with verifier feedback; independent samples never learn.
          const p = independent ? actor.skill : Math.min(0.95, actor.skill + (mode === 'verifier' ? 0.25 : 0.1))
          const attempts: Attempt[] = []
          let firstSuccess: number | null = null
          for (let i = 1; i <= K; i++) {
            const pass = rng() < (i === 1 ? actor.skill : p)
            if (pass && firstSuccess === null) firstSuccess = i
            attempts.push(attempt(taskId, i, pass, mode, i === K, options))
            if (pass && !independent) break
          }
          const t = simulatedTrajectory(
            { runId, benchmark, cellId, actorId: actor.id, mode, fingerprint, protocol },
            taskId,
            r,
            attempts,
            { costUsd: 0, durationMs: 5 },
          )
          const error = options.errorFor?.(taskId, r, actor.id, mode)
          cellTrajectories.push(
            error === undefined
              ? t
              : {
                  ...t,
                  status: 'error',
                  firstSuccess: null,
                  attempts: [],
                  error: { stage: 'actor', attempt: 1, message: error },
                },
          )
        }
      }
      trajectories.push(...cellTrajectories)
      return summariseCell({
        runId,
        benchmark,
        cellId,
        actorId: actor.id,
        mode,
        protocol,
        fingerprint,
        taskIds: tasks,
        repeats,
        trajectories: cellTrajectories,
        thresholds:
          options.thresholds?.(actor.id, mode) ?? (independent ? { passAt: { [K]: 0.3 } } : { seqAt: { [K]: 0.3 } }),
        errors: 'left-out',
        durationMs: 10,
      })
    }),
  )
  const summary: RunSummary = {
    schema: SUMMARY_SCHEMA,
    runId,
    createdAt: '2026-01-01T00:00:05.000Z',
    benchmarks: [{ name: benchmark, file: options.file ?? 'evals/toy.eval.ts', cells }],
  }
  // As the reporter writes it: each sequential cell against its actor's independent cell at equal cost.
  const equalCost = equalCostComparisons(cells)
  if (equalCost.length > 0) summary.equalCost = equalCost
  return { summary, trajectories }
}

/** The start record a summarised cell would have written to cells.jsonl (no thresholds, errors left out, no baseline). */
export function cellStartOf(cell: CellSummary, file: string, runId = cell.runId): CellStartRecord {
  return {
    schema: 'seqk.cell/1',
    type: 'start',
    runId,
    benchmark: cell.benchmark,
    cellId: cell.cellId,
    actorId: cell.actorId,
    mode: cell.mode,
    protocol: cell.protocol,
    fingerprint: cell.fingerprint,
    taskIds: cell.perTask.map((t) => t.taskId),
    taskHashes: {},
    repeats: cell.repeats,
    thresholds: {},
    errors: 'left-out',
    file,
    baseline: null,
  }
}
