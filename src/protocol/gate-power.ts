import { createRng, seedFrom, type Rng } from '../metrics/index.js'
import { concentrationFrom, drawFirstSuccess, drawTaskRate, perAttemptSuccess } from '../metrics/population.js'
import type { CellSummary } from '../core/schemas.js'
import { decideGate, type GateRule } from './gate-rule.js'
import { taskRate, taskTrials } from '../metrics/task-rates.js'

type TaskRow = CellSummary['perTask'][number]

/** What the gate could see: the smallest drop at K it catches with 80% power at these tasks and repeats. */
export interface GatePower {
  tasks: number
  repeats: number
  /** Smallest drop (a rate, e.g. 0.1) caught in ≥ 80% of simulated runs; null when none up to the baseline's whole rate is. */
  detectableDrop: number | null
  /** Power at a few round drops, e.g. { drop: 0.05, power: 0.31 }. */
  at: { drop: number; power: number }[]
  sentence: string
}


/** The run a power question is about: its size, its level, and the gate that will judge it. */
export interface PowerQuestion {
  tasks: number
  repeats: number
  /** Seq@K (Pass@K for independent sampling) of the baseline, in [0, 1]. */
  rate: number
  /** How much tasks differ (see TaskPopulation); default 1, or estimated from a run's per-task rates. */
  concentration?: number
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
 * counts (independent) drawn with per-attempt success `p[i]`.
 */
function simulatedRows(rng: Rng, p: readonly number[], repeats: number, rule: GateRule): TaskRow[] {
  return p.map((pi, i) => {
    const firstSuccess: (number | null)[] = []
    let passes = 0
    for (let r = 0; r < repeats; r++) {
      if (rule.independent) for (let s = 0; s < rule.K; s++) passes += rng() < pi ? 1 : 0
      else firstSuccess.push(drawFirstSuccess(rng, pi, rule.K))
    }
    const row: TaskRow = { taskId: `t${i}`, firstSuccess, errors: 0, costAtK: [] }
    return rule.independent ? { ...row, samples: repeats * rule.K, passes } : row
  })
}

/**
 * The gate's power against a true drop of `drop` in Seq@K: the share of simulated
 * baseline/current pairs on which {@link decideGate} — the gate's own code — fails. Each pair draws
 * its tasks from the population, runs the baseline at each task's rate q and the current run at
 * q · (1 − drop / rate) (every task worse in proportion, so the mean drops by exactly `drop`).
 * Seeded: the same question gives the same answer, and every drop sees the same draws, so power
 * grows with the drop.
 *
 * @example
 * gatePower({ tasks: 40, repeats: 3, rate: 0.75, rule }, 0.1) // => e.g. 0.6
 */
export function gatePower(question: PowerQuestion, drop: number): number {
  const { tasks, repeats, rule } = question
  const simulations = question.simulations ?? 200
  // A population at exactly 0% or 100% has no spread to draw from: keep it half a trial inside.
  const edge = 1 / (2 * Math.max(1, tasks * repeats))
  const mean = Math.min(1 - edge, Math.max(edge, question.rate))
  const population = { mean, concentration: question.concentration ?? 1, budget: rule.K }
  const scale = Math.max(0, 1 - drop / mean)
  const rng = createRng(seedFrom('gate-power', question.seed ?? 1, tasks, repeats, Math.round(mean * 1e6), rule.K))
  let caught = 0
  for (let s = 0; s < simulations; s++) {
    const q = Array.from({ length: tasks }, () => drawTaskRate(rng, population))
    const before = simulatedRows(rng, q.map((x) => perAttemptSuccess(x, rule.K)), repeats, rule)
    const after = simulatedRows(rng, q.map((x) => perAttemptSuccess(x * scale, rule.K)), repeats, rule)
    if (decideGate(before, after, rule).failures.length > 0) caught++
  }
  return caught / simulations
}

/**
 * The smallest drop (on a 1-point grid) the gate catches in at least 80% of simulated runs, or
 * null when not even a drop of the whole rate is. Found by bisection, which assumes power grows
 * with the drop: it does in expectation, and every drop sees the same draws, so simulation noise
 * moves the answer by a point or two at most.
 */
export function detectableDrop(question: PowerQuestion): number | null {
  const steps = Math.floor(question.rate / STEP + 1e-9)
  if (steps < 1 || gatePower(question, steps * STEP) < TARGET_POWER) return null
  let lo = 0
  let hi = steps
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1
    if (gatePower(question, mid * STEP) >= TARGET_POWER) hi = mid
    else lo = mid
  }
  return Math.round(hi * STEP * 100) / 100
}

/** "a 10-point drop", "an 11-point drop": the article as the number is spoken. */
export const points = (drop: number): string => {
  const n = Math.round(drop * 100)
  return `${/^(8|11$|18$)/.test(String(n)) ? 'an' : 'a'} ${n}-point`
}

/** The sentence a gate verdict carries about what it could see. */
export function powerSentence(question: PowerQuestion, detectable: number | null, at: readonly { drop: number; power: number }[]): string {
  const { tasks, repeats } = question
  const size = `${tasks} ${tasks === 1 ? 'task' : 'tasks'} × ${repeats} ${repeats === 1 ? 'repeat' : 'repeats'}`
  const metric = `${question.rule.independent ? 'Pass' : 'Seq'}@${question.rule.K}`
  const others = at.map((x) => `${points(x.drop)} drop ${Math.round(x.power * 100)}%`).join(', ')
  const fix = `npx seqk power --tasks ${tasks} --repeats ${repeats} --rate ${question.rate.toFixed(2)} says what would`
  if (question.rate <= 0) return `with ${size} the baseline solves nothing at ${metric}, so no drop can be seen`
  if (detectable === null) return `with ${size} this gate cannot catch even a drop of ${metric} to zero 80% of the time (${others}): it is too small to gate on; ${fix}`
  return `with ${size} this gate catches ${points(detectable)} drop of ${metric} 80% of the time (${others})`
}

/**
 * What the gate on these paired rows could see: the population taken from the baseline (its rate
 * and how much its tasks differ), the size from the comparison, the rule from the gate.
 */
export function gatePowerFor(baseline: readonly TaskRow[], current: readonly TaskRow[], rule: GateRule, seed: number): GatePower {
  const shares = baseline.map((row) => taskRate(row, rule.K, rule.independent)).filter(Number.isFinite)
  const repeats = Math.max(1, ...current.map((row) => taskTrials(row, rule.K, rule.independent)))
  const rate = shares.length === 0 ? 0 : shares.reduce((a, b) => a + b, 0) / shares.length
  const question: PowerQuestion = { tasks: shares.length, repeats, rate, concentration: concentrationFrom(shares, repeats), rule, seed }
  const detectable = detectableDrop(question)
  const at = [0.05, 0.1].filter((d) => d <= rate + 1e-9).map((drop) => ({ drop, power: gatePower(question, drop) }))
  return { tasks: question.tasks, repeats, detectableDrop: detectable, at, sentence: powerSentence(question, detectable, at) }
}
