import { errorAdvice, type FailureKind } from '../core/failure-kind.js'
import {
  passAtCurve,
  passAtInterval,
  passHatCurve,
  errorsAsFailures,
  errorsLeftOut,
  seqAtCurveCensored,
  seqAtInterval,
  seqAtCurve,
  type CensoredTaskOutcomes,
  type Interval,
  type SampleCounts,
  type TaskOutcomes,
} from '../metrics/index.js'
import {
  ERROR_BOUNDS_INTERVAL_METHOD,
  errorsAsSuccesses,
  intervalUnion,
  seqAtIntervalReported,
} from '../metrics/censored.js'
import {
  CELL_SUMMARY_SCHEMA,
  type CellSummary,
  type ErrorPolicy,
  type PerturbationRecord,
  type Protocol,
  type ThresholdResult,
  type Trajectory,
} from '../core/schemas.js'
import { addCost, totals } from './attempt.js'
import { RATE_METRICS, type RateMetric } from '../core/kinds.js'
import { reliabilityOf } from './cell-reliability.js'
import { headlineCurve, readMetric, type MeasuredCell } from './cell-metrics.js'
import { headlineMetric } from '../metrics/registry.js'
import type { TaskRow } from '../metrics/task-rates.js'
import { storedVerdict } from './verdict.js'
import { finiteOrNull, intervalJson } from './interval-json.js'
import { summariseRevisionAnnotations } from './revision-annotation.js'
import { computeStatistics } from './statistics/index.js'
import { heldOutGapSummary } from './held-out-gap.js'
import { verifierUnstableOf } from './verifier-unstable.js'
import { percentText, plural } from '../metrics/format.js'
import { summariseCapped } from './capped-summary.js'
import { gPassField } from './cell-g-pass.js'
import { spendAtK } from './cell-spend.js'
import { agentSummaryOf } from './cell-agent.js'
import { instrumentOf, subjectOf } from '../core/instrument.js'
import { scoreSummaryOf, scoredTasks } from './cell-score.js'

/** The cell's `extended` block: present only when some trajectory went on from a smaller budget. */
function extendedField(trajectories: readonly Trajectory[]): { extended?: NonNullable<CellSummary['extended']> } {
  const from = trajectories.flatMap((t) => (t.extendedFrom === undefined ? [] : [t.extendedFrom]))
  return from.length === 0 ? {} : { extended: { from: Math.min(...from), trajectories: from.length } }
}

function verifierUnstableField(known: CellSummary['verifierUnstable']): {
  verifierUnstable?: NonNullable<CellSummary['verifierUnstable']>
} {
  return known ? { verifierUnstable: known } : {}
}
function agentField(agent: CellSummary['agent']): { agent?: NonNullable<CellSummary['agent']> } {
  return agent ? { agent } : {}
}
function heldOutField(gap: CellSummary['heldOut']): { heldOut?: NonNullable<CellSummary['heldOut']> } {
  return gap ? { heldOut: gap } : {}
}

/**
 * What a cell must reach. Keys of `seqAt`/`passAt`/`seqHat`/`passHat` are k (1..budget), keys of
 * `coverAt` shares τ in (0, 1] (Cover@τ at the budget); values are minimum rates in [0, 1].
 *
 * @example
 * { seqAt: { 3: 0.6, 5: 0.8 }, coverAt: { 1: 0.5 }, maxErrorRate: 0.05 }
 */
export interface Thresholds extends Partial<Record<RateMetric, Record<number, number>>> {
  /** Largest tolerated share of errored trajectories (default 0: any infrastructure error fails the cell). */
  maxErrorRate?: number
}

export { finiteOrNull, intervalJson } from './interval-json.js'

export function formatRate(value: number | null): string {
  return value === null ? 'n/a' : value.toFixed(3)
}

/** What `summariseCell` computes a cell's summary from: its declaration and its trajectories. */
export interface SummariseInput {
  runId: string
  benchmark: string
  cellId: string
  actorId: string
  /** The variant of the eval's subject the cell runs (seqEval's `variants`), if any. */
  variant?: string
  /** The rewording of the prompt the cell runs (seqEval's `perturb`), if any. */
  perturbation?: PerturbationRecord
  mode: string
  protocol: Protocol
  fingerprint: string
  taskIds: readonly string[]
  /** Each task's content hash (see taskContentHash), kept per task so baselines compare like with like. */
  taskHashes?: Readonly<Record<string, string>>
  repeats: number
  trajectories: readonly Trajectory[]
  thresholds: Thresholds
  /** How errored trajectories enter the rates (the protocol's `errors`). */
  errors: ErrorPolicy
  durationMs: number
  /** Tasks a `seqk stability` report saw flip for this cell's verifier (the eval's `stability`); the summary's `verifierUnstable.reported`. */
  knownUnstable?: readonly string[]
}

