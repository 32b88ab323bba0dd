/**
 * What a cell will cost before it runs: expected calls, tokens and dollars for the declared tasks ×
 * repeats × K, from the prompts the actor will see, the actor's price and, when there is one, a
 * previous run's per-attempt tokens and stop rates. Pure: the caller finds the previous run.
 *
 * A sequential trajectory stops at its first success, so its cost depends on how often attempt t
 * is reached: from a previous run, by the distribution of first success per task (the share solved
 * at each attempt of those that reached it), so a run whose every trajectory was solved at attempt
 * 3 predicts 3 attempts each, not a continuation to K (it predicted 600 calls for 360). Without a
 * previous run nothing says that: the estimate gives the range from "every trajectory solved at
 * attempt 1, with one-token answers" to "none solved, with long answers" and no expected figure
 * (never a guess dressed as one). Independent sampling always draws K samples, so its calls are known.
 */
import { costOf, type Price } from '../models/pricing.js'
import { money, plural } from '../metrics/format.js'
import type { Trajectory } from '../core/schemas.js'
import { ESTIMATE_SCHEMA, type CellEstimate, type EstimateBasis, type EstimateRange } from '../core/estimate.js'
import type { PromptBuilder } from './prompt-builder.js'
import type { Task } from './task.js'

/** Prompt text counted as the test server and the simulated actors count it. Real tokenizers differ by a fifth or so. */
export const ESTIMATE_TOKENIZER = 'chars/4'
/** Assumed when no previous run says: output tokens of one actor answer, and tokens of one feedback text. */
export const DEFAULT_ASSUMED = { outputTokens: 400, feedbackTokens: 100 } as const
/**
 * The answer sizes a range without a previous run spans: from one token (its low end: a cell of
 * short answers cost less than "all solved at once" at 400 tokens each, outside the range) to
 * `LONG_ANSWER_FACTOR` times the assumed size, or the actor's `maxTokens` when it declares one.
 */
export const LONG_ANSWER_FACTOR = 4

const tokensOf = (chars: number): number => Math.ceil(chars / 4)

/** One attempt index of a previous cell, summed over the trajectories that reached it. */
export interface PriorAttempt {
  reached: number
  /** Of those, the trajectories whose first success this attempt was. */
  solved: number
  /** Of those, the attempts whose every call reported usage: the token and cost sums are over these alone. */
  measured: number
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  /** The actor's recorded cost, null when a call was unpriced. */
  actorCostUsd: number | null
  helperCalls: number
  helperInputTokens: number
  helperOutputTokens: number
  helperCostUsd: number | null
  /** Each figure's smallest and largest over the measured attempts: a range's ends per call. */
  fewest?: AttemptFigures
  most?: AttemptFigures
}

/** One measured attempt's figures (the same fields as {@link PriorAttempt}'s sums). */
type AttemptFigures = Omit<PriorAttempt, 'reached' | 'solved' | 'measured' | 'fewest' | 'most'>

/** A previous run's trajectories of one task (or of all tasks, pooled), by attempt index. */
export interface PriorStats {
  trajectories: number
  attempts: PriorAttempt[]
}

/** A previous run's cell, digested for the estimate. */
export interface PriorCell {
  runId: string
  match: NonNullable<EstimateBasis['match']>
  /** The same actor (same descriptor): its recorded costs may stand in for an unknown price. */
  sameActor: boolean
  tasks: ReadonlyMap<string, PriorStats>
  pooled: PriorStats
}

const emptyAttempt = (): PriorAttempt => ({
  reached: 0,
  solved: 0,
  measured: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  actorCostUsd: 0,
  helperCalls: 0,
  helperInputTokens: 0,
  helperOutputTokens: 0,
  helperCostUsd: 0,
})
const addCost = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a + b)

