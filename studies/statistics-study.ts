/**
 * Seeded simulation studies of the statistics' promises: interval coverage, the gate's false
 * alarms and power, and the bias of each error policy. `npm run studies` runs them
 * small (statistics-study.test.ts); `scripts/statistics-tables.ts` runs them large for the README's
 * tables. One population model throughout, the one the issue measured with: each task's
 * per-attempt success p ~ Beta(a, b), a memoryless actor (first success geometric), K attempts.
 */
import {
  bootstrapInterval,
  createRng,
  errorsAsFailures,
  errorsAsSuccesses,
  errorsLeftOut,
  pairedBootstrap,
  passAtInterval,
  rateInterval,
  seedFrom,
  seqAtCurve,
  seqAtCurveCensored,
  seqAtIntervalCensored,
  type CensoredTaskOutcomes,
  type Rng,
} from '../src/metrics/index.js'
import { seqAtIntervalReported } from '../src/metrics/censored.js'
import { betaDraw, drawFirstSuccess, drawTaskRate, perAttemptSuccess } from '../src/metrics/population.js'
import { betaQuantile } from '../src/metrics/distributions.js'
import { pooledShareInterval, type ClusterCount } from '../src/metrics/pooled-share.js'
import type { CellSummary } from '../src/core/schemas.js'
import { decideGate, type GateRule } from '../src/protocol/gate-rule.js'
import {
  droppedRates,
  gatePower,
  populationOf,
  powerAnswer,
  TARGET_POWER,
  type Alternative,
} from '../src/protocol/gate-power.js'

type TaskRow = CellSummary['perTask'][number]

/** A benchmark population: per-attempt success p ~ Beta(a, b), budget K. */
export interface AttemptPopulation {
  a: number
  b: number
  budget: number
}

/** The population's Seq@k exactly: 1 − E[(1 − p)^k] = 1 − Π_{j<k} (b + j)/(a + b + j) for p ~ Beta(a, b). */
export function populationSeqAt(population: AttemptPopulation, k: number = population.budget): number {
  let miss = 1
  for (let j = 0; j < k; j++) miss *= (population.b + j) / (population.a + population.b + j)
  return 1 - miss
}

/** One simulated cell: per task, its per-attempt success and its repeats' first successes. */
function simulateCell(
  rng: Rng,
  population: AttemptPopulation,
  tasks: number,
  repeats: number,
  p?: readonly number[],
): { p: number[]; rows: TaskRow[] } {
  const rates = p ? [...p] : Array.from({ length: tasks }, () => betaDraw(rng, population.a, population.b))
  const rows = rates.map((pi, i): TaskRow => ({
    taskId: `t${i}`,
    firstSuccess: Array.from({ length: repeats }, () => drawFirstSuccess(rng, pi, population.budget)),
    errors: 0,
    costAtK: [],
  }))
  return { p: rates, rows }
}

export interface CoverageResult {
  /** The population Seq@K the intervals should cover. */
  population: number
  /** Share of simulated benchmarks whose interval covered it. */
  coverage: number
  /** Share of intervals of zero width. */
  zeroWidth: number
  meanWidth: number
}

/** Coverage, zero-width share and mean width of `benchmarks` intervals, each drawn by `draw`, around `truth`. */
function tally(
  truth: number,
  benchmarks: number,
  draw: (benchmark: number) => { lo: number; hi: number },
): CoverageResult {
  let covered = 0
  let zero = 0
  let width = 0
  for (let s = 0; s < benchmarks; s++) {
    const { lo, hi } = draw(s)
    if (lo <= truth && truth <= hi) covered++
    if (hi - lo < 1e-12) zero++
    width += hi - lo
  }
  return {
    population: truth,
    coverage: covered / benchmarks,
    zeroWidth: zero / benchmarks,
    meanWidth: width / benchmarks,
  }
}

/**
 * How often the 95% interval of Seq@K (the summary's own method) covers the population Seq@K, over
 * `benchmarks` simulated benchmarks of `tasks` tasks drawn afresh from the population.
 * `method: 'bootstrap'` measures the percentile bootstrap over tasks (2000 resamples) that
 * summaries used before.
 */
