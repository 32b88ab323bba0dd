/**
 * Whether Seq@K tracks something Pass@K does not (paper section 5.1.4, Figure 4): over actor ×
 * benchmark pairs, the final rates correlate (+0.68 in the paper, both include attempt 1), but
 * the gains from attempts 2..K do not (−0.08): gaining from more draws says little about gaining
 * from feedback.
 */
import { bootstrapInterval } from '../metrics/index.js'
import type { Correlation, CorrelationPair, Correlations } from './report-schema.js'
import { spearman } from './spearman.js'

/** The options of the rank correlations: the bootstrap's seed, resamples and confidence level. */
export interface CorrelationOptions {
  /** Bootstrap seed (default 1). */
  seed?: number
  /** Bootstrap resamples (default 1000). */
  resamples?: number
  /** Confidence level (default 0.95). */
  level?: number
}

const finiteOrNull = (v: number): number | null => (Number.isFinite(v) ? v : null)

function correlation(
  pairs: readonly CorrelationPair[],
  x: (p: CorrelationPair) => number,
  y: (p: CorrelationPair) => number,
  options: CorrelationOptions,
): Correlation {
  // The pair is the unit of resampling, as each point in the paper's scatter is one actor on one
  // benchmark. Resamples where a variable is constant (rho undefined) are dropped, not counted as 0.
  const interval = bootstrapInterval(pairs, (sample) => spearman(sample.map(x), sample.map(y)), {
    seed: options.seed ?? 1,
    resamples: options.resamples ?? 1000,
    level: options.level ?? 0.95,
  })
  return {
    rho: finiteOrNull(interval.point),
    lo: finiteOrNull(interval.lo),
    hi: finiteOrNull(interval.hi),
    level: interval.level,
    resamples: interval.resamples,
    seed: interval.seed,
  }
}

/**
 * Spearman of Pass@k vs Seq@k and of ΔPass@k vs ΔSeq@k over actor × benchmark pairs, each with a
 * seeded percentile bootstrap interval over pairs. Rho is null (with a note) when undefined:
 * fewer than two pairs, or every pair has the same value on one side.
 *
 * @example
 * const c = protocolCorrelations('verifier', pairs, { seed: 1 })
 * // c.levels.rho ≈ 0.68, c.gains.rho ≈ -0.08 on the paper's 26 pairs
 */
export function protocolCorrelations(
  feedback: string,
  pairs: readonly CorrelationPair[],
  options: CorrelationOptions = {},
): Correlations {
  const levels = correlation(
    pairs,
    (p) => p.passAt,
    (p) => p.seqAt,
    options,
  )
  const gains = correlation(
    pairs,
    (p) => p.passGain,
    (p) => p.seqGain,
    options,
  )
  let note: string | null = null
  if (pairs.length < 2)
    note = `${pairs.length} actor × benchmark pair${pairs.length === 1 ? '' : 's'}: a correlation needs at least 2`
  else if (levels.rho === null || gains.rho === null)
    note = 'a variable is the same for every pair, so its rank correlation is undefined'
  else if (pairs.length < 5)
    note = `only ${pairs.length} actor × benchmark pairs: the rank correlation can take few values and its interval says little (the paper used 26)`
  return { feedback, pairs: [...pairs], levels, gains, note }
}

/**
 * Per actor × benchmark, the pair from the non-binary mode with the highest Seq@k, as the paper's
 * Figure 4 does ("the best non-binary feedback configuration per pair"). Ties keep the mode that
 * comes first in `pairsByMode`.
 *
 * @example
 * bestNonBinaryPairs(new Map([['verifier', [...]], ['critic', [...]]]), new Set(['binary']))
 */
export function bestNonBinaryPairs(
  pairsByMode: ReadonlyMap<string, readonly CorrelationPair[]>,
  binaryModes: ReadonlySet<string>,
): CorrelationPair[] {
  const best = new Map<string, CorrelationPair>()
  for (const [mode, pairs] of pairsByMode) {
    if (binaryModes.has(mode)) continue
    for (const pair of pairs) {
      const key = `${pair.benchmark}\u0000${pair.actorId}`
      const current = best.get(key)
      if (current === undefined || pair.seqAt > current.seqAt) best.set(key, pair)
    }
  }
  return [...best.values()]
}
