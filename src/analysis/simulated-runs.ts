/**
 * Run summaries of simulated actors whose true behaviour is known (a first-try success chance and
 * a per-mode repair chance), built straight from seeded draws without running a protocol. The
 * analyses are tested against them, and a report can be developed on them, with answers known in
 * advance: e.g. a worse first-try actor that revises well must win under Seq@K and lose under
 * Pass@K.
 */
import { CELL_SUMMARY_SCHEMA, RunSummarySchema, SUMMARY_SCHEMA, type CellSummary, type Protocol, type RunSummary } from '../core/schemas.js'
import { createRng, passAtCurve, passAtInterval, passHatCurve, revisionTiming, seedFrom, seqAtCurve, seqAtInterval, gain, type SampleCounts, type TaskOutcomes } from '../metrics/index.js'
import { intervalJson } from '../protocol/cell-summary.js'
import { protocolFingerprint } from '../core/fingerprint.js'

export interface SimulatedActorSpec {
  id: string
  /** Chance a fresh attempt (attempt 1, or any independent sample) passes. */
  firstTry: number
  /** Chance each revision passes after feedback, per mode name (0 for a mode not listed). */
  repair: Record<string, number>
  /** US dollars per fresh attempt (default 0.001); attempt t of a trajectory costs (1 + (t − 1)/2) times that, as history grows. Null: unpriced. */
  costPerAttempt?: number | null
}

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
const orNull = (v: number): number | null => (Number.isFinite(v) ? v : null)

function protocolFor(options: SimulatedRunOptions, actor: SimulatedActorSpec, mode: string | null): Protocol {
  const name = options.benchmark ?? 'simulated'
  return {
    schema: 'seqk.protocol/1',
    kind: mode === null ? 'independent' : 'sequential',
    benchmark: { name, tasks: options.tasks, contentHash: `sim-${options.tasks}-${options.seed}` },
    verifier: { name: 'simulated', version: '1', settings: options.verifierSettings ?? {} },
    feedback: mode === null ? null : { kind: mode === 'binary' ? 'binary' : 'verifier', name: mode, version: '1', settings: {} },
    history: mode === null ? null : { name: 'full', settings: {} },
    promptBuilder: 'seqk-prompt/1',
    // Every mode's parameters in every cell: one actor, one descriptor, whatever the mode.
    actor: { provider: 'simulated', model: actor.id, params: { firstTry: actor.firstTry, ...Object.fromEntries(Object.entries(actor.repair).map(([m, r]) => [`repair.${m}`, r])) } },
    budget: options.budget,
    budgetDisclosed: options.budgetDisclosed ?? false,
    errorsCountedAsFailures: false,
  }
}

function cell(options: SimulatedRunOptions, actor: SimulatedActorSpec, mode: string | null): CellSummary {
  const K = options.budget
  const independent = mode === null
  const modeName = mode ?? 'independent'
  const unit = actor.costPerAttempt === undefined ? 0.001 : actor.costPerAttempt
  const attemptCost = (t: number): number => (independent ? 1 : 1 + (t - 1) / 2) * (unit ?? 0)
  const perTask: CellSummary['perTask'] = []
  const outcomes: TaskOutcomes[] = []
  const samples: SampleCounts[] = []
  let attempts = 0
  for (let i = 0; i < options.tasks; i++) {
    const taskId = `task-${String(i + 1).padStart(3, '0')}`
    const shift = ((createRng(seedFrom(options.seed, 'difficulty', i))() * 2) - 1) * (options.difficultySpread ?? 0)
    const first = clamp(actor.firstTry + shift)
    const repair = clamp((mode === null ? 0 : actor.repair[mode] ?? 0) + shift)
    const firstSuccess: (number | null)[] = []
    const costs: number[][] = []
    let passes = 0
    for (let r = 0; r < options.repeats; r++) {
      const rng = createRng(seedFrom(options.seed, actor.id, modeName, taskId, r))
      let success: number | null = null
      if (independent) {
        // All K samples are drawn (the unbiased Pass@k needs them); cost stops at the first success.
        for (let t = 1; t <= K; t++) {
          if (rng() < first) {
            passes++
            success ??= t
          }
        }
      } else {
        for (let t = 1; t <= K && success === null; t++) if (rng() < (t === 1 ? first : repair)) success = t
      }
      attempts += independent ? K : (success ?? K)
      firstSuccess.push(success)
      costs.push(Array.from({ length: K }, (_, k) => {
        let sum = 0
        for (let t = 1; t <= Math.min(k + 1, success ?? K); t++) sum += attemptCost(t)
        return sum
      }))
    }
    const costAtK = Array.from({ length: K }, (_, k) => (unit === null ? null : costs.reduce((s, c) => s + (c[k] as number), 0) / costs.length))
    perTask.push({ taskId, contentHash: `sim-task-${i}`, firstSuccess, errors: 0, ...(independent ? { samples: options.repeats * K, passes } : {}), costAtK })
    outcomes.push({ taskId, firstSuccess })
    samples.push({ taskId, n: options.repeats * K, c: passes })
  }
  const protocol = protocolFor(options, actor, mode)
  const disclosed = !independent && protocol.budgetDisclosed
  const curve = seqAtCurve(outcomes, K)
  const passCurve = independent ? passAtCurve(samples, K) : null
  const timing = independent || disclosed ? null : revisionTiming(curve)
  const costAtK = Array.from({ length: K }, (_, k) => (unit === null ? null : perTask.reduce((s, t) => s + (t.costAtK[k] as number), 0) / perTask.length))
  const total = unit === null ? null : perTask.reduce((s, t) => s + (t.costAtK[K - 1] as number) * options.repeats, 0)
  return {
    schema: CELL_SUMMARY_SCHEMA,
    runId: options.runId ?? 'simulated-run',
    benchmark: protocol.benchmark.name,
    cellId: `${actor.id} · ${modeName}`,
    actorId: actor.id,
    mode: modeName,
    fingerprint: protocolFingerprint(protocol),
    protocol,
    budget: K,
    repeats: options.repeats,
    tasks: options.tasks,
    trajectories: options.tasks * options.repeats,
    errors: { count: 0, rate: 0, countedAsFailures: false, examples: [] },
    seqAt: curve.map((v, k) => (disclosed && k < K - 1 ? null : orNull(v))),
    seqAtInterval: intervalJson(seqAtInterval(outcomes, K)),
    passAt: passCurve?.map(orNull) ?? null,
    passAtInterval: independent ? intervalJson(passAtInterval(samples, K)) : null,
    passHat: independent ? passHatCurve(samples, K).map(orNull) : null,
    gain: orNull(gain(passCurve ?? curve)),
    egs: timing?.egs ?? null,
    lgs: timing?.lgs ?? null,
    timingNote: independent ? 'independent sampling has no revisions' : disclosed ? 'budget disclosed to the actor: only Seq@K is valid' : (timing?.reason ?? null),
    unmodifiedRevisions: { revisions: 0, unmodified: 0, rate: null },
    meanAttempts: attempts / (options.tasks * options.repeats),
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: total,
    byRole: {},
    costPerTrajectory: total === null ? null : total / (options.tasks * options.repeats),
    cache: { cachedShare: null, savedUsd: null },
    replayedCalls: 0,
    calls: attempts,
    perTask,
    costAtK,
    thresholds: [],
    verdict: 'pass',
    durationMs: 0,
  }
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