export function intervalCoverage(
  population: AttemptPopulation,
  tasks: number,
  repeats: number,
  benchmarks: number,
  seed = 1,
  method: 'korn-graubard' | 'bootstrap' = 'korn-graubard',
): CoverageResult {
  const rng = createRng(seedFrom('coverage', seed, population.a, population.b, tasks, repeats))
  const K = population.budget
  const mean = (x: readonly number[]) => x.reduce((a, b) => a + b, 0) / x.length
  return tally(populationSeqAt(population), benchmarks, (s) => {
    const { rows } = simulateCell(rng, population, tasks, repeats)
    const shares = rows.map((r) => r.firstSuccess.filter((f) => f !== null && f <= K).length / repeats)
    return method === 'korn-graubard'
      ? rateInterval(
          shares,
          rows.map(() => repeats),
        )
      : bootstrapInterval(shares, mean, { seed: s + 1, resamples: 2000 })
  })
}

/**
 * What a rate's interval is not: a prediction interval. How often the Seq@K of another benchmark
 * of as many tasks, drawn afresh from the same population, lands in the interval of this one
 * (`prediction`), beside how often the interval holds the population's Seq@K (`coverage`, what it
 * promises). The other draw has noise of its own, so it lands less often: for a wide benchmark
 * about P(|Z| < 1.96/√2) = 83%.
 */
export function predictionCoverage(
  population: AttemptPopulation,
  tasks: number,
  repeats: number,
  benchmarks: number,
  seed = 1,
): { coverage: number; prediction: number } {
  const rng = createRng(seedFrom('prediction', seed, population.a, population.b, tasks, repeats))
  const K = population.budget
  const truth = populationSeqAt(population)
  const rateOf = (rows: readonly TaskRow[]) =>
    rows.map((r) => r.firstSuccess.filter((f) => f !== null && f <= K).length / repeats)
  let covered = 0
  let landed = 0
  for (let s = 0; s < benchmarks; s++) {
    const shares = rateOf(simulateCell(rng, population, tasks, repeats).rows)
    const { lo, hi } = rateInterval(
      shares,
      shares.map(() => repeats),
    )
    const other = rateOf(simulateCell(rng, population, tasks, repeats).rows)
    const next = other.reduce((a, b) => a + b, 0) / other.length
    if (lo <= truth && truth <= hi) covered++
    if (lo <= next && next <= hi) landed++
  }
  return { coverage: covered / benchmarks, prediction: landed / benchmarks }
}

/**
 * How often the 95% interval of Pass@K (independent sampling: K samples per repeat, each passing
 * with the task's p) covers the population Pass@K, which equals the population Seq@K of a
 * memoryless actor.
 */
export function passAtCoverage(
  population: AttemptPopulation,
  tasks: number,
  repeats: number,
  benchmarks: number,
  seed = 1,
): CoverageResult {
  const rng = createRng(seedFrom('pass-coverage', seed, population.a, population.b, tasks, repeats))
  const K = population.budget
  return tally(populationSeqAt(population), benchmarks, () => {
    const samples = Array.from({ length: tasks }, (_, i) => {
      const p = betaDraw(rng, population.a, population.b)
      let c = 0
      for (let j = 0; j < repeats * K; j++) if (rng() < p) c++
      return { taskId: `t${i}`, n: repeats * K, c }
    })
    return passAtInterval(samples, K)
  })
}

/**
 * The gate's false-alarm rate with no change: baseline and current runs of the same tasks (the
 * same per-task p), each drawn independently, judged by the gate's own decision.
 */
export function gateFalseAlarms(
  population: AttemptPopulation,
  tasks: number,
  repeats: number,
  rule: GateRule,
  benchmarks: number,
  seed = 1,
): number {
  const rng = createRng(
    seedFrom(
      'false-alarms',
      seed,
      population.a,
      population.b,
      tasks,
      repeats,
      rule.ks.join(','),
      rule.maxDrop,
      rule.margin,
    ),
  )
  let alarms = 0
  for (let s = 0; s < benchmarks; s++) {
    const before = simulateCell(rng, population, tasks, repeats)
    const after = simulateCell(rng, population, tasks, repeats, before.p)
    if (decideGate(before.rows, after.rows, rule).failures.length > 0) alarms++
  }
  return alarms / benchmarks
}

