import { createRng, seedFrom, type Rng } from '../metrics/index.js'
import {
  CONCENTRATION_RANGE,
  concentrationFromSamples,
  concentrationFromSpread,
  drawFirstSuccess,
  drawTaskRate,
  perAttemptSuccess,
  withinTaskVariance,
  withinVarianceFromPairs,
} from '../metrics/population.js'
import { POWER_ALTERNATIVES, type CellSummary, type SPREAD_SOURCES } from '../core/schemas.js'
import { decideGate, type GateRule } from './gate-rule.js'
import { taskEvidence, taskRate, taskTrials } from '../metrics/task-rates.js'
import { headlineMetric, METRICS, type MetricDefinition } from '../metrics/registry.js'

type TaskRow = CellSummary['perTask'][number]

/**
 * The two ways a true drop of the rate can fall on the tasks, and the power of each is simulated:
 * - `proportional`: every task gets worse in proportion (its rate q becomes q · (1 − drop / rate));
 * - `concentrated`: a few tasks break outright (rate 0), drawn at random, as many as the drop
 *   needs (the last one only in part), as when a regression breaks one kind of task.
 * The second is the harder to see with few tasks: the same mean drop rests on a few tasks' noise.
 */
export const ALTERNATIVES = POWER_ALTERNATIVES
/** One of {@link ALTERNATIVES}: `proportional` or `concentrated`. */
export type Alternative = (typeof ALTERNATIVES)[number]

/** Each alternative in words, as the power sentence and `seqk power` name it. */
export const ALTERNATIVE_TEXT: Readonly<Record<Alternative, string>> = {
  proportional: 'every task worse in proportion',
  concentrated: 'the drop on a few tasks broken outright',
}

/** One alternative's power: the smallest drop caught 80% of the time and the power at round drops. */
export interface AlternativePower {
  alternative: Alternative
  /** Smallest drop (a rate, e.g. 0.1) caught in ≥ 80% of simulated runs; null when none up to the baseline's whole rate is. */
  detectableDrop: number | null
  /** Power at a few round drops, e.g. { drop: 0.05, power: 0.31 }. */
  at: { drop: number; power: number }[]
}

/**
 * What the gate could see: the smallest drop at K it catches with 80% power at these tasks and
 * repeats, for the weaker of the two {@link ALTERNATIVES} (the one named in `alternative`).
 */
export interface GatePower {
  tasks: number
  repeats: number
  /** Smallest drop caught in ≥ 80% of simulated runs under both alternatives; null when none up to the baseline's whole rate is. */
  detectableDrop: number | null
  /** The lower power of the two alternatives at a few round drops. */
  at: { drop: number; power: number }[]
  /** The alternative the figures are for: the one under which the gate sees less. */
  alternative: Alternative
  /** How much the tasks differ, as the simulation drew them (see concentrationFromSpread), and where that was read. */
  concentration: number
  spread?: SpreadSource
  /** Each alternative on its own. */
  alternatives: AlternativePower[]
  sentence: string
}

/** The run a power question is about: its size, its level, and the gate that will judge it. */
export interface PowerQuestion {
  tasks: number
  repeats: number
  /** Seq@K (Pass@K for independent sampling) of the baseline, in [0, 1]. */
  rate: number
  /** How much tasks differ (see TaskPopulation); default 1, or estimated from a run's outcomes. */
  concentration?: number
  /** Where an estimated concentration was read (absent: it was given). */
  spread?: SpreadSource
  rule: GateRule
  /** Simulated baseline/current pairs per drop (default 200). */
  simulations?: number
  seed?: number
}

/** Power is "caught in at least this share of simulated runs". */
export const TARGET_POWER = 0.8

/** Drops on a 1-point grid, the resolution a power statement is made at. */
const STEP = 0.01

/**
 * One simulated cell's per-task rows: each task's first successes (sequential) or its sample
 * counts (independent) drawn with per-attempt success `p[i]`; with `keep`, a repeat's success
 * stands only with chance `keep[i]` (otherwise the repeat is not solved within the budget).
 */
