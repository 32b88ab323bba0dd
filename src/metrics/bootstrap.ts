import { Mulberry32 } from './random.js'

/** A point estimate with a percentile bootstrap interval, and what is needed to reproduce it. */
export interface BootstrapInterval {
  point: number
  lo: number
  hi: number
  /** Confidence level, e.g. 0.95. */
  level: number
  /** Resamples requested (resamples whose statistic was NaN are dropped before the percentiles). */
  resamples: number
  seed: number
}

/** The options of a bootstrap: resamples, confidence level and seed. */
export interface BootstrapOptions {
  /** PRNG seed; default 1. The same seed, units and statistic give the same interval. */
  seed?: number
  /** Number of resamples; default 2000. */
  resamples?: number
  /** Confidence level in (0, 1); default 0.95. */
  level?: number
}

interface ResolvedOptions {
  seed: number
  resamples: number
  level: number
}

function resolveOptions(options: BootstrapOptions | undefined): ResolvedOptions {
  const seed = options?.seed ?? 1
  const resamples = options?.resamples ?? 2000
  const level = options?.level ?? 0.95
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`bootstrap seed must be a safe integer (got ${String(seed)})`)
  }
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`bootstrap resamples must be an integer >= 1 (got ${String(resamples)})`)
  }
  if (!(level > 0 && level < 1)) {
    throw new RangeError(`bootstrap level must be strictly between 0 and 1, e.g. 0.95 (got ${String(level)})`)
  }
  return { seed, resamples, level }
}

/**
 * The p-quantile of ascending `sorted` by linear interpolation between order statistics
 * (Hyndman & Fan type 7, the default of R and NumPy): h = (m - 1) p, then
 * x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]). Equal neighbours are returned as they
 * are, so a constant sample gives that constant exactly (and ±Infinity never turns into NaN).
 * NaN for an empty sample. The one quantile of the package (the bootstrap and the analyses).
 *
 * @example
 * quantile([1, 2, 3, 4], 0.5) // => 2.5
 */
export function quantile(sorted: ArrayLike<number>, p: number): number {
  const h = (sorted.length - 1) * p
  const below = Math.floor(h)
  const x0 = sorted[below]
  if (x0 === undefined) return Number.NaN
  const x1 = sorted[Math.min(below + 1, sorted.length - 1)] ?? x0
  if (x1 === x0) return x0
  return x0 + (h - below) * (x1 - x0)
}

/**
 * The (1 - level)/2 and 1 - (1 - level)/2 quantiles of the non-NaN statistics. Two quantiles need
 * four order statistics, so they are selected (quickselect on a typed array, linear time) rather
 * than sorted: a summary's bootstrap spent more time sorting its 2000 statistics than drawing them.
 * Equal doubles are the same bits except ±0, whose order a comparator sort leaves to the draw
 * order; statistics with a -0 therefore take that sort, and the bounds are the same bits either way.
 */
export function percentileInterval(statistics: readonly number[], level: number): { lo: number; hi: number } {
  const finite = new Float64Array(statistics.length)
  let count = 0
  let negativeZero = false
  for (const value of statistics) {
    if (Number.isNaN(value)) continue
    if (value === 0 && 1 / value < 0) negativeZero = true
    finite[count++] = value
  }
  const tail = (1 - level) / 2
  if (negativeZero) {
    const sorted = statistics.filter((value) => !Number.isNaN(value)).sort((x, y) => x - y)
    return { lo: quantile(sorted, tail), hi: quantile(sorted, 1 - tail) }
  }
  const kept = finite.subarray(0, count)
  return { lo: selectedQuantile(kept, tail), hi: selectedQuantile(kept, 1 - tail) }
}

/** {@link quantile} of `values` (no NaN), found by selection; reorders `values` in place. */
function selectedQuantile(values: Float64Array, p: number): number {
  const n = values.length
  if (n === 0) return Number.NaN
  const h = (n - 1) * p
  const below = Math.floor(h)
  const x0 = select(values, below)
  // Everything after `below` is now ≥ x0: the next order statistic is the least of them.
  let x1 = x0
  if (below + 1 < n) {
    x1 = values[below + 1]!
    for (let i = below + 2; i < n; i++) if (values[i]! < x1) x1 = values[i]!
  }
  if (x1 === x0) return x0
  return x0 + (h - below) * (x1 - x0)
}

/**
 * The k-th smallest of `values` (Hoare's quickselect, middle pivot), leaving every value before k
 * ≤ it and every value after k ≥ it.
 */
function select(values: Float64Array, k: number): number {
  let lo = 0
  let hi = values.length - 1
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1]!
    let i = lo
    let j = hi
    while (i <= j) {
      while (values[i]! < pivot) i++
      while (values[j]! > pivot) j--
      if (i <= j) {
        const swap = values[i]!
        values[i++] = values[j]!
        values[j--] = swap
      }
    }
    if (k <= j) hi = j
    else if (k >= i) lo = i
    else break
  }
  return values[k]!
}

