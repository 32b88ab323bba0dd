import { bench, describe } from 'vitest'
import { bootstrapInterval } from './bootstrap.js'
import { passAtK } from './pass-at-k.js'
import { createRng } from './random.js'
import type { TaskOutcomes } from './seq-at-k.js'
import { seqAt, seqAtCurve } from './seq-at-k.js'

const budget = 5
const rng = createRng(2026)
// 500 tasks x 5 repeats, memoryless actors of mixed difficulty: the size of a large real run.
const outcomes: TaskOutcomes[] = Array.from({ length: 500 }, (_, i) => {
  const p = rng()
  return {
    taskId: `task-${i}`,
    firstSuccess: Array.from({ length: 5 }, () => {
      for (let attempt = 1; attempt <= budget; attempt++) if (rng() < p) return attempt
      return null
    }),
  }
})

describe('metrics on 500 tasks x 5 repeats', () => {
  bench(
    'seqAtCurve (K = 5)',
    () => {
      seqAtCurve(outcomes, budget)
    },
    { time: 300 },
  )

  bench(
    'bootstrapInterval of Seq@5 (2000 resamples)',
    () => {
      bootstrapInterval(outcomes, (sample) => seqAt(sample, budget), { resamples: 2000 })
    },
    { time: 300 },
  )
})

describe('passAtK', () => {
  bench(
    'grid n = 1..200, c = 0..n, k = 1..10',
    () => {
      for (let n = 1; n <= 200; n++) for (let c = 0; c <= n; c++) for (let k = 1; k <= 10; k++) passAtK(n, c, k)
    },
    { time: 300 },
  )
})