/**
 * Coverage of the paired difference's 95% interval at K: baseline and current on the same tasks,
 * the current run's per-attempt success scaled by `scale` (1 = no change), against the difference
 * on those tasks (the mean of each task's change in success rate, what a gate on a fixed
 * benchmark asks). `method: 'bootstrap'` measures the paired percentile bootstrap (2000
 * resamples) instead, the gate's method before seqk.gate/2.
 */
export function differenceCoverage(
  population: AttemptPopulation,
  tasks: number,
  repeats: number,
  scale: number,
  benchmarks: number,
  seed = 1,
  method: 'gate' | 'bootstrap' = 'gate',
): { coverage: number; zeroWidth: number } {
  const rng = createRng(seedFrom('difference-coverage', seed, population.a, population.b, tasks, repeats, scale))
  const K = population.budget
  const rule: GateRule = { K, ks: [K], independent: false, margin: 0, maxDrop: 1, level: 0.95 }
  let covered = 0
  let zero = 0
  for (let s = 0; s < benchmarks; s++) {
    const before = simulateCell(rng, population, tasks, repeats)
    const after = simulateCell(
      rng,
      population,
      tasks,
      repeats,
      before.p.map((p) => p * scale),
    )
    const truth = before.p.reduce((sum, p) => sum + (1 - p) ** K - (1 - p * scale) ** K, 0) / tasks
    let lo: number
    let hi: number
    if (method === 'gate') ({ lo, hi } = decideGate(before.rows, after.rows, rule).comparisons[0]!.diff)
    else {
      const share = (row: TaskRow) =>
        row.firstSuccess.filter((f) => f !== null && f <= K).length / row.firstSuccess.length
      const mean = (rows: readonly TaskRow[]) => rows.reduce((sum, row) => sum + share(row), 0) / rows.length
      ;({ lo, hi } = pairedBootstrap(before.rows, after.rows, (row) => row.taskId, mean, {
        seed: s + 1,
        resamples: 2000,
      }))
    }
    if (lo <= truth && truth <= hi) covered++
    if (hi - lo < 1e-12) zero++
  }
  return { coverage: covered / benchmarks, zeroWidth: zero / benchmarks }
}

export interface ErrorBiasResult {
  population: number
  /** Mean estimate minus the population Seq@K, in rate units, per error policy. */
  censored: number
  asFailures: number
  leftOut: number
}

/**
 * Bias of Seq@K under each error policy when every model call errors with `errorRate` (an error at
 * attempt t censors the trajectory there), averaged over `benchmarks` simulated benchmarks.
 */
export function errorBias(
  population: AttemptPopulation,
  tasks: number,
  repeats: number,
  errorRate: number,
  benchmarks: number,
  seed = 1,
): ErrorBiasResult {
  const rng = createRng(seedFrom('error-bias', seed, population.a, population.b, tasks, repeats, errorRate))
  const K = population.budget
  const truth = populationSeqAt(population)
  const sums = { censored: 0, asFailures: 0, leftOut: 0 }
  for (let s = 0; s < benchmarks; s++) {
    const outcomes: CensoredTaskOutcomes[] = Array.from({ length: tasks }, (_, i) => {
      const p = betaDraw(rng, population.a, population.b)
      const repeatsOf = Array.from({ length: repeats }, () => {
        for (let attempt = 1; attempt <= K; attempt++) {
          if (rng() < errorRate) return { censoredAt: attempt }
          if (rng() < p) return { firstSuccess: attempt }
        }
        return { firstSuccess: null }
      })
      return { taskId: `t${i}`, repeats: repeatsOf }
    })
    sums.censored += seqAtCurveCensored(outcomes, K)[K - 1]!
    sums.asFailures += seqAtCurve(errorsAsFailures(outcomes), K)[K - 1]!
    sums.leftOut += seqAtCurve(errorsLeftOut(outcomes), K)[K - 1]!
  }
  return {
    population: truth,
    censored: sums.censored / benchmarks - truth,
    asFailures: sums.asFailures / benchmarks - truth,
    leftOut: sums.leftOut / benchmarks - truth,
  }
}

