import type { SampleCounts } from './pass-at-k.js'
import { curveOverTasks } from './pass-at-k.js'
import { assertBudget, assertCounts } from './validation.js'
import { rateInterval, type Interval, type IntervalOptions } from './intervals.js'

/**
 * pass^k for one task: C(c, k) / C(n, k), the chance that k tries drawn without replacement from
 * the n observed ones all pass — a reliability measure (τ-bench, Yao et al. 2024), the mirror image
 * of Pass@k's "at least one passes".
 *
 * Computed as prod_{i=0..k-1} (c-i)/(n-i) so that large n cannot overflow the binomials.
 *
 * @returns NaN when n < k (too few samples), 0 when c < k, 1 when c = n >= k.
 * @throws RangeError when the arguments are not integers with 0 <= c <= n and k >= 1.
 * @example
 * passHatK(10, 8, 2) // => (8/10) * (7/9) ≈ 0.6222
 * passHatK(1, 1, 2) // => NaN
 */
export function passHatK(n: number, c: number, k: number): number {
  assertCounts(n, c, k)
  if (n < k) return Number.NaN
  if (c < k) return 0
  let allPass = 1
  for (let i = 0; i < k; i++) allPass *= (c - i) / (n - i)
  return allPass
}

/**
 * The pass^k curve for k = 1..budget: mean over tasks of {@link passHatK}(n, c, k), with the same
 * rules as `passAtCurve` (n = 0 skipped; NaN when any task has n < k or no task has samples).
 *
 * @example
 * passHatCurve([{ taskId: 'a', n: 4, c: 2 }], 3) // => [0.5, 1/6, 0]
 */
export function passHatCurve(samples: readonly SampleCounts[], budget: number): number[] {
  return curveOverTasks(samples, budget, passHatK)
}

/**
 * pass^k with its interval over tasks ({@link rateInterval}): each task's unbiased C(c, k)/C(n, k),
 * resting on ⌊n / k⌋ disjoint k-sample groups, as Pass@k's interval does. NaN bounds wherever
 * {@link passHatCurve} is NaN (a task with fewer than k samples).
 *
 * @example
 * passHatInterval([{ taskId: 'a', n: 10, c: 9 }, { taskId: 'b', n: 10, c: 2 }], 2).point // => (0.8 + 1/45) / 2
 */
export function passHatInterval(samples: readonly SampleCounts[], k: number, options?: IntervalOptions): Interval {
  assertBudget(k, 'k')
  const measured = samples.filter((s) => {
    assertCounts(s.n, s.c, k, `task '${s.taskId}'`)
    return s.n > 0
  })
  if (measured.some((s) => s.n < k)) return { ...rateInterval([], [], options), tasks: measured.length }
  return rateInterval(
    measured.map((s) => passHatK(s.n, s.c, k)),
    measured.map((s) => Math.max(1, Math.floor(s.n / k))),
    options,
  )
}