function simulatedRows(
  rng: Rng,
  p: readonly number[],
  repeats: number,
  rule: GateRule,
  keep?: readonly number[],
): TaskRow[] {
  const rows = new Array<TaskRow>(p.length)
  for (let i = 0; i < p.length; i++) {
    const pi = p[i]!
    if (rule.independent) {
      let passes = 0
      for (let s = 0; s < repeats * rule.K; s++) passes += rng() < pi ? 1 : 0
      rows[i] = { taskId: TASK_IDS(i), firstSuccess: [], errors: 0, costAtK: [], samples: repeats * rule.K, passes }
      continue
    }
    const firstSuccess = new Array<number | null>(repeats)
    for (let r = 0; r < repeats; r++) {
      const f = drawFirstSuccess(rng, pi, rule.K)
      firstSuccess[r] = f !== null && keep && rng() >= keep[i]! ? null : f
    }
    rows[i] = { taskId: TASK_IDS(i), firstSuccess, errors: 0, costAtK: [] }
  }
  return rows
}

// Simulated tasks' ids, made once: a power answer builds millions of rows.
const taskIds: string[] = []
const TASK_IDS = (i: number): string => (taskIds[i] ??= `t${i}`)

/**
 * The current run's rows at the rates `after` an alternative leaves. Independent samples are drawn
 * at the per-sample success that reaches the new rate. A sequential task keeps its own timing and
 * loses a share of its successes, so it is worse at every k in the same proportion as at K:
 * redrawing it memoryless at the new rate would turn a task solved at attempt 1 every time into
 * one solved at attempt 1 about half as often after a 2-point drop, a collapse of Seq@1 no real
 * regression of that size shows (and a gate over Seq@1 would seem to see it at once).
 */
function currentRows(
  rng: Rng,
  q: readonly number[],
  p: readonly number[],
  after: readonly number[],
  repeats: number,
  rule: GateRule,
): TaskRow[] {
  if (rule.independent)
    return simulatedRows(
      rng,
      after.map((x) => perAttemptSuccess(x, rule.K)),
      repeats,
      rule,
    )
  return simulatedRows(
    rng,
    p,
    repeats,
    rule,
    after.map((x, i) => (q[i]! > 0 ? x / q[i]! : 0)),
  )
}

/**
 * The current run's task rates under an alternative: the drop takes away `drop / mean` of the
 * drawn tasks' summed rate, in proportion on every task or whole tasks at a time (in a random
 * order, the last one in part), so both alternatives lose the same on the same tasks.
 */
export function droppedRates(
  rng: Rng,
  q: readonly number[],
  drop: number,
  mean: number,
  alternative: Alternative,
): number[] {
  return applyDrop(q, drop, mean, alternative, alternative === 'proportional' ? [] : breakOrder(rng, q.length))
}

/** The order a concentrated drop breaks tasks in (Fisher–Yates: it has nothing to do with their order). */
function breakOrder(rng: Rng, n: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i)
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1))
    ;[order[i], order[j]] = [order[j]!, order[i]!]
  }
  return order
}

/** {@link droppedRates} with the order tasks break in given, so the same drop can be tried at several sizes. */
function applyDrop(
  q: readonly number[],
  drop: number,
  mean: number,
  alternative: Alternative,
  order: readonly number[],
): number[] {
  const scale = Math.max(0, 1 - drop / mean)
  if (alternative === 'proportional') return q.map((x) => x * scale)
  let loss = q.reduce((a, b) => a + b, 0) * (1 - scale)
  const out = [...q]
  for (const i of order) {
    if (loss <= 0) break
    const taken = Math.min(out[i]!, loss)
    out[i] = out[i]! - taken
    loss -= taken
  }
  return out
}

/** The metric a rule gates (its headline rate unless it names another) and the index its drop is read at. */
export function gatedMetric(rule: GateRule): { metric: MetricDefinition; at: number } {
  const metric = rule.metric ? METRICS[rule.metric] : headlineMetric(rule.independent)
  return { metric, at: metric.index === 'tau' ? Math.min(...rule.ks) : rule.K }
}