/**
 * Where an errored trajectory stopped: its attempts with a verdict all failed (a success ends the
 * trajectory), so it is censored at the next attempt.
 */
function censoredAtOf(t: Trajectory): number {
  return t.attempts.length + 1
}

/** Each task's repeats as censored outcomes: errored ones censored where they stopped. */
function censoredOutcomes(byTask: ReadonlyMap<string, readonly Trajectory[]>): CensoredTaskOutcomes[] {
  return [...byTask].map(([taskId, ts]) => ({
    taskId,
    repeats: ts.map((t) => (t.status === 'error' ? { censoredAt: censoredAtOf(t) } : { firstSuccess: t.firstSuccess })),
  }))
}

/**
 * The tasks that enter no rate because nothing of them was measured: every trajectory errored
 * before its first verdict (censored: a repeat that errored at attempt 1 says nothing), or under
 * `left-out` every trajectory errored. Counted apart and said, never dropped silently.
 */
function unmeasuredOf(
  byTask: ReadonlyMap<string, readonly Trajectory[]>,
  policy: ErrorPolicy,
  samples: readonly SampleCounts[] | null,
): { unmeasured?: string[] } {
  if (policy === 'failures') return {}
  const sampled = new Map(samples?.map((x) => [x.taskId, x.n]))
  const blind = ([id, ts]: [string, readonly Trajectory[]]) =>
    ts.length > 0 &&
    ts.every((t) => t.status === 'error') &&
    (policy === 'left-out' || (samples ? sampled.get(id) === 0 : ts.every((t) => t.attempts.length === 0)))
  const ids = [...byTask].filter(blind).map(([id]) => id)
  return ids.length > 0 ? { unmeasured: ids } : {}
}

/**
 * Why a cell's interval at K or its rates need a sentence of their own, for the table and the
 * report: under censored errors the rate is an estimate that assumes errors hide nothing, and its
 * interval the union with the bounds (every errored trajectory a failure, a success); the
 * reliability figures' hidden tries; or tasks that enter no rate.
 *
 * @example
 * errorIntervalNotes(summary) // => ['Seq@5 81.2% is an estimate that assumes …: 12 of 90 trajectories (13.3%) errored; …']
 */
export function errorIntervalNotes(cell: CellSummary): string[] {
  const out: string[] = []
  const headline = headlineCurve(cell)
  const label = `${headline.label}@${cell.budget}`
  const interval = headline.interval
  const bounds = cell.errors.bounds
  if (interval?.method === ERROR_BOUNDS_INTERVAL_METHOD) {
    const lo = bounds?.asFailures[cell.budget - 1]
    const hi = bounds?.asSuccesses?.[cell.budget - 1]
    const between =
      lo != null && hi != null
        ? `whatever they hid, ${label} lies between ${percentText(lo)} (every errored trajectory a failure) and ${percentText(hi)} (every one a success), and`
        : 'its'
    out.push(
      `${label} ${percentText(headline.curve[cell.budget - 1] ?? null)} is an estimate that assumes an error says nothing of how its trajectory would have ended: ${cell.errors.count} of ${cell.trajectories} trajectories (${percentText(cell.errors.rate)}) errored; ${between} 95% CI ${percentText(interval.lo)}–${percentText(interval.hi)} holds ${lo != null && hi != null ? 'both' : 'the bounds'}, so it keeps 95% whatever the errors hid`,
    )
  }
  const basis = cell.reliability?.basis
  if (basis && basis.hidden > 0) {
    const hat = cell.protocol.kind === 'independent' ? `pass^${cell.budget}` : `Seq^${cell.budget}`
    const tries = cell.protocol.kind === 'independent' ? 'samples' : 'repeats'
    out.push(
      `reliability (${hat}, Cover@τ, outcome consistency) over ${basis.tries} ${tries}, ${basis.hidden} of them hidden by an error: each is credited the chance it would have succeeded, and every interval holds the figure whatever it hid`,
    )
  }
  const unmeasured = cell.errors.unmeasured ?? []
  if (unmeasured.length > 0) {
    const names = unmeasured.length <= 5 ? unmeasured.join(', ') : `${unmeasured.slice(0, 5).join(', ')}, …`
    out.push(
      `${plural(unmeasured.length, 'task')} in no rate, every trajectory errored before a verdict (${names}): the rate is over the other tasks, the as-failures bound counts ${unmeasured.length === 1 ? 'it' : 'them'} as failed`,
    )
  }
  return out
}