/** The study's named populations (per-attempt p ~ Beta(a, b), K = 5) and their Seq@5. */
export const POPULATIONS = {
  /** Seq@5 ≈ 95%: where frontier models sit on HumanEval Pro. */
  ceiling: { a: 1.8, b: 0.8, budget: 5 },
  /** Seq@5 ≈ 77%. */
  middle: { a: 1, b: 1.5, budget: 5 },
  /** Seq@5 ≈ 10%. */
  low: { a: 0.1, b: 3, budget: 5 },
} as const satisfies Record<string, AttemptPopulation>

/**
 * A population of clustered revisions: each task's chance q ~ Beta(a, b) that one of its revisions
 * is in the class (e.g. addresses all feedback), and per repeat m ~ Binomial(revisions, 1 − q)
 * revisions, so tasks whose revisions succeed have fewer of them (as real cells do: a revision
 * that works ends the trajectory).
 */
export interface RevisionPopulation {
  a: number
  b: number
  /** Most revisions per repeat (K − 1). */
  revisions: number
}

/** The population's pooled share E[m·q] / E[m] = (E[q] − E[q²]) / (1 − E[q]), exactly. */
export function populationPooledShare(population: RevisionPopulation): number {
  const { a, b } = population
  const mean = a / (a + b)
  const square = (a * (a + 1)) / ((a + b) * (a + b + 1))
  return (mean - square) / (1 - mean)
}

/**
 * How often the 95% interval of a pooled share of revisions covers the population's pooled share,
 * over `benchmarks` simulated cells of `tasks` tasks × `repeats` repeats. `method: 'binomial'` is
 * the naive Clopper–Pearson interval over revisions as if they were independent, for contrast.
 */
export function pooledShareCoverage(
  population: RevisionPopulation,
  tasks: number,
  repeats: number,
  benchmarks: number,
  seed = 1,
  method: 'korn-graubard-ratio' | 'binomial' = 'korn-graubard-ratio',
): CoverageResult {
  const rng = createRng(
    seedFrom('pooled-share-coverage', seed, population.a, population.b, population.revisions, tasks, repeats),
  )
  return tally(populationPooledShare(population), benchmarks, () => {
    const clusters: ClusterCount[] = Array.from({ length: tasks }, () => {
      const q = betaDraw(rng, population.a, population.b)
      let trials = 0
      let hits = 0
      for (let r = 0; r < repeats; r++) {
        for (let j = 0; j < population.revisions; j++) {
          if (rng() < q) continue
          trials++
          if (rng() < q) hits++
        }
      }
      return { hits, trials }
    })
    if (clusters.every((c) => c.trials === 0)) return { lo: 0, hi: 1 }
    if (method === 'korn-graubard-ratio') return pooledShareInterval(clusters)
    const n = clusters.reduce((s, c) => s + c.trials, 0)
    const x = clusters.reduce((s, c) => s + c.hits, 0)
    if (n === 0) return { lo: 0, hi: 1 }
    return { lo: x === 0 ? 0 : betaQuantile(0.025, x, n - x + 1), hi: x === n ? 1 : betaQuantile(0.975, x + 1, n - x) }
  })
}

/** Revision populations of the study: shares low, middle and high, tasks very different or alike. */
export const REVISION_POPULATIONS = {
  /** Pooled share 12%, tasks very different (mostly all or nothing). */
  low: { a: 0.3, b: 1.2, revisions: 4 },
  /** Pooled share 33%, tasks different. */
  middle: { a: 1, b: 1, revisions: 4 },
  /** Pooled share 57%, tasks different. */
  high: { a: 2, b: 0.5, revisions: 4 },
  /** Pooled share ≈ 45%, tasks alike (little clustering). */
  alike: { a: 10, b: 10, revisions: 4 },
} as const satisfies Record<string, RevisionPopulation>

/**
 * Where a power study's tasks come from: each task's success chance at each attempt 1..K, drawn by
 * `draw` (a memoryless actor has the same chance at every attempt), and the population's Seq@K.
 */
export interface PowerTruth {
  name: string
  budget: number
  mean: number
  draw: (rng: Rng) => number[]
}

