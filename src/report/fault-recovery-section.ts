/**
 * The fault-recovery line of an agent cell with a fault injector (`actors.agent({ faults })`), the
 * same words in the terminal, Markdown and the HTML report: the faults injected, and of the episodes
 * a fault hit the share that still passed (the recovery rate, with its interval and the counts it
 * rests on), beside the share for the episodes no fault hit.
 */
import type { CellSummary, FaultRecovery } from '../core/schemas.js'
import { intervalText, percent, plural } from '../metrics/format.js'

const shareText = (s: FaultRecovery['hit']) =>
  s.rate === null
    ? 'no episode'
    : `${percent(s.rate.point)}% (95% CI ${intervalText(s.rate.lo, s.rate.hi)}) of ${plural(s.episodes, 'episode')} over ${plural(s.tasks, 'task')}`

/**
 * One line per cell that injected faults, or none.
 *
 * @example
 * faultRecoveryLines(bench.cells)
 * // ['fault recovery, agent:a + faults · verifier: 39.4% (95% CI 11.6–73.6) of 33 episodes over 5 tasks hit by a fault still passed; …']
 */
export function faultRecoveryLines(cells: readonly CellSummary[]): string[] {
  return cells.flatMap((c) => {
    const f = c.agent?.faults
    if (!f) return []
    const injected = `${plural(f.injected.error, 'error')}, ${plural(f.injected.timeout, 'timeout')}, ${plural(f.injected.truncate, 'truncation')} injected`
    return [
      `fault recovery, ${c.cellId}: ${shareText(f.hit)} hit by a fault still passed; without a fault ${shareText(f.clean)} passed (${injected})`,
    ]
  })
}
