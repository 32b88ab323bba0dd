/**
 * Cost caps: a meter the loop charges after every model call and asks before the next one. When a
 * scope (the cell, or the run across every worker) has reached its limit, no new trajectory starts
 * and a running one stops at its next model call; the calls already in flight finish, so a scope
 * overshoots by at most one call per trajectory in flight. Two paths make several calls at once
 * and hold to the same bound: a batched actor's independent samples are reserved before they are
 * submitted (as many as fit at the largest cost of one call so far; 54 calls over a cap with a
 * bound of 16 before), and an agent's episode asks before each turn and is charged after each
 * (37 calls over a bound of 2 before). Unknown spend is never read as zero: a call that reported
 * no usage, or that no price covers, stops the scope whose limit it counts.
 */
import type { CapLimit, CapScope, CapStop, CostCapLimits } from '../core/cost-cap.js'
import type { Usage } from '../core/contract.js'
import type { CallBudget } from '../models/chat-model.js'
import type { Attempt } from '../core/schemas.js'
import { money, plural } from '../metrics/format.js'

export type { CapStop, CostCapLimits } from '../core/cost-cap.js'

/** What one call spent, as the meter counts it: `null` when unknown. */
export interface Charge {
  costUsd: number | null
  /** Input (cached included) plus output tokens; `null` when the reply reported no usage. */
  tokens: number | null
}

/** A scope's running total: `null` once anything it counted was unknown. */
export interface Spent {
  costUsd: number | null
  tokens: number | null
}

/**
 * Where a scope's spend is kept. A cell keeps it in memory; a run shares it between workers
 * (`artifacts/spend-ledger.ts`), so `spent()` includes what other processes charged.
 */
export interface SpendLedger {
  add(charge: Charge): void
  spent(): Spent
}

/** A ledger in memory (a cell's, or a run's within one process). */
export function memoryLedger(): SpendLedger {
  const total: Spent = { costUsd: 0, tokens: 0 }
  return {
    add(charge) {
      total.costUsd = total.costUsd === null || charge.costUsd === null ? null : total.costUsd + charge.costUsd
      total.tokens = total.tokens === null || charge.tokens === null ? null : total.tokens + charge.tokens
    },
    spent: () => ({ ...total }),
  }
}

/** The charge of one call from its usage and cost (unknown stays unknown). */
export function chargeOf(call: { usage: Usage | null; costUsd: number | null }): Charge {
  return {
    costUsd: call.costUsd,
    tokens: call.usage === null ? null : call.usage.inputTokens + call.usage.outputTokens,
  }
}

/** What an attempt's actor is given as its call budget, and whether it charged through it. */
export interface AttemptBudget extends CallBudget {
  used: boolean
}

/** Calls reserved before they are submitted together: how many may go, and the release of the hold. */
export interface Reservation {
  granted: number
  /** Gives the hold back (once); the calls made are charged as usual. */
  release(): void
}

/** One scope the meter holds: its limits and its ledger. */
export interface CapScopeSpec {
  scope: CapScope
  limits: CostCapLimits
  ledger: SpendLedger
}

/**
 * Charges every scope, and says whether any has reached its limit. The first stop it finds is
 * kept: once stopped, a scope stays stopped (a cap is not lifted by a cheaper call later).
 */
export class CostMeter {
  private stopped: Omit<CapStop, 'afterAttempt'> | undefined
  /** The largest known charge of one call so far: what a reservation holds for each call. */
  private largest: { costUsd: number; tokens: number } | undefined
  /** Calls an actor's budget charged as they were made: not charged again with their attempt or error. */
  private readonly precharged = new WeakSet<object>()

  constructor(private readonly scopes: readonly CapScopeSpec[]) {}

  /** Whether this meter holds any limit at all (without one, the loop skips it). */
  get active(): boolean {
    return this.scopes.some((s) => s.limits.maxCostUsd !== undefined || s.limits.maxTokens !== undefined)
  }

  charge(calls: readonly { usage: Usage | null; costUsd: number | null }[]): void {
    for (const call of calls) {
      if (this.precharged.has(call)) continue
      const charge = chargeOf(call)
      for (const s of this.scopes) s.ledger.add(charge)
      if (charge.costUsd !== null && charge.tokens !== null)
        this.largest = {
          costUsd: Math.max(this.largest?.costUsd ?? 0, charge.costUsd),
          tokens: Math.max(this.largest?.tokens ?? 0, charge.tokens),
        }
    }
  }

  /**
   * Charges an attempt's calls: the actor's, its helpers' and the revision annotator's. The actor's
   * own is left out when its `budget` charged its calls as they were made (an agent's turns).
   */
  chargeAttempt(attempt: Attempt, budget?: AttemptBudget): void {
    const helpers = [...attempt.helperCalls, ...(attempt.annotation?.calls ?? [])]
    this.charge(budget?.used ? helpers : [attempt, ...helpers])
  }

  /**
   * The budget an attempt's actor gets in its call context (see CallBudget): it stops a further
   * call inside the attempt once a cap is reached, and charges each call as it is made.
   * `afterAttempt` is the attempts the trajectory had finished before this one.
   */
  budget(afterAttempt: number): AttemptBudget {
    const budget: AttemptBudget = {
      used: false,
      stop: () => this.stop(afterAttempt),
      charge: (call) => {
        budget.used = true
        this.charge([call])
        this.precharged.add(call)
      },
    }
    return budget
  }

