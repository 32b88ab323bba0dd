/** A cell's G-Pass@k_τ, from its independent samples: the curve per τ and the interval at K. */
import { DEFAULT_G_PASS_TAUS, gPassCurve, gPassInterval } from '../metrics/g-pass-at-k.js'
import type { SampleCounts } from '../metrics/pass-at-k.js'
import type { CellSummary } from '../core/schemas.js'
import { finiteOrNull, intervalJson } from './interval-json.js'

/**
 * The summary's `gPass` field of an independent cell (each τ of `taus`: the curve for k = 1..K and
 * the interval at K); an empty object for any other cell, so its summary reads as before.
 *
 * @example
 * gPassField([{ taskId: 'a', n: 5, c: 3 }], 5).gPass?.[0]?.tau // => 0.5
 */
export function gPassField(
  samples: readonly SampleCounts[] | null,
  K: number,
  taus: readonly number[] = DEFAULT_G_PASS_TAUS,
): { gPass?: NonNullable<CellSummary['gPass']> } {
  if (!samples || samples.every((s) => s.n === 0)) return {}
  return {
    gPass: taus.map((tau) => ({
      tau,
      curve: gPassCurve(samples, K, tau).map(finiteOrNull),
      atK: intervalJson(gPassInterval(samples, K, tau)),
    })),
  }
}
