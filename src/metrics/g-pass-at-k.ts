import type { SampleCounts } from './pass-at-k.js'
import { curveOverTasks } from './pass-at-k.js'
import { assertBudget, assertCounts } from './validation.js'
import { rateInterval, type Interval, type IntervalOptions } from './intervals.js'

/**
 * The thresholds G-Pass@k_τ is reported at by default: at least half, and at least three quarters,
 * of k tries pass. τ = 1 is pass^k and τ → 0⁺ is Pass@k, which the summary already carries.
 */
export const DEFAULT_G_PASS_TAUS = [0.5, 0.75] as const

/** The ln of C(a, b) as a sum of ln((a − b + i)/i): no factorial overflows, exact enough for any k in use. */
function lnChoose(a: number, b: number): number {
  let sum = 0
  for (let i = 1; i <= b; i++) sum += Math.log((a - b + i) / i)
  return sum
}

function assertTau(tau: number): void {
  if (!(tau > 0 && tau <= 1))
    throw new RangeError(`τ must be in (0, 1]: the share of k tries that must pass, e.g. 0.5 (got ${String(tau)})`)
}

/**
 * How many of k tries must pass under τ: ⌈τk⌉, at least 1. The product τk is rounded to 9 decimals
 * first, so 0.3 × 10 (3.0000000000000004 in floating point) asks for 3 tries, not 4.
 *
 * @example
 * gPassThreshold(16, 0.5) // => 8
 * gPassThreshold(5, 0.5) // => 3
 */
export function gPassThreshold(k: number, tau: number): number {
  assertTau(tau)
  return Math.max(1, Math.ceil(Math.round(tau * k * 1e9) / 1e9))
}

/**
 * G-Pass@k_τ for one task (Liu et al. 2024, "Are Your LLMs Capable of Stable Reasoning?"): the
 * chance that at least ⌈τk⌉ of k tries pass, estimated without bias from n ≥ k observed tries of
 * which c passed, as the hypergeometric tail Σ_{j ≥ ⌈τk⌉} C(c, j) C(n − c, k − j) / C(n, k): the
 * chance that k tries drawn without replacement from the n hold that many passes. Its expectation
 * over c ~ Binomial(n, p) is exactly P(Binomial(k, p) ≥ ⌈τk⌉). τ = 1 is pass^k (every try passes);
 * any τ ≤ 1/k is Pass@k (at least one).
 *
 * @returns NaN when n < k (too few tries), else a value in [0, 1].
 * @throws RangeError when the counts are not integers with 0 <= c <= n and k >= 1, or τ is not in (0, 1].
 * @example
 * gPassAtK(10, 6, 4, 0.5) // => P(at least 2 of 4 drawn from 6 passes and 4 failures) = 37/42 ≈ 0.881
 * gPassAtK(10, 6, 4, 1) === passHatK(10, 6, 4) // => true (up to rounding)
 */
export function gPassAtK(n: number, c: number, k: number, tau: number): number {
  assertCounts(n, c, k)
  const need = gPassThreshold(k, tau)
  if (n < k) return Number.NaN
  // The k tries hold at least `fewest` passes whatever is drawn: asking no more is certain.
  const fewest = Math.max(0, k - (n - c))
  if (need <= fewest) return 1
  const hi = Math.min(c, k)
  if (need > hi) return 0
  const whole = lnChoose(n, k)
  let sum = 0
  for (let j = need; j <= hi; j++) sum += Math.exp(lnChoose(c, j) + lnChoose(n - c, k - j) - whole)
  return Math.min(1, sum)
}

/**
 * The G-Pass@k_τ curve for k = 1..budget: mean over tasks of {@link gPassAtK}, with the rules of
 * `passAtCurve` (n = 0 skipped; NaN when any task has n < k or no task has samples).
 *
 * @example
 * gPassCurve([{ taskId: 'a', n: 4, c: 2 }], 3, 0.5) // => [0.5, 5/6, 0.5]
 */
export function gPassCurve(samples: readonly SampleCounts[], budget: number, tau: number): number[] {
  assertTau(tau)
  return curveOverTasks(samples, budget, (n, c, k) => gPassAtK(n, c, k, tau))
}

/**
 * G-Pass@k_τ with its interval over tasks ({@link rateInterval}): each task's unbiased estimate,
 * resting on ⌊n / k⌋ disjoint groups of k tries, as pass^k's and Pass@k's intervals do. An interval
 * for the population of tasks the benchmark's were drawn from, each at its expected rate. NaN
 * bounds wherever {@link gPassCurve} is NaN (a task with fewer than k tries).
 *
 * @example
 * gPassInterval([{ taskId: 'a', n: 10, c: 9 }, { taskId: 'b', n: 10, c: 2 }], 4, 0.5).point
 */
export function gPassInterval(
  samples: readonly SampleCounts[],
  k: number,
  tau: number,
  options?: IntervalOptions,
): Interval {
  assertBudget(k, 'k')
  assertTau(tau)
  const measured = samples.filter((s) => {
    assertCounts(s.n, s.c, k, `task '${s.taskId}'`)
    return s.n > 0
  })
  if (measured.some((s) => s.n < k)) return { ...rateInterval([], [], options), tasks: measured.length }
  return rateInterval(
    measured.map((s) => gPassAtK(s.n, s.c, k, tau)),
    measured.map((s) => Math.max(1, Math.floor(s.n / k))),
    options,
  )
}
