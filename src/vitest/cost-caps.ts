/**
 * Where a cell's cost caps come from: `maxCostUsd` / `maxTokens` of `seqEval` and
 * `SEQK_CELL_MAX_COST_USD` / `SEQK_CELL_MAX_TOKENS` per cell; the reporter's options of the same
 * names and `SEQK_RUN_MAX_COST_USD` / `SEQK_RUN_MAX_TOKENS` per run (every cell of every worker, through
 * the run directory's `spend.jsonl`); `SEQK_SHARDS_MAX_COST_USD` / `SEQK_SHARDS_MAX_TOKENS` over every
 * shard of a task-sharded run together. Where an option and a variable both set a limit, the
 * smaller one holds.
 */
import { join } from 'node:path'
import { CostCapLimitsSchema, type CostCapLimits } from '../core/cost-cap.js'
import { directoryLedger, fileLedger, SPEND_FILE } from '../artifacts/spend-ledger.js'
import { shardFromEnv } from '../protocol/shard.js'
import { unpricedCapProblem, type SpendLedger } from '../protocol/cost-cap.js'
import type { CellSpec } from '../protocol/cell.js'
import type { ChatModel } from '../models/chat-model.js'

/** The variables of the run's cap. */
export const RUN_CAP_ENV = { maxCostUsd: 'SEQK_RUN_MAX_COST_USD', maxTokens: 'SEQK_RUN_MAX_TOKENS' } as const
/** The variables of every cell's cap. */
export const CELL_CAP_ENV = { maxCostUsd: 'SEQK_CELL_MAX_COST_USD', maxTokens: 'SEQK_CELL_MAX_TOKENS' } as const
/** The variables of the cap over every shard of a task-sharded run together. */
export const SHARDS_CAP_ENV = { maxCostUsd: 'SEQK_SHARDS_MAX_COST_USD', maxTokens: 'SEQK_SHARDS_MAX_TOKENS' } as const
/** A directory every shard mounts, where they keep their spend for the shards' cap. */
export const SHARDS_SPEND_DIR_ENV = 'SEQK_SHARDS_SPEND_DIR'

/** The names of one scope's cap variables. */
export interface CapEnvNames {
  readonly maxCostUsd: string
  readonly maxTokens: string
}

/** Raised for a cap variable that is not a positive number, or a USD cap no price can keep. */
export class CostCapError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CostCapError'
  }
}

/**
 * The limits a set of variables gives (empty when none is set).
 *
 * @throws CostCapError naming the variable when its value is not a number > 0 (or an integer, for tokens).
 * @example
 * capsFromEnv({ SEQK_RUN_MAX_COST_USD: '2.5' }, RUN_CAP_ENV) // => { maxCostUsd: 2.5 }
 */
export function capsFromEnv(env: NodeJS.ProcessEnv, names: CapEnvNames): CostCapLimits {
  const out: CostCapLimits = {}
  for (const key of ['maxCostUsd', 'maxTokens'] as const) {
    const raw = env[names[key]]
    if (raw === undefined || raw.trim() === '') continue
    const parsed = CostCapLimitsSchema.safeParse({ [key]: Number(raw) })
    if (!parsed.success) {
      const example = key === 'maxCostUsd' ? '5 (US dollars)' : '200000 (tokens)'
      const why = parsed.error.issues[0]?.message ?? 'invalid'
      throw new CostCapError(`${names[key]}=${JSON.stringify(raw)}: ${why}; unset it or give e.g. ${example}`)
    }
    out[key] = parsed.data[key]
  }
  return out
}

/**
 * The stricter of two sets of limits, each limit the smaller where both set it.
 *
 * @example
 * tighter({ maxCostUsd: 5 }, { maxCostUsd: 2, maxTokens: 9000 }) // => { maxCostUsd: 2, maxTokens: 9000 }
 */
export function tighter(a: CostCapLimits, b: CostCapLimits): CostCapLimits {
  const pick = (x: number | undefined, y: number | undefined) =>
    x === undefined ? y : y === undefined ? x : Math.min(x, y)
  const maxCostUsd = pick(a.maxCostUsd, b.maxCostUsd)
  const maxTokens = pick(a.maxTokens, b.maxTokens)
  return { ...(maxCostUsd !== undefined ? { maxCostUsd } : {}), ...(maxTokens !== undefined ? { maxTokens } : {}) }
}

