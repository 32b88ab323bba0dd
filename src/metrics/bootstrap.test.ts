import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bootstrapInterval, pairedBootstrap, percentileInterval } from './bootstrap.js'
import type { Rng } from './random.js'
import { createRng, seedFrom } from './random.js'
import type { TaskOutcomes } from './seq-at-k.js'
import { seqAt } from './seq-at-k.js'

const mean = (values: readonly number[]): number =>
  values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length

const bernoulliTasks = (p: number, tasks: number, rng: Rng): number[] =>
  Array.from({ length: tasks }, () => (rng() < p ? 1 : 0))

describe('bootstrapInterval', () => {
  it('returns the statistic on all units as the point, with lo <= point <= hi on a plain mean', () => {
    const units = [0, 1, 1, 0, 1, 1, 1, 0, 1, 1]
    const interval = bootstrapInterval(units, mean)
    expect(interval.point).toBe(0.7)
    expect(interval.lo).toBeLessThan(0.7)
    expect(interval.hi).toBeGreaterThan(0.7)
    expect(interval.lo).toBeGreaterThanOrEqual(0)
    expect(interval.hi).toBeLessThanOrEqual(1)
    expect(interval).toMatchObject({ level: 0.95, resamples: 2000, seed: 1 })
  })

  it('is deterministic for a seed and changes with the seed', () => {
    const units = bernoulliTasks(0.4, 60, createRng(3))
    const first = bootstrapInterval(units, mean, { seed: 11, resamples: 300 })
    expect(bootstrapInterval(units, mean, { seed: 11, resamples: 300 })).toEqual(first)
    const other = bootstrapInterval(units, mean, { seed: 12, resamples: 300 })
    expect(other.point).toBe(first.point)
    expect([other.lo, other.hi]).not.toEqual([first.lo, first.hi])
    expect(other.seed).toBe(12)
  })

  it('draws resamples of the same size, with replacement, uniformly over the units', () => {
    const units = [0, 1, 2, 3, 4]
    const counts = new Array<number>(units.length).fill(0)
    const sizes = new Set<number>()
    let repeated = 0
    const record = (sample: readonly number[]): number => {
      sizes.add(sample.length)
      if (new Set(sample).size < sample.length) repeated += 1
      for (const unit of sample) counts[unit] = (counts[unit] ?? 0) + 1
      return 0
    }
    bootstrapInterval(units, record, { resamples: 2000 })
    // The point statistic sees each unit once more; subtract it before checking the draw frequencies.
    units.forEach((unit) => (counts[unit] = (counts[unit] ?? 0) - 1))
    expect([...sizes]).toEqual([5])
    expect(repeated).toBeGreaterThan(1000) // without replacement no resample would repeat a unit
    for (const count of counts) expect(Math.abs(count / (2000 * 5) - 0.2)).toBeLessThan(0.02)
  })

  it('takes percentiles by linear interpolation between order statistics', () => {
    // A statistic that ignores its sample and returns 0, 1, 2, ... exposes the percentile rule.
    const counter = (): ((sample: readonly number[]) => number) => {
      let calls = 0
      return () => calls++
    }
    const a = bootstrapInterval([1], counter(), { resamples: 100, level: 0.95 })
    expect(a.lo).toBeCloseTo(99 * 0.025, 12)
    expect(a.hi).toBeCloseTo(99 * 0.975, 12)
    const b = bootstrapInterval([1], counter(), { resamples: 101, level: 0.9 })
    expect(b.lo).toBeCloseTo(5, 12)
    expect(b.hi).toBeCloseTo(95, 12)
  })

  it('gives lo = hi = point on constant data', () => {
    const interval = bootstrapInterval([0.25, 0.25, 0.25], mean, { resamples: 50 })
    expect([interval.point, interval.lo, interval.hi]).toEqual([0.25, 0.25, 0.25])
  })

  it('drops NaN resamples, and gives NaN bounds only when every resample is NaN', () => {
    // NaN whenever the draw contains the unit 3: the interval comes from the other draws only.
    const noThrees = (sample: readonly number[]): number => (sample.includes(3) ? Number.NaN : mean(sample))
    const interval = bootstrapInterval([1, 2, 3], noThrees, { resamples: 500 })
    expect(interval.point).toBeNaN()
    expect(interval.lo).toBeGreaterThanOrEqual(1)
    expect(interval.hi).toBeLessThanOrEqual(2)
    const never = bootstrapInterval([1, 2], () => Number.NaN, { resamples: 50 })
    expect(never.lo).toBeNaN()
    expect(never.hi).toBeNaN()
  })

  it('is NaN everywhere for no units, echoing the options used', () => {
    const interval = bootstrapInterval<number>([], mean, { seed: 5, resamples: 10, level: 0.9 })
    expect(interval.point).toBeNaN()
    expect(interval.lo).toBeNaN()
    expect(interval.hi).toBeNaN()
    expect(interval).toMatchObject({ seed: 5, resamples: 10, level: 0.9 })
  })

  it('rejects invalid options with the option named', () => {
    expect(() => bootstrapInterval([1], mean, { resamples: 0 })).toThrow(/resamples must be an integer >= 1 \(got 0\)/)
    expect(() => bootstrapInterval([1], mean, { level: 95 })).toThrow(/level must be strictly between 0 and 1/)
    expect(() => bootstrapInterval([1], mean, { level: 1 })).toThrow(RangeError)
    expect(() => bootstrapInterval([1], mean, { seed: 0.5 })).toThrow(/seed must be a safe integer/)
  })

  it('keeps lo <= hi inside the range of the data for a mean', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (units, seed) => {
          const { lo, hi } = bootstrapInterval(units, mean, { seed, resamples: 50 })
          expect(lo).toBeLessThanOrEqual(hi)
          expect(lo).toBeGreaterThanOrEqual(Math.min(...units) - 1e-12)
          expect(hi).toBeLessThanOrEqual(Math.max(...units) + 1e-12)
        },
      ),
      { seed: 42, numRuns: 100 },
    )
  })

  it('covers the true mean in roughly 95% of simulated datasets', () => {
    const p = 0.3
    const datasets = 200
    let covered = 0
    for (let d = 0; d < datasets; d++) {
      const units = bernoulliTasks(p, 60, createRng(seedFrom('coverage', d)))
      const { lo, hi } = bootstrapInterval(units, mean, { seed: d, resamples: 500 })
      if (lo <= p && p <= hi) covered += 1
    }
    expect(covered / datasets).toBeGreaterThanOrEqual(0.9)
    expect(covered / datasets).toBeLessThanOrEqual(0.99)
  })

  it('resamples whole tasks, so Seq@K intervals cover the truth with repeats inside a task', () => {
    // Each task has its own difficulty and 3 repeats: resampling repeats independently would ignore
    // the between-task variance and undercover.
    const budget = 3
    let covered = 0
    const datasets = 100
    for (let d = 0; d < datasets; d++) {
      const rng = createRng(seedFrom('tasks', d))
      const outcomes: TaskOutcomes[] = Array.from({ length: 40 }, (_, i) => {
        const p = rng() < 0.5 ? 0.05 : 0.6
        return {
          taskId: `t${i}`,
          firstSuccess: Array.from({ length: 3 }, () => {
            for (let attempt = 1; attempt <= budget; attempt++) if (rng() < p) return attempt
            return null
          }),
        }
      })
      const truth = 0.5 * (1 - 0.95 ** budget) + 0.5 * (1 - 0.4 ** budget)
      const { lo, hi } = bootstrapInterval(outcomes, (sample) => seqAt(sample, budget), { seed: d, resamples: 300 })
      if (lo <= truth && truth <= hi) covered += 1
    }
    expect(covered / datasets).toBeGreaterThanOrEqual(0.9)
    expect(covered / datasets).toBeLessThanOrEqual(1)
  })
})

