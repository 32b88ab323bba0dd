/**
 * How much a verifier agrees with itself when it judges the same answers again: the share of
 * identical verdicts and Cohen's κ for pass/fail, over items (answers, or an answer's criterion)
 * each judged M ≥ 2 times. Pure functions over plain booleans.
 */

/** Self-agreement of repeated pass/fail verdicts on the same items. */
export interface VerdictAgreement {
  /** Items judged at least twice (others are left out). */
  items: number
  /** Items whose verdicts were not all the same. */
  flipped: number
  /** Share of items judged the same every time (1 − flipped / items); null without items. */
  identical: number | null
  /** Share of agreeing pairs of repeats, over every pair of every item; null without items. */
  pairwise: number | null
  /**
   * Cohen's κ for pass/fail between two repeats, averaged over every pair of repeats (Light's κ);
   * null when it is undefined: no items, or every verdict of the pair is the same value (chance
   * agreement 1), so agreement beyond chance cannot be told.
   */
  kappa: number | null
}

/**
 * Cohen's κ of two raters' pass/fail verdicts on the same items: (p_o − p_e) / (1 − p_e), with p_o
 * the observed agreement and p_e the agreement expected by chance from each rater's pass rate.
 * Null without items and when p_e = 1 (both raters gave one and the same value to every item).
 *
 * @example
 * cohensKappa([true, true, false, false], [true, false, false, false]) // => 0.5
 */
export function cohensKappa(a: readonly boolean[], b: readonly boolean[]): number | null {
  if (a.length !== b.length)
    throw new RangeError(`cohensKappa: the two raters judged ${a.length} and ${b.length} items; give the same items`)
  const n = a.length
  if (n === 0) return null
  let agree = 0
  let passA = 0
  let passB = 0
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) agree++
    if (a[i]) passA++
    if (b[i]) passB++
  }
  const po = agree / n
  const pe = (passA / n) * (passB / n) + (1 - passA / n) * (1 - passB / n)
  if (pe >= 1) return null
  return (po - pe) / (1 - pe)
}

/**
 * Self-agreement of repeated verdicts: `verdicts[i]` holds item i's verdicts in repeat order.
 * Items with fewer than two verdicts are left out; κ uses the first `m` repeats of every item,
 * `m` the fewest any kept item has, so each pair of repeats rates the same items.
 *
 * @example
 * verdictAgreement([[true, true], [false, false], [true, false]]).identical // => 2 / 3
 */
export function verdictAgreement(verdicts: readonly (readonly boolean[])[]): VerdictAgreement {
  const used = verdicts.filter((v) => v.length >= 2)
  if (used.length === 0) return { items: 0, flipped: 0, identical: null, pairwise: null, kappa: null }
  let flipped = 0
  let pairs = 0
  let agreeing = 0
  for (const v of used) {
    if (v.some((x) => x !== v[0])) flipped++
    for (let i = 0; i < v.length; i++)
      for (let j = i + 1; j < v.length; j++) {
        pairs++
        if (v[i] === v[j]) agreeing++
      }
  }
  const m = Math.min(...used.map((v) => v.length))
  const kappas: number[] = []
  let undefinedPair = false
  for (let i = 0; i < m; i++)
    for (let j = i + 1; j < m; j++) {
      const k = cohensKappa(
        used.map((v) => v[i]!),
        used.map((v) => v[j]!),
      )
      if (k === null) undefinedPair = true
      else kappas.push(k)
    }
  // A pair with one value throughout says nothing beyond chance; a mean over the others would
  // hide that, so κ is known only when every pair has it.
  const kappa = undefinedPair || kappas.length === 0 ? null : kappas.reduce((s, k) => s + k, 0) / kappas.length
  return {
    items: used.length,
    flipped,
    identical: 1 - flipped / used.length,
    pairwise: agreeing / pairs,
    kappa,
  }
}
