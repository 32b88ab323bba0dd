/**
 * Pass rules: how per-criterion verdicts become V(y) in {0,1}.
 */
import { z } from 'zod'
import type { CriterionVerdict } from '../verifier.js'
import { criterionSatisfied } from '../../core/contract.js'

/**
 * `'all'`: every criterion satisfied (met, and penalties not met) — AdvancedIF and CL-bench, and
 * HealthBench's "all positive criteria met and no penalty met".
 * `{ points: t }`: score >= t, where score = points of met criteria (penalties subtract) / sum of
 * positive points — HealthBench's score with a threshold.
 *
 * @example
 * verifiers.rubric({ grader, passRule: { points: 0.6 } })
 */
export type PassRule = 'all' | { points: number }

export const PassRuleSchema = z.union([
  z.literal('all'),
  z
    .object({
      points: z
        .number({ message: 'points: the threshold must be a number in (0, 1]' })
        .gt(0, 'points: the threshold must be in (0, 1]')
        .max(1, 'points: the threshold must be in (0, 1]'),
    })
    .strict(),
])

/** The rule as settings record it: `all` or `points>=0.6`. */
export function describePassRule(rule: PassRule): string {
  return rule === 'all' ? 'all' : `points>=${rule.points}`
}

/** What the pass rule decided and why, in one line. */
export interface Decision {
  pass: boolean
  /** Share of criteria satisfied (`all`) or the HealthBench score (`points`, may be negative). */
  score: number
  summary: string
}

function list(ids: readonly string[], max = 8): string {
  return ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')}, … (${ids.length - max} more)`
}

function round(x: number): string {
  return String(Math.round(x * 1000) / 1000)
}

/**
 * Applies a pass rule to criterion verdicts (pure).
 *
 * @example
 * decide([{ id: 'a', text: 'A', met: true }, { id: 'b', text: 'B', met: false }], 'all')
 * // => { pass: false, score: 0.5, summary: '1 of 2 criteria met; unmet: b' }
 */
export function decide(verdicts: readonly CriterionVerdict[], rule: PassRule): Decision {
  const unsatisfied = verdicts.filter((v) => !criterionSatisfied(v))
  const penalties = unsatisfied.filter((v) => v.points !== undefined && v.points < 0).map((v) => v.id)
  const unmet = unsatisfied.filter((v) => !(v.points !== undefined && v.points < 0)).map((v) => v.id)
  const misses = [
    unmet.length > 0 ? `unmet: ${list(unmet)}` : '',
    penalties.length > 0 ? `penalised: ${list(penalties)}` : '',
  ]
    .filter(Boolean)
    .join('; ')
  if (rule === 'all') {
    const ok = verdicts.length - unsatisfied.length
    const summary = `${ok} of ${verdicts.length} criteria met${misses ? `; ${misses}` : ''}`
    return { pass: unsatisfied.length === 0, score: verdicts.length === 0 ? 0 : ok / verdicts.length, summary }
  }
  let possible = 0
  let achieved = 0
  let penalty = 0
  for (const v of verdicts) {
    const points = v.points ?? 0
    if (points > 0) possible += points
    if (v.met) {
      achieved += points
      if (points < 0) penalty += points
    }
  }
  const score = possible > 0 ? achieved / possible : 0
  // A hair of tolerance: 0.1 + 0.2 style sums must not fail a threshold they meet exactly.
  const pass = possible > 0 && score >= rule.points - 1e-9
  const summary = `score ${round(score)} (${achieved} of ${possible} points${penalty < 0 ? `, penalties ${penalty}` : ''}) ${pass ? '>=' : '<'} threshold ${rule.points}${misses ? `; ${misses}` : ''}`
  return { pass, score, summary }
}
