import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CellSummarySchema, TrajectorySchema } from '../core/schemas.js'
import type { ChatModel, Usage } from '../models/chat-model.js'
import type { Verifier } from '../verifiers/verifier.js'
import { runCell, type CellSpec } from './cell.js'
import { chargeOf, CostMeter, memoryLedger, unpricedCapProblem } from './cost-cap.js'
import { CAP_BOUNDS_INTERVAL_METHOD } from './capped-summary.js'
import { planResume } from './resume.js'
import { cellSpec } from './test-helpers.js'
import { cellVerdict } from './verdict.js'
import type { Task } from './task.js'

const USAGE: Usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 }

/** A custom actor (a plain ChatModel, as users write one) that costs `costUsd` a call and answers OK on its `solveAt`th attempt. */
function pricedActor(options: { costUsd?: number; usage?: Usage | null; solveAt?: number; delayMs?: number } = {}) {
  const counted = { calls: 0 }
  const model: ChatModel = {
    id: 'priced',
    descriptor: { provider: 'test', model: 'priced', params: {} },
    price: { input: 1, output: 1 },
    async chat({ messages }) {
      counted.calls++
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 1))
      const attempt = messages.filter((m) => m.role === 'assistant').length + 1
      const text = attempt === (options.solveAt ?? 99) ? 'OK' : `wrong ${attempt}`
      return {
        text,
        usage: options.usage === undefined ? USAGE : options.usage,
        latencyMs: 1,
        finishReason: 'stop',
        ...(options.costUsd === undefined ? {} : { costUsd: options.costUsd }),
      }
    },
  }
  return { model, counted }
}

const equalsOk: Verifier = {
  name: 'equals-ok',
  version: '1',
  settings: {},
  verify(_task, answer) {
    const pass = answer === 'OK'
    return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: pass ? 'ok' : 'expected OK' } }
  },
}

const TASKS: Task[] = Array.from({ length: 12 }, (_, i) => ({ id: `t${i}`, prompt: `Task ${i}.` }))

function spec(actor: ChatModel, overrides: Partial<CellSpec>): CellSpec {
  return cellSpec(TASKS, actor, {
    verifier: equalsOk,
    budget: 3,
    concurrency: 3,
    errors: 'censored',
    thresholds: { seqAt: { 3: 0.1 } },
    ...overrides,
  })
}

describe('CostMeter', () => {
  it('stops exactly once the spend reaches a limit, and stays stopped (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 400 }),
        (tokens, cap) => {
          const meter = new CostMeter([{ scope: 'cell', limits: { maxTokens: cap }, ledger: memoryLedger() }])
          let total = 0
          let stopped = false
          for (const t of tokens) {
            const stop = meter.stop(0)
            expect(stop !== undefined).toBe(stopped || total >= cap)
            if (stop) {
              stopped = true
              expect(stop).toMatchObject({ scope: 'cell', limit: 'maxTokens', cap })
            }
            meter.charge([
              { usage: { inputTokens: t, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0 },
            ])
            total += t
          }
        },
      ),
      { seed: 33, numRuns: 200 },
    )
  })

  it('never reads unknown spend as zero: an unpriced call stops a USD cap, a call with no usage a token cap', () => {
    const usd = new CostMeter([{ scope: 'run', limits: { maxCostUsd: 5 }, ledger: memoryLedger() }])
    usd.charge([{ usage: USAGE, costUsd: null }])
    expect(usd.stop(2)).toEqual({ scope: 'run', limit: 'maxCostUsd', cap: 5, spent: null, afterAttempt: 2 })
    const tokens = new CostMeter([{ scope: 'cell', limits: { maxTokens: 10_000 }, ledger: memoryLedger() }])
    tokens.charge([{ usage: null, costUsd: 0.01 }])
    expect(tokens.stop(0)?.spent).toBeNull()
    // A USD cap is not stopped by unknown tokens, nor a token cap by an unknown price.
    const both = new CostMeter([{ scope: 'cell', limits: { maxTokens: 10_000 }, ledger: memoryLedger() }])
    both.charge([{ usage: USAGE, costUsd: null }])
    expect(both.stop(0)).toBeUndefined()
    expect(chargeOf({ usage: USAGE, costUsd: 0.5 })).toEqual({ costUsd: 0.5, tokens: 120 })
  })

  it('is inactive without limits, and refuses a USD cap for an actor with no price, naming it and the fix', () => {
    expect(new CostMeter([{ scope: 'cell', limits: {}, ledger: memoryLedger() }]).active).toBe(false)
    const unpriced = { id: 'local', descriptor: { provider: 'openai-compatible', model: 'qwen' } }
    expect(unpricedCapProblem(unpriced, 'maxCostUsd')).toMatch(
      /actor local \(openai-compatible:qwen\): it has no price.*prices: \{ 'openai-compatible:qwen'.*maxTokens instead/,
    )
    expect(unpricedCapProblem({ ...unpriced, price: { input: 1, output: 2 } }, 'maxCostUsd')).toBeUndefined()
  })
})