const hasLimit = (l: CostCapLimits | undefined): l is CostCapLimits =>
  l !== undefined && (l.maxCostUsd !== undefined || l.maxTokens !== undefined)

const ledgers = new Map<string, SpendLedger>()

/**
 * The cap over every shard together (`SEQK_SHARDS_MAX_*`), as this process holds it. With
 * `SEQK_SHARDS_SPEND_DIR` every shard counts the spend all of them keep in that shared directory
 * against the whole limit; without it, each shard holds its declared share (the limit over the shard
 * count), which keeps the total under the limit with no shared storage at all, at the price of a
 * shard that stops while another's share is unspent. Unsharded, the limit is this run's alone.
 */
export function shardsCostCap(
  env: NodeJS.ProcessEnv,
  runDir: string,
): { limits: CostCapLimits; ledger: SpendLedger; share?: { of: CostCapLimits; count: number } } | undefined {
  const total = capsFromEnv(env, SHARDS_CAP_ENV)
  if (!hasLimit(total)) return undefined
  const dir = env[SHARDS_SPEND_DIR_ENV]?.trim()
  if (dir) return { limits: total, ledger: cachedLedger(`dir\u0000${dir}`, () => directoryLedger(dir)) }
  const count = shardFromEnv(env)?.count ?? 1
  const limits: CostCapLimits = {
    ...(total.maxCostUsd !== undefined ? { maxCostUsd: total.maxCostUsd / count } : {}),
    // A token cap is whole tokens: the shares round down, so together they never pass the total.
    ...(total.maxTokens !== undefined ? { maxTokens: Math.max(1, Math.floor(total.maxTokens / count)) } : {}),
  }
  // One session across resumes: the share is of the shard's whole spend, not of one process's.
  const path = join(runDir, SPEND_FILE)
  const ledger = cachedLedger(`${path}\u0000shards`, () => fileLedger(path, 'shards'))
  return { limits, ledger, ...(count > 1 ? { share: { of: total, count } } : {}) }
}

function cachedLedger(key: string, make: () => SpendLedger): SpendLedger {
  let ledger = ledgers.get(key)
  if (!ledger) ledgers.set(key, (ledger = make()))
  return ledger
}

/**
 * A cell's caps as it starts: its own, the run's with the run directory's shared ledger, and the
 * shards' (see `shardsCostCap`).
 *
 * @throws CostCapError when a USD cap applies to an actor with no price (naming it and the fix).
 */
export function cellCostCap(
  actor: ChatModel,
  cell: CostCapLimits | undefined,
  run: { runDir: string; costCap?: { limits: CostCapLimits; session: string } },
): CellSpec['costCap'] {
  const own = tighter(cell ?? {}, capsFromEnv(process.env, CELL_CAP_ENV))
  const runLimits = run.costCap?.limits
  const shards = shardsCostCap(process.env, run.runDir)
  const scopes = [
    [own, 'the cell cap (maxCostUsd, SEQK_CELL_MAX_COST_USD)'],
    [runLimits, 'the run cap (maxCostUsd of the reporter, SEQK_RUN_MAX_COST_USD)'],
    [shards?.limits, 'the cap over every shard (SEQK_SHARDS_MAX_COST_USD)'],
  ] as const
  for (const [limits, where] of scopes) {
    const problem = limits?.maxCostUsd !== undefined ? unpricedCapProblem(actor, where) : undefined
    if (problem) throw new CostCapError(problem)
  }
  const out: NonNullable<CellSpec['costCap']> = {}
  if (hasLimit(own)) out.cell = own
  if (hasLimit(runLimits) && run.costCap) {
    const path = join(run.runDir, SPEND_FILE)
    const session = run.costCap.session
    out.run = { limits: runLimits, ledger: cachedLedger(`${path}\u0000${session}`, () => fileLedger(path, session)) }
  }
  if (shards) out.shards = { limits: shards.limits, ledger: shards.ledger }
  return out.cell || out.run || out.shards ? out : undefined
}
