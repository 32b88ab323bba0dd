/** The mean number of attempts a finished trajectory made (samples drawn, for independent cells). */
import { finiteOrNull } from '../interval-json.js'
import { defineStatistic } from './statistic.js'

export default defineStatistic({
  id: 'meanAttempts',
  label: 'mean attempts',
  description: 'attempts per trajectory that ended without an error (samples, for independent cells), averaged',
  protocols: ['sequential', 'independent'],
  compute: ({ trajectories }) => {
    const ended = trajectories.filter((t) => t.status !== 'error')
    const attempts = ended.reduce((n, t) => n + t.attempts.length, 0)
    return { value: finiteOrNull(attempts / ended.length), n: ended.length }
  },
  format: (entry) => (entry.value === null ? '—' : entry.value.toFixed(2)),
})
