/**
 * Run summaries of simulated actors whose true behaviour is known (a first-try success chance and
 * a per-mode repair chance): trajectories drawn from seeded chances without running a protocol,
 * summarised by the same `summariseCell` as a real run. The
 * analyses are tested against them, and a report can be developed on them, with answers known in
 * advance: e.g. a worse first-try actor that revises well must win under Seq@K and lose under
 * Pass@K.
 */
import {
  RunSummarySchema,
  SUMMARY_SCHEMA,
  TRAJECTORY_SCHEMA,
  type Attempt,
  type CellSummary,
  type Protocol,
  type RunSummary,
  type Trajectory,
} from '../core/schemas.js'
import { ZERO_USAGE } from '../core/contract.js'
import { createRng, seedFrom } from '../metrics/index.js'
import { summariseCell } from '../protocol/cell-summary.js'
import { protocolFingerprint } from '../core/fingerprint.js'

/** One simulated actor of a simulated run set: its chances on a fresh attempt and after feedback, and its cost. */
export interface SimulatedActorSpec {
  id: string
  /** Chance a fresh attempt (attempt 1, or any independent sample) passes. */
  firstTry: number
  /** Chance each revision passes after feedback, per mode name (0 for a mode not listed). */
  repair: Record<string, number>
  /**
   * Chance a failing revision fixes each test the verifier feedback named, per mode name (default
   * 0.3): what the revision annotation sees. A passing revision fixes every one.
   */
  address?: Record<string, number>
  /** US dollars per fresh attempt (default 0.001); attempt t of a trajectory costs (1 + (t − 1)/2) times that, as history grows. Null: unpriced. */
  costPerAttempt?: number | null
}

/** The options of a simulated run set: the actors, the tasks, the budget and the seed. */
export interface SimulatedRunOptions {
  actors: readonly SimulatedActorSpec[]
  /** Feedback modes; `binary` gets feedback kind binary, any other name kind verifier. */
  modes: readonly string[]
  tasks: number
  repeats: number
  budget: number
  seed: number
  benchmark?: string
  runId?: string
  /** Also measure independent sampling (default true). */
  independent?: boolean
  /** Whether the actors are told their budget (default false). */
  budgetDisclosed?: boolean
  /** Each task shifts every probability by a seeded uniform offset in [−spread, +spread] (default 0). */
  difficultySpread?: number
  /** Verifier settings, to plant protocol differences in tests. */
  verifierSettings?: Record<string, string | number | boolean | null>
}

const clamp = (p: number): number => Math.min(1, Math.max(0, p))

function protocolFor(options: SimulatedRunOptions, actor: SimulatedActorSpec, mode: string | null): Protocol {
  const name = options.benchmark ?? 'simulated'
  return {
    schema: 'seqk.protocol/1',
    kind: mode === null ? 'independent' : 'sequential',
    benchmark: { name, tasks: options.tasks, contentHash: `sim-${options.tasks}-${options.seed}` },
    verifier: { name: 'simulated', version: '1', settings: options.verifierSettings ?? {} },
    feedback:
      mode === null
        ? null
        : { kind: mode === 'binary' ? 'binary' : 'verifier', name: mode, version: '1', settings: {} },
    history: mode === null ? null : { name: 'full', settings: {} },
    promptBuilder: 'seqk-prompt/1',
    // Every mode's parameters in every cell: one actor, one descriptor, whatever the mode.
    actor: {
      provider: 'simulated',
      model: actor.id,
      params: {
        firstTry: actor.firstTry,
        ...Object.fromEntries(Object.entries(actor.repair).map(([m, r]) => [`repair.${m}`, r])),
      },
    },
    budget: options.budget,
    budgetDisclosed: options.budgetDisclosed ?? false,
    errorsCountedAsFailures: false,
  }
}

/** Tests per task in verifier-feedback cells: enough for a revision to fix some of them and not all. */
const SIMULATED_TESTS = 3