/** Each task's outcomes, and its samples where the cell drew them, as the registry's task rows. */
function taskRowsOf(outcomes: readonly TaskOutcomes[], samples: readonly SampleCounts[]): TaskRow[] {
  return outcomes.map((o, i) => {
    const s = samples[i]
    return s ? { taskId: o.taskId, firstSuccess: o.firstSuccess, samples: s.n, passes: s.c } : o
  })
}

/**
 * Independent samples per task. An errored trajectory's completed samples are ordinary samples
 * (each is drawn alone), so under `censored` only its missing ones are left out; `failures` counts
 * them as failed samples, `left-out` drops the trajectory.
 */
function sampleCounts(
  byTask: ReadonlyMap<string, readonly Trajectory[]>,
  K: number,
  policy: ErrorPolicy | 'successes',
): SampleCounts[] {
  return [...byTask].map(([taskId, ts]) => {
    const complete = ts.filter((t) => t.status !== 'error')
    let kept = policy === 'left-out' ? complete : ts
    // Under `failures` (`successes`, the upper bound) an errored trajectory's missing samples failed (passed).
    const filled = policy === 'failures' || policy === 'successes'
    const count = (list: readonly Trajectory[]) =>
      list.reduce((n, t) => n + (t.status === 'error' && filled ? K : t.attempts.length), 0)
    // Censored: partial samples help only if the task then has the K samples Pass@K needs; a task
    // left short would make Pass@k undefined for the whole cell, so its partial ones are dropped.
    if (policy === 'censored' && count(kept) < K) kept = complete
    const passed = (t: Trajectory) =>
      t.attempts.filter((a) => a.verdict.pass).length +
      (policy === 'successes' && t.status === 'error' ? Math.max(0, K - t.attempts.length) : 0)
    return { taskId, n: count(kept), c: kept.reduce((c, t) => c + passed(t), 0) }
  })
}

/**
 * A cell's metrics, intervals and threshold verdicts from its trajectories (pure). Errored
 * trajectories are always counted apart, and enter the rates as `errors` says: censored (the
 * default: failed before the error, unknown after it, a Kaplan–Meier estimate), as failures, or
 * left out; with errors the summary also gives the rates under the two simple rules as bounds.
 */
export function summariseCell(input: SummariseInput): CellSummary {
  // A cell stopped at a cost cap is summarised over what ended, with bounds for what did not.
  if (input.trajectories.some((t) => t.status === 'capped')) return summariseCapped(input, summariseEnded)
  return summariseEnded(input)
}

