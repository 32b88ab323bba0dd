// The laws of the gate's power simulation, at sizes that run in the unit loop. Whether its figures
// hold against a simulation written from scratch is a Monte-Carlo study of minutes
// (studies/gate-power.test.ts, in the long lane).
import { describe, expect, it } from 'vitest'
import { createRng } from '../metrics/index.js'
import { detectableDrop, droppedRates, gatePower, metricRate, powerAnswer, type PowerQuestion } from './gate-power.js'
import type { GateRule } from './gate-rule.js'

const rule: GateRule = { K: 5, ks: [5], independent: false, margin: 0, maxDrop: 0.1, level: 0.95 }
const question: PowerQuestion = { tasks: 40, repeats: 3, rate: 0.75, rule, simulations: 120, seed: 5 }
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length

describe('droppedRates', () => {
  const q = Array.from({ length: 30 }, (_, i) => (i % 10) / 10 + 0.05)

  it('takes exactly the drop from the tasks drawn, in proportion or whole tasks at a time', () => {
    for (const alternative of ['proportional', 'concentrated'] as const) {
      const after = droppedRates(createRng(1), q, 0.2, mean(q), alternative)
      expect(mean(after), alternative).toBeCloseTo(mean(q) - 0.2, 12)
      for (const [i, x] of after.entries()) {
        expect(x, alternative).toBeGreaterThanOrEqual(0)
        expect(x, alternative).toBeLessThanOrEqual(q[i]!)
      }
    }
    // Proportional: every task keeps the same share of its rate.
    const scaled = droppedRates(createRng(1), q, 0.2, mean(q), 'proportional')
    for (const [i, x] of scaled.entries()) expect(x / q[i]!).toBeCloseTo(1 - 0.2 / mean(q), 12)
    // Concentrated: all but one task are untouched or broken outright.
    const broken = droppedRates(createRng(1), q, 0.2, mean(q), 'concentrated')
    expect(broken.filter((x, i) => x !== 0 && x !== q[i]).length).toBeLessThanOrEqual(1)
  })

  it('leaves every task at zero for a drop of the whole rate or more', () => {
    expect(droppedRates(createRng(1), q, 1, mean(q), 'proportional').every((x) => x === 0)).toBe(true)
  })
})

describe('gatePower', () => {
  it('is seeded: the same question gives the same power', () => {
    expect(gatePower(question, 0.1)).toBe(gatePower({ ...question }, 0.1))
  })

  it('grows with the drop, from the false alarms of no drop to certainty at the whole rate', () => {
    for (const alternative of ['proportional', 'concentrated'] as const) {
      const powers = [0, 0.05, 0.1, 0.2, 0.4].map((drop) => gatePower(question, drop, alternative))
      expect(powers, alternative).toEqual([...powers].sort((a, b) => a - b))
      // The gate's one-sided 2.5% false alarms, with room for 120 simulations' noise.
      expect(powers[0], alternative).toBeLessThan(0.025 + 3 * Math.sqrt((0.025 * 0.975) / 120))
      expect(powers.at(-1), alternative).toBeGreaterThan(0.95)
    }
  })
})

describe('detectableDrop and powerAnswer', () => {
  it('finds the smallest drop on the 1-point grid caught at least 80% of the time', () => {
    const drop = detectableDrop(question)!
    expect(drop).toBeGreaterThan(0)
    expect(gatePower(question, drop)).toBeGreaterThanOrEqual(0.8)
    expect(gatePower(question, Math.round((drop - 0.01) * 100) / 100)).toBeLessThan(0.8)
  })

  it('says none is caught when the run is too small, and the rate of the headline is the question’s', () => {
    expect(detectableDrop({ ...question, tasks: 2, repeats: 1 })).toBeNull()
    expect(metricRate(question)).toBe(0.75)
    // Seq^5 over 3 repeats needs every repeat: its baseline is well below Seq@5.
    expect(metricRate({ ...question, rule: { ...rule, metric: 'seqHat' } })).toBeLessThan(0.75)
  })

  it('reports the weaker alternative: the larger detectable drop, the lower power at each round drop', () => {
    const answer = powerAnswer(question)
    const drops = answer.alternatives.map((a) => a.detectableDrop!)
    expect(answer.detectableDrop).toBe(Math.max(...drops))
    for (const [i, at] of answer.at.entries())
      expect(at.power).toBe(Math.min(...answer.alternatives.map((a) => a.at[i]!.power)))
    expect(answer.at.map((a) => a.drop)).toEqual([0.05, 0.1])
  })
})