/** A simulated attempt: its verdict and price, everything else as a free, instant call. */
function attempt(
  index: number,
  pass: boolean,
  costUsd: number | null,
  feedback: Attempt['feedback'],
  tests?: readonly boolean[],
): Attempt {
  return {
    index,
    answer: pass ? 'pass' : `fail ${index}`,
    verdict: {
      pass,
      diagnostics: {
        outcome: pass ? 'passed' : 'failed',
        summary: pass ? 'passed' : 'failed',
        ...(tests ? { tests: tests.map((ok, i) => ({ index: i, source: `assert test_${i + 1}()`, pass: ok })) } : {}),
      },
    },
    feedback,
    finishReason: 'stop',
    usage: ZERO_USAGE,
    latencyMs: 0,
    costUsd,
    costUsdWithoutCache: costUsd,
    replayed: false,
    helperCalls: [],
    // Every simulated revision is a new answer (`fail 2` after `fail 1`).
    unmodified: index === 1 ? null : false,
  }
}

/** What every trajectory of one cell shares. */
export type SimulatedCell = Pick<
  Trajectory,
  'runId' | 'benchmark' | 'cellId' | 'actorId' | 'mode' | 'fingerprint' | 'protocol'
>

/**
 * A finished trajectory of simulated attempts: solved at its first passing attempt, failed
 * otherwise, costing what its attempts cost (unless `costUsd` says otherwise). Shared by the
 * simulated runs and the report's test fixtures.
 *
 * @example
 * simulatedTrajectory(cell, 'task-001', 0, [failedAttempt, passedAttempt]).firstSuccess // => 2
 */
export function simulatedTrajectory(
  cell: SimulatedCell,
  taskId: string,
  repeat: number,
  attempts: Attempt[],
  options: { costUsd?: number | null; durationMs?: number } = {},
): Trajectory {
  const firstSuccess = attempts.find((a) => a.verdict.pass)?.index ?? null
  const spent = attempts.reduce<number | null>(
    (sum, a) => (sum === null || a.costUsd === null ? null : sum + a.costUsd),
    0,
  )
  return {
    schema: TRAJECTORY_SCHEMA,
    ...cell,
    taskId,
    repeat,
    status: firstSuccess === null ? 'failed' : 'solved',
    firstSuccess,
    error: null,
    attempts,
    usage: ZERO_USAGE,
    costUsd: options.costUsd === undefined ? spent : options.costUsd,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: options.durationMs ?? 0,
  }
}

/**
 * One cell: its trajectories drawn from the actor's chances, then summarised by `summariseCell`,
 * the code every real cell goes through, so the analyses are tested on what a run would write.
 */
