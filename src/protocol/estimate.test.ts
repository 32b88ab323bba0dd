import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createRng } from '../metrics/index.js'
import { costOf, type Price } from '../models/pricing.js'
import type { Attempt, Trajectory } from '../core/schemas.js'
import { estimateError } from '../core/estimate.js'
import { defaultPromptBuilder } from './prompt-builder.js'
import { describeEstimate, estimateCell, priorCell, type EstimateInput } from './estimate.js'
import type { Task } from './task.js'

const PRICE: Price = { input: 2, output: 8 }

function attempt(
  index: number,
  pass: boolean,
  inputTokens: number,
  outputTokens: number,
  helperCost: number | null = 0,
): Attempt {
  const usage = { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 }
  return {
    index,
    answer: 'x',
    verdict: { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: '' } },
    feedback: null,
    finishReason: 'stop',
    usage,
    latencyMs: 1,
    costUsd: costOf(usage, PRICE),
    costUsdWithoutCache: costOf(usage, PRICE),
    replayed: false,
    helperCalls:
      helperCost === null || helperCost > 0
        ? [
            {
              role: 'grader',
              usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
              latencyMs: 1,
              costUsd: helperCost,
              costUsdWithoutCache: helperCost,
              replayed: false,
            },
          ]
        : [],
    unmodified: null,
  }
}

function trajectory(taskId: string, repeat: number, attempts: Attempt[]): Trajectory {
  const firstSuccess = attempts.find((a) => a.verdict.pass)?.index ?? null
  return {
    taskId,
    repeat,
    attempts,
    firstSuccess,
    status: firstSuccess === null ? 'failed' : 'solved',
    costUsd: null,
  } as unknown as Trajectory
}

const tasks = (n: number, seed = 1): Task[] => {
  const rng = createRng(seed)
  return Array.from(
    { length: n },
    (_, i) => ({ id: `t${i}`, prompt: 'p'.repeat(200 + Math.floor(rng() * 2000)) }) as Task,
  )
}

const promptTokens = (task: Task) => Math.ceil((task.prompt as string).length / 4)

/**
 * A cell's trajectories under a known process: task i solves attempt t with chance p_i rising by
 * `lift` per revision; each answer takes about 80 tokens, and a revision re-sends the history (full).
 */
function simulate(
  list: readonly Task[],
  repeats: number,
  budget: number,
  seed: number,
  sequential = true,
): Trajectory[] {
  const rng = createRng(seed)
  const skill = createRng(99)
  const base = list.map(() => 0.15 + 0.6 * skill())
  return list.flatMap((task, i) =>
    Array.from({ length: repeats }, (_, r) => {
      const attempts: Attempt[] = []
      let history = 0
      for (let t = 1; t <= budget; t++) {
        const out = 40 + Math.floor(rng() * 80)
        const pass = rng() < Math.min(0.95, base[i]! + 0.12 * (sequential ? t - 1 : 0))
        attempts.push(attempt(t, pass, promptTokens(task) + (sequential ? history : 0), out))
        history += out + 30
        if (pass && sequential) break
      }
      return trajectory(task.id, r, attempts)
    }),
  )
}

const input = (list: readonly Task[], overrides: Partial<EstimateInput> = {}): EstimateInput => ({
  kind: 'sequential',
  tasks: list,
  promptBuilder: defaultPromptBuilder,
  budget: 5,
  repeats: 3,
  discloseBudget: false,
  history: 'full',
  price: PRICE,
  ...overrides,
})
const cost = (ts: readonly Trajectory[]) =>
  ts.reduce(
    (n, t) =>
      n + t.attempts.reduce((m, a) => m + a.costUsd! + a.helperCalls.reduce((h, c) => h + (c.costUsd ?? 0), 0), 0),
    0,
  )

