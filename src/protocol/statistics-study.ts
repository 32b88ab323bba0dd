/**
 * Seeded simulation studies of the statistics' promises: interval coverage, the gate's false
 * alarms and power, and the bias of each error policy. The suite runs them small
 * (statistics-study.test.ts); `scripts/statistics-tables.ts` runs them large for the README's
 * tables. One population model throughout, the one the issue measured with: each task's
 * per-attempt success p ~ Beta(a, b), a memoryless actor (first success geometric), K attempts.
 */
import { bootstrapInterval, createRng, errorsAsFailures, errorsLeftOut, pairedBootstrap, passAtInterval, rateInterval, seedFrom, seqAtCurve, seqAtCurveCensored, type CensoredTaskOutcomes, type Rng } from '../metrics/index.js'
import { betaDraw, drawFirstSuccess } from '../metrics/population.js'
import { betaQuantile } from '../metrics/distributions.js'
import { pooledShareInterval, type ClusterCount } from '../metrics/pooled-share.js'
import type { CellSummary } from '../core/schemas.js'
import { decideGate, type GateRule } from './gate-rule.js'

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
function simulateCell(rng: Rng, population: AttemptPopulation, tasks: number, repeats: number, p?: readonly number[]): { p: number[]; rows: TaskRow[] } {
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
function tally(truth: number, benchmarks: number, draw: (benchmark: number) => { lo: number; hi: number }): CoverageResult {
  let covered = 0
  let zero = 0
  let width = 0
  for (let s = 0; s < benchmarks; s++) {
    const { lo, hi } = draw(s)
    if (lo <= truth && truth <= hi) covered++
    if (hi - lo < 1e-12) zero++
    width += hi - lo
  }
  return { population: truth, coverage: covered / benchmarks, zeroWidth: zero / benchmarks, meanWidth: width / benchmarks }
}

/**
 * How often the 95% interval of Seq@K (the summary's own method) covers the population Seq@K, over
 * `benchmarks` simulated benchmarks of `tasks` tasks drawn afresh from the population.
 * `method: 'bootstrap'` measures the percentile bootstrap over tasks (2000 resamples) that
 * summaries used before.
 */
export function intervalCoverage(population: AttemptPopulation, tasks: number, repeats: number, benchmarks: number, seed = 1, method: 'korn-graubard' | 'bootstrap' = 'korn-graubard'): CoverageResult {
  const rng = createRng(seedFrom('coverage', seed, population.a, population.b, tasks, repeats))
  const K = population.budget
  const mean = (x: readonly number[]) => x.reduce((a, b) => a + b, 0) / x.length
  return tally(populationSeqAt(population), benchmarks, (s) => {
    const { rows } = simulateCell(rng, population, tasks, repeats)
    const shares = rows.map((r) => r.firstSuccess.filter((f) => f !== null && f <= K).length / repeats)
    return method === 'korn-graubard' ? rateInterval(shares, rows.map(() => repeats)) : bootstrapInterval(shares, mean, { seed: s + 1, resamples: 2000 })
  })
}

/**
 * How often the 95% interval of Pass@K (independent sampling: K samples per repeat, each passing
 * with the task's p) covers the population Pass@K, which equals the population Seq@K of a
 * memoryless actor.
 */
export function passAtCoverage(population: AttemptPopulation, tasks: number, repeats: number, benchmarks: number, seed = 1): CoverageResult {
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
export function gateFalseAlarms(population: AttemptPopulation, tasks: number, repeats: number, rule: GateRule, benchmarks: number, seed = 1): number {
  const rng = createRng(seedFrom('false-alarms', seed, population.a, population.b, tasks, repeats, rule.ks.join(','), rule.maxDrop, rule.margin))
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
export function differenceCoverage(population: AttemptPopulation, tasks: number, repeats: number, scale: number, benchmarks: number, seed = 1, method: 'gate' | 'bootstrap' = 'gate'): { coverage: number; zeroWidth: number } {
  const rng = createRng(seedFrom('difference-coverage', seed, population.a, population.b, tasks, repeats, scale))
  const K = population.budget
  const rule: GateRule = { K, ks: [K], independent: false, margin: 0, maxDrop: 1, level: 0.95 }
  let covered = 0
  let zero = 0
  for (let s = 0; s < benchmarks; s++) {
    const before = simulateCell(rng, population, tasks, repeats)
    const after = simulateCell(rng, population, tasks, repeats, before.p.map((p) => p * scale))
    const truth = before.p.reduce((sum, p) => sum + (1 - p) ** K - (1 - p * scale) ** K, 0) / tasks
    let lo: number
    let hi: number
    if (method === 'gate') ({ lo, hi } = decideGate(before.rows, after.rows, rule).comparisons[0]!.diff)
    else {
      const share = (row: TaskRow) => row.firstSuccess.filter((f) => f !== null && f <= K).length / row.firstSuccess.length
      const mean = (rows: readonly TaskRow[]) => rows.reduce((sum, row) => sum + share(row), 0) / rows.length
      ;({ lo, hi } = pairedBootstrap(before.rows, after.rows, (row) => row.taskId, mean, { seed: s + 1, resamples: 2000 }))
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
export function errorBias(population: AttemptPopulation, tasks: number, repeats: number, errorRate: number, benchmarks: number, seed = 1): ErrorBiasResult {
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
  return { population: truth, censored: sums.censored / benchmarks - truth, asFailures: sums.asFailures / benchmarks - truth, leftOut: sums.leftOut / benchmarks - truth }
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
export function pooledShareCoverage(population: RevisionPopulation, tasks: number, repeats: number, benchmarks: number, seed = 1, method: 'korn-graubard-ratio' | 'binomial' = 'korn-graubard-ratio'): CoverageResult {
  const rng = createRng(seedFrom('pooled-share-coverage', seed, population.a, population.b, population.revisions, tasks, repeats))
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