/** P(Binomial(n, t) ≥ c). */
function binomialTail(n: number, t: number, c: number): number {
  if (c <= 0) return 1
  if (c > n) return 0
  let term = Math.pow(1 - t, n)
  let below = 0
  for (let i = 0; i < c; i++) {
    below += term
    term *= ((n - i) / (i + 1)) * (t / (1 - t))
  }
  return t >= 1 ? 1 : Math.max(0, Math.min(1, 1 - below))
}

/**
 * A task's expected value of the gated metric, as the simulation draws it from its rate at K
 * (`q`: Seq@K, or Pass@K of independent samples): the headline itself; Seq^K, every one of r
 * repeats solved (q^r); pass^K, K samples all passing (p^K, p the per-sample success); Cover@τ,
 * the chance a task's share over its tries reaches τ (r repeats, or r·K samples).
 */
export function expectedTaskValue(q: number, repeats: number, rule: GateRule): number {
  const { metric, at } = gatedMetric(rule)
  const p = perAttemptSuccess(q, rule.K)
  switch (metric.id) {
    case 'seqHat':
      return Math.pow(q, repeats)
    case 'passHat':
      return Math.pow(p, at)
    case 'coverAt': {
      const [n, t] = rule.independent ? [repeats * rule.K, p] : [repeats, q]
      return binomialTail(n, t, Math.ceil(at * n - 1e-9))
    }
    default:
      return q
  }
}

const meanValue = (q: readonly number[], repeats: number, rule: GateRule): number =>
  q.reduce((sum, x) => sum + expectedTaskValue(x, repeats, rule), 0) / Math.max(1, q.length)

/**
 * The rates after a true drop of `drop` in the gated metric: for the headline, {@link droppedRates};
 * for another metric, the drop of the rate at K (in the same alternative, on the same tasks) whose
 * expected loss of that metric over these tasks is exactly `drop`, found by bisection (the loss
 * grows with the drop of the rate). A drop beyond what the tasks hold leaves every task at 0.
 */
function droppedFor(
  rng: Rng,
  q: readonly number[],
  drop: number,
  mean: number,
  alternative: Alternative,
  repeats: number,
  rule: GateRule,
): number[] {
  if (!rule.metric || rule.metric === headlineMetric(rule.independent).id)
    return droppedRates(rng, q, drop, mean, alternative)
  const order = alternative === 'proportional' ? [] : breakOrder(rng, q.length)
  const target = meanValue(q, repeats, rule) - drop
  if (target <= TARGET_EPSILON) return q.map(() => 0)
  let [lo, hi] = [0, mean]
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2
    if (meanValue(applyDrop(q, mid, mean, alternative, order), repeats, rule) > target) lo = mid
    else hi = mid
  }
  return applyDrop(q, hi, mean, alternative, order)
}
const TARGET_EPSILON = 1e-12

/**
 * The gated metric's expected value over the question's simulated baselines: the rate its drops
 * are out of (the headline's is the question's own rate).
 */
export function metricRate(question: PowerQuestion): number {
  const { metric } = gatedMetric(question.rule)
  if (metric.id === headlineMetric(question.rule.independent).id) return question.rate
  const { q } = drawsFor(question)
  return q.reduce((sum, rates) => sum + meanValue(rates, question.repeats, question.rule), 0) / Math.max(1, q.length)
}

/**
 * The gate's power against a true drop of `drop` in Seq@K: the share of simulated
 * baseline/current pairs on which {@link decideGate} — the gate's own code — fails. Each pair draws
 * its tasks from the population, runs the baseline at each task's rate q and the current run at
 * the rates the alternative leaves ({@link droppedRates}: in expectation the mean drops by exactly
 * `drop`). Seeded: the same question gives the same answer, and every drop sees the same draws,
 * so power grows with the drop.
 *
 * @example
 * gatePower({ tasks: 40, repeats: 3, rate: 0.75, rule }, 0.1) // => e.g. 0.6
 * gatePower({ tasks: 40, repeats: 3, rate: 0.75, rule }, 0.1, 'concentrated') // => e.g. 0.3
 */