/** {@link summariseCell} of a cell with no capped trajectory. */
function summariseEnded(input: SummariseInput): CellSummary {
  const { protocol, trajectories, thresholds } = input
  const policy = input.errors
  const K = protocol.budget
  const independent = protocol.kind === 'independent'
  const headline = headlineMetric(protocol.kind)
  const errored = trajectories.filter((t) => t.status === 'error')
  const counted = policy === 'left-out' ? trajectories.filter((t) => t.status !== 'error') : trajectories

  const byTask = new Map<string, Trajectory[]>(input.taskIds.map((id) => [id, []]))
  for (const t of trajectories) byTask.get(t.taskId)?.push(t)
  const censored = censoredOutcomes(byTask)
  const outcomes: TaskOutcomes[] = policy === 'failures' ? errorsAsFailures(censored) : errorsLeftOut(censored)
  // Sample counts only matter to independent sampling (Pass@k); a sequential cell skips them.
  const samples: SampleCounts[] = independent ? sampleCounts(byTask, K, policy) : []

  const censoring = policy === 'censored' && !independent
  let seqCurve = censoring ? seqAtCurveCensored(censored, K) : seqAtCurve(outcomes, K)
  const seqInterval = censoring ? seqAtIntervalReported(censored, K) : seqAtInterval(outcomes, K)
  const passCurve = independent ? passAtCurve(samples, K) : null
  // Independent sampling under `censored` drops only the missing samples; from the first errored
  // trajectory its interval, too, is the union with the bounds' (see seqAtIntervalReported).
  const passIntervalCensored = independent ? passAtInterval(samples, K) : null
  const passInterval =
    passIntervalCensored && policy === 'censored' && errored.length > 0
      ? intervalUnion(passIntervalCensored.point, [
          passAtInterval(sampleCounts(byTask, K, 'failures'), K),
          passAtInterval(sampleCounts(byTask, K, 'successes'), K),
          passIntervalCensored,
        ])
      : passIntervalCensored
  // The headline rate under each rule for errored trajectories, read by the registry's own curve.
  const rules = { failures: errorsAsFailures, successes: errorsAsSuccesses, 'left-out': errorsLeftOut }
  const boundUnder = (rule: keyof typeof rules) =>
    headline.curve!(taskRowsOf(rules[rule](censored), independent ? sampleCounts(byTask, K, rule) : []), K).map(
      finiteOrNull,
    )
  const bounds =
    errored.length === 0
      ? null
      : { asFailures: boundUnder('failures'), asSuccesses: boundUnder('successes'), leftOut: boundUnder('left-out') }
  const passHat = independent ? passHatCurve(samples, K) : null

  // Told its budget, the actor may plan for K attempts, so a truncated Seq@k is not Seq@k.
  if (!independent && protocol.budgetDisclosed) seqCurve = seqCurve.map((v, i) => (i === K - 1 ? v : Number.NaN))
  const annotation = independent ? null : summariseRevisionAnnotations(counted)

  const spent = totals(
    trajectories.flatMap((t) => t.attempts),
    trajectories.flatMap((t) => t.error?.calls ?? []),
  )
  const errorRate = trajectories.length === 0 ? Number.NaN : errored.length / trajectories.length
  const seqJson = seqCurve.map(finiteOrNull)
  const passJson = passCurve?.map(finiteOrNull) ?? null
  // Fail closed: a cell that measured nothing (no tasks, or every trajectory errored) never passes.
  const measuredAny = policy === 'failures' ? trajectories.length > 0 : trajectories.some((t) => t.status !== 'error')
  // Why a rate at k has no value, for the threshold that cannot be judged on it.
  const undefinedWhy = (k: number): string =>
    k > K || k < 1 || !Number.isInteger(k)
      ? `k = ${k} is outside the budget of ${plural(K, 'attempt')}`
      : trajectories.length === 0
        ? 'the cell ran no trajectory'
        : !measuredAny
          ? `all ${plural(trajectories.length, 'trajectory', 'trajectories')} ended in an error`
          : !independent && protocol.budgetDisclosed && k < K
            ? `the budget was disclosed to the actor, so only ${headline.label(K)} is defined`
            : independent
              ? `a task has fewer than ${k} measured samples`
              : `no measured trajectory reached attempt ${k}`
  const reliability = reliabilityOf({
    K,
    independent,
    policy,
    censored,
    byTask,
    taus: Object.keys(thresholds.coverAt ?? {}).map(Number),
  })
  // Told its budget, the actor may plan for K attempts: Seq^k, like Seq@k, is only valid at K.
  if (reliability.seqHat && protocol.budgetDisclosed)
    reliability.seqHat = reliability.seqHat.map((v, i) => (i === K - 1 ? v : null))
  const scored = scoredTasks(byTask, policy, K)
  const readings: MeasuredCell = {
    protocol,
    budget: K,
    seqAt: seqJson,
    seqAtInterval: intervalJson(seqInterval),
    passAt: passJson,
    passAtInterval: passInterval ? intervalJson(passInterval) : null,
    passHat: passHat?.map(finiteOrNull) ?? null,
    reliability,
    score: scoreSummaryOf(scored.tasks, K),
  }
  const results = evaluateThresholds(thresholds, readings, {
    errorRate: finiteOrNull(errorRate),
    errored,
    undefinedWhy,
  })
  if (!measuredAny)
    results.push({
      metric: 'measured',
      k: null,
      limit: 1,
      actual: 0,
      pass: false,
      message: notMeasuredMessage(
        input.taskIds.length,
        trajectories.length,
        errored[0],
        errored.map((t) => t.error?.kind),
      ),
    })
  // Per-task lookups by map: a linear search per task would be quadratic in large benchmarks.
  const errorsByTask = new Map<string, number>()
  for (const t of errored) errorsByTask.set(t.taskId, (errorsByTask.get(t.taskId) ?? 0) + 1)
  const samplesByTask = new Map(samples.map((s) => [s.taskId, s]))
  const perTask = [...byTask].map(([taskId, ts], i) => ({
    taskId,
    ...(input.taskHashes?.[taskId] ? { contentHash: input.taskHashes[taskId] } : {}),
    // The same list as the task's outcome (byTask in the same order): not computed twice.
    firstSuccess: outcomes[i]!.firstSuccess,
    ...(censoring && ts.some((t) => t.status === 'error')
      ? { censoredAt: ts.filter((t) => t.status === 'error').map(censoredAtOf) }
      : {}),
    errors: errorsByTask.get(taskId) ?? 0,
    ...(independent ? { samples: samplesByTask.get(taskId)?.n ?? 0, passes: samplesByTask.get(taskId)?.c ?? 0 } : {}),
    bestScore: scored.bestScores[i]!.map(finiteOrNull),
    costAtK: costAtKOf(policy === 'left-out' ? ts.filter((t) => t.status !== 'error') : ts, K),
  }))

  // Tasks with no counted trajectory (all errored) have no cost to average.
  const measuredTasks = perTask.filter((p) => p.firstSuccess.length > 0)

  return {
    schema: CELL_SUMMARY_SCHEMA,
    runId: input.runId,
    benchmark: input.benchmark,
    cellId: input.cellId,
    actorId: input.actorId,
    mode: input.mode,
    fingerprint: input.fingerprint,
    protocol,
    instrument: instrumentOf(protocol, input.repeats),
    subject: subjectOf(protocol),
    ...(input.variant !== undefined ? { variant: input.variant } : {}),
    ...(input.perturbation !== undefined ? { perturbation: input.perturbation } : {}),
    budget: K,
    repeats: input.repeats,
    tasks: input.taskIds.length,
    trajectories: trajectories.length,
    errors: {
      count: errored.length,
      rate: finiteOrNull(errorRate),
      countedAsFailures: policy === 'failures',
      policy,
      bounds,
      ...unmeasuredOf(byTask, policy, independent ? samples : null),
      examples: errored.slice(0, 5).map((t) => ({
        taskId: t.taskId,
        repeat: t.repeat,
        message: `${t.error?.stage ?? '?'} failed at attempt ${t.error?.attempt ?? '?'}: ${t.error?.message ?? ''}`,
      })),
    },
    seqAt: readings.seqAt,
    seqAtInterval: readings.seqAtInterval,
    passAt: readings.passAt,
    passAtInterval: readings.passAtInterval,
    passHat: readings.passHat,
    score: readings.score,
    ...gPassField(independent ? samples : null, K),
    reliability,
    // Every registered statistic that applies to the cell (protocol/statistics/), by id.
    statistics: computeStatistics({
      protocol,
      K,
      independent,
      policy,
      trajectories,
      counted,
      outcomes,
      headline: headlineCurve(readings).curve,
    }),
    revisionAnnotation: annotation,
    // Only cells with held-out tests carry it, so every other summary reads as before.
    ...heldOutField(heldOutGapSummary(trajectories, K, independent)),
    // Only cells whose verifier is known to be unstable carry it.
    ...verifierUnstableField(verifierUnstableOf(trajectories, input.knownUnstable, input.taskIds)),
    // Only agents' cells (attempts that are episodes) carry it.
    ...agentField(agentSummaryOf(trajectories, independent, spent.costUsd)),
    usage: spent.usage,
    ...unknownCalls(spent.usageUnknownCalls),
    costUsd: spent.costUsd,
    byRole: Object.fromEntries(
      Object.entries(spent.byRole).map(([role, r]) => [
        role,
        { usage: r.usage, ...unknownCalls(r.usageUnknownCalls), costUsd: r.costUsd, calls: r.calls },
      ]),
    ),
    costPerTrajectory: spent.costUsd === null || trajectories.length === 0 ? null : spent.costUsd / trajectories.length,
    cache: {
      cachedShare: spent.usage === null ? null : finiteOrNull(spent.usage.cacheReadTokens / spent.usage.inputTokens),
      savedUsd:
        spent.costUsd === null || spent.costUsdWithoutCache === null ? null : spent.costUsdWithoutCache - spent.costUsd,
    },
    ...extendedField(trajectories),
    ...(spent.batch.calls > 0
      ? {
          batch: {
            calls: spent.batch.calls,
            costUsd: spent.batch.costUsd,
            listCostUsd: spent.batch.listCostUsd,
            savedUsd:
              spent.batch.costUsd === null || spent.batch.listCostUsd === null
                ? null
                : spent.batch.listCostUsd - spent.batch.costUsd,
          },
        }
      : {}),
    replayedCalls: spent.replayedCalls,
    calls: spent.calls,
    ...sandboxesOf(trajectories),
    perTask: perTask,
    costAtK: Array.from({ length: K }, (_, i) => meanOrNull(measuredTasks.map((p) => p.costAtK[i] ?? null))),
    spendAtK: spendAtK(
      new Map([...byTask].map(([id, ts]) => [id, policy === 'left-out' ? ts.filter((t) => t.status !== 'error') : ts])),
      protocol.kind,
      K,
    ),
    thresholds: results,
    verdict: storedVerdict({ thresholds: results }),
    durationMs: input.durationMs,
  }
}