function addTrajectory(stats: PriorStats, t: Trajectory): void {
  stats.trajectories++
  t.attempts.forEach((attempt, i) => {
    const at = (stats.attempts[i] ??= emptyAttempt())
    at.reached++
    if (t.firstSuccess === attempt.index) at.solved++
    const usage = attempt.usage
    const helpers = [...attempt.helperCalls, ...(attempt.annotation?.calls ?? [])]
    // An attempt with a call that reported no usage still counts for the stop rates, but its tokens
    // are unknown: counting them as zero would pull the means down, so it is left out of them.
    if (usage === null || helpers.some((c) => c.usage === null)) return
    const one: AttemptFigures = {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      actorCostUsd: attempt.costUsd,
      helperCalls: helpers.length,
      helperInputTokens: 0,
      helperOutputTokens: 0,
      helperCostUsd: 0,
    }
    for (const call of helpers) {
      one.helperInputTokens += call.usage!.inputTokens
      one.helperOutputTokens += call.usage!.outputTokens
      one.helperCostUsd = addCost(one.helperCostUsd, call.costUsd)
    }
    at.measured++
    at.inputTokens += one.inputTokens
    at.outputTokens += one.outputTokens
    at.cacheReadTokens += one.cacheReadTokens
    at.cacheWriteTokens += one.cacheWriteTokens
    at.actorCostUsd = addCost(at.actorCostUsd, one.actorCostUsd)
    at.helperCalls += one.helperCalls
    at.helperInputTokens += one.helperInputTokens
    at.helperOutputTokens += one.helperOutputTokens
    at.helperCostUsd = addCost(at.helperCostUsd, one.helperCostUsd)
    at.fewest = at.fewest ? extreme(at.fewest, one, Math.min) : { ...one }
    at.most = at.most ? extreme(at.most, one, Math.max) : { ...one }
  })
}

/** Each figure's smaller (or larger) of two attempts'; an unknown cost stays unknown. */
function extreme(a: AttemptFigures, b: AttemptFigures, pick: (x: number, y: number) => number): AttemptFigures {
  const cost = (x: number | null, y: number | null) => (x === null || y === null ? null : pick(x, y))
  return {
    inputTokens: pick(a.inputTokens, b.inputTokens),
    outputTokens: pick(a.outputTokens, b.outputTokens),
    cacheReadTokens: pick(a.cacheReadTokens, b.cacheReadTokens),
    cacheWriteTokens: pick(a.cacheWriteTokens, b.cacheWriteTokens),
    actorCostUsd: cost(a.actorCostUsd, b.actorCostUsd),
    helperCalls: pick(a.helperCalls, b.helperCalls),
    helperInputTokens: pick(a.helperInputTokens, b.helperInputTokens),
    helperOutputTokens: pick(a.helperOutputTokens, b.helperOutputTokens),
    helperCostUsd: cost(a.helperCostUsd, b.helperCostUsd),
  }
}

/**
 * Digests one previous cell's trajectories: per task and pooled, how many reached each attempt
 * and what those attempts used and cost.
 *
 * @example
 * const prior = priorCell(previous.filter((t) => t.cellId === cellId), { runId, match: 'same-protocol', sameActor: true })
 */
export function priorCell(trajectories: readonly Trajectory[], meta: Omit<PriorCell, 'tasks' | 'pooled'>): PriorCell {
  const tasks = new Map<string, PriorStats>()
  const pooled: PriorStats = { trajectories: 0, attempts: [] }
  for (const t of trajectories) {
    let stats = tasks.get(t.taskId)
    if (!stats) tasks.set(t.taskId, (stats = { trajectories: 0, attempts: [] }))
    addTrajectory(stats, t)
    addTrajectory(pooled, t)
  }
  return { ...meta, tasks, pooled }
}

/** What the estimate needs of a declared cell. */
export interface EstimateInput {
  kind: 'sequential' | 'independent'
  tasks: readonly Task[]
  promptBuilder: PromptBuilder
  /** The eval's instructions, sent before every task's prompt. */
  instructions?: string
  budget: number
  repeats: number
  discloseBudget: boolean
  /** The history policy's name (`full` re-sends every earlier turn; the others send a bounded history). */
  history: string | null
  /** The actor's price; undefined when it has none (its cost is then unknown, unless a previous run of the same actor recorded it). */
  price: Price | undefined
  prior?: PriorCell
  /** Per-call sizes assumed without a previous run (default {@link DEFAULT_ASSUMED}). */
  assumed?: { outputTokens?: number; feedbackTokens?: number }
  /** The actor's longest answer in tokens, when it declares one (its `maxTokens`): the high end of a range without a previous run. */
  maxOutputTokens?: number
}

/** One attempt index's expected calls, tokens and cost per trajectory that reaches it. */
interface PerCall {
  calls: number
  inputTokens: number
  outputTokens: number
  costUsd: number | null
}