export function gatePower(question: PowerQuestion, drop: number, alternative: Alternative = 'proportional'): number {
  const { rule } = question
  const draws = drawsFor(question)
  let caught = 0
  for (const [s, q] of draws.q.entries()) {
    // The current run's own stream per simulated pair: the same for every drop.
    const rng = createRng(seedFrom(draws.currentSeed, s))
    const after = currentRows(
      rng,
      q,
      draws.p[s]!,
      droppedFor(rng, q, drop, draws.mean, alternative, question.repeats, rule),
      question.repeats,
      rule,
    )
    if (decideGate(draws.before[s]!, after, rule).failures.length > 0) caught++
  }
  return caught / draws.q.length
}

/** The simulated baselines of one question: each pair's task rates and baseline rows. */
interface Draws {
  key: string
  /** The seed the current runs' streams derive from. */
  currentSeed: number
  mean: number
  q: number[][]
  /** Each task's per-attempt success, from q. */
  p: number[][]
  before: TaskRow[][]
}

// The last question's baselines: a power answer asks one question at a dozen drops and two
// alternatives, and drawing the baselines (Beta draws, first successes) was most of its time.
let lastDraws: Draws | null = null

function drawsFor(question: PowerQuestion): Draws {
  const { tasks, repeats, rule } = question
  // A population at exactly 0% or 100% has no spread to draw from: keep it half a trial inside.
  const edge = 1 / (2 * Math.max(1, tasks * repeats))
  const mean = Math.min(1 - edge, Math.max(edge, question.rate))
  const concentration = question.concentration ?? 1
  const simulations = question.simulations ?? 200
  const key = JSON.stringify([
    question.seed ?? 1,
    tasks,
    repeats,
    mean,
    concentration,
    rule.K,
    rule.independent,
    simulations,
  ])
  if (lastDraws?.key === key) return lastDraws
  const population = { mean, concentration, budget: rule.K }
  const rng = createRng(seedFrom('gate-power', key))
  const q: number[][] = []
  const p: number[][] = []
  const before: TaskRow[][] = []
  for (let s = 0; s < simulations; s++) {
    const rates = Array.from({ length: tasks }, () => drawTaskRate(rng, population))
    const perAttempt = rates.map((x) => perAttemptSuccess(x, rule.K))
    q.push(rates)
    p.push(perAttempt)
    before.push(simulatedRows(rng, perAttempt, repeats, rule))
  }
  lastDraws = { key, currentSeed: seedFrom('gate-power-current', key), mean, q, p, before }
  return lastDraws
}

/**
 * The smallest drop (on a 1-point grid) the gate catches in at least 80% of simulated runs, or
 * null when not even a drop of the whole rate is. Found by bisection, which assumes power grows
 * with the drop: it does in expectation, and every drop sees the same draws, so simulation noise
 * moves the answer by a point or two at most.
 *
 * @example
 * detectableDrop({ tasks: 40, repeats: 3, rate: 0.75, rule }, 'concentrated') // => e.g. 0.18
 */
export function detectableDrop(question: PowerQuestion, alternative: Alternative = 'proportional'): number | null {
  const steps = Math.floor(metricRate(question) / STEP + 1e-9)
  if (steps < 1 || gatePower(question, steps * STEP, alternative) < TARGET_POWER) return null
  let lo = 0
  let hi = steps
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1
    if (gatePower(question, mid * STEP, alternative) >= TARGET_POWER) hi = mid
    else lo = mid
  }
  return Math.round(hi * STEP * 100) / 100
}

/** "a 10-point drop", "an 11-point drop": the article as the number is spoken. */
export const points = (drop: number): string => {
  const n = Math.round(drop * 100)
  return `${/^(8|11$|18$)/.test(String(n)) ? 'an' : 'a'} ${n}-point`
}

/** Each alternative as a clause of the power sentence. */
const ALTERNATIVE_CLAUSE: Readonly<Record<Alternative, string>> = {
  proportional: 'when every task gets worse in proportion',
  concentrated: 'when a few tasks break outright',
}

/** The round drops a power statement gives the power at. */
const ROUND_DROPS = [0.05, 0.1]

/**
 * The question's answer under both alternatives, and which one the gate sees less of: the larger
 * detectable drop (none is larger than any), then the lower power at the round drops.
 *
 * @example
 * const answer = powerAnswer({ tasks: 164, repeats: 1, rate: 0.8, concentration: 1, rule })
 * answer.alternative // => 'concentrated' or 'proportional': the figures are that one's
 * answer.detectableDrop // => e.g. 0.11
 */