describe('percentileInterval', () => {
  it('equals a comparator sort and type-7 quantiles bit for bit, with NaN, ±0 and ±Infinity', () => {
    const quantile = (sorted: number[], p: number) => {
      const h = (sorted.length - 1) * p
      const below = Math.floor(h)
      const x0 = sorted[below]
      if (x0 === undefined) return Number.NaN
      const x1 = sorted[Math.min(below + 1, sorted.length - 1)] ?? x0
      return x1 === x0 ? x0 : x0 + (h - below) * (x1 - x0)
    }
    const reference = (xs: number[], level: number) => {
      const kept = xs.filter((x) => !Number.isNaN(x)).sort((x, y) => x - y)
      return { lo: quantile(kept, (1 - level) / 2), hi: quantile(kept, 1 - (1 - level) / 2) }
    }
    const value = fc.oneof(
      fc.double(),
      fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
      fc.integer({ min: -3, max: 3 }),
    )
    fc.assert(
      fc.property(fc.array(value, { maxLength: 40 }), fc.double({ min: 0.01, max: 0.99, noNaN: true }), (xs, level) => {
        const got = percentileInterval(xs, level)
        const want = reference(xs, level)
        expect(Object.is(got.lo, want.lo) && Object.is(got.hi, want.hi)).toBe(true)
      }),
      { seed: 42, numRuns: 2000 },
    )
  })

  it('selects the same bounds as sorting on long and tie-heavy samples (the selection takes several partitions)', () => {
    const sorted = (xs: number[], level: number) => {
      const kept = xs.filter((x) => !Number.isNaN(x)).sort((x, y) => x - y)
      const at = (p: number) => {
        const h = (kept.length - 1) * p
        const below = Math.floor(h)
        const x0 = kept[below]!
        const x1 = kept[Math.min(below + 1, kept.length - 1)]!
        return x1 === x0 ? x0 : x0 + (h - below) * (x1 - x0)
      }
      return { lo: at((1 - level) / 2), hi: at(1 - (1 - level) / 2) }
    }
    const value = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x)),
      fc.integer({ min: 0, max: 4 }).map((x) => x / 4),
    )
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 600 }),
        fc.constantFrom(0.5, 0.8, 0.9, 0.95, 0.99),
        (xs, level) => {
          const got = percentileInterval(xs, level)
          const want = sorted(xs, level)
          expect(Object.is(got.lo, want.lo) && Object.is(got.hi, want.hi)).toBe(true)
        },
      ),
      { seed: 11, numRuns: 400 },
    )
    // A bootstrap's typical input: 2000 statistics, most of them one of a few values.
    const many = Array.from({ length: 2000 }, (_, i) => ((i * 7919) % 11) / 10)
    expect(percentileInterval(many, 0.95)).toEqual(sorted(many, 0.95))
  })
})