/** The count of calls that reported no usage, as summaries store it: absent when there is none. */
function unknownCalls(n: number): { usageUnknownCalls?: number } {
  return n > 0 ? { usageUnknownCalls: n } : {}
}

function ci(interval: Pick<Interval, 'lo' | 'hi'> | { lo: number | null; hi: number | null } | null): string {
  if (!interval || !Number.isFinite(interval.lo)) return ''
  return ` (95% CI ${percentText(interval.lo)}–${percentText(interval.hi)})`
}

/** Where the first errored trajectory stopped and why, for messages. */
function firstErrorText(first: Trajectory | undefined): string {
  if (!first) return ''
  return `first: task ${first.taskId} repeat ${first.repeat}, ${first.error?.stage} at attempt ${first.error?.attempt}: ${first.error?.message.replace(/\.$/, '')}`
}

/** The one root cause of a cell that measured nothing: no trajectory, or every one errored. */
/** ` text`, or nothing for an empty text. */
const spaced = (text: string): string => (text === '' ? '' : ` ${text}`)

function notMeasuredMessage(
  tasks: number,
  trajectories: number,
  first: Trajectory | undefined,
  kinds: readonly (FailureKind | undefined)[],
): string {
  // A cell with tasks and no trajectory stopped before its first (a failed pre-flight, a crash): its other
  // check says why; "it has no tasks" would send the reader to the task list.
  if (trajectories === 0)
    return tasks === 0
      ? 'the cell ran no trajectory (it has no tasks), so nothing was measured and no threshold can be judged: an empty cell never passes'
      : `the cell ran no trajectory of its ${plural(tasks, 'task')}, so nothing was measured and no threshold can be judged: a cell that measured nothing never passes`
  return `all ${plural(trajectories, 'trajectory', 'trajectories')} ended in an error, so nothing was measured and no threshold can be judged: a cell that measured nothing never passes; ${firstErrorText(first)}${first ? `.${spaced(errorAdvice(kinds, false))}` : ''}`
}