function cell(options: SimulatedRunOptions, actor: SimulatedActorSpec, mode: string | null): CellSummary {
  const K = options.budget
  const independent = mode === null
  const modeName = mode ?? 'independent'
  const unit = actor.costPerAttempt === undefined ? 0.001 : actor.costPerAttempt
  const attemptCost = (t: number): number | null => (unit === null ? null : (independent ? 1 : 1 + (t - 1) / 2) * unit)
  const protocol = protocolFor(options, actor, mode)
  const fingerprint = protocolFingerprint(protocol)
  const runId = options.runId ?? 'simulated-run'
  const cellId = `${actor.id} · ${modeName}`
  const feedbackKind = mode === 'binary' ? 'binary' : 'verifier'
  const taskIds: string[] = []
  const trajectories: Trajectory[] = []
  for (let i = 0; i < options.tasks; i++) {
    const taskId = `task-${String(i + 1).padStart(3, '0')}`
    taskIds.push(taskId)
    const shift = (createRng(seedFrom(options.seed, 'difficulty', i))() * 2 - 1) * (options.difficultySpread ?? 0)
    const first = clamp(actor.firstTry + shift)
    const repair = clamp((mode === null ? 0 : (actor.repair[mode] ?? 0)) + shift)
    for (let r = 0; r < options.repeats; r++) {
      const rng = createRng(seedFrom(options.seed, actor.id, modeName, taskId, r))
      const attempts: Attempt[] = []
      if (independent) {
        // All K samples are drawn: the unbiased Pass@k needs them.
        for (let t = 1; t <= K; t++) attempts.push(attempt(t, rng() < first, attemptCost(t), null))
      } else {
        // Which tests fail, from a stream of its own: the pass/fail draws stay as they were.
        const testRng = createRng(seedFrom(options.seed, actor.id, modeName, taskId, r, 'tests'))
        const address = clamp(actor.address?.[modeName] ?? 0.3)
        let failing: number[] = []
        for (let t = 1; t <= K; t++) {
          const pass = rng() < (t === 1 ? first : repair)
          let tests: boolean[] | undefined
          if (feedbackKind === 'verifier') {
            if (pass) failing = []
            else if (t === 1 || failing.length === 0)
              failing = [
                Math.floor(testRng() * SIMULATED_TESTS),
                ...Array.from({ length: SIMULATED_TESTS }, (_, i) => i).filter(() => testRng() < 0.4),
              ]
            else {
              // A failing revision fixes each named test by chance; fixing all of them and still
              // failing means it broke another ("fixed one thing, broke another").
              const kept = failing.filter(() => testRng() >= address)
              failing =
                kept.length > 0
                  ? kept
                  : [
                      Array.from({ length: SIMULATED_TESTS }, (_, i) => i).find((i) => !failing.includes(i)) ??
                        failing[0]!,
                    ]
            }
            failing = [...new Set(failing)].sort((a, b) => a - b)
            tests = Array.from({ length: SIMULATED_TESTS }, (_, i) => !failing.includes(i))
          }
          const feedback: Attempt['feedback'] =
            pass || t === K
              ? null
              : feedbackKind === 'verifier'
                ? {
                    kind: 'verifier',
                    text: `failed: ${failing.map((i) => `test_${i + 1}`).join(', ')}`,
                    requests: failing.map((i) => `test:${i}`),
                  }
                : { kind: feedbackKind, text: 'failed' }
          attempts.push(attempt(t, pass, attemptCost(t), feedback, tests))
          if (pass) break
        }
      }
      trajectories.push(
        simulatedTrajectory(
          {
            runId,
            benchmark: protocol.benchmark.name,
            cellId,
            actorId: actor.id,
            mode: modeName,
            fingerprint,
            protocol,
          },
          taskId,
          r,
          attempts,
        ),
      )
    }
  }
  return summariseCell({
    runId,
    benchmark: protocol.benchmark.name,
    cellId,
    actorId: actor.id,
    mode: modeName,
    protocol,
    fingerprint,
    taskIds,
    taskHashes: Object.fromEntries(taskIds.map((id, i) => [id, `sim-task-${i}`])),
    repeats: options.repeats,
    trajectories,
    thresholds: {},
    errors: 'failures',
    durationMs: 0,
  })
}

/**
 * A run summary of simulated actors with known first-try and repair chances: one independent cell
 * per actor (unless `independent: false`) and one cell per actor and feedback mode. Validated by
 * `RunSummarySchema`, so it is exactly what a real run would hand to the analyses.
 *
 * @example
 * simulateRun({
 *   actors: [{ id: 'one-shot', firstTry: 0.7, repair: { verifier: 0.05 } }, { id: 'reviser', firstTry: 0.5, repair: { verifier: 0.6 } }],
 *   modes: ['verifier'], tasks: 40, repeats: 3, budget: 5, seed: 7,
 * })
 */
export function simulateRun(options: SimulatedRunOptions): RunSummary {
  const cells = options.actors.flatMap((actor) => [
    ...((options.independent ?? true) ? [cell(options, actor, null)] : []),
    ...options.modes.map((mode) => cell(options, actor, mode)),
  ])
  const summary: RunSummary = {
    schema: SUMMARY_SCHEMA,
    runId: options.runId ?? 'simulated-run',
    createdAt: '2026-01-01T00:00:00.000Z',
    benchmarks: [{ name: options.benchmark ?? 'simulated', file: 'simulated.eval.ts', cells }],
  }
  return RunSummarySchema.parse(summary)
}
