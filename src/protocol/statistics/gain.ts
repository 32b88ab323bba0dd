/** ΔSeq@K (ΔPass@K for independent cells): what the budget adds over a single attempt. */
import { gain as gainOf } from '../../metrics/index.js'
import { signedPercent } from '../../metrics/format.js'
import { finiteOrNull } from '../interval-json.js'
import { defineStatistic } from './statistic.js'

export default defineStatistic({
  id: 'gain',
  label: 'gain',
  description: 'the headline rate at K minus the rate at 1 (Seq@K − Seq@1, or Pass@K − Pass@1): what the budget adds',
  protocols: ['sequential', 'independent'],
  compute: ({ headline }) => ({ value: finiteOrNull(gainOf(headline.map((v) => v ?? Number.NaN))) }),
  format: (entry) => signedPercent(entry.value),
  column: {
    order: 10,
    header: (K) => `Δ@${K}`,
    outputs: ['terminal', 'markdown', 'html'],
    wideOnly: false,
  },
})