  /**
   * Reserves up to `wanted` calls that are about to be submitted together (a batched actor's
   * samples): as many as fit under every limit at the largest cost of one call so far, and at
   * least one (a trajectory not stopped may make one call: the bound's allowance); one alone
   * until a call's cost is known. The reservation counts as spent, in the run's shared ledger
   * too, until it is released (then charge the calls themselves).
   */
  reserve(wanted: number): Reservation {
    const per = this.largest
    if (per === undefined || wanted <= 1) return { granted: Math.min(1, wanted), release: () => {} }
    let granted = wanted
    for (const s of this.scopes) {
      const spent = s.ledger.spent()
      const room = (cap: number | undefined, used: number | null, each: number) =>
        cap === undefined || each <= 0 ? Infinity : used === null ? 0 : Math.floor((cap - used) / each)
      granted = Math.min(
        granted,
        room(s.limits.maxCostUsd, spent.costUsd, per.costUsd),
        room(s.limits.maxTokens, spent.tokens, per.tokens),
      )
    }
    granted = Math.max(1, granted)
    const held: Charge = { costUsd: granted * per.costUsd, tokens: granted * per.tokens }
    for (const s of this.scopes) s.ledger.add(held)
    let released = false
    return {
      granted,
      release: () => {
        if (released) return
        released = true
        const back: Charge = { costUsd: -held.costUsd!, tokens: -held.tokens! }
        for (const s of this.scopes) s.ledger.add(back)
      },
    }
  }

  /** The cap that stops the next call, or undefined. `afterAttempt` is the asking trajectory's attempts so far. */
  stop(afterAttempt: number): CapStop | undefined {
    if (!this.stopped) {
      for (const s of this.scopes) {
        const found = reachedLimit(s)
        if (found) {
          this.stopped = found
          break
        }
      }
    }
    return this.stopped ? { ...this.stopped, afterAttempt } : undefined
  }
}

/** The first of a scope's limits that its spend has reached (or cannot tell: unknown spend). */
function reachedLimit(s: CapScopeSpec): Omit<CapStop, 'afterAttempt'> | undefined {
  const spent = s.ledger.spent()
  const checks: [CapLimit, number | undefined, number | null][] = [
    ['maxCostUsd', s.limits.maxCostUsd, spent.costUsd],
    ['maxTokens', s.limits.maxTokens, spent.tokens],
  ]
  for (const [limit, cap, value] of checks) {
    if (cap === undefined) continue
    if (value === null || value >= cap) return { scope: s.scope, limit, cap, spent: value }
  }
  return undefined
}

/** A limit's amount as every output prints it: `$0.010` or `12,000 tokens`. */
export function capAmountText(limit: CapLimit, amount: number): string {
  return limit === 'maxCostUsd' ? money(amount) : `${Math.round(amount).toLocaleString('en-US')} tokens`
}

/**
 * The one sentence every output shows for a cell stopped at a cost cap (its `finished` check).
 *
 * @example
 * capMessage(stop, { capped: 6, notStarted: 4, total: 20 })
 * // => 'stopped at the cost cap (cell maxCostUsd $0.010, $0.010 spent): 6 of 20 trajectories unfinished …'
 */
export function capMessage(stop: CapStop, counts: { capped: number; notStarted: number; total: number }): string {
  const unknown = stop.limit === 'maxCostUsd' ? 'a call had no known cost' : 'a call reported no usage'
  const spent =
    stop.spent === null ? `${unknown}, so the cap could not be kept` : `${capAmountText(stop.limit, stop.spent)} spent`
  const midway = counts.capped - counts.notStarted
  const how = [
    counts.notStarted > 0 ? `${counts.notStarted} never started` : '',
    midway > 0 ? `${midway} stopped at their next model call` : '',
  ].filter(Boolean)
  const trajectories = plural(counts.total, 'trajectory', 'trajectories')
  return [
    `stopped at the cost cap (${stop.scope} ${stop.limit} ${capAmountText(stop.limit, stop.cap)}, ${spent}): `,
    `${counts.capped} of ${trajectories} unfinished (${how.join(', ')}); `,
    `the rates cover the ${counts.total - counts.capped} that ended and the 95% CI at K also covers the unfinished `,
    'as failures and as passes; resume the run (SEQK_RESUME) under a higher cap to finish it',
  ].join('')
}

/**
 * Why a USD cap cannot be kept for this actor, or undefined: an actor with no price would report
 * every call's cost as unknown, so the cap is refused before the first call rather than stopping
 * after it. The message names the actor and the fix.
 */
export function unpricedCapProblem(
  actor: { id: string; price?: unknown; descriptor: { provider: string; model: string } },
  where: string,
): string | undefined {
  if (actor.price !== undefined) return undefined
  const key = `${actor.descriptor.provider}:${actor.descriptor.model}`
  return [
    `${where}: maxCostUsd cannot be kept for the actor ${actor.id} (${key}): it has no price, so every call's cost is `,
    `unknown; give it a price (e.g. prices: { '${key}': { input, output } }), or cap maxTokens instead`,
  ].join('')
}