/**
 * The estimate of one cell (see the module comment). Token counts of prompts are `chars/4`; a
 * previous run's measured tokens replace them where it ran the task.
 *
 * @example
 * const estimate = estimateCell({ kind: 'sequential', tasks, promptBuilder: defaultPromptBuilder, budget: 5, repeats: 3, discloseBudget: false, history: 'full', price: { input: 2, output: 8 } })
 * estimate.costUsd // { expected: null, low: 0.0123, high: 0.1042 }: no previous run, so no expected figure
 */
export function estimateCell(input: EstimateInput): CellEstimate {
  const { kind, budget, repeats, prior } = input
  const assumed = {
    outputTokens: input.assumed?.outputTokens ?? DEFAULT_ASSUMED.outputTokens,
    feedbackTokens: input.assumed?.feedbackTokens ?? DEFAULT_ASSUMED.feedbackTokens,
  }
  const notes: string[] = []
  const sizes = {
    short: { outputTokens: 1, feedbackTokens: 1 },
    long: {
      outputTokens: input.maxOutputTokens ?? assumed.outputTokens * LONG_ANSWER_FACTOR,
      feedbackTokens: assumed.feedbackTokens * LONG_ANSWER_FACTOR,
    },
  }
  const sequential = kind === 'sequential'
  const sums = { expected: zeroSums(), low: zeroSums(), high: zeroSums() }
  let unpriced = input.price === undefined && !(prior?.sameActor ?? false)
  let anyUnseen = false
  for (const task of input.tasks) {
    const promptTokens = tokensOf(
      input.promptBuilder
        .initial(task, { budget, discloseBudget: input.discloseBudget })
        .reduce((n, m) => n + m.content.length, input.instructions?.length ?? 0),
    )
    const seen = prior?.tasks.get(task.id)
    if (prior && !seen) anyUnseen = true
    const perAttempt = Array.from({ length: budget }, (_, i) => perCall(i, promptTokens, seen, input, assumed))
    // The range spans the answer's size too: from the previous run, its smallest and largest attempt
    // at each index; without one, one-token answers at the low end and long ones at the high.
    const short = perAttempt.map((_, i) => perCall(i, promptTokens, seen, input, sizes.short, 'fewest'))
    const long = perAttempt.map((_, i) => perCall(i, promptTokens, seen, input, sizes.long, 'most'))
    // One call of unknown cost (an unpriced actor, or a helper the previous run could not price) makes every cost unknown.
    if (perAttempt.some((c) => c.costUsd === null)) unpriced = true
    const reach = reachRates(sequential, budget, seen, prior?.pooled)
    for (let i = 0; i < budget; i++) {
      // Independent sampling draws all K; a sequential trajectory reaches attempt t only after t-1 failures.
      if (i === 0 || !sequential) add(sums.low, short[i]!, repeats)
      add(sums.high, long[i]!, repeats)
      if (reach) add(sums.expected, perAttempt[i]!, repeats * reach[i]!)
    }
  }
  if (unpriced)
    notes.push(
      'a call has no price (the actor, or a helper call of the previous run): the cost is unknown (give every model `prices`)',
    )
  const unmeasured = prior ? prior.pooled.attempts.reduce((n, a) => n + a.reached - a.measured, 0) : 0
  if (unmeasured > 0)
    notes.push(
      `attempts of the previous run with a call that reported no usage: ${unmeasured}; the figures are from the others`,
    )
  if (prior && anyUnseen)
    notes.push(`tasks the previous run (${prior.runId}) did not run are estimated from its other tasks`)
  if (prior && prior.pooled.attempts.length < budget && sequential)
    notes.push(
      `the previous run reached at most attempt ${prior.pooled.attempts.length}: later attempts are extrapolated`,
    )
  if (!prior && sequential)
    notes.push(
      'no previous run of this cell: nothing says how often a trajectory stops early, so there is no expected figure, only the range',
    )
  if (!prior)
    notes.push(
      `without a previous run each answer is assumed to take ${assumed.outputTokens} output tokens (the range: 1 to ${sizes.long.outputTokens}${input.maxOutputTokens !== undefined ? ", the actor's maxTokens" : ''}) and each feedback text ${assumed.feedbackTokens} tokens; helper calls (critic, grader, summariser, annotator) are not in the figures`,
    )
  const expectedKnown = prior !== undefined || !sequential
  const range = (key: keyof Sums): EstimateRange => ({
    expected: expectedKnown ? (key === 'costUsd' && unpriced ? null : round(sums.expected[key])) : null,
    low: key === 'costUsd' && unpriced ? null : round(sums.low[key]),
    high: key === 'costUsd' && unpriced ? null : round(sums.high[key]),
  })
  const basis: EstimateBasis = {
    kind: prior ? 'previous-run' : 'prompts',
    ...(prior ? { runId: prior.runId, match: prior.match } : {}),
    tokenizer: ESTIMATE_TOKENIZER,
    ...(prior ? {} : { assumed }),
    helpers: prior ? 'estimated' : 'not estimated',
    notes,
  }
  return {
    schema: ESTIMATE_SCHEMA,
    trajectories: input.tasks.length * repeats,
    budget,
    calls: range('calls'),
    inputTokens: range('inputTokens'),
    outputTokens: range('outputTokens'),
    costUsd: range('costUsd'),
    basis,
  }
}

