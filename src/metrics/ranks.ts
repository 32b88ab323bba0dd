/**
 * The one tie rule for ranking actors by a rate, and the two rankings built on it:
 * - {@link competitionRanks}, the display ranks: every rank a person reads (the terminal table's
 *   ranking line, the report's rank chart, `seqk analyze`'s tables and report.json), printed with
 *   `ordinal` from metrics/format.ts;
 * - {@link averageRanks}, a statistic: fractional ranks that only Spearman's rho consumes, never
 *   printed (a rank of 2.5 is not a place on a leaderboard).
 * One rule in one place, so a pair of actors is tied everywhere or nowhere.
 */

/**
 * Whether two rates are the same rate: equal to 12 significant digits (an absolute 1e-12 for
 * rates in [0, 1]). Rates of one count computed along two paths differ in their last bits
 * (14/27 is 0.5185185185185185 one way and 0.5185185185185186 summed another); two different
 * counts over N tasks × r repeats differ by at least 1/(N·r), far above this tolerance.
 *
 * @example
 * sameRate(14 / 27, 0.5185185185185186) // => true
 * sameRate(0.5, 0.5 + 1e-6) // => false
 */
export function sameRate(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b))
}

function assertFinite(values: readonly number[], name: string): void {
  for (const [i, v] of values.entries()) {
    if (!Number.isFinite(v)) throw new RangeError(`${name}[${i}] must be a finite number (got ${String(v)})`)
  }
}

/**
 * Indices sorted ascending by value, cut into runs of tied values. Each run is anchored at its
 * smallest value, so a chain of values each within tolerance of the next cannot grow a tie wider
 * than the tolerance; both rankings below use these same runs, so they always agree on who ties.
 */
function tiedRuns(values: readonly number[]): number[][] {
  const order = values.map((_, i) => i).sort((a, b) => (values[a] as number) - (values[b] as number))
  const runs: number[][] = []
  for (const i of order) {
    const run = runs[runs.length - 1]
    if (run !== undefined && sameRate(values[i] as number, values[run[0] as number] as number)) run.push(i)
    else runs.push([i])
  }
  return runs
}

/**
 * Display ranks: standard competition ranking ("1224"), best (highest rate) first. An actor's rank
 * is 1 + the number of actors with a strictly better rate, so tied actors share the better rank,
 * as a leaderboard shows them. A tie is the same rate ({@link sameRate}: the same count, whatever
 * path computed it), not the same printed digits: two rates that both print as "87.5" but come from
 * different counts rank apart. The map keeps the input's key order.
 *
 * @throws RangeError on a non-finite rate.
 * @example
 * competitionRanks(new Map([['a', 0.9], ['b', 0.7], ['c', 0.9]])) // => Map { a: 1, b: 3, c: 1 }
 */
export function competitionRanks<K>(scores: ReadonlyMap<K, number>): Map<K, number> {
  const values = [...scores.values()]
  assertFinite(values, 'scores')
  const ranks = new Array<number>(values.length)
  let below = 0
  for (const run of tiedRuns(values)) {
    below += run.length
    // Everyone not in this run or below it ranks above it.
    for (const i of run) ranks[i] = values.length - below + 1
  }
  // Keyed in the input's order: callers list actors in the order they came, not by rank.
  return new Map([...scores.keys()].map((id, i) => [id, ranks[i] as number]))
}

/**
 * Statistical ranks, not display ones: 1-based, ascending, with tied values sharing the average of
 * the ranks they span ("fractional" ranking), as Spearman's rho needs: with average ranks it
 * equals Pearson's r on the ranks even with ties (where the textbook 1 − 6Σd²/(n(n²−1)) shortcut
 * is wrong). Ties follow {@link sameRate}. Never printed: use {@link competitionRanks} for that.
 *
 * @throws RangeError on a non-finite value.
 * @example
 * averageRanks([10, 20, 20, 5]) // => [2, 3.5, 3.5, 1]
 */
export function averageRanks(values: readonly number[]): number[] {
  assertFinite(values, 'values')
  const ranks = new Array<number>(values.length)
  let start = 0
  for (const run of tiedRuns(values)) {
    // The run spans ranks start+1..start+length; tied values share their mean.
    const rank = start + (run.length + 1) / 2
    for (const i of run) ranks[i] = rank
    start += run.length
  }
  return ranks
}