function evaluateThresholds(
  thresholds: Thresholds,
  cell: MeasuredCell,
  values: { errorRate: number | null; errored: readonly Trajectory[]; undefinedWhy: (k: number) => string },
): ThresholdResult[] {
  const out: ThresholdResult[] = []
  for (const id of RATE_METRICS) {
    // By index, ascending: an object lists integer keys first, so 1 would come before 0.5.
    for (const [key, min] of Object.entries(thresholds[id] ?? {}).sort(([x], [y]) => Number(x) - Number(y))) {
      const at = Number(key)
      const { metric, curve, value: actual, interval } = readMetric(cell, id, at)
      const byTau = metric.index === 'tau'
      const k = byTau ? cell.budget : at
      const name = metric.label(at)
      const pass = actual !== null && actual >= min
      const showCi = k === cell.budget ? ci(interval) : ''
      const why = byTau ? `no task had a measured try` : values.undefinedWhy(k)
      // Fail closed: a rate that is not there cannot meet a threshold, and the message says why it is not.
      const message =
        curve === null
          ? `this cell does not measure ${metric.label(byTau ? 'τ' : 'k')}, so the required ${name} ≥ ${percentText(min)} cannot be judged (a check that cannot be judged fails)`
          : actual === null
            ? `${name} is undefined here (${why}), so the required ${percentText(min)} cannot be judged (a check that cannot be judged fails)`
            : pass
              ? `${name} = ${percentText(actual)} ≥ ${percentText(min)}`
              : `${name} = ${percentText(actual)}, below the required ${percentText(min)}${showCi}`
      out.push({ metric: id, k, ...(byTau ? { tau: at } : {}), limit: min, actual, pass, message })
    }
  }
  const maxErrorRate = thresholds.maxErrorRate ?? 0
  const rate = values.errorRate ?? 0
  const pass = rate <= maxErrorRate
  const first = values.errored[0]
  out.push({
    metric: 'maxErrorRate',
    k: null,
    limit: maxErrorRate,
    actual: values.errorRate,
    pass,
    message: pass
      ? `error rate ${percentText(rate)} ≤ ${percentText(maxErrorRate)}`
      : `${plural(values.errored.length, 'trajectory', 'trajectories')} ended in an infrastructure error (${percentText(rate)} > allowed ${percentText(maxErrorRate)}); ${firstErrorText(first)}.${spaced(
          errorAdvice(
            values.errored.map((t) => t.error?.kind),
            true,
          ),
        )}`,
  })
  return out
}

