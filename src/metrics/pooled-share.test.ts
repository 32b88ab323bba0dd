import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { betaQuantile, normalQuantile, studentTQuantile } from './distributions.js'
import { POOLED_SHARE_INTERVAL_METHOD, pooledShareInterval } from './pooled-share.js'

describe('pooledShareInterval', () => {
  it('estimates the share pooled over units, not the mean of cluster shares', () => {
    const interval = pooledShareInterval([
      { hits: 2, trials: 4 },
      { hits: 0, trials: 1 },
      { hits: 3, trials: 3 },
    ])
    expect(interval.point).toBe(5 / 8)
    expect(interval).toMatchObject({ level: 0.95, method: POOLED_SHARE_INTERVAL_METHOD, tasks: 3 })
    expect(interval.lo).toBeLessThan(5 / 8)
    expect(interval.hi).toBeGreaterThan(5 / 8)
  })

  it('leaves out clusters with no units; none gives NaN, one gives [0, 1]', () => {
    expect(pooledShareInterval([{ hits: 0, trials: 0 }]).point).toBeNaN()
    expect(pooledShareInterval([])).toMatchObject({ tasks: 0 })
    expect(
      pooledShareInterval([
        { hits: 3, trials: 5 },
        { hits: 0, trials: 0 },
      ]),
    ).toMatchObject({ point: 0.6, lo: 0, hi: 1, tasks: 1 })
  })

  it('is never zero-width at 0% or 100%: the Clopper–Pearson bound at the number of clusters', () => {
    const none = pooledShareInterval(Array.from({ length: 10 }, () => ({ hits: 0, trials: 4 })))
    const all = pooledShareInterval(Array.from({ length: 10 }, () => ({ hits: 4, trials: 4 })))
    expect(none.lo).toBe(0)
    expect(none.hi).toBeGreaterThan(0.2)
    expect(all.hi).toBe(1)
    expect(all.lo).toBeCloseTo(1 - none.hi, 12)
    // Ten tasks that all agree say no more than ten one-revision tasks would, shrunk for 9 degrees
    // of freedom: the Clopper–Pearson bound at 10 · (z / t₉)² trials, 61.2–100.
    const shrunk = 10 * (normalQuantile(0.975) / studentTQuantile(0.975, 9)) ** 2
    expect(all.lo).toBeCloseTo(betaQuantile(0.025, shrunk, 1), 12)
    expect(all.lo).toBeCloseTo(0.6118, 4)
  })

  it('is wider when the same revisions are clustered than when they are spread over tasks', () => {
    const clustered = pooledShareInterval([
      ...Array.from({ length: 5 }, () => ({ hits: 8, trials: 8 })),
      ...Array.from({ length: 5 }, () => ({ hits: 0, trials: 8 })),
    ])
    const spread = pooledShareInterval(Array.from({ length: 10 }, () => ({ hits: 4, trials: 8 })))
    expect(clustered.point).toBe(spread.point)
    expect(clustered.hi - clustered.lo).toBeGreaterThan(2 * (spread.hi - spread.lo))
  })

  it('contains its point and stays in [0, 1] for any clusters', () => {
    const cluster = fc
      .integer({ min: 0, max: 12 })
      .chain((trials) => fc.record({ trials: fc.constant(trials), hits: fc.integer({ min: 0, max: trials }) }))
    fc.assert(
      fc.property(fc.array(cluster, { minLength: 2, maxLength: 30 }), (clusters) => {
        const { point, lo, hi } = pooledShareInterval(clusters)
        if (clusters.every((c) => c.trials === 0)) return
        expect(0 <= lo && lo <= point && point <= hi && hi <= 1).toBe(true)
      }),
      { seed: 42 },
    )
  })

  it('rejects counts that are not a share of trials', () => {
    expect(() => pooledShareInterval([{ hits: 3, trials: 2 }])).toThrow(/cluster 0 has 3 hits of 2 trials/)
    expect(() => pooledShareInterval([{ hits: -1, trials: 2 }])).toThrow(RangeError)
    expect(() => pooledShareInterval([{ hits: 1, trials: 2 }], { level: 1 })).toThrow(/level/)
  })
})