/** A truth drawn as the power simulation itself draws (q ~ Beta(mean · c, (1 − mean) · c), memoryless). */
export function taskRateTruth(mean: number, concentration: number, budget = 5): PowerTruth {
  const population = { mean, concentration, budget }
  return {
    name: `rate ${mean}, concentration ${concentration}`,
    budget,
    mean,
    draw: (rng) => new Array<number>(budget).fill(perAttemptSuccess(drawTaskRate(rng, population), budget)),
  }
}

/** A truth of another family: per-attempt success p ~ Beta(a, b) (the coverage studies' populations). */
export function attemptTruth(population: AttemptPopulation): PowerTruth {
  return {
    name: `p ~ Beta(${population.a}, ${population.b})`,
    budget: population.budget,
    mean: populationSeqAt(population),
    draw: (rng) => new Array<number>(population.budget).fill(betaDraw(rng, population.a, population.b)),
  }
}

/**
 * A truth the power simulation does not assume: an actor whose revisions help less than its first
 * try (attempt t succeeds with p · factor^(t − 1), p ~ Beta(a, b)), so a task's own chance falls with
 * each attempt, which the estimate of how much tasks differ reads as more difference than there is.
 */
export function fadingTruth(population: AttemptPopulation, factor: number, samples = 20000): PowerTruth {
  const K = population.budget
  const hazards = (p: number) => Array.from({ length: K }, (_, t) => p * factor ** t)
  // Its Seq@K by quadrature over the Beta's quantiles is not needed for a study: a seeded mean.
  const rng = createRng(seedFrom('fading-truth', population.a, population.b, factor))
  let sum = 0
  for (let i = 0; i < samples; i++)
    sum += 1 - hazards(betaDraw(rng, population.a, population.b)).reduce((miss, h) => miss * (1 - h), 1)
  return {
    name: `p ~ Beta(${population.a}, ${population.b}), revisions × ${factor}`,
    budget: K,
    mean: sum / samples,
    draw: (r) => hazards(betaDraw(r, population.a, population.b)),
  }
}

/** A first success for a task with success chance `hazards[t − 1]` at attempt t, or null. */
function firstSuccessOf(rng: Rng, hazards: readonly number[]): number | null {
  for (let t = 1; t <= hazards.length; t++) if (rng() < hazards[t - 1]!) return t
  return null
}

export interface PowerAccuracy {
  /** The gate's power against this drop, simulated from the truth itself. */
  simulated: number
  /** The power the gate reports for this drop under the same alternative, averaged over runs of the truth. */
  reported: number
  /** The power the gate's verdict states (the lower of the two alternatives), averaged likewise. */
  stated: number
  /** Monte-Carlo standard errors of the two averages and of the simulated power. */
  se: { simulated: number; reported: number }
}

/**
 * How close the power the gate reports is to its real power: `pairs` baseline/current pairs drawn
 * from the truth, the current run worse by `drop` under `alternative`, give the simulated power;
 * `runs` baseline runs drawn from the same truth, each compared with a rerun of its tasks with no
 * change, give the power the gate's verdict would report (its population estimated from the two
 * runs, {@link populationOf}), averaged.
 */
export function powerAccuracy(
  truth: PowerTruth,
  tasks: number,
  repeats: number,
  drop: number,
  alternative: Alternative,
  options: { pairs: number; runs: number; simulations: number; seed?: number },
): PowerAccuracy {
  const rule = studyRule(truth.budget)
  const rng = createRng(seedFrom('power-accuracy', options.seed ?? 1, truth.name, tasks, repeats, drop, alternative))
  const simulated = simulatedPower(rng, truth, tasks, repeats, drop, alternative, options.pairs)
  const reported: number[] = []
  const stated: number[] = []
  for (let s = 0; s < options.runs; s++) {
    // The gate's verdict on a rerun with no change: what a green gate says it could have seen.
    const question = {
      ...estimatedPopulation(rng, truth, tasks, repeats),
      repeats,
      rule,
      simulations: options.simulations,
      seed: s + 1,
    }
    const [proportional, concentrated] = [
      gatePower(question, drop, 'proportional'),
      gatePower(question, drop, 'concentrated'),
    ]
    reported.push(alternative === 'proportional' ? proportional : concentrated)
    stated.push(Math.min(proportional, concentrated))
  }
  return {
    simulated,
    reported: meanOf(reported),
    stated: meanOf(stated),
    se: {
      simulated: Math.sqrt((simulated * (1 - simulated)) / options.pairs),
      reported: sdOf(reported) / Math.sqrt(reported.length),
    },
  }
}

