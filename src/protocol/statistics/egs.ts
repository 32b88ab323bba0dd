/** EGS, the early gain share: the part of ΔSeq@K earned by the first revision. */
import { defineStatistic } from './statistic.js'
import { timingShare } from './revision-timing.js'

export default defineStatistic({
  id: 'egs',
  label: 'EGS',
  description: 'early gain share: the part of ΔSeq@K earned by the first revision, (Seq@2 − Seq@1) / ΔSeq@K',
  protocols: ['sequential'],
  compute: (input) => timingShare(input, 'egs'),
  column: {
    order: 20,
    header: () => 'EGS',
    outputs: ['terminal', 'html'],
    optional: { priority: 2, group: 'timing' },
  },
})
