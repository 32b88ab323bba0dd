import { DIFFERENCE_INTERVAL_METHOD } from '../metrics/intervals.js'
import type { CellSummary, Protocol } from '../core/schemas.js'
import { changeText, fieldChanges, instrumentOf, subjectOf } from '../core/instrument.js'
import { firstRepeats, repeatsOf, taskRates } from '../metrics/task-rates.js'
import {
  headlineMetric,
  measures,
  METRIC_IDS,
  METRICS,
  metricWithRole,
  type MetricDefinition,
  type MetricId,
  type MetricProtocol,
  type MetricRole,
} from '../metrics/registry.js'
import { decideGate, TOLERANCE, type GateComparison, type GateRule } from './gate-rule.js'
import { gatePowerFor, type GatePower } from './gate-power.js'
import { plural } from '../metrics/format.js'

export type { GateComparison, GateRule } from './gate-rule.js'
export type { GatePower } from './gate-power.js'

/**
 * The gate's own protocol, recorded in every comparison: a changed default or decision rule is a
 * new version, so a team can tell why a verdict changed although the numbers did not.
 * - `seqk.gate/1`: paired percentile bootstrap (2000 resamples); failed when a 95% interval lay
 *   below −margin at any gated k, or a point drop exceeded maxDrop at any gated k.
 * - `seqk.gate/2`: paired Agresti–Min t interval; Holm over the gated k at one-sided 2.5%;
 *   maxDrop only at K and only for a drop that is real on its own evidence (one-sided 2.5%).
 *   Family-wise false alarms ≤ 5% for every number of tasks (measured: scripts/statistics-tables.ts).
 */
export const GATE_PROTOCOL = 'seqk.gate/2'

/** What a baseline keeps per cell: the protocol and the per-task outcomes (enough to recompute every number). */
export interface BaselineCell {
  fingerprint: string
  protocol: Protocol
  /** The cell's mode, for matching a cell whose subject's id changed (absent in older files). */
  mode?: string
  /** The fingerprints of its instrument and subject (absent in older files: derived from the protocol). */
  instrumentFingerprint?: string
  subjectFingerprint?: string
  perTask: CellSummary['perTask']
  seqAt: (number | null)[]
  passAt: (number | null)[] | null
  recordedAt: string
  commit?: string | null
}

/**
 * How the gate decides. Defaults: `margin` 0, `maxDrop` 0.1, `level` 0.95.
 *
 * @example
 * compareToBaseline(baseline, summary, { ks: [1, 3], maxDrop: 0.05 })
 */
export interface GateOptions {
  /** Fail when the data show a drop larger than this (the one-sided test of δ ≥ −margin rejects). Default 0. */
  margin?: number
  /**
   * A drop at K larger than this fails whenever it is real on its own (one-sided 2.5%), even where
   * the Holm correction over several gated k would let it pass. Default 0.1 (10 points).
   */
  maxDrop?: number
  /** Attempt counts gated besides K (e.g. the cell's Seq@k thresholds); Holm keeps their family's false alarms at (1 − level)/2. */
  ks?: number[]
  /** Two-sided level of the intervals shown; the tests run at (1 − level)/2 one-sided. Default 0.95. */
  level?: number
  /** Seed of the power simulation behind the detectable-drop note (default 1). */
  seed?: number
  /** Simulate the gate's power (the smallest drop it catches 80% of the time). Default true. */
  power?: boolean
  /**
   * The metric gated, any gateable one of the registry that the cell's protocol measures (default:
   * the headline rate, Seq@k or Pass@k): e.g. `passHat` gates pass^K, `coverAt` Cover@τ. For a
   * metric read at k, `ks` are attempt counts (K always among them); for Cover@τ they are shares
   * τ (default [1]), read at the budget, and `maxDrop`, a limit at K, does not apply. Its power
   * figure is for drops of that metric (the simulation finds the drop of the rate at K that costs
   * it exactly that much).
   *
   * Or a role, resolved per cell from the registry so one setting gates every cell of a run like
   * with like: `'headline'` (Seq@k or Pass@k) or `'reliability'` (Seq^k for a cell with feedback,
   * pass^k for independent sampling), each compared only with the same cell of the baseline, on
   * the same protocol fingerprint.
   */
  metric?: GateMetric
}