describe('pairedBootstrap', () => {
  const run = (solved: (i: number) => boolean, ids: readonly number[]): TaskOutcomes[] =>
    ids.map((i) => ({ taskId: `t${String(i).padStart(3, '0')}`, firstSuccess: [solved(i) ? 1 : null] }))
  const byId = (task: TaskOutcomes): string => task.taskId
  const seq1 = (sample: readonly TaskOutcomes[]): number => seqAt(sample, 1)
  const ids = Array.from({ length: 100 }, (_, i) => i)

  it('gives exactly 0 for point, lo and hi when a run is compared with itself', () => {
    const a = run((i) => i % 3 === 0, ids)
    expect(pairedBootstrap(a, a, byId, seq1)).toMatchObject({ point: 0, lo: 0, hi: 0, common: 100 })
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.nat(1000), fc.array(fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }))), {
          minLength: 1,
          maxLength: 25,
          selector: ([id]) => id,
        }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (tasks, seed) => {
          const outcomes = tasks.map(([id, firstSuccess]) => ({ taskId: `t${id}`, firstSuccess }))
          const k = (s: readonly TaskOutcomes[]): number => seqAt(s, 3)
          const result = pairedBootstrap(outcomes, outcomes, byId, k, { seed, resamples: 40 })
          if (Number.isNaN(result.point)) return // no task has a repeat: nothing to compare
          expect([result.point, result.lo, result.hi]).toEqual([0, 0, 0])
        },
      ),
      { seed: 42, numRuns: 100 },
    )
  })

  it('is much narrower than unpaired intervals when both runs share task difficulty', () => {
    const a = run((i) => i < 50, ids)
    const b = run((i) => i < 55, ids)
    const paired = pairedBootstrap(a, b, byId, seq1, { resamples: 1000 })
    expect(paired.point).toBeCloseTo(0.05, 12)
    expect(paired.lo).toBeGreaterThanOrEqual(0)
    expect(paired.lo).toBeLessThan(0.05)
    expect(paired.hi).toBeGreaterThan(0.05)
    const alone = bootstrapInterval(a, seq1, { resamples: 1000 })
    expect(paired.hi - paired.lo).toBeLessThan(0.5 * (alone.hi - alone.lo))
  })

  it('negates when the runs are swapped', () => {
    const a = run((i) => i % 2 === 0, ids)
    const b = run((i) => i % 3 === 0, ids)
    const ab = pairedBootstrap(a, b, byId, seq1, { resamples: 400, seed: 9 })
    const ba = pairedBootstrap(b, a, byId, seq1, { resamples: 400, seed: 9 })
    expect(ab.point).toBeCloseTo(-ba.point, 12)
    expect(ab.lo).toBeCloseTo(-ba.hi, 12)
    expect(ab.hi).toBeCloseTo(-ba.lo, 12)
  })

  it('uses only the tasks present in both runs and reports the others', () => {
    const a = run(() => true, [0, 1, 2, 3, 4])
    const b = run(() => false, [3, 4, 5, 2, 6])
    const result = pairedBootstrap(a, b, byId, seq1, { resamples: 20 })
    expect(result.common).toBe(3)
    expect(result.onlyInA).toEqual(['t000', 't001'])
    expect(result.onlyInB).toEqual(['t005', 't006'])
    expect([result.point, result.lo, result.hi]).toEqual([-1, -1, -1])
  })

  it('does not depend on the order of the units in either run', () => {
    const a = run((i) => i % 4 === 0, ids)
    const b = run((i) => i % 5 !== 0, ids)
    const forward = pairedBootstrap(a, b, byId, seq1, { resamples: 200 })
    const reversed = pairedBootstrap([...a].reverse(), [...b].reverse(), byId, seq1, { resamples: 200 })
    expect(reversed).toEqual(forward)
  })

  it('is NaN with no common task, and rejects a key that appears twice in a run', () => {
    const none = pairedBootstrap(
      run(() => true, [1]),
      run(() => true, [2]),
      byId,
      seq1,
      { resamples: 10 },
    )
    expect(none.point).toBeNaN()
    expect(none.lo).toBeNaN()
    expect(none.hi).toBeNaN()
    expect(none).toMatchObject({ common: 0, onlyInA: ['t001'], onlyInB: ['t002'] })
    const twice = run(() => true, [1, 1])
    expect(() =>
      pairedBootstrap(
        twice,
        run(() => true, [1]),
        byId,
        seq1,
      ),
    ).toThrow(/key 't001' appears twice in run a/)
  })
})
