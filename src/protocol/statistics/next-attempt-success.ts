/** Success of revision attempts, split by whether the revision changed the answer (paper §5.2). */
import { z } from 'zod'
import type { Trajectory } from '../../core/schemas.js'
import { defineStatistic } from './statistic.js'

const Bucket = z.object({ revisions: z.number().int(), solved: z.number().int(), rate: z.number().nullable() })
const Detail = z.object({ changed: Bucket, unchanged: Bucket })

/** What the entry's detail holds. */
export type NextDetail = z.infer<typeof Detail>

/** Revision attempts (t ≥ 2) and how many succeeded, split by whether they changed the answer. */
export function nextAttemptSuccess(trajectories: readonly Trajectory[]): z.infer<typeof Detail> {
  const tally = { changed: { revisions: 0, solved: 0 }, unchanged: { revisions: 0, solved: 0 } }
  for (const t of trajectories) {
    for (const a of t.attempts) {
      if (a.unmodified === null) continue
      const bucket = a.unmodified ? tally.unchanged : tally.changed
      bucket.revisions++
      if (a.verdict.pass) bucket.solved++
    }
  }
  const withRate = (b: { revisions: number; solved: number }) => ({
    ...b,
    rate: b.revisions === 0 ? null : b.solved / b.revisions,
  })
  return { changed: withRate(tally.changed), unchanged: withRate(tally.unchanged) }
}

export default defineStatistic({
  id: 'nextAttemptSuccess',
  label: 'next-attempt success',
  description: 'the share of revisions that changed the answer and passed (detail: the same for unchanged answers)',
  protocols: ['sequential'],
  compute: ({ counted }) => {
    const detail = nextAttemptSuccess(counted)
    return { value: detail.changed.rate, n: detail.changed.revisions, detail }
  },
  detail: Detail,
})
