/**
 * A cell's cost estimate before it spends anything: how many calls, tokens and dollars the declared
 * tasks × repeats × K will take. Written beside each cell's declaration (`cells.jsonl`), so after
 * the run the estimate's error can be read beside the actual cost.
 */
import { z } from 'zod'

export const ESTIMATE_SCHEMA = 'seqk.estimate/1'

/**
 * One estimated quantity: `low` if every trajectory were solved at its first attempt, `high` if
 * none were (all K attempts), `expected` under a previous run's stop rates. Not a statistical
 * interval: the bounds of what the declared budget allows, at the per-call tokens stated in the
 * basis. `expected` is null when nothing says how often trajectories stop early; a value is null
 * when it is unknown (an unpriced model), never 0.
 */
export const EstimateRangeSchema = z.object({
  expected: z.number().nonnegative().nullable(),
  low: z.number().nonnegative().nullable(),
  high: z.number().nonnegative().nullable(),
})
export type EstimateRange = z.infer<typeof EstimateRangeSchema>

/** Where a cell's estimate came from. */
export const EstimateBasisSchema = z.object({
  /** `prompts`: prompt sizes and assumed answer sizes only; `previous-run`: a previous run's per-attempt tokens and stop rates. */
  kind: z.enum(['prompts', 'previous-run']),
  /** The previous run read, and how its cell matched this one. */
  runId: z.string().optional(),
  match: z.enum(['same-protocol', 'same-cell', 'same-benchmark-and-mode']).optional(),
  /** How prompt text was counted in tokens (`chars/4`). */
  tokenizer: z.string(),
  /** Prompts only: the assumed output tokens per actor call and feedback tokens per revision. */
  assumed: z
    .object({ outputTokens: z.number().int().nonnegative(), feedbackTokens: z.number().int().nonnegative() })
    .optional(),
  /** Whether helper calls (critic, grader, summariser, annotator) are in the figures. */
  helpers: z.enum(['estimated', 'not estimated']),
  notes: z.array(z.string()),
})
export type EstimateBasis = z.infer<typeof EstimateBasisSchema>

/** One cell's cost estimate made before it ran: calls, tokens and cost, each expected with its range, and its basis. */
export const CellEstimateSchema = z.object({
  schema: z.literal(ESTIMATE_SCHEMA),
  /** Tasks × repeats. */
  trajectories: z.number().int().nonnegative(),
  budget: z.number().int().positive(),
  /** Model calls, every role counted where `basis.helpers` says so. */
  calls: EstimateRangeSchema,
  inputTokens: EstimateRangeSchema,
  outputTokens: EstimateRangeSchema,
  costUsd: EstimateRangeSchema,
  basis: EstimateBasisSchema,
})
/** One cell's cost estimate (see {@link CellEstimateSchema}). */
export type CellEstimate = z.infer<typeof CellEstimateSchema>

/**
 * The estimate's error against what the cell cost: (expected − actual) / actual. Null when either
 * is unknown, or when the actual cost is 0 (no share of nothing).
 *
 * @example
 * estimateError(1.1, 1) // => 0.1: the estimate was 10% high
 */
export function estimateError(expected: number | null, actual: number | null): number | null {
  if (expected === null || actual === null || actual === 0) return null
  return (expected - actual) / actual
}

/**
 * `SEQK_DRY_RUN=1` (or `true`): every cell computes its estimate and skips, no model is called,
 * and the run writes no directory.
 *
 * @example
 * isDryRun({ SEQK_DRY_RUN: '1' }) // => true
 */
export function isDryRun(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return env.SEQK_DRY_RUN === '1' || env.SEQK_DRY_RUN === 'true'
}
