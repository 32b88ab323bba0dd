/**
 * Spearman's rank correlation, as the paper uses it to ask whether Pass@K and Seq@K (and their
 * gains over attempt 1) order actors the same way (paper section 5.1.4, Figure 4).
 */

function assertFinite(values: readonly number[], name: string): void {
  for (const [i, v] of values.entries()) {
    if (!Number.isFinite(v)) throw new RangeError(`${name}[${i}] must be a finite number (got ${String(v)})`)
  }
}

/** Equal to 12 significant digits: far below any difference of counts a benchmark can produce. */
function sameRate(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b))
}

/**
 * 1-based ranks, ascending, with tied values sharing the average of the ranks they span
 * ("fractional" ranking). Average ranks are what makes Spearman's rho equal Pearson's r on the
 * ranks when there are ties; the textbook 1 − 6Σd²/(n(n²−1)) shortcut is wrong with ties.
 *
 * Values are tied only when exactly equal: callers that compute rates by different summation
 * orders should round first if ulp-level differences must count as ties.
 *
 * @throws RangeError on a non-finite value.
 * @example
 * averageRanks([10, 20, 20, 5]) // => [2, 3.5, 3.5, 1]
 */
export function averageRanks(values: readonly number[]): number[] {
  // Ties are decided on values equal to 12 significant digits: two rates of the same count
  // (14/27 computed along two paths) must share a rank, whatever their last bits say.
  assertFinite(values, 'values')
  const order = values.map((_, i) => i).sort((a, b) => (values[a] as number) - (values[b] as number))
  const ranks = new Array<number>(values.length)
  let start = 0
  while (start < order.length) {
    let end = start
    while (end + 1 < order.length && sameRate(values[order[end + 1] as number] as number, values[order[start] as number] as number)) end++
    // Positions start..end (0-based) hold ranks start+1..end+1; their mean is (start+end)/2 + 1.
    const rank = (start + end) / 2 + 1
    for (let i = start; i <= end; i++) ranks[order[i] as number] = rank
    start = end + 1
  }
  return ranks
}

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
