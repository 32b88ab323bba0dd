import { describe, expect, it } from 'vitest'
import type { CriterionVerdict } from '../verifier.js'
import fc from 'fast-check'
import { decide, describePassRule, PassRuleSchema, softScore, SOFT_SCORE_RULES } from './pass-rule.js'

const v = (id: string, met: boolean, points?: number): CriterionVerdict => ({
  id,
  text: id,
  met,
  ...(points !== undefined ? { points } : {}),
})

describe("pass rule 'all'", () => {
  it('passes only when every criterion is satisfied, and lists the misses', () => {
    expect(decide([v('a', true), v('b', true)], 'all')).toEqual({
      pass: true,
      score: 1,
      summary: '2 of 2 criteria met',
    })
    expect(decide([v('a', true), v('b', false), v('c', false)], 'all')).toMatchObject({
      pass: false,
      summary: '1 of 3 criteria met; unmet: b, c',
    })
    expect(decide([v('a', true), v('b', false)], 'all').score).toBe(0.5)
  })

  it('treats a met penalty as a miss and an unmet one as satisfied (HealthBench "no penalty met")', () => {
    expect(decide([v('a', true, 5), v('p', false, -5)], 'all').pass).toBe(true)
    // The soft score of pointed criteria is the reference's positive points met: the penalty fails the rule only.
    expect(decide([v('a', true, 5), v('p', true, -5)], 'all')).toEqual({
      pass: false,
      score: 1,
      summary: '1 of 2 criteria met; penalised: p',
    })
    expect(decide([v('a', true, 5), v('p', true, -5)], 'all', 'share').score).toBe(0.5)
  })
})

describe('pass rule { points }', () => {
  it('is the official HealthBench score (simple-evals calculate_score) against a threshold', () => {
    // healthbench_eval_test.py: points 7, 5, 10, -6; met, unmet, met, met => (7 + 10 - 6) / 22.
    const verdicts = [v('a', true, 7), v('b', false, 5), v('c', true, 10), v('d', true, -6)]
    const d = decide(verdicts, { points: 0.5 })
    // The threshold reads simple-evals' score (11 / 22, in the summary); the soft score the reference's (17 / 22).
    expect(d.score).toBeCloseTo(17 / 22, 12)
    expect(d.pass).toBe(true)
    expect(d.summary).toBe('score 0.5 (11 of 22 points, penalties -6) >= threshold 0.5; unmet: b; penalised: d')
    expect(decide(verdicts, { points: 0.6 }).pass).toBe(false)
  })

  it('thresholds a score that can go negative, and tolerates float error at the threshold', () => {
    const negative = decide([v('a', false, 2), v('p', true, -8)], { points: 0.1 })
    expect([negative.pass, negative.score]).toEqual([false, 0])
    expect(negative.summary).toMatch(/^score -4 /)
    expect(decide([v('a', true, 0.1), v('b', true, 0.2), v('c', false, 0.7)], { points: 0.3 }).pass).toBe(true)
  })
})

describe('softScore', () => {
  it('is the share satisfied, the positive points met, or the weighted compliance, always in [0, 1]', () => {
    const verdicts = [v('a', true, 7), v('b', false, 5), v('c', true, 10), v('d', true, -6)]
    expect(softScore(verdicts)).toBeCloseTo(17 / 22, 12)
    expect(softScore(verdicts, 'positive-points')).toBeCloseTo(17 / 22, 12)
    expect(softScore(verdicts, 'weighted')).toBeCloseTo(11 / 22, 12)
    expect(softScore(verdicts, 'share')).toBe(0.5)
    expect(softScore([v('a', true), v('b', false)])).toBe(0.5)
    expect(softScore([v('a', false, 1), v('p', true, -3)], 'weighted')).toBe(0)
    expect(softScore([])).toBe(0)
  })

  it('stays in [0, 1] and never falls when one more criterion is met (fast-check)', () => {
    const criterion = fc.record({
      met: fc.boolean(),
      points: fc.option(
        fc.integer({ min: -10, max: 10 }).filter((p) => p !== 0),
        { nil: undefined },
      ),
    })
    fc.assert(
      fc.property(
        fc.array(criterion, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(...SOFT_SCORE_RULES),
        (cs, rule) => {
          const verdicts = cs.map((c, i) => v(`c${i}`, c.met, c.points ?? undefined))
          const score = softScore(verdicts, rule)
          expect(score).toBeGreaterThanOrEqual(0)
          expect(score).toBeLessThanOrEqual(1)
          const i = verdicts.findIndex((x) => !x.met && (x.points ?? 1) > 0)
          if (i >= 0) {
            const better = verdicts.map((x, j) => (j === i ? { ...x, met: true } : x))
            expect(softScore(better, rule)).toBeGreaterThanOrEqual(score - 1e-12)
          }
        },
      ),
      { seed: 46, numRuns: 300 },
    )
  })
})

describe('describePassRule and PassRuleSchema', () => {
  it('describes the rule for settings', () => {
    expect(describePassRule('all')).toBe('all')
    expect(describePassRule({ points: 0.6 })).toBe('points>=0.6')
  })

  it('accepts all or a threshold in (0, 1]', () => {
    expect(PassRuleSchema.safeParse('all').success).toBe(true)
    expect(PassRuleSchema.safeParse({ points: 1 }).success).toBe(true)
    for (const bad of [{ points: 0 }, { points: 1.2 }, 'most', { points: 0.5, x: 1 }])
      expect(PassRuleSchema.safeParse(bad).success).toBe(false)
  })
})
