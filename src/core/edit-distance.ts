/**
 * The one edit distance (Levenshtein) of the package: the "did you mean" of an option's name
 * (core/option-checks.ts, letters, case ignored) and the distance between an agent's action
 * sequences (metrics/agent-metrics.ts `levenshtein`).
 */

/**
 * The fewest insertions, deletions and substitutions (each costing 1) that turn `a` into `b`;
 * `same` decides when two items are equal (default `===`). One row of the table at a time.
 *
 * @example
 * editDistance('kitten', 'sitting') // => 3
 * editDistance(['read', 'edit', 'test'], ['read', 'test']) // => 1
 * editDistance('Model', 'model', (x, y) => x.toLowerCase() === y.toLowerCase()) // => 0
 */
export function editDistance<T>(
  a: ArrayLike<T>,
  b: ArrayLike<T>,
  same: (x: T, y: T) => boolean = (x, y) => x === y,
): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (same(a[i - 1]!, b[j - 1]!) ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length]!
}