export function powerAnswer(
  question: PowerQuestion,
  drops: readonly number[] = ROUND_DROPS,
): Omit<GatePower, 'sentence'> {
  const rate = metricRate(question)
  const alternatives = ALTERNATIVES.map((alternative): AlternativePower => ({
    alternative,
    detectableDrop: detectableDrop(question, alternative),
    at: drops.filter((d) => d <= rate + 1e-9).map((drop) => ({ drop, power: gatePower(question, drop, alternative) })),
  }))
  return {
    tasks: question.tasks,
    repeats: question.repeats,
    ...weakerOf(alternatives),
    concentration: question.concentration ?? 1,
    ...(question.spread ? { spread: question.spread } : {}),
    alternatives,
  }
}

/**
 * The figures of the alternative under which the gate sees less: the larger detectable drop (none
 * is larger than any), then the lower power at the drops both give; the power at each drop is the
 * lower of the two.
 */
export function weakerOf(alternatives: readonly AlternativePower[]): {
  alternative: Alternative
  detectableDrop: number | null
  at: { drop: number; power: number }[]
} {
  const weakness = (a: AlternativePower) =>
    [a.detectableDrop ?? Infinity, -a.at.reduce((sum, x) => sum + x.power, 0)] as const
  const weaker = alternatives.reduce((w, a) => {
    const [x, y] = [weakness(w), weakness(a)]
    return y[0] > x[0] || (y[0] === x[0] && y[1] > x[1]) ? a : w
  })
  const detectable = alternatives.some((a) => a.detectableDrop === null)
    ? null
    : Math.max(...alternatives.map((a) => a.detectableDrop!))
  const at = weaker.at.map(({ drop }) => ({
    drop,
    power: Math.min(...alternatives.map((a) => a.at.find((x) => x.drop === drop)?.power ?? 1)),
  }))
  return { alternative: weaker.alternative, detectableDrop: detectable, at }
}

/** The sentence a gate verdict carries about what it could see. */
export function powerSentence(question: PowerQuestion, answer: Omit<GatePower, 'sentence'>): string {
  const { tasks, repeats } = question
  const size = `${tasks} ${tasks === 1 ? 'task' : 'tasks'} × ${repeats} ${repeats === 1 ? 'repeat' : 'repeats'}`
  const gated = gatedMetric(question.rule)
  const metric = gated.metric.label(gated.at)
  const others = answer.at.map((x) => `${points(x.drop)} drop ${Math.round(x.power * 100)}%`).join(', ')
  const flag = question.rule.metric && question.rule.metric !== headlineMetric(question.rule.independent).id
  const fix = `npx seqk power --tasks ${tasks} --repeats ${repeats} --rate ${question.rate.toFixed(2)}${flag ? ` --metric ${question.rule.metric}` : ''} says what would`
  const weaker = ALTERNATIVE_CLAUSE[answer.alternative]
  if (metricRate(question) <= 0) return `with ${size} the baseline solves nothing at ${metric}, so no drop can be seen`
  if (answer.detectableDrop === null)
    return `with ${size} this gate cannot catch even a drop of ${metric} to zero 80% of the time ${weaker} (${others}): it is too small to gate on; ${fix}`
  const other = answer.alternatives.find((a) => a.alternative !== answer.alternative)!
  const besides =
    other.detectableDrop === answer.detectableDrop
      ? ` (${others}; the same ${ALTERNATIVE_CLAUSE[other.alternative]})`
      : ` (${others}; ${points(other.detectableDrop!)} drop ${ALTERNATIVE_CLAUSE[other.alternative]})`
  const assumed = question.spread === 'assumed' ? `; ${SPREAD_TEXT.assumed}` : ''
  return `with ${size} this gate catches ${points(answer.detectableDrop)} drop of ${metric} 80% of the time ${weaker}${besides}${assumed}`
}

/**
 * Where the spread of task difficulty the power simulation draws from was read: `repeats`, how
 * often a task's repeats agree; `pairs`, how often a task's outcome agrees between the baseline and
 * this run (one repeat each; a real change makes the tasks look more alike, so the power errs low);
 * `samples`, how many of a task's independent samples passed; `assumed`, nowhere (one repeat and no
 * second run): tasks taken as alike, the case in which the gate sees least.
 */