describe('runCell under a cost cap', () => {
  it('starts no trajectory once the cell cap is reached, overshooting by at most one call per trajectory in flight', async () => {
    const callCost = 0.001
    const cap = 0.0105
    const concurrency = 3
    const { model, counted } = pricedActor({ costUsd: callCost })
    const { summary, trajectories } = await runCell(
      spec(model, { concurrency, costCap: { cell: { maxCostUsd: cap } } }),
    )
    const spent = summary.costUsd!
    expect(spent).toBeGreaterThanOrEqual(cap)
    expect(spent).toBeLessThanOrEqual(cap + concurrency * callCost + 1e-12)
    expect(counted.calls * callCost).toBeCloseTo(spent, 12)
    const capped = trajectories.filter((t) => t.status === 'capped')
    expect(capped.length).toBeGreaterThan(0)
    for (const t of capped)
      expect(TrajectorySchema.parse(t).capped).toMatchObject({ scope: 'cell', limit: 'maxCostUsd', cap })
    expect(summary.costCap).toMatchObject({
      capped: capped.length,
      notStarted: capped.filter((t) => t.attempts.length === 0).length,
    })
    expect(CellSummarySchema.parse(summary).trajectories).toBe(TASKS.length)
    const verdict = cellVerdict(summary)
    expect(verdict.status).toBe('fail')
    expect(verdict.failed).toHaveLength(1)
    expect(verdict.failed[0]!.message).toMatch(
      /^stopped at the cost cap \(cell maxCostUsd \$0\.011?, \$0\.01\d? spent\): \d+ of 12 trajectories unfinished/,
    )
    // Its threshold is not judged on a part of the cell.
    expect(verdict.unjudged.map((t) => t.metric)).not.toContain('finished')
  })

  it('counts unfinished trajectories as neither passes nor failures: the interval covers both', async () => {
    const { model } = pricedActor({ costUsd: 0.001, solveAt: 2 })
    const { summary, trajectories } = await runCell(
      spec(model, { concurrency: 2, costCap: { cell: { maxCostUsd: 0.008 } } }),
    )
    const ended = trajectories.filter((t) => t.status !== 'capped')
    const solved = ended.filter((t) => t.status === 'solved').length
    const K = summary.budget
    // The point estimate is over the ended trajectories only.
    expect(summary.seqAt[K - 1]).toBeCloseTo(solved / ended.length, 12)
    const interval = summary.seqAtInterval
    expect(interval.method).toBe(CAP_BOUNDS_INTERVAL_METHOD)
    expect(interval.lo!).toBeLessThanOrEqual(solved / TASKS.length)
    expect(interval.hi!).toBeGreaterThanOrEqual((TASKS.length - (ended.length - solved)) / TASKS.length)
    expect(summary.errors.count).toBe(0)
  })

  it('stops a running trajectory at its next model call, keeping its attempts', async () => {
    const { model } = pricedActor({ usage: USAGE, costUsd: 0 })
    const { trajectories, summary } = await runCell(
      spec(model, { concurrency: 1, costCap: { cell: { maxTokens: 250 } } }),
    )
    // 120 tokens a call: the third call reaches 360 >= 250, so the first trajectory has 3 attempts and the second none.
    expect(trajectories[0]).toMatchObject({ status: 'failed' })
    expect(trajectories[0]!.attempts).toHaveLength(3)
    expect(trajectories[1]).toMatchObject({ status: 'capped', attempts: [] })
    expect(summary.usage?.inputTokens).toBe(300)
  })

  it('stops mid-trajectory when the cap falls between attempts', async () => {
    const { model } = pricedActor({ usage: USAGE, costUsd: 0 })
    const { trajectories } = await runCell(spec(model, { concurrency: 1, costCap: { cell: { maxTokens: 200 } } }))
    expect(trajectories[0]).toMatchObject({ status: 'capped', capped: { afterAttempt: 2, spent: 240 } })
    expect(trajectories[0]!.attempts).toHaveLength(2)
  })

  it('stops after the first call whose cost is unknown (a server with no usage under a USD cap)', async () => {
    const { model, counted } = pricedActor({ usage: null })
    const { summary } = await runCell(spec(model, { concurrency: 1, costCap: { cell: { maxCostUsd: 100 } } }))
    expect(counted.calls).toBe(1)
    expect(summary.costUsd).toBeNull()
    expect(summary.thresholds[0]!.message).toMatch(
      /stopped at the cost cap \(cell maxCostUsd \$100\.00, a call had no known cost, so the cap could not be kept\)/,
    )
  })

  it('shares a run cap between cells through one ledger', async () => {
    const ledger = memoryLedger()
    const run = { limits: { maxCostUsd: 0.005 }, ledger }
    const first = await runCell(spec(pricedActor({ costUsd: 0.001 }).model, { concurrency: 1, costCap: { run } }))
    const second = await runCell(spec(pricedActor({ costUsd: 0.001 }).model, { concurrency: 1, costCap: { run } }))
    expect(first.summary.costUsd).toBeCloseTo(0.005, 12)
    expect(second.summary.costUsd).toBe(0)
    expect(second.summary.costCap).toMatchObject({
      stop: { scope: 'run' },
      capped: TASKS.length,
      notStarted: TASKS.length,
    })
  })

  it('runs capped trajectories again on resume', async () => {
    const { model } = pricedActor({ costUsd: 0.001 })
    const s = spec(model, { concurrency: 1, costCap: { cell: { maxCostUsd: 0.004 } } })
    const { summary, trajectories } = await runCell(s)
    const plan = planResume(
      trajectories,
      {
        benchmark: s.benchmark,
        cellId: s.cellId,
        fingerprint: summary.fingerprint,
        protocol: summary.protocol,
        taskIds: TASKS.map((t) => t.id),
        repeats: 1,
      },
      'run',
    )
    expect(plan.capped).toBe(summary.costCap!.capped)
    expect(plan.reuse.size).toBe(TASKS.length - plan.capped)
    const resumed = await runCell({ ...s, reuse: plan.reuse, costCap: { cell: { maxCostUsd: 1 } } })
    expect(resumed.summary.costCap).toBeUndefined()
    expect(resumed.trajectories.every((t) => t.status === 'failed')).toBe(true)
  })

  it('caps an independent cell: a sample the cap kept from being drawn is neither a pass nor a failure', async () => {
    const { model } = pricedActor({ costUsd: 0.001, solveAt: 1 })
    const { summary } = await runCell(
      spec(model, { mode: null, concurrency: 1, thresholds: {}, costCap: { cell: { maxCostUsd: 0.005 } } }),
    )
    expect(summary.costCap?.capped).toBeGreaterThan(0)
    expect(summary.passAtInterval?.method).toBe(CAP_BOUNDS_INTERVAL_METHOD)
    expect(summary.passAtInterval!.lo!).toBeLessThan(summary.passAtInterval!.hi!)
  })
})

