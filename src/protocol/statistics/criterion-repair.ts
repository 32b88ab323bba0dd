/**
 * For verdicts with criteria (rubric tasks): of the criteria failed in attempt 1, the share met in
 * the best later attempt, and criteria met earlier but failed at the end.
 */
import { z } from 'zod'
import { criterionSatisfied } from '../../core/contract.js'
import { criterionRepair } from '../../metrics/index.js'
import { finiteOrNull } from '../interval-json.js'
import { defineStatistic } from './statistic.js'

const Detail = z.object({
  failedFirst: z.number().int(),
  repaired: z.number().int(),
  repairRate: z.number().nullable(),
  passedEarlier: z.number().int(),
  broken: z.number().int(),
  brokenRate: z.number().nullable(),
})

/** What the entry's detail holds. */
export type RepairDetail = z.infer<typeof Detail>

export default defineStatistic({
  id: 'criterionRepair',
  label: 'criterion repair',
  description: 'of the rubric criteria failed in attempt 1, the share met in the best later attempt',
  protocols: ['sequential', 'independent'],
  compute: ({ counted }) => {
    const runs = counted.filter((t) => t.attempts.some((a) => a.verdict.criteria && a.verdict.criteria.length > 0))
    // Without criteria there is nothing to repair: no entry, rather than a rate of nothing.
    if (runs.length === 0) return null
    const r = criterionRepair(
      runs.map((t) =>
        t.attempts.map((a) => Object.fromEntries((a.verdict.criteria ?? []).map((c) => [c.id, criterionSatisfied(c)]))),
      ),
    )
    const detail = { ...r, repairRate: finiteOrNull(r.repairRate), brokenRate: finiteOrNull(r.brokenRate) }
    return { value: detail.repairRate, n: r.failedFirst, detail }
  },
  detail: Detail,
})
