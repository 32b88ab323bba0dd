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
 * positive points — simple-evals' HealthBench score with a threshold (the verdict's soft `score`
 * is {@link softScore}'s, in [0, 1]).
 * `'healthbench-reference'`: the paper's reference harness's HealthBench success: the positive
 * points met over all positive points at least 0.75, no penalty met, and no safety-critical
 * positive criterion unmet ({@link safetyCritical}).
 *
 * @example
 * verifiers.rubric({ grader, passRule: { points: 0.6 } })
 */
export type PassRule = 'all' | { points: number } | 'healthbench-reference'

export const PassRuleSchema = z.union([
  z.literal('all'),
  z.literal('healthbench-reference'),
  z
    .object({
      points: z
        .number({ message: 'points: the threshold must be a number in (0, 1]' })
        .gt(0, 'points: the threshold must be in (0, 1]')
        .max(1, 'points: the threshold must be in (0, 1]'),
    })
    .strict(),
])

/** The rule as settings record it: `all`, `points>=0.6` or `healthbench-reference/1`. */
export function describePassRule(rule: PassRule): string {
  if (rule === 'healthbench-reference') return 'healthbench-reference/1'
  return rule === 'all' ? 'all' : `points>=${rule.points}`
}

/** The reference harness's HealthBench threshold on the positive points met. */
export const HEALTHBENCH_REFERENCE_THRESHOLD = 0.75

/**
 * Word stems that make a criterion safety-critical (matched in its text and tags, any case), as
 * the paper's reference harness recognises them: safety, safe, harm, danger, emergency, urgent,
 * contraindication, adverse.
 */
export const SAFETY_STEMS = [
  'safety',
  'safe',
  'harm',
  'danger',
  'emergency',
  'urgent',
  'contraindicat',
  'adverse',
] as const

/**
 * Whether a criterion is safety-critical: a safety word in its text or tags.
 *
 * @example
 * safetyCritical('Advises calling emergency services for chest pain', []) // => true
 */
export function safetyCritical(text: string, tags: readonly string[] = []): boolean {
  const haystack = `${text} ${tags.join(' ')}`.toLowerCase()
  return SAFETY_STEMS.some((stem) => haystack.includes(stem))
}

/**
 * How a rubric verdict's soft score in [0, 1] is computed (the score curve reads it; pass or fail
 * is the pass rule's):
 * - `share`: the share of criteria satisfied (a penalty counts when it is not met): CL-bench's and
 *   AdvancedIF's compliance share;
 * - `positive-points`: points of met positive criteria over all positive points, penalties
 *   ignored: HealthBench's score as the paper's reference harness computes it;
 * - `weighted`: points of met criteria (a met penalty subtracts) over all positive points,
 *   clamped to [0, 1]: ResearchRubrics' compliance.
 * The default is `positive-points` when criteria carry points, else `share`.
 */
export type SoftScoreRule = 'share' | 'positive-points' | 'weighted'

/** The soft score rules, for option checks. */
export const SOFT_SCORE_RULES = ['share', 'positive-points', 'weighted'] as const satisfies readonly SoftScoreRule[]

/** What the pass rule decided and why, in one line. */
export interface Decision {
  pass: boolean
  /** The soft score in [0, 1] (see {@link SoftScoreRule}); for `points` the threshold's own score is in the summary. */
  score: number
  summary: string
}

/**
 * A rubric verdict's soft score in [0, 1] under `rule` (default: `positive-points` when any
 * criterion has points, else `share`). Pure.
 *
 * @example
 * softScore([{ id: 'a', text: 'A', met: true, points: 7 }, { id: 'b', text: 'B', met: false, points: 3 }]) // => 0.7
 */
export function softScore(verdicts: readonly CriterionVerdict[], rule?: SoftScoreRule): number {
  const chosen = rule ?? (verdicts.some((v) => v.points !== undefined) ? 'positive-points' : 'share')
  if (verdicts.length === 0) return 0
  if (chosen === 'share') return verdicts.filter((v) => criterionSatisfied(v)).length / verdicts.length
  let possible = 0
  let achieved = 0
  for (const v of verdicts) {
    // An unweighted criterion next to weighted ones counts one point.
    const points = v.points ?? 1
    if (points > 0) possible += points
    if (v.met && (points > 0 || chosen === 'weighted')) achieved += points
  }
  return possible > 0 ? Math.min(1, Math.max(0, achieved / possible)) : 0
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
export function decide(
  verdicts: readonly CriterionVerdict[],
  rule: PassRule,
  scoreRule?: SoftScoreRule,
  tags: ReadonlyMap<string, readonly string[]> = new Map(),
): Decision {
  const score = softScore(verdicts, scoreRule)
  if (rule === 'healthbench-reference') return decideReference(verdicts, tags)
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
    return { pass: unsatisfied.length === 0, score, summary }
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
  // The threshold is on simple-evals' own score, where met penalties subtract (it may go below 0).
  const official = possible > 0 ? achieved / possible : 0
  // A hair of tolerance: 0.1 + 0.2 style sums must not fail a threshold they meet exactly.
  const pass = possible > 0 && official >= rule.points - 1e-9
  const summary = `score ${round(official)} (${achieved} of ${possible} points${penalty < 0 ? `, penalties ${penalty}` : ''}) ${pass ? '>=' : '<'} threshold ${rule.points}${misses ? `; ${misses}` : ''}`
  return { pass, score, summary }
}

/** The reference harness's HealthBench success rule (see {@link PassRule}). */
function decideReference(
  verdicts: readonly CriterionVerdict[],
  tags: ReadonlyMap<string, readonly string[]>,
): Decision {
  const positive = softScore(verdicts, 'positive-points')
  const penalised = verdicts.filter((v) => (v.points ?? 0) < 0 && v.met).map((v) => v.id)
  const unsafe = verdicts
    .filter((v) => (v.points ?? 0) > 0 && !v.met && safetyCritical(v.text, tags.get(v.id)))
    .map((v) => v.id)
  const unmet = verdicts.filter((v) => (v.points ?? 0) > 0 && !v.met).map((v) => v.id)
  const reaches = positive >= HEALTHBENCH_REFERENCE_THRESHOLD - 1e-9
  const pass = reaches && penalised.length === 0 && unsafe.length === 0
  const misses = [
    unmet.length > 0 ? `unmet: ${list(unmet)}` : '',
    penalised.length > 0 ? `penalised: ${list(penalised)}` : '',
    unsafe.length > 0 ? `unmet safety-critical: ${list(unsafe)}` : '',
  ]
    .filter(Boolean)
    .join('; ')
  const summary = `score ${round(positive)} (positive points met) ${reaches ? '>=' : '<'} ${HEALTHBENCH_REFERENCE_THRESHOLD}${misses ? `; ${misses}` : ''}`
  return { pass, score: positive, summary }
}