/**
 * Percentile bootstrap interval for `statistic` over `units`.
 *
 * The unit of resampling is the task (a unit may hold all repeats of one task): repeats of a task
 * are correlated, and resampling them independently would make the interval too narrow. Each of the
 * `resamples` draws `units.length` units with replacement from a PRNG seeded with `seed`, so the
 * interval is reproducible from the artifact. Resamples whose statistic is NaN (e.g. a draw where
 * every task lacks enough samples for Pass@k) are dropped rather than counted as 0; if all are NaN,
 * lo = hi = NaN. Percentiles (1 - level)/2 and 1 - (1 - level)/2 use linear interpolation between
 * order statistics (type 7).
 *
 * @param statistic - a pure function of a sample; it may be called with the same unit several times.
 * @returns point = statistic(units); every bound NaN when `units` is empty.
 * @throws RangeError on a non-integer seed, resamples < 1 or a level outside (0, 1).
 * @example
 * const interval = bootstrapInterval(outcomes, (sample) => seqAt(sample, 5), { seed: 7 })
 * // e.g. { point: 0.62, lo: 0.55, hi: 0.69, level: 0.95, resamples: 2000, seed: 7 }
 */
export function bootstrapInterval<T>(
  units: readonly T[],
  statistic: (sample: readonly T[]) => number,
  options?: BootstrapOptions,
): BootstrapInterval {
  const size = units.length
  return resampled(
    size,
    options,
    () => statistic(units),
    (rng) => {
      // A fresh array per resample: a statistic that keeps its sample must not see it change later.
      const sample: T[] = new Array<T>(size)
      for (let j = 0; j < size; j++) sample[j] = units[Math.floor(rng.next() * size)] as T
      return statistic(sample)
    },
  )
}

/**
 * The frame both bootstraps share: `resamples` statistics, each from `draw` with the one PRNG
 * seeded with `seed`, then the point estimate and the percentile interval (NaN bounds for no units).
 */
function resampled(
  size: number,
  options: BootstrapOptions | undefined,
  point: () => number,
  draw: (rng: Mulberry32) => number,
): BootstrapInterval {
  const { seed, resamples, level } = resolveOptions(options)
  if (size === 0) return { point: Number.NaN, lo: Number.NaN, hi: Number.NaN, level, resamples, seed }
  const rng = new Mulberry32(seed)
  const statistics: number[] = new Array<number>(resamples)
  for (let b = 0; b < resamples; b++) statistics[b] = draw(rng)
  return { point: point(), ...percentileInterval(statistics, level), level, resamples, seed }
}

/** A paired bootstrap interval for statistic(b) - statistic(a), with the task matching that was used. */
export interface PairedInterval extends BootstrapInterval {
  /** Number of keys present in both runs: the tasks the difference is computed over. */
  common: number
  /** Keys only in run a (sorted); left out of the difference. */
  onlyInA: string[]
  /** Keys only in run b (sorted); left out of the difference. */
  onlyInB: string[]
}

function indexByKey<T>(units: readonly T[], key: (unit: T) => string, run: 'a' | 'b'): Map<string, T> {
  const byKey = new Map<string, T>()
  for (const unit of units) {
    const id = key(unit)
    if (byKey.has(id)) {
      throw new RangeError(
        `pairedBootstrap: key '${id}' appears twice in run ${run}; a unit must hold all repeats of one task`,
      )
    }
    byKey.set(id, unit)
  }
  return byKey
}

const byCodeUnits = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0)

/**
 * Paired percentile bootstrap for the difference statistic(b) - statistic(a) between two runs on
 * the same tasks.
 *
 * Pairing removes task difficulty from the noise: each resample draws task keys with replacement
 * and evaluates both runs on the same draw, which gives a far narrower interval than two
 * independent intervals when runs share hard and easy tasks. Only tasks present in both runs
 * count; the others are returned in `onlyInA` / `onlyInB` so a caller can refuse or report the
 * mismatch. Common keys are sorted (by UTF-16 code units) before resampling, so the result does not
 * depend on the order of the inputs. A run compared with itself gives point = lo = hi = 0 exactly.
 *
 * @throws RangeError when a key appears twice in one run, or on invalid options.
 * @example
 * const diff = pairedBootstrap(baseline, candidate, (task) => task.taskId, (s) => seqAt(s, 5))
 * // diff.point > 0 and diff.lo > 0: the candidate is better on the common tasks
 */
export function pairedBootstrap<T>(
  a: readonly T[],
  b: readonly T[],
  key: (unit: T) => string,
  statistic: (sample: readonly T[]) => number,
  options?: BootstrapOptions,
): PairedInterval {
  const { seed, resamples, level } = resolveOptions(options)
  const inA = indexByKey(a, key, 'a')
  const inB = indexByKey(b, key, 'b')
  const common = [...inA.keys()].filter((id) => inB.has(id)).sort(byCodeUnits)
  const onlyInA = [...inA.keys()].filter((id) => !inB.has(id)).sort(byCodeUnits)
  const onlyInB = [...inB.keys()].filter((id) => !inA.has(id)).sort(byCodeUnits)
  const matching = { common: common.length, onlyInA, onlyInB }
  const size = common.length
  if (size === 0) {
    return { point: Number.NaN, lo: Number.NaN, hi: Number.NaN, level, resamples, seed, ...matching }
  }
  const unitsA = common.map((id) => inA.get(id) as T)
  const unitsB = common.map((id) => inB.get(id) as T)
  const rng = new Mulberry32(seed)
  const statistics: number[] = new Array<number>(resamples)
  for (let r = 0; r < resamples; r++) {
    const sampleA: T[] = new Array<T>(size)
    const sampleB: T[] = new Array<T>(size)
    for (let j = 0; j < size; j++) {
      const drawn = Math.floor(rng.next() * size)
      sampleA[j] = unitsA[drawn] as T
      sampleB[j] = unitsB[drawn] as T
    }
    statistics[r] = statistic(sampleB) - statistic(sampleA)
  }
  const point = statistic(unitsB) - statistic(unitsA)
  return { point, ...percentileInterval(statistics, level), level, resamples, seed, ...matching }
}
