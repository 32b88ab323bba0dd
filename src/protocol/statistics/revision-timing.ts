/**
 * The shared reading of EGS and LGS (early and late gain shares): both come from one split of the
 * Seq@k curve, and both are undefined for the same reason, which each entry's `note` says.
 */
import { revisionTiming } from '../../metrics/index.js'
import type { StatisticValue } from '../../core/schemas.js'
import type { StatisticInput } from './statistic.js'

/** Why EGS and LGS (and Seq@k for k < K) are undefined when the actor was told its budget. */
export const DISCLOSED_NOTE = 'budget disclosed to the actor: only Seq@K is valid'

/** EGS or LGS of a sequential cell: undefined when the budget was disclosed (Seq@k for k < K is not a rate then). */
export function timingShare(input: StatisticInput, share: 'egs' | 'lgs'): StatisticValue {
  if (input.protocol.budgetDisclosed) return { value: null, note: DISCLOSED_NOTE }
  const timing = revisionTiming(input.headline.map((v) => v ?? Number.NaN))
  return { value: timing[share], ...(timing.reason ? { note: timing.reason } : {}) }
}
