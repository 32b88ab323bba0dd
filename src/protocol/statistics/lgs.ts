/** LGS, the last gain share: the part of ΔSeq@K earned by the last revision. */
import { defineStatistic } from './statistic.js'
import { timingShare } from './revision-timing.js'

export default defineStatistic({
  id: 'lgs',
  label: 'LGS',
  description: 'last gain share: the part of ΔSeq@K earned by the last revision, (Seq@K − Seq@(K−1)) / ΔSeq@K',
  protocols: ['sequential'],
  compute: (input) => timingShare(input, 'lgs'),
  column: {
    order: 30,
    header: () => 'LGS',
    outputs: ['terminal', 'html'],
    optional: { priority: 2, group: 'timing' },
  },
})
