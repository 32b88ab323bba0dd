/** The share of revisions that returned the previous answer unchanged (paper §5.2). */
import { z } from 'zod'
import { countUnmodified } from '../../metrics/index.js'
import { percent } from '../../metrics/format.js'
import { finiteOrNull } from '../interval-json.js'
import { defineStatistic } from './statistic.js'

export default defineStatistic({
  id: 'unmodifiedRevisions',
  label: 'unmodified revisions',
  description: 'of the revisions (attempts 2..K), the share that returned the previous answer unchanged',
  protocols: ['sequential'],
  compute: ({ counted }) => {
    const u = countUnmodified(counted.map((t) => t.attempts.map((a) => a.unmodified)))
    return { value: finiteOrNull(u.rate), n: u.revisions, detail: { unmodified: u.unmodified } }
  },
  // No revision at all is not 0% unmodified: nothing was revised.
  format: (entry) => (entry.n === 0 ? '—' : percent(entry.value)),
  column: {
    order: 40,
    header: () => 'unmod',
    outputs: ['terminal', 'html'],
    optional: { priority: 3, group: 'unmod' },
  },
  detail: z.object({ unmodified: z.number().int().nonnegative() }),
})
