/**
 * The gain of a curve from budget 1 to its full budget K: curve[K-1] - curve[0].
 *
 * On a Seq@k curve this is ΔSeq@K (what revisions with feedback add over the first attempt); on a
 * Pass@k curve it is ΔPass@K (what more independent tries add). The paper compares the two to
 * separate "benefits from feedback" from "benefits from more draws".
 *
 * @returns NaN for an empty curve, 0 for a curve of length 1; NaN propagates from either end.
 * @example
 * gain([0.4, 0.55, 0.6]) // => 0.2 (up to rounding)
 * gain([]) // => NaN
 */
export function gain(curve: readonly number[]): number {
  const first = curve[0]
  const last = curve[curve.length - 1]
  if (first === undefined || last === undefined) return Number.NaN
  return last - first
}