type Sums = { calls: number; inputTokens: number; outputTokens: number; costUsd: number }
const zeroSums = (): Sums => ({ calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 })
// An unknown per-call cost poisons only the cost sums, which `unpriced` then reports as null.
const add = (sums: Sums, call: PerCall, weight: number): void => {
  sums.calls += call.calls * weight
  sums.inputTokens += call.inputTokens * weight
  sums.outputTokens += call.outputTokens * weight
  sums.costUsd += (call.costUsd ?? 0) * weight
}
const round = (x: number): number => Number(x.toPrecision(6))

// One pseudo-trajectory of the pooled hazard: a task seen once says 0 or 1. (Measured: 0, 1, 3 or pooled-only give the
// same error spread in the seeded simulation of estimate.test.ts; the spread is the runs' own sampling noise.)
const M = 1

/**
 * The share of trajectories that reach each attempt, from the distribution of first success: 1 at
 * attempt 1, then times the share not solved at each attempt before. That share is the previous
 * run's for this task (solved there of those that reached it), shrunk towards the pooled one by one
 * pseudo-trajectory (a task seen once says 0 or 1, which over-trusts a single draw); where the task
 * never reached an attempt (solved before) the pooled one stands; past the attempts the previous
 * run reached, its last one carries on. A trajectory that ended otherwise (an error, a smaller
 * budget) is not a first success: only solving stops one. Undefined without a previous run.
 */
function reachRates(
  sequential: boolean,
  budget: number,
  seen: PriorStats | undefined,
  pooled: PriorStats | undefined,
): number[] | undefined {
  if (!sequential) return Array.from({ length: budget }, () => 1)
  if (!pooled || pooled.trajectories === 0) return undefined
  const solvedShare = (i: number): number => {
    const all = pooled.attempts[i]
    const pooledShare = all && all.reached > 0 ? all.solved / all.reached : 0
    const own = seen?.attempts[i]
    return own && own.reached > 0 ? (own.solved + M * pooledShare) / (own.reached + M) : pooledShare
  }
  const lastSeen = pooled.attempts.length - 1
  const rates = [1]
  for (let i = 1; i < budget; i++) rates.push(rates[i - 1]! * (1 - solvedShare(Math.min(i - 1, lastSeen))))
  return rates
}

/** The expected calls, tokens and cost of attempt `i + 1` for one trajectory that reaches it. */
function perCall(
  i: number,
  promptTokens: number,
  seen: PriorStats | undefined,
  input: EstimateInput,
  assumed: { outputTokens: number; feedbackTokens: number },
  pick: Pick = 'mean',
): PerCall {
  const { prior, price } = input
  const independent = input.kind === 'independent'
  const fromPrior = prior ? measured(i, seen, prior.pooled, promptTokens, pick) : undefined
  if (fromPrior) {
    const actorCost = price ? costOf(fromPrior.usage, price) : prior!.sameActor ? fromPrior.actorCostUsd : null
    const costUsd = actorCost === null || fromPrior.helperCostUsd === null ? null : actorCost + fromPrior.helperCostUsd
    return {
      calls: 1 + fromPrior.helperCalls,
      inputTokens: fromPrior.usage.inputTokens + fromPrior.helperInputTokens,
      outputTokens: fromPrior.usage.outputTokens + fromPrior.helperOutputTokens,
      costUsd,
    }
  }
  // Prompts only: every sample sees the prompt alone; a revision also sees earlier answers and feedback.
  const turn = assumed.outputTokens + assumed.feedbackTokens
  const history = independent || i === 0 ? 0 : input.history === 'full' ? i * turn : turn
  const usage = {
    inputTokens: promptTokens + history,
    outputTokens: assumed.outputTokens,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  }
  return {
    calls: 1,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    costUsd: price ? costOf(usage, price) : null,
  }
}

