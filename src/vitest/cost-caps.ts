/**
 * Where a cell's cost caps come from: `maxCostUsd` / `maxTokens` of `seqEval` and
 * `SEQK_CELL_MAX_COST_USD` / `SEQK_CELL_MAX_TOKENS` per cell; the reporter's options of the same
 * names and `SEQK_RUN_MAX_COST_USD` / `SEQK_RUN_MAX_TOKENS` per run (every cell of every worker, through
 * the run directory's `spend.jsonl`). Where an option and a variable both set a limit, the smaller
 * one holds.
 */
import { join } from 'node:path'
import { CostCapLimitsSchema, type CostCapLimits } from '../core/cost-cap.js'
import { fileLedger, SPEND_FILE } from '../artifacts/spend-ledger.js'
import { unpricedCapProblem, type SpendLedger } from '../protocol/cost-cap.js'
import type { CellSpec } from '../protocol/cell.js'
import type { ChatModel } from '../models/chat-model.js'

/** The variables of the run's cap. */
export const RUN_CAP_ENV = { maxCostUsd: 'SEQK_RUN_MAX_COST_USD', maxTokens: 'SEQK_RUN_MAX_TOKENS' } as const
/** The variables of every cell's cap. */
export const CELL_CAP_ENV = { maxCostUsd: 'SEQK_CELL_MAX_COST_USD', maxTokens: 'SEQK_CELL_MAX_TOKENS' } as const

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
export function capsFromEnv(env: NodeJS.ProcessEnv, names: typeof RUN_CAP_ENV | typeof CELL_CAP_ENV): CostCapLimits {
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
 * A cell's caps as it starts: its own, and the run's with the run directory's shared ledger.
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
  const scopes = [
    [own, 'the cell cap (maxCostUsd, SEQK_CELL_MAX_COST_USD)'],
    [runLimits, 'the run cap (maxCostUsd of the reporter, SEQK_RUN_MAX_COST_USD)'],
  ] as const
  for (const [limits, where] of scopes) {
    const problem = limits?.maxCostUsd !== undefined ? unpricedCapProblem(actor, where) : undefined
    if (problem) throw new CostCapError(problem)
  }
  const out: NonNullable<CellSpec['costCap']> = {}
  if (hasLimit(own)) out.cell = own
  if (hasLimit(runLimits) && run.costCap) {
    const path = join(run.runDir, SPEND_FILE)
    let ledger = ledgers.get(`${path}\u0000${run.costCap.session}`)
    if (!ledger) ledgers.set(`${path}\u0000${run.costCap.session}`, (ledger = fileLedger(path, run.costCap.session)))
    out.run = { limits: runLimits, ledger }
  }
  return out.cell || out.run ? out : undefined
}