/** What `GateOptions.metric` names: a metric of the registry, or the role whose metric each cell's protocol has. */
export type GateMetric = MetricId | MetricRole

const GATE_ROLES: readonly MetricRole[] = ['headline', 'reliability']

/**
 * The metric a gate setting names for a cell of this protocol: the metric itself, or the one with
 * that role for the protocol. Throws, naming the field and the values it takes, for anything else
 * (a typo fails the gate's setup, never silently gates the headline rate).
 *
 * @param field - where the setting was read, for the error (e.g. `gateSummaries options.metric`).
 * @example
 * gateMetricOf('reliability', 'independent').id // => 'passHat'
 */
export function gateMetricOf(
  metric: unknown,
  protocol: MetricProtocol,
  field = 'GateOptions.metric',
): MetricDefinition | undefined {
  if (metric === undefined) return undefined
  if (typeof metric === 'string' && (GATE_ROLES as readonly string[]).includes(metric))
    return metricWithRole(metric as MetricRole, protocol)
  // Only the metrics the gate pairs task by task: Score@k is held by thresholds, not by a baseline.
  const gateable = METRIC_IDS.filter((id) => METRICS[id].gateable)
  if (typeof metric === 'string' && (gateable as readonly string[]).includes(metric)) return METRICS[metric as MetricId]
  throw new Error(
    `${field}: ${JSON.stringify(metric)} is neither a metric nor a role; use 'headline' (Seq@k or Pass@k), 'reliability' (Seq^k for cells with feedback, pass^k for independent cells) or a metric id: ${gateable.join(', ')}`,
  )
}

/** The gate's verdict on a cell against its baseline, with the evidence behind it and what it could see. */
export interface GateResult {
  pass: boolean
  /** The gate protocol that decided ({@link GATE_PROTOCOL}) and its settings. */
  gate: { protocol: string; interval: string; margin: number; maxDrop: number; level: number; ks: number[] }
  /** Why it failed, one sentence each (empty when it passed). */
  reasons: string[]
  /** What the comparison had to adapt, pass or fail (e.g. different repeat counts). */
  notes: string[]
  comparisons: GateComparison[]
  /** Tasks compared: common to both (same id and content) and measured on both sides. */
  tasks: number
  power: GatePower | null
  /** Tasks whose success rate at K fell, e.g. "fx/003 3/3 → 0/3". */
  regressed: string[]
  improved: string[]
  added: string[]
  removed: string[]
  /** Tasks whose content (prompt, tests) changed: left out of the comparison. */
  changed: string[]
  /**
   * Instrument fields that differ (apart from the task list and the repeats, which are compared on
   * what both have), `path: before → after`: the gate refused, since the numbers no longer measure
   * the same thing.
   */
  instrumentChanges: string[]
  /**
   * Subject fields that differ (the actor, the instructions, the prompt builder), `path: before →
   * after`: the change under review, compared paired by task like any other run.
   */
  subjectChanges: string[]
}

type TaskRow = CellSummary['perTask'][number]

/**
 * The instrument as the gate compares it: without the task list (tasks added or removed are
 * compared on the common set) and the repeats (compared on the repeats both have).
 */
function comparedInstrument(p: Protocol) {
  const { fingerprint: _f, repeats: _r, benchmark, ...rest } = instrumentOf(p, 1)
  return { ...rest, benchmark: { name: benchmark.name } }
}

/** The subject as the gate compares it (its fingerprint is not a field of its own). */
function comparedSubject(p: Protocol) {
  const { fingerprint: _f, ...fields } = subjectOf(p)
  return fields
}

/**
 * The instrument and subject fields in which two protocols differ, each `path: before → after`.
 *
 * @example
 * protocolChanges(baseline.protocol, current.protocol) // => { instrument: [], subject: ['actor.model: "a" → "b"'] }
 */
export function protocolChanges(before: Protocol, after: Protocol): { instrument: string[]; subject: string[] } {
  return {
    instrument: fieldChanges(comparedInstrument(before), comparedInstrument(after)).map(changeText),
    subject: fieldChanges(comparedSubject(before), comparedSubject(after)).map(changeText),
  }
}

