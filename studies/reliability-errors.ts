/**
 * A seeded study of the reliability block when infrastructure errors hide some repeats: each
 * figure's bias against what the full repeats would estimate, and its interval's coverage, with
 * errors that say nothing of the outcome and errors that fall on hard tasks or failing attempts.
 * The cells are drawn as statistics-study.ts draws them (per-attempt success p ~ Beta(a, b), a
 * memoryless actor, K attempts; errors by {@link outcomesWithErrors}); a task's tries are its r
 * repeats, each solved within K or not, so with q = 1 − (1 − p)^K the estimands are exact moments:
 * Seq^K = E[q^r], Cover@τ = E[P(Binomial(r, q) ≥ τ·r)], outcome consistency 1 − 4(1 − 1/r)·E[q(1 − q)],
 * inconsistent tasks 1 − E[q^r] − E[(1 − q)^r].
 *
 * `rule: 'left-out'` measures what the block did before it counted errors (errored repeats dropped,
 * each task's figure over the repeats that ended); `rule: 'censored'` the block as it is
 * ({@link reliabilityFigures}, what cell summaries report).
 */
import { coverAtInterval, type SampleCounts } from '../src/metrics/index.js'
import { errorsLeftOut, type CensoredTaskOutcomes } from '../src/metrics/censored.js'
import { outcomeConsistencyOf } from '../src/metrics/consistency.js'
import type { Interval } from '../src/metrics/intervals.js'
import { createRng, seedFrom } from '../src/metrics/random.js'
import { triesWithin } from '../src/metrics/cover-at.js'
import { reliabilityFigures } from '../src/protocol/cell-reliability.js'
import { outcomesWithErrors, type AttemptPopulation, type ErrorMechanism } from './statistics-study.js'

/** The figures the study measures. */
export const ERROR_FIGURES = ['seqHat', 'cover50', 'consistency', 'inconsistent'] as const
export type ErrorFigure = (typeof ERROR_FIGURES)[number]

/** E[(1 − p)^m] for p ~ Beta(a, b). */
function missMoment(population: AttemptPopulation, m: number): number {
  let value = 1
  for (let j = 0; j < m; j++) value *= (population.b + j) / (population.a + population.b + j)
  return value
}

function choose(n: number, k: number): number {
  let value = 1
  for (let i = 1; i <= k; i++) value = (value * (n - k + i)) / i
  return value
}

/** E[q^m (1 − q)^l] for q = 1 − (1 − p)^K, by expanding q^m = Σ_j C(m, j)(−1)^j (1 − p)^{Kj}. */
function solvedMoment(population: AttemptPopulation, m: number, l: number): number {
  const K = population.budget
  let sum = 0
  for (let j = 0; j <= m; j++) sum += choose(m, j) * (-1) ** j * missMoment(population, K * (j + l))
  return sum
}

/** What each figure estimates at r repeats per task, exactly. */
export function errorFigureEstimands(population: AttemptPopulation, repeats: number): Record<ErrorFigure, number> {
  const r = repeats
  let cover50 = 0
  for (let c = Math.ceil(0.5 * r - 1e-9); c <= r; c++) cover50 += choose(r, c) * solvedMoment(population, c, r - c)
  const all = solvedMoment(population, r, 0)
  return {
    seqHat: all,
    cover50,
    consistency: 1 - 4 * (1 - 1 / r) * solvedMoment(population, 1, 1),
    inconsistent: 1 - all - solvedMoment(population, 0, r),
  }
}

/** Each figure's interval on one simulated cell, under the rule. */
function intervalsOf(
  outcomes: readonly CensoredTaskOutcomes[],
  K: number,
  rule: 'left-out' | 'censored',
): Record<ErrorFigure, Interval> {
  if (rule === 'censored') {
    const f = reliabilityFigures(outcomes, K, [0.5])
    return {
      seqHat: f.hat.interval,
      cover50: f.coverAt[0]!.figure.interval,
      consistency: f.consistency.interval,
      inconsistent: f.inconsistent.interval,
    }
  }
  const tries: SampleCounts[] = triesWithin(errorsLeftOut(outcomes), K)
  const outcome = outcomeConsistencyOf(tries)
  return {
    seqHat: coverAtInterval(tries, 1),
    cover50: coverAtInterval(tries, 0.5),
    consistency: outcome.mean,
    inconsistent: outcome.inconsistent,
  }
}

/** One figure's result: bias of its point (rate units), its Monte-Carlo error, coverage and mean width. */
export interface FigureResult {
  bias: number
  se: number
  coverage: number
  width: number
}

export interface ReliabilityErrorResult {
  /** Share of repeats that errored. */
  errored: number
  truth: Record<ErrorFigure, number>
  figures: Record<ErrorFigure, FigureResult>
}

/**
 * Bias and coverage of each reliability figure over `benchmarks` simulated cells of `tasks` tasks
 * × `repeats` repeats, errors falling as `mechanism` says at base rate `rate` per attempt.
 *
 * @example
 * reliabilityErrorStudy(POPULATIONS.middle, 100, 3, 'hard-tasks', 0.03, 200).figures.seqHat.coverage // ≈ 0.97
 */
export function reliabilityErrorStudy(
  population: AttemptPopulation,
  tasks: number,
  repeats: number,
  mechanism: ErrorMechanism,
  rate: number,
  benchmarks: number,
  options: { seed?: number; rule?: 'left-out' | 'censored' } = {},
): ReliabilityErrorResult {
  const rule = options.rule ?? 'censored'
  const rng = createRng(
    seedFrom('reliability-errors', options.seed ?? 1, population.a, population.b, tasks, repeats, mechanism, rate),
  )
  const K = population.budget
  const truth = errorFigureEstimands(population, repeats)
  const points = Object.fromEntries(ERROR_FIGURES.map((f) => [f, [] as number[]])) as Record<ErrorFigure, number[]>
  const held = Object.fromEntries(ERROR_FIGURES.map((f) => [f, { covered: 0, width: 0 }])) as Record<
    ErrorFigure,
    { covered: number; width: number }
  >
  let errored = 0
  for (let s = 0; s < benchmarks; s++) {
    const outcomes = outcomesWithErrors(rng, population, tasks, repeats, mechanism, rate)
    errored += outcomes.reduce((n, t) => n + t.repeats.filter((r) => 'censoredAt' in r).length, 0) / (tasks * repeats)
    const intervals = intervalsOf(outcomes, K, rule)
    for (const f of ERROR_FIGURES) {
      const i = intervals[f]
      points[f].push(i.point)
      if (i.lo - 1e-12 <= truth[f] && truth[f] <= i.hi + 1e-12) held[f].covered++
      held[f].width += i.hi - i.lo
    }
  }
  const figures = Object.fromEntries(
    ERROR_FIGURES.map((f) => {
      const xs = points[f]
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length
      const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, xs.length - 1))
      return [
        f,
        {
          bias: mean - truth[f],
          se: sd / Math.sqrt(xs.length),
          coverage: held[f].covered / benchmarks,
          width: held[f].width / benchmarks,
        },
      ]
    }),
  ) as Record<ErrorFigure, FigureResult>
  return { errored: errored / benchmarks, truth, figures }
}