const meanOf = (x: readonly number[]) => x.reduce((a, b) => a + b, 0) / x.length
const sdOf = (x: readonly number[]) =>
  Math.sqrt(x.reduce((a, b) => a + (b - meanOf(x)) ** 2, 0) / Math.max(1, x.length - 1))

/** The power studies' gate: Seq@K alone, margin 0, maxDrop 10 points, 95%. */
const studyRule = (K: number): GateRule => ({ K, ks: [K], independent: false, margin: 0, maxDrop: 0.1, level: 0.95 })

/** One cell's per-task rows drawn from per-task hazards, each success kept with chance `keep[i]`. */
function rowsOf(
  rng: Rng,
  hazards: readonly (readonly number[])[],
  repeats: number,
  keep?: readonly number[],
): TaskRow[] {
  return hazards.map((h, i) => ({
    taskId: `t${i}`,
    firstSuccess: Array.from({ length: repeats }, () => (keep && rng() >= keep[i]! ? null : firstSuccessOf(rng, h))),
    errors: 0,
    costAtK: [],
  }))
}

/** The share of `pairs` baseline/current pairs drawn from the truth, the current worse by `drop`, that fail the gate. */
function simulatedPower(
  rng: Rng,
  truth: PowerTruth,
  tasks: number,
  repeats: number,
  drop: number,
  alternative: Alternative,
  pairs: number,
): number {
  const rule = studyRule(truth.budget)
  let caught = 0
  for (let s = 0; s < pairs; s++) {
    const hazards = Array.from({ length: tasks }, () => truth.draw(rng))
    const q = hazards.map((h) => 1 - h.reduce((miss, x) => miss * (1 - x), 1))
    // A task of the current run keeps its timing and loses a share of its successes (see gatePower).
    const keep = droppedRates(rng, q, drop, truth.mean, alternative).map((x, i) => (q[i]! > 0 ? x / q[i]! : 0))
    if (decideGate(rowsOf(rng, hazards, repeats), rowsOf(rng, hazards, repeats, keep), rule).failures.length > 0)
      caught++
  }
  return caught / pairs
}

/** The population the gate estimates from one run of the truth and a rerun of its tasks with no change. */
function estimatedPopulation(rng: Rng, truth: PowerTruth, tasks: number, repeats: number) {
  const hazards = Array.from({ length: tasks }, () => truth.draw(rng))
  const { spread: _spread, ...population } = populationOf(
    rowsOf(rng, hazards, repeats),
    studyRule(truth.budget),
    rowsOf(rng, hazards, repeats),
  )
  return population
}

/**
 * What the drop a gate names as caught 80% of the time delivers: over `runs` runs of the truth,
 * each compared with a rerun of its tasks with no change, the detectable drop the verdict states
 * (the larger of the two alternatives'), and the power a simulation from the truth itself gives at
 * that drop under `alternative` (`pairs` pairs each).
 */
export function namedDropPower(
  truth: PowerTruth,
  tasks: number,
  repeats: number,
  alternative: Alternative,
  options: { pairs: number; runs: number; simulations: number; seed?: number },
): { named: number; delivered: number }[] {
  const rule = studyRule(truth.budget)
  const rng = createRng(seedFrom('named-drop-power', options.seed ?? 1, truth.name, tasks, repeats, alternative))
  const out: { named: number; delivered: number }[] = []
  for (let s = 0; s < options.runs; s++) {
    const answer = powerAnswer({
      ...estimatedPopulation(rng, truth, tasks, repeats),
      repeats,
      rule,
      simulations: options.simulations,
      seed: s + 1,
    })
    if (answer.detectableDrop === null) continue
    const named = answer.detectableDrop
    out.push({ named, delivered: simulatedPower(rng, truth, tasks, repeats, named, alternative, options.pairs) })
  }
  return out
}