describe('CostMeter: reservations and per-call budgets', () => {
  const call = (costUsd: number) => ({ usage: { ...USAGE, inputTokens: 0, outputTokens: 10 }, costUsd })
  const meterOf = (maxCostUsd: number) => {
    const ledger = memoryLedger()
    return { meter: new CostMeter([{ scope: 'cell', limits: { maxCostUsd }, ledger }]), ledger }
  }

  it('reserves one call until a cost is known, then as many as fit at the largest cost so far, at least one', () => {
    const { meter, ledger } = meterOf(0.02)
    expect(meter.reserve(4).granted).toBe(1)
    meter.charge([call(0.001), call(0.002)])
    // $0.017 of room at $0.002 a call: 8 fit, 4 wanted.
    const held = meter.reserve(4)
    expect(held.granted).toBe(4)
    expect(ledger.spent().costUsd).toBeCloseTo(0.003 + 0.008, 12)
    // What is held counts as spent: 0.009 of room is 4 more calls.
    expect(meter.reserve(10).granted).toBe(4)
    held.release()
    held.release()
    expect(ledger.spent().costUsd).toBeCloseTo(0.003 + 0.008, 12)
    meter.charge([call(0.0195)])
    // No room: one still, the allowance every trajectory not stopped has.
    expect(meter.reserve(3).granted).toBe(1)
  })

  it('reservations never let the spend pass the cap by more than one call per reserving trajectory (any costs and orders)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 8 }),
        (costs, wanted) => {
          const cap = 0.05
          const { meter, ledger } = meterOf(cap)
          const largest = Math.max(...costs) / 1000
          meter.charge([call(largest)])
          // Trajectories take turns: each reserves, draws what it was granted, releases, charges.
          let next = 0
          while (next < costs.length && !meter.stop(0)) {
            const held = meter.reserve(wanted)
            const drawn = costs.slice(next, next + held.granted).map((c) => call(c / 1000))
            next += held.granted
            held.release()
            meter.charge(drawn)
          }
          expect(ledger.spent().costUsd!).toBeLessThanOrEqual(cap + largest + 1e-12)
        },
      ),
      { seed: 47, numRuns: 300 },
    )
  })

  it('a budget charges each call as it is made, and the attempt and its error record do not charge them again', () => {
    const { meter, ledger } = meterOf(1)
    const budget = meter.budget(0)
    expect(budget.stop()).toBeUndefined()
    const turns = [call(0.01), call(0.02)]
    for (const turn of turns) budget.charge(turn)
    expect(ledger.spent().costUsd).toBeCloseTo(0.03, 12)
    const attempt = { ...call(0.03), helperCalls: [call(0.005)] } as unknown as Parameters<
      CostMeter['chargeAttempt']
    >[0]
    meter.chargeAttempt(attempt, budget)
    meter.charge(turns)
    expect(ledger.spent().costUsd).toBeCloseTo(0.035, 12)
    // An unknown turn (stopped at the wall) makes the spend unknown: the cap stops.
    budget.charge({ usage: null, costUsd: null })
    expect(budget.stop()).toMatchObject({ scope: 'cell', spent: null, afterAttempt: 0 })
  })
})
