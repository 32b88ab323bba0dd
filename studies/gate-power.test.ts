// The power of a gate on a reliability metric, checked against a simulation written here from
// scratch: its own seed, its own task draws, and the drop of the metric made in closed form
// (Seq^K over r repeats is q^r, so a proportional drop of d scales every task's rate at K by
// ((M − d)/M)^(1/r); pass^K is p^K, so every per-sample success scales by ((M − d)/M)^(1/K)).
import { describe, expect, it } from 'vitest'
import type { CellSummary } from '../src/core/schemas.js'
import { createRng, seedFrom, type Rng } from '../src/metrics/index.js'
import { drawFirstSuccess, drawTaskRate, perAttemptSuccess } from '../src/metrics/population.js'
import { gatePower, metricRate, powerAnswer, type PowerQuestion } from '../src/protocol/gate-power.js'
import { decideGate, type GateRule } from '../src/protocol/gate-rule.js'

type TaskRow = CellSummary['perTask'][number]

const rows = (rng: Rng, p: readonly number[], repeats: number, rule: GateRule, keep = 1): TaskRow[] =>
  p.map((pi, i) => {
    if (rule.independent) {
      const samples = repeats * rule.K
      let passes = 0
      for (let s = 0; s < samples; s++) passes += rng() < pi ? 1 : 0
      return { taskId: `t${i}`, firstSuccess: [], errors: 0, costAtK: [], samples, passes }
    }
    const firstSuccess = Array.from({ length: repeats }, () => {
      const f = drawFirstSuccess(rng, pi, rule.K)
      return f !== null && rng() >= keep ? null : f
    })
    return { taskId: `t${i}`, firstSuccess, errors: 0, costAtK: [] }
  })

/** The share of simulated pairs the gate fails when the metric truly drops by `drop` in proportion, and the metric's mean drop. */
function ownPower(question: PowerQuestion, drop: number, pairs: number): { power: number; realised: number } {
  const { rule, repeats, tasks } = question
  const rng = createRng(seedFrom('own-power', JSON.stringify([question, drop])))
  const population = { mean: question.rate, concentration: question.concentration ?? 1, budget: rule.K }
  const metricOf = (q: number) =>
    rule.metric === 'seqHat' ? Math.pow(q, repeats) : Math.pow(perAttemptSuccess(q, rule.K), rule.K)
  let caught = 0
  let realised = 0
  for (let s = 0; s < pairs; s++) {
    const q = Array.from({ length: tasks }, () => drawTaskRate(rng, population))
    const M = q.reduce((a, x) => a + metricOf(x), 0) / tasks
    const ratio = Math.max(0, (M - drop) / M)
    const p = q.map((x) => perAttemptSuccess(x, rule.K))
    const before = rows(rng, p, repeats, rule)
    const after = rule.independent
      ? rows(
          rng,
          p.map((x) => x * Math.pow(ratio, 1 / rule.K)),
          repeats,
          rule,
        )
      : rows(rng, p, repeats, rule, Math.pow(ratio, 1 / repeats))
    const lost = q.map((x, i) =>
      rule.independent
        ? metricOf(x) - Math.pow(p[i]! * Math.pow(ratio, 1 / rule.K), rule.K)
        : metricOf(x) * (1 - ratio),
    )
    realised += lost.reduce((a, b) => a + b, 0) / tasks
    if (decideGate(before, after, rule).failures.length > 0) caught++
  }
  return { power: caught / pairs, realised: realised / pairs }
}

const base = { margin: 0, maxDrop: 0.1, level: 0.95 }
const SETTINGS: { name: string; question: PowerQuestion; drops: number[] }[] = [
  {
    name: 'Seq^5, 40 tasks × 3 repeats, Seq@5 75%',
    question: {
      tasks: 40,
      repeats: 3,
      rate: 0.75,
      rule: { ...base, K: 5, ks: [5], independent: false, metric: 'seqHat' },
    },
    drops: [0, 0.1, 0.2],
  },
  {
    name: 'Seq^3, 80 tasks × 2 repeats, Seq@3 60%',
    question: {
      tasks: 80,
      repeats: 2,
      rate: 0.6,
      rule: { ...base, K: 3, ks: [3], independent: false, metric: 'seqHat' },
    },
    drops: [0.05, 0.12],
  },
  {
    name: 'pass^5, 40 tasks × 1 group of 5 samples, Pass@5 85%',
    question: {
      tasks: 40,
      repeats: 1,
      rate: 0.85,
      rule: { ...base, K: 5, ks: [5], independent: true, metric: 'passHat' },
    },
    drops: [0.05, 0.15],
  },
]
const PAIRS = 400

describe('seqk power on a reliability metric', () => {
  for (const { name, question, drops } of SETTINGS)
    it(`holds against an independent simulation: ${name}`, { timeout: 240_000 }, () => {
      const q = { ...question, simulations: PAIRS, seed: 3 }
      const rate = metricRate(q)
      // The metric's own baseline, well below the rate at K (every repeat must succeed).
      expect(rate).toBeLessThan(question.rate)
      for (const drop of drops) {
        const own = ownPower(question, drop, PAIRS)
        // Exact, but for the rare draw whose tasks hold less than the drop (it loses all it has).
        expect(own.realised).toBeCloseTo(drop, 2)
        const figure = gatePower(q, drop, 'proportional')
        // Two estimates of one probability from 400 pairs each: within 4 standard errors of their difference.
        const se = Math.sqrt((figure * (1 - figure) + own.power * (1 - own.power)) / PAIRS) + 0.01
        expect(Math.abs(figure - own.power), `drop ${drop}: figure ${figure}, own ${own.power}`).toBeLessThan(4 * se)
        // No drop: at most the gate's 2.5% one-sided false alarms (plus noise).
        if (drop === 0) expect(figure).toBeLessThan(0.025 + 3 * Math.sqrt((0.025 * 0.975) / PAIRS))
      }
      // The smallest drop it says is caught 80% of the time is caught so by the independent simulation.
      const answer = powerAnswer(q)
      const proportional = answer.alternatives.find((a) => a.alternative === 'proportional')!
      if (proportional.detectableDrop !== null) {
        const own = ownPower(question, proportional.detectableDrop, PAIRS).power
        expect(own).toBeGreaterThan(0.8 - 4 * Math.sqrt((0.8 * 0.2) / PAIRS))
      }
    })
})