export interface DetectableDropAccuracy {
  /** The smallest drop (1-point grid) that fails the gate in at least 80% of simulated pairs of the truth, or null. */
  simulated: number | null
  /** The detectable drop the gate reports for this alternative, averaged over runs of the truth (null if any run found none). */
  reported: number | null
  /** The one the verdict states (the larger of the two alternatives'), averaged likewise. */
  stated: number | null
  /** Monte-Carlo standard error of the reported average (the simulated one: about a fifth of a point). */
  se: number
}

/**
 * How close the minimum detectable drop the gate reports is to the real one: the real one is
 * searched on a 1-point grid by simulated power ({@link powerAccuracy}'s pairs, `pairs` per drop),
 * the reported one is the gate's own on `runs` reruns with no change, averaged.
 */
export function detectableDropAccuracy(
  truth: PowerTruth,
  tasks: number,
  repeats: number,
  alternative: Alternative,
  options: { pairs: number; runs: number; simulations: number; seed?: number },
): DetectableDropAccuracy {
  const rule = studyRule(truth.budget)
  const rng = createRng(
    seedFrom('detectable-drop-accuracy', options.seed ?? 1, truth.name, tasks, repeats, alternative),
  )
  const caught = (steps: number) =>
    simulatedPower(rng, truth, tasks, repeats, steps / 100, alternative, options.pairs) >= TARGET_POWER
  let simulated: number | null = null
  const top = Math.floor(truth.mean * 100 + 1e-9)
  if (top >= 1 && caught(top)) {
    let [lo, hi] = [0, top]
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1
      if (caught(mid)) hi = mid
      else lo = mid
    }
    simulated = hi / 100
  }
  const reported: (number | null)[] = []
  const stated: (number | null)[] = []
  for (let s = 0; s < options.runs; s++) {
    const question = {
      ...estimatedPopulation(rng, truth, tasks, repeats),
      repeats,
      rule,
      simulations: options.simulations,
      seed: s + 1,
    }
    const answer = powerAnswer(question)
    reported.push(answer.alternatives.find((a) => a.alternative === alternative)!.detectableDrop)
    stated.push(answer.detectableDrop)
  }
  const mean = (x: readonly (number | null)[]) => (x.some((d) => d === null) ? null : meanOf(x as number[]))
  return {
    simulated,
    reported: mean(reported),
    stated: mean(stated),
    se: reported.some((d) => d === null) ? Number.NaN : sdOf(reported as number[]) / Math.sqrt(reported.length),
  }
}

/**
 * How errors fall on trajectories in the error studies: `none`, a fixed chance per model call;
 * `failing-attempts`, an attempt that would fail errors 5× as often as one that would succeed;
 * `hard-tasks`, a task's chance of an error per call grows with how hard it is, (1 − q) / (1 − m)
 * times the base rate (q its Seq@K, m the population's); `hard-tasks-extreme`, as the cube of that.
 */
export const ERROR_MECHANISMS = ['none', 'failing-attempts', 'hard-tasks', 'hard-tasks-extreme'] as const
export type ErrorMechanism = (typeof ERROR_MECHANISMS)[number]

/** One simulated cell's outcomes with errors falling as `mechanism` says, at base rate `rate` per call. */
export function outcomesWithErrors(
  rng: Rng,
  population: AttemptPopulation,
  tasks: number,
  repeats: number,
  mechanism: ErrorMechanism,
  rate: number,
): CensoredTaskOutcomes[] {
  const K = population.budget
  const m = populationSeqAt(population)
  return Array.from({ length: tasks }, (_, i) => {
    const p = betaDraw(rng, population.a, population.b)
    const hardness = (1 - (1 - (1 - p) ** K)) / (1 - m)
    const perCall =
      mechanism === 'hard-tasks' ? rate * hardness : mechanism === 'hard-tasks-extreme' ? rate * hardness ** 3 : rate
    const repeatsOf = Array.from({ length: repeats }, () => {
      for (let attempt = 1; attempt <= K; attempt++) {
        const success = rng() < p
        const error = mechanism === 'failing-attempts' ? (success ? rate : 5 * rate) : perCall
        if (rng() < error) return { censoredAt: attempt }
        if (success) return { firstSuccess: attempt }
      }
      return { firstSuccess: null }
    })
    return { taskId: `t${i}`, repeats: repeatsOf }
  })
}