/**
 * What running a trajectory with budget k costs when it stops at the first success: its attempts
 * up to min(k, first success), helpers included, and what an attempt that failed part way within
 * them had spent. Null when any of those calls is unpriced.
 */
export function costUpTo(trajectory: Trajectory, k: number): number | null {
  return costCurve(trajectory, k)[k - 1] ?? null
}

/** {@link costUpTo} for every k = 1..budget in one pass (same sums, in the same order). */
export function costCurve(trajectory: Trajectory, budget: number): (number | null)[] {
  const out: (number | null)[] = []
  const attempts = trajectory.attempts
  const failed = trajectory.error
  let spent: number | null = 0
  let next = 0
  let failedCounted = false
  for (let k = 1; k <= budget; k++) {
    const stop = Math.min(k, trajectory.firstSuccess ?? k)
    for (; next < attempts.length && attempts[next]!.index <= stop; next++) {
      const attempt = attempts[next]!
      spent = addCost(spent, attempt.costUsd)
      for (const call of attempt.helperCalls) spent = addCost(spent, call.costUsd)
    }
    // What the attempt that failed part way had already spent.
    if (failed && !failedCounted && failed.attempt <= stop) {
      for (const call of failed.calls ?? []) spent = addCost(spent, call.costUsd)
      failedCounted = true
    }
    out.push(spent)
  }
  return out
}

/** Mean cost at each k over a task's trajectories. */
function costAtKOf(trajectories: readonly Trajectory[], budget: number): (number | null)[] {
  const curves = trajectories.map((t) => costCurve(t, budget))
  return Array.from({ length: budget }, (_, i) => meanOrNull(curves.map((c) => c[i] ?? null)))
}

/** Mean of the values, null if any is null or there are none (an unknown never becomes 0). */
function meanOrNull(values: readonly (number | null)[]): number | null {
  if (values.length === 0 || values.some((v) => v === null)) return null
  return (values as number[]).reduce((a, b) => a + b, 0) / values.length
}

/**
 * How many attempts each sandbox mode judged (code verifiers record it on every verdict): the
 * summary and the report say under which isolation the cell's code ran. Absent when no verdict
 * says (rubric and custom verifiers).
 */
function sandboxesOf(trajectories: readonly Trajectory[]): { sandboxes?: Partial<Record<'bwrap' | 'none', number>> } {
  const counts: Partial<Record<'bwrap' | 'none', number>> = {}
  let any = false
  for (const t of trajectories) {
    for (const a of t.attempts) {
      const mode = a.verdict.sandbox
      if (mode === undefined) continue
      counts[mode] = (counts[mode] ?? 0) + 1
      any = true
    }
  }
  return any ? { sandboxes: counts } : {}
}