describe('estimateCell', () => {
  it('without a previous run: a range from "all solved at attempt 1" to "none solved", and no expected figure', () => {
    const list = tasks(4)
    const e = estimateCell(input(list))
    expect(e.calls).toEqual({ expected: null, low: 12, high: 60 })
    expect(e.costUsd.expected).toBeNull()
    expect(e.inputTokens.low).toBe(3 * list.reduce((n, t) => n + promptTokens(t), 0))
    expect(e.basis).toMatchObject({
      kind: 'prompts',
      helpers: 'not estimated',
      assumed: { outputTokens: 400, feedbackTokens: 100 },
    })
    expect(describeEstimate(e)).toMatch(
      /^\$[\d.]+–\$[\d.]+, no expected figure, 12–60 calls, 12 trajectories; from prompt sizes, actor calls only$/,
    )
  })

  it('independent sampling always draws K samples: its calls are known before any run', () => {
    const e = estimateCell(input(tasks(4), { kind: 'independent', history: null }))
    expect(e.calls).toEqual({ expected: 60, low: 60, high: 60 })
    expect(e.costUsd.expected).toBe(e.costUsd.high)
  })

  it('an unpriced actor has an unknown cost, never $0, unless a previous run of the same actor recorded it', () => {
    const list = tasks(3)
    const e = estimateCell(input(list, { price: undefined }))
    expect(e.costUsd).toEqual({ expected: null, low: null, high: null })
    expect(e.basis.notes.join(' ')).toMatch(/a call has no price/)
    const prior = priorCell(simulate(list, 3, 5, 1), { runId: 'r1', match: 'same-protocol', sameActor: true })
    expect(estimateCell(input(list, { price: undefined, prior })).costUsd.expected).toBeGreaterThan(0)
    const other = priorCell(simulate(list, 3, 5, 1), {
      runId: 'r1',
      match: 'same-benchmark-and-mode',
      sameActor: false,
    })
    expect(estimateCell(input(list, { price: undefined, prior: other })).costUsd.expected).toBeNull()
  })

  it('an unpriced helper call in the previous run makes the cost unknown', () => {
    const list = tasks(2)
    const ts = simulate(list, 2, 3, 1).map((t) => ({
      ...t,
      attempts: t.attempts.map((a) => ({ ...a, helperCalls: attempt(1, true, 1, 1, null).helperCalls })),
    }))
    const e = estimateCell(
      input(list, {
        budget: 3,
        repeats: 2,
        prior: priorCell(ts, { runId: 'r', match: 'same-protocol', sameActor: true }),
      }),
    )
    expect(e.costUsd.expected).toBeNull()
    expect(e.calls.expected).toBeGreaterThan(0)
  })

  it('a previous attempt whose call reported no usage is left out of the token means, never as 0 tokens', () => {
    const list = tasks(1)
    const at = (usage: boolean) => ({
      ...attempt(1, true, 1000, 200),
      ...(usage ? {} : { usage: null, costUsd: null }),
    })
    const known = [0, 1, 2].map((r) => trajectory(list[0]!.id, r, [at(true)]))
    const some = [...known, trajectory(list[0]!.id, 3, [at(false)])]
    const estimate = (ts: Trajectory[]) =>
      estimateCell(
        input(list, {
          budget: 1,
          repeats: 2,
          prior: priorCell(ts, { runId: 'r', match: 'same-protocol', sameActor: true }),
        }),
      )
    const all = estimate(known)
    const partly = estimate(some)
    // The same means as without the unreported attempt: its zero would have pulled them down by a quarter.
    expect(partly.inputTokens.expected).toBe(all.inputTokens.expected)
    expect(partly.costUsd.expected).toBe(all.costUsd.expected)
    expect(partly.basis.notes.join(' ')).toMatch(/attempts of the previous run with a call that reported no usage: 1;/)
    expect(all.basis.notes.join(' ')).not.toMatch(/reported no usage/)
  })

  it('law: low <= expected <= high for calls, tokens and cost, for any previous run, size and budget', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer(),
        fc.boolean(),
        (n, repeats, budget, priorBudget, seed, sequential) => {
          const list = tasks(n, seed)
          // The previous run may have run fewer tasks and a smaller budget.
          const prior = priorCell(simulate(list.slice(0, Math.max(1, n - 1)), 2, priorBudget, seed, sequential), {
            runId: 'r',
            match: 'same-cell',
            sameActor: true,
          })
          const e = estimateCell(
            input(list, {
              repeats,
              budget,
              prior,
              kind: sequential ? 'sequential' : 'independent',
              history: sequential ? 'full' : null,
            }),
          )
          for (const r of [e.calls, e.inputTokens, e.outputTokens, e.costUsd]) {
            expect(r.low!).toBeLessThanOrEqual(r.expected! * (1 + 1e-9) + 1e-9)
            expect(r.expected!).toBeLessThanOrEqual(r.high! * (1 + 1e-9) + 1e-9)
          }
          expect(e.calls.low).toBeCloseTo(n * repeats * (sequential ? 1 : budget), 6)
        },
      ),
      { seed: 33, numRuns: 300 },
    )
  })

  // The error of an estimate from one previous run is both runs' sampling noise: centred, and narrower with size.
  it.for([
    { tasks: 13, within: 0.8 },
    { tasks: 40, within: 0.95 },
  ])(
    'a previous run of the same cell predicts the next one ($tasks tasks × 3 repeats, 200 seeded pairs): centred, within 20% in $within',
    ({ tasks: n, within: share }) => {
      const list = tasks(n, 5)
      const errors: number[] = []
      for (let seed = 1; seed <= 200; seed++) {
        const prior = priorCell(simulate(list, 3, 5, 2 * seed), {
          runId: 'prev',
          match: 'same-protocol',
          sameActor: true,
        })
        const next = simulate(list, 3, 5, 2 * seed + 1)
        errors.push(estimateError(estimateCell(input(list, { prior })).costUsd.expected, cost(next))!)
      }
      const mean = errors.reduce((a, b) => a + b, 0) / errors.length
      const within = errors.filter((e) => Math.abs(e) <= 0.2).length / errors.length
      expect(Math.abs(mean)).toBeLessThan(0.03)
      expect(within).toBeGreaterThanOrEqual(share)
    },
  )

  it('a previous run with fewer repeats, or other tasks, still estimates a bigger run', () => {
    const list = tasks(10, 8)
    const prior = priorCell(simulate(list.slice(0, 5), 1, 5, 4), { runId: 'prev', match: 'same-cell', sameActor: true })
    const next = simulate(list, 3, 5, 5)
    const e = estimateCell(input(list, { prior }))
    expect(e.basis.notes.join(' ')).toMatch(/did not run are estimated from its other tasks/)
    expect(e.costUsd.low!).toBeLessThanOrEqual(cost(next))
    expect(cost(next)).toBeLessThanOrEqual(e.costUsd.high!)
  })
})