export interface ErrorStudyResult {
  population: number
  /** Share of trajectories that errored. */
  errored: number
  /** Mean estimate minus the population Seq@K per policy, in rate units. */
  bias: { censored: number; asFailures: number; asSuccesses: number; leftOut: number }
  /** Coverage and mean width of the censored interval alone and of the interval a summary reports. */
  censored: { coverage: number; meanWidth: number }
  reported: { coverage: number; meanWidth: number }
  /** Monte-Carlo standard error of the censored bias (the other policies' are alike: the same draws). */
  se: number
}

/**
 * The error policies under one mechanism: over `benchmarks` simulated cells, each policy's bias
 * against the population Seq@K, and how often the censored interval and the interval a summary
 * reports ({@link seqAtIntervalReported}) cover it.
 */
export function errorStudy(
  population: AttemptPopulation,
  tasks: number,
  repeats: number,
  mechanism: ErrorMechanism,
  rate: number,
  benchmarks: number,
  seed = 1,
): ErrorStudyResult {
  const rng = createRng(seedFrom('error-study', seed, population.a, population.b, tasks, repeats, mechanism, rate))
  const K = population.budget
  const truth = populationSeqAt(population)
  const censoredValues: number[] = []
  const sums = { asFailures: 0, asSuccesses: 0, leftOut: 0, errored: 0 }
  const tallies = { censored: { covered: 0, width: 0 }, reported: { covered: 0, width: 0 } }
  for (let s = 0; s < benchmarks; s++) {
    const outcomes = outcomesWithErrors(rng, population, tasks, repeats, mechanism, rate)
    censoredValues.push(seqAtCurveCensored(outcomes, K)[K - 1]!)
    sums.asFailures += seqAtCurve(errorsAsFailures(outcomes), K)[K - 1]!
    sums.leftOut += seqAtCurve(errorsLeftOut(outcomes), K)[K - 1]!
    sums.asSuccesses += seqAtCurve(errorsAsSuccesses(outcomes), K)[K - 1]!
    sums.errored +=
      outcomes.reduce((n, task) => n + task.repeats.filter((r) => 'censoredAt' in r).length, 0) / (tasks * repeats)
    for (const [name, interval] of [
      ['censored', seqAtIntervalCensored(outcomes, K)],
      ['reported', seqAtIntervalReported(outcomes, K)],
    ] as const) {
      if (interval.lo <= truth && truth <= interval.hi) tallies[name].covered++
      tallies[name].width += interval.hi - interval.lo
    }
  }
  const mean = censoredValues.reduce((a, b) => a + b, 0) / benchmarks
  const sd = Math.sqrt(censoredValues.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, benchmarks - 1))
  const rates = (t: { covered: number; width: number }) => ({
    coverage: t.covered / benchmarks,
    meanWidth: t.width / benchmarks,
  })
  return {
    population: truth,
    errored: sums.errored / benchmarks,
    bias: {
      censored: mean - truth,
      asFailures: sums.asFailures / benchmarks - truth,
      asSuccesses: sums.asSuccesses / benchmarks - truth,
      leftOut: sums.leftOut / benchmarks - truth,
    },
    censored: rates(tallies.censored),
    reported: rates(tallies.reported),
    se: sd / Math.sqrt(benchmarks),
  }
}

/**
 * The mean width of the exact 95% Clopper–Pearson interval for a share of `tasks` tasks at one
 * repeat when each is solved with chance `rate`: the reference a rate's interval should approach
 * (wider is power thrown away, narrower under-covers). Exact: a sum over the binomial.
 */
export function clopperPearsonWidth(tasks: number, rate: number): number {
  let width = 0
  let logChoose = 0
  for (let x = 0; x <= tasks; x++) {
    if (x > 0) logChoose += Math.log((tasks - x + 1) / x)
    const logP = logChoose + (x > 0 ? x * Math.log(rate) : 0) + (x < tasks ? (tasks - x) * Math.log1p(-rate) : 0)
    const lo = x === 0 ? 0 : betaQuantile(0.025, x, tasks - x + 1)
    const hi = x === tasks ? 1 : betaQuantile(0.975, x + 1, tasks - x)
    width += Math.exp(logP) * (hi - lo)
  }
  return width
}