export type SpreadSource = (typeof SPREAD_SOURCES)[number]

/** Each source in words, for the sentence and `seqk power`. */
export const SPREAD_TEXT: Readonly<Record<SpreadSource, string>> = {
  repeats: 'how much tasks differ read from their repeats',
  pairs: 'how much tasks differ read from how often a task fared alike in both runs',
  samples: 'how much tasks differ read from their samples',
  assumed:
    'one repeat per task cannot show how much tasks differ, so they are taken as alike, where the gate sees least',
}

/** Solved repeats (by K) and measured repeats of a row, errored ones left out. */
function solvedOf(row: TaskRow, K: number): { solved: number; repeats: number } {
  return { solved: row.firstSuccess.filter((f) => f !== null && f <= K).length, repeats: row.firstSuccess.length }
}

/**
 * The population a run stands for, as the power simulation draws it: its rate at K and how much
 * its tasks differ. The spread is read where it can be read without a model of how an actor
 * revises (see {@link SpreadSource}): a task's repeats, its two runs when a baseline is compared,
 * or independent samples. A sequential trajectory's attempts are never read for it: when a task is
 * solved depends as much on how the actor's revisions fare as on how hard the task is.
 *
 * @param current - the run compared with `rows` (the same tasks, in the same order), if any.
 */
export function populationOf(
  rows: readonly TaskRow[],
  rule: Pick<GateRule, 'K' | 'independent'>,
  current?: readonly TaskRow[],
): { tasks: number; rate: number; concentration: number; spread: SpreadSource } {
  const { K, independent } = rule
  const metric = headlineMetric(independent).id
  const rates = rows.map((row) => taskRate(row, K, metric))
  const measured = rows.filter((_, i) => Number.isFinite(rates[i]!))
  const finite = rates.filter(Number.isFinite)
  const rate = finite.length === 0 ? 0 : finite.reduce((a, b) => a + b, 0) / finite.length
  const trials = measured.reduce((n, row) => n + taskTrials(row, K, metric), 0)
  // The same half-trial edge as the simulation: a rate of 0 or 1 leaves no spread to read.
  const edge = 1 / (2 * Math.max(1, trials))
  const inside = Math.min(1 - edge, Math.max(edge, rate))
  const base = { tasks: measured.length, rate }
  if (independent)
    return {
      ...base,
      concentration: concentrationFromSamples(
        measured.map((row) => taskEvidence(row, K, true)),
        inside,
        K,
      ),
      spread: 'samples',
    }
  const counts = [...measured, ...(current ?? [])].map((row) => solvedOf(row, K))
  const fromRepeats = withinTaskVariance(
    counts.map((c) => c.solved),
    counts.map((c) => c.repeats),
  )
  if (Number.isFinite(fromRepeats))
    return { ...base, concentration: concentrationFromSpread(fromRepeats, inside), spread: 'repeats' }
  if (current && current.length === rows.length) {
    const fromPairs = withinVarianceFromPairs(
      rates,
      current.map((row) => taskRate(row, K, 'seqAt')),
      1,
    )
    if (Number.isFinite(fromPairs))
      return { ...base, concentration: concentrationFromSpread(fromPairs, inside), spread: 'pairs' }
  }
  return { ...base, concentration: CONCENTRATION_RANGE[1], spread: 'assumed' }
}

/**
 * What the gate on these paired rows could see: the population taken from the baseline (its rate
 * and how much its tasks differ), the size from the comparison, the rule from the gate.
 */
export function gatePowerFor(
  baseline: readonly TaskRow[],
  current: readonly TaskRow[],
  rule: GateRule,
  seed: number,
): GatePower {
  const repeats = Math.max(1, ...current.map((row) => taskTrials(row, rule.K, headlineMetric(rule.independent).id)))
  const question: PowerQuestion = { ...populationOf(baseline, rule, current), repeats, rule, seed }
  const answer = powerAnswer(question)
  return { ...answer, sentence: powerSentence(question, answer) }
}
