import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { stillWorking, type SlowJudge } from './pool.js'

/** The backstop's checks over a judge whose tree spends `perCheckMs` of CPU every 5 s check. */
function checksBeforeKill(perCheckMs: number, timeoutMs: number): number {
  let slow: SlowJudge | undefined
  let cpu = 500
  for (let check = 0; check < 1_000; check++) {
    slow = stillWorking(slow, cpu, timeoutMs)
    if (!slow) return check
    cpu += perCheckMs
  }
  return Infinity
}

describe('stillWorking (the backstop past its wall time)', () => {
  it('kills at once where CPU cannot be read, as the wall-time backstop did', () => {
    expect(stillWorking(undefined, undefined, 1_000)).toBeUndefined()
  })

  it('kills a judge that spends nothing (blocked, stopped) at the first look again', () => {
    expect(checksBeforeKill(0, 1_000)).toBe(1)
    expect(checksBeforeKill(50, 1_000)).toBe(1) // 1% of a core: a poll loop, not work
  })

  it('lets a slow judge spend the CPU its own limits allow, then kills it: the C loop on an eighth of a core', () => {
    // 5 s checks at an eighth of a core: 625 ms each; 2 × 1 s + 10 s of CPU past the backstop.
    const checks = checksBeforeKill(625, 1_000)
    expect(checks).toBeGreaterThan(4) // the 3 s of CPU the judge's own timer allows fit in
    expect(checks).toBeLessThanOrEqual(21)
  })

  it('bounds every judge, however it spends: at most 36 checks and the CPU bound (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 100, max: 60_000 }), (per, timeoutMs) => {
        const checks = checksBeforeKill(per, timeoutMs)
        expect(checks).toBeLessThanOrEqual(36)
        // Never lets the tree spend more than twice the timeout plus 10 s past the first look (one check of slack).
        if (per > 0) expect((checks - 1) * per).toBeLessThanOrEqual(2 * timeoutMs + 10_000 + per)
      }),
      { seed: 44, numRuns: 200 },
    )
  })
})