function solvedText(row: TaskRow, K: number, independent: boolean): string {
  if (independent) return `${row.passes ?? 0}/${row.samples ?? 0} samples`
  return `${row.firstSuccess.filter((f) => f !== null && f <= K).length}/${row.firstSuccess.length}`
}

/**
 * Compares a cell with its baseline, like with like (every gate compares the same
 * protocol and says why it failed). A protocol change fails with the fields that changed. On the
 * same protocol, tasks are matched by id and content, and {@link decideGate} judges Seq@K (Pass@K
 * for independent cells) and any gated Seq@k on the common tasks. The result carries what the
 * gate could see: the smallest drop it catches with 80% power at these tasks and repeats.
 *
 * @example
 * const result = compareToBaseline(baselineCell, summary, { margin: 0, maxDrop: 0.1 })
 * if (!result.pass) throw new Error(result.reasons.join('\n'))
 */
export function compareToBaseline(baseline: BaselineCell, current: CellSummary, options: GateOptions = {}): GateResult {
  const margin = options.margin ?? 0
  const maxDrop = options.maxDrop ?? 0.1
  const level = options.level ?? 0.95
  const independent = current.protocol.kind === 'independent'
  const K = current.budget
  const headline = headlineMetric(current.protocol.kind)
  const gated = gateMetricOf(options.metric, current.protocol.kind) ?? headline
  const byTau = gated.index === 'tau'
  // Told its budget, the actor may plan for K attempts: only Seq@K itself is comparable.
  const ks = byTau
    ? [...new Set(options.ks ?? [1])].filter((tau) => tau > 0 && tau <= 1).sort((x, y) => x - y)
    : [...new Set([K, ...(options.ks ?? [])])]
        .filter((k) => k >= 1 && k <= K && (independent || !current.protocol.budgetDisclosed || k === K))
        .sort((x, y) => x - y)
  const result: GateResult = {
    pass: true,
    gate: { protocol: GATE_PROTOCOL, interval: DIFFERENCE_INTERVAL_METHOD, margin, maxDrop, level, ks },
    reasons: [],
    notes: [],
    comparisons: [],
    tasks: 0,
    power: null,
    regressed: [],
    improved: [],
    added: [],
    removed: [],
    changed: [],
    instrumentChanges: [],
    subjectChanges: [],
  }
  // Fail closed: a metric the gate cannot judge on this cell is a failed gate, never a pass.
  if (!gated.gateable || !measures(gated, current.protocol.kind) || ks.length === 0) {
    result.pass = false
    result.reasons.push(
      !gated.gateable
        ? `${gated.label(byTau ? 'τ' : 'k')} cannot be gated; gate on ${headline.label(K)} or another gateable metric.`
        : ks.length === 0
          ? `no share τ in (0, 1] to gate ${gated.label('τ')} at (ks: ${JSON.stringify(options.ks)}).`
          : `${current.protocol.kind} cells do not measure ${gated.label(byTau ? 'τ' : 'k')}, so a gate on it cannot be judged; gate on ${headline.label(K)} or a metric this cell measures.`,
    )
    return result
  }
  const changes = protocolChanges(baseline.protocol, current.protocol)
  result.subjectChanges = changes.subject
  if (changes.instrument.length > 0) {
    result.pass = false
    result.instrumentChanges = changes.instrument
    result.reasons.push(
      `the instrument changed since the baseline (${changes.instrument.join('; ')}); numbers measured with another instrument (tasks, verifier, feedback, history, budget) are not comparable. If the change is intended, accept it with \`vitest run -u\` or SEQK_UPDATE_BASELINE=1.`,
    )
    return result
  }
  const before = new Map(baseline.perTask.map((r) => [r.taskId, r]))
  const now = new Map(current.perTask.map((r) => [r.taskId, r]))
  result.added = [...now.keys()].filter((id) => !before.has(id))
  result.removed = [...before.keys()].filter((id) => !now.has(id))
  result.changed = [...now.keys()].filter((id) => {
    const a = before.get(id)?.contentHash
    const b = now.get(id)?.contentHash
    return before.has(id) && a !== undefined && b !== undefined && a !== b
  })
  const common = [...now.keys()].filter((id) => before.has(id) && !result.changed.includes(id))
  if (common.length === 0) {
    result.pass = false
    result.reasons.push(
      'no task is common to the baseline and this run (same id and content), so nothing can be compared; accept the new task set with `vitest run -u` or SEQK_UPDATE_BASELINE=1.',
    )
    return result
  }
  // A task with no measured outcome on either side (all its trajectories errored) is left out of
  // both, so the comparison stays paired.
  // Like with like: where the runs have different repeat counts, each task is compared on the
  // first repeats both have (a side with more repeats is less noisy, and the paired test assumes
  // both sides are alike under no change: 1 repeat against 10 alarmed a quarter of the time).
  const rowsOf = (id: string): [TaskRow, TaskRow] => {
    const [x, y] = [before.get(id)!, now.get(id)!]
    if (independent || repeatsOf(x) === repeatsOf(y)) return [x, y]
    const n = Math.min(repeatsOf(x), repeatsOf(y))
    return [firstRepeats(x, n), firstRepeats(y, n)]
  }
  const pairs = common.map(rowsOf)
  const truncated = common.filter((id, i) => pairs[i]![0] !== before.get(id) || pairs[i]![1] !== now.get(id))
  if (truncated.length > 0) {
    const repeats = (rows: ReadonlyMap<string, TaskRow>) => Math.max(...truncated.map((id) => repeatsOf(rows.get(id)!)))
    result.notes.push(
      `the baseline has up to ${repeats(before)} repeats per task and this run up to ${repeats(now)}: ${plural(truncated.length, 'task')} ${truncated.length === 1 ? 'was' : 'were'} compared on the repeats both have; refresh the baseline with \`vitest run -u\` to compare all of them`,
    )
  }
  // Rates as the summary reads them (errored repeats censored), over the common tasks.
  const [allBefore, allNow] = [
    taskRates(
      pairs.map((p) => p[0]),
      K,
      headline.id,
    ),
    taskRates(
      pairs.map((p) => p[1]),
      K,
      headline.id,
    ),
  ]
  const kept = common.map((_, i) => i).filter((i) => Number.isFinite(allBefore[i]!) && Number.isFinite(allNow[i]!))
  const measured = kept.map((i) => common[i]!)
  if (measured.length === 0) {
    result.pass = false
    result.reasons.push(
      'no common task has a measured outcome in both the baseline and this run (every trajectory errored on one side), so nothing can be compared; fix the errors, then accept the baseline with `vitest run -u` if it is the one that is empty.',
    )
    return result
  }
  result.tasks = measured.length
  const a = kept.map((i) => pairs[i]![0])
  const b = kept.map((i) => pairs[i]![1])
  const rule: GateRule = {
    K,
    ks,
    independent,
    ...(options.metric !== undefined ? { metric: gated.id } : {}),
    margin,
    maxDrop,
    level,
  }
  const decision = decideGate(a, b, rule)
  result.comparisons = decision.comparisons
  result.reasons.push(...decision.failures.sort((x, y) => x.k - y.k).map((f) => f.why))
  // Per task, the gated metric at K (Cover@τ: at the smallest gated τ).
  const at = byTau ? ks[0]! : K
  const [ratesBefore, ratesNow] = [taskRates(a, at, gated.id, { K }), taskRates(b, at, gated.id, { K })]
  for (const [i, id] of measured.entries()) {
    const x = ratesBefore[i]!
    const y = ratesNow[i]!
    const text = `${id} ${solvedText(a[i]!, K, independent)} → ${solvedText(b[i]!, K, independent)}`
    if (y < x - TOLERANCE) result.regressed.push(text)
    else if (y > x + TOLERANCE) result.improved.push(text)
  }
  if (options.power !== false) result.power = gatePowerFor(a, b, rule, options.seed ?? 1)
  if (result.reasons.length > 0) {
    result.pass = false
    if (result.regressed.length > 0) result.reasons.push(`tasks that got worse: ${result.regressed.join(', ')}`)
  }
  return result
}
