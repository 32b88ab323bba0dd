/**
 * Cost caps as the contract stores them: the limits a cell or a run is held to, and why a
 * trajectory was stopped at one. A trajectory stopped at a cap is `capped`: it neither passed nor
 * failed, and its statistics treat it as unfinished.
 */
import { z } from 'zod'

/** What a cap can count: dollars, or tokens (input, cached included, plus output). */
export const CAP_LIMITS = ['maxCostUsd', 'maxTokens'] as const
/** A cap's unit: `maxCostUsd` or `maxTokens`. */
export type CapLimit = (typeof CAP_LIMITS)[number]

/**
 * Where a cap applies: one cell, every cell of the run (all workers together), or every shard of a
 * task-sharded run together (or this shard's declared share of that).
 */
export const CAP_SCOPES = ['cell', 'run', 'shards'] as const
/** Where a cap applies: `cell`, `run` or `shards`. */
export type CapScope = (typeof CAP_SCOPES)[number]

/** The limits one scope is held to; either may be absent (no limit of that kind). */
export const CostCapLimitsSchema = z
  .object({
    maxCostUsd: z
      .number({ message: 'maxCostUsd must be a number of US dollars > 0' })
      .positive('maxCostUsd must be > 0 (US dollars)')
      .optional(),
    maxTokens: z
      .number({ message: 'maxTokens must be an integer > 0' })
      .int('maxTokens must be an integer > 0')
      .positive('maxTokens must be > 0')
      .optional(),
  })
  .strict()
/** The limits one scope is held to. */
export type CostCapLimits = z.infer<typeof CostCapLimitsSchema>

/**
 * Why a trajectory was stopped: which scope's limit was reached, the limit, and what had been spent
 * in that scope when it was checked (`null`: a call's cost or usage was unknown, so the cap could not
 * be kept and the scope stopped rather than read it as zero).
 */
export const CapStopSchema = z.object({
  scope: z.enum(CAP_SCOPES),
  limit: z.enum(CAP_LIMITS),
  cap: z.number().positive(),
  spent: z.number().nonnegative().nullable(),
  /** The attempts it had made when it stopped: 0 when it never started (those made are kept on it). */
  afterAttempt: z.number().int().nonnegative(),
})
/** Why a trajectory was stopped at a cost cap. */
export type CapStop = z.infer<typeof CapStopSchema>

/** A cell's cost-cap block in its summary: why it stopped, and how many trajectories did not finish. */
export const CellCostCapSchema = z.object({
  stop: CapStopSchema,
  /** Trajectories stopped at the cap: never started, or stopped at their next model call. */
  capped: z.number().int().positive(),
  notStarted: z.number().int().nonnegative(),
})
export type CellCostCap = z.infer<typeof CellCostCapSchema>
