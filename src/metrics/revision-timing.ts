import { gain } from './gains.js'

/**
 * When the revision gain arrives: EGS (early gain share) is the part of ΔSeq@K earned by the first
 * revision, LGS (last gain share) the part earned by the last one. `null` with a `reason` when the
 * shares are undefined.
 */
export interface RevisionTiming {
  egs: number | null
  lgs: number | null
  reason?: string
}

/**
 * Revision timing of a Seq@k curve (paper section 5.2, table 4):
 * EGS = (Seq@2 - Seq@1) / ΔSeq@K and LGS = (Seq@K - Seq@(K-1)) / ΔSeq@K.
 *
 * The paper defines the shares only for ΔSeq@K > 0: with no net gain the ratio is meaningless (or
 * a division by zero), so both are `null` with a reason rather than 0 or Infinity. With K = 2 the
 * first revision is also the last one, so EGS = LGS = 1.
 *
 * @param curve - Seq@k at index k - 1, as returned by `seqAtCurve`.
 * @example
 * revisionTiming([0.5, 0.7, 0.75, 0.8, 0.8]) // => { egs: 2/3, lgs: 0 } (up to rounding)
 * revisionTiming([0.5, 0.5, 0.5]) // => { egs: null, lgs: null, reason: 'ΔSeq@K <= 0: no revision gain to share' }
 */
export function revisionTiming(curve: readonly number[]): RevisionTiming {
  const budget = curve.length
  if (budget === 0) return { egs: null, lgs: null, reason: 'empty curve has no revisions' }
  if (budget < 2) return { egs: null, lgs: null, reason: 'budget 1 has no revisions' }
  const total = gain(curve)
  if (Number.isNaN(total))
    return {
      egs: null,
      lgs: null,
      reason: 'ΔSeq@K is undefined (Seq@1 or Seq@K was not measured): no revision gain to share',
    }
  if (!(total > 0)) return { egs: null, lgs: null, reason: 'ΔSeq@K <= 0: no revision gain to share' }
  const seq1 = curve[0] ?? Number.NaN
  const seq2 = curve[1] ?? Number.NaN
  const seqLast = curve[budget - 1] ?? Number.NaN
  const seqBeforeLast = curve[budget - 2] ?? Number.NaN
  return { egs: (seq2 - seq1) / total, lgs: (seqLast - seqBeforeLast) / total }
}