/** Which figures of a previous attempt: the mean, or its smallest or largest attempt (a range's ends). */
type Pick = 'mean' | 'fewest' | 'most'

/**
 * Per-call figures of attempt `i + 1` from the previous run (its mean, or its smallest or largest
 * attempt): the task's own where it reached that attempt, else the pooled figures moved to this
 * task's prompt size, else the last attempt it reached plus the growth of one more turn.
 */
function measured(i: number, seen: PriorStats | undefined, pooled: PriorStats, promptTokens: number, pick: Pick) {
  const mean = (whole: PriorAttempt, shift = 0) => {
    const one = pick === 'mean' ? undefined : whole[pick]
    const a: AttemptFigures & { measured: number } = one ? { ...one, measured: 1 } : whole
    return {
      usage: {
        inputTokens: Math.max(0, a.inputTokens / a.measured + shift),
        outputTokens: a.outputTokens / a.measured,
        cacheReadTokens: a.cacheReadTokens / a.measured,
        cacheWriteTokens: a.cacheWriteTokens / a.measured,
      },
      actorCostUsd: a.actorCostUsd === null ? null : a.actorCostUsd / a.measured,
      helperCalls: a.helperCalls / a.measured,
      helperInputTokens: a.helperInputTokens / a.measured,
      helperOutputTokens: a.helperOutputTokens / a.measured,
      helperCostUsd: a.helperCostUsd === null ? null : a.helperCostUsd / a.measured,
    }
  }
  const own = seen?.attempts[i]
  if (own && own.measured > 0) return mean(own)
  const first = pooled.attempts[0]
  const at = pooled.attempts[i]
  const shift = first && first.measured > 0 ? promptTokens - first.inputTokens / first.measured : 0
  if (at && at.measured > 0) return mean(at, shift)
  // Past what the previous run reached: its last attempt, plus one turn's growth per attempt.
  const lastAt = pooled.attempts.findLastIndex((a) => a.measured > 0)
  if (lastAt < 0) return undefined
  const last = pooled.attempts[lastAt]!
  const beforeAt = pooled.attempts.findLastIndex((a, j) => j < lastAt && a.measured > 0)
  const before = beforeAt >= 0 ? pooled.attempts[beforeAt]! : undefined
  const perTurn = (a: PriorAttempt) => a.inputTokens / a.measured
  const growth = before ? (perTurn(last) - perTurn(before)) / (lastAt - beforeAt) : 0
  return mean(last, shift + Math.max(0, growth) * (i - lastAt))
}

/**
 * One line for a cell's estimate: the expected cost and its range, the calls, and where it came from.
 *
 * @example
 * describeEstimate(estimate) // => '≈ $0.42 (range $0.12–$1.10), 140 calls (39–195), from run 20261201-101500-9f2c4a (same protocol)'
 */
export function describeEstimate(estimate: CellEstimate): string {
  const n = (x: number | null) => String(Math.round(x ?? 0))
  const calls = (r: EstimateRange) =>
    r.low === r.high
      ? `${n(r.low)} calls`
      : r.expected === null
        ? `${n(r.low)}–${n(r.high)} calls`
        : `${n(r.expected)} calls (${n(r.low)}–${n(r.high)})`
  const { costUsd: cost, basis } = estimate
  const range = cost.low === cost.high ? '' : ` (range ${money(cost.low)}–${money(cost.high)})`
  const head =
    cost.expected === null
      ? `${money(cost.low)}–${money(cost.high)}, no expected figure`
      : `≈ ${money(cost.expected)}${range}`
  const from =
    basis.kind === 'previous-run'
      ? `from run ${basis.runId} (${basis.match?.replaceAll('-', ' ')})`
      : `from prompt sizes${basis.helpers === 'not estimated' ? ', actor calls only' : ''}`
  return `${head}, ${calls(estimate.calls)}, ${plural(estimate.trajectories, 'trajectory', 'trajectories')}; ${from}`
}
