/**
 * Spearman's rank correlation, as the paper uses it to ask whether Pass@K and Seq@K (and their
 * gains over attempt 1) order actors the same way (paper section 5.1.4, Figure 4).
 */
import { averageRanks } from '../metrics/ranks.js'

function assertFinite(values: readonly number[], name: string): void {
  for (const [i, v] of values.entries()) {
    if (!Number.isFinite(v)) throw new RangeError(`${name}[${i}] must be a finite number (got ${String(v)})`)
  }
}

// Average ranks (and their tie rule) live in metrics/ranks.ts with the other rankings, so Spearman
// ties exactly the actors the tables tie; re-exported for the analysis' public face.
export { averageRanks }

/**
 * Pearson's correlation coefficient. NaN when there are fewer than 2 points or either variable
 * is constant: a correlation is undefined then, and 0 would claim "unrelated".
 *
 * @throws RangeError when the lengths differ or a value is not finite.
 * @example
 * pearson([1, 2, 3], [2, 4, 6]) // => 1
 */
export function pearson(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new RangeError(`x and y must have the same length (got ${x.length} and ${y.length})`)
  assertFinite(x, 'x')
  assertFinite(y, 'y')
  const n = x.length
  if (n < 2) return Number.NaN
  const mx = x.reduce((s, v) => s + v, 0) / n
  const my = y.reduce((s, v) => s + v, 0) / n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < n; i++) {
    const dx = (x[i] as number) - mx
    const dy = (y[i] as number) - my
    sxy += dx * dy
    sxx += dx * dx
    syy += dy * dy
  }
  if (sxx === 0 || syy === 0) return Number.NaN
  // Rounding can push |r| a hair past 1; the clamp keeps the documented range exact.
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)))
}

/**
 * Spearman's rho: Pearson's r on average ranks (ties handled correctly). In [-1, 1], symmetric,
 * 1 for identically ordered data, unchanged by any strictly increasing transform of either
 * variable; NaN with fewer than 2 points or when either variable is constant.
 *
 * @throws RangeError when the lengths differ or a value is not finite.
 * @example
 * spearman([0.9, 0.8, 0.7], [0.6, 0.9, 0.7]) // => -0.5
 * spearman([1, 2, 2, 3], [1, 3, 2, 4]) // ties: ≈ 0.9487
 */
export function spearman(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) throw new RangeError(`x and y must have the same length (got ${x.length} and ${y.length})`)
  return pearson(averageRanks(x), averageRanks(y))
}
