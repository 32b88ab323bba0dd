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
    // The cost spans the answers' size: one token each at the low end, four times the assumed 400 at the high.
    expect(e.costUsd.low!).toBeLessThan(e.costUsd.expected!)
    expect(e.costUsd.expected!).toBeLessThan(e.costUsd.high!)
    const capped = estimateCell(input(tasks(4), { kind: 'independent', history: null, maxOutputTokens: 500 }))
    expect(capped.outputTokens).toEqual({ expected: 60 * 400, low: 60, high: 60 * 500 })
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

  it('learns the shape of first success: a previous run whose every trajectory was solved at attempt 3 predicts 3 attempts each', () => {
    // 40 tasks × 3 repeats, each solved at attempt 3 of 5: 360 calls. Before: 600 (the reach of
    // attempt 3 carried on past it, as if the run had stopped there for want of budget).
    const list = tasks(40, 3)
    const solvedAt3 = list.flatMap((task) =>
      Array.from({ length: 3 }, (_, r) =>
        trajectory(
          task.id,
          r,
          [1, 2, 3].map((t) => attempt(t, t === 3, promptTokens(task) + 100 * (t - 1), 50)),
        ),
      ),
    )
    const prior = priorCell(solvedAt3, { runId: 'prev', match: 'same-cell', sameActor: true })
    const e = estimateCell(input(list, { prior, budget: 5 }))
    expect(e.calls.expected).toBe(360)
    expect(e.costUsd.expected!).toBeCloseTo(cost(solvedAt3), 6)
    // A previous run with a smaller budget that solved none: its failures carry on at its last attempt's rate.
    const noneSolved = list.flatMap((task) =>
      Array.from({ length: 3 }, (_, r) => trajectory(task.id, r, [attempt(1, false, promptTokens(task), 50)])),
    )
    const fromShort = estimateCell(
      input(list, { prior: priorCell(noneSolved, { runId: 'p2', match: 'same-cell', sameActor: true }), budget: 5 }),
    )
    expect(fromShort.calls.expected).toBe(600)
  })

  it('without a previous run the range covers short and long answers: a run of one-token answers costs no less than its low end', () => {
    const list = tasks(6, 4)
    const e = estimateCell(input(list))
    const terse = list.flatMap((task) =>
      [0, 1, 2].map((r) => trajectory(task.id, r, [attempt(1, true, promptTokens(task), 1)])),
    )
    expect(e.costUsd.low!).toBeLessThanOrEqual(cost(terse) + 1e-12)
    const verbose = list.flatMap((task) =>
      [0, 1, 2].map((r) =>
        trajectory(
          task.id,
          r,
          [1, 2, 3, 4, 5].map((t) => attempt(t, false, promptTokens(task) + (t - 1) * 1700, 1200)),
        ),
      ),
    )
    expect(cost(verbose)).toBeLessThanOrEqual(e.costUsd.high!)
  })

  it('from a previous run, the range spans its smallest and largest attempts: a run like it costs within it (200 seeded pairs, both protocols)', () => {
    const list = tasks(13, 6)
    for (const sequential of [true, false]) {
      const kind = sequential ? 'sequential' : 'independent'
      for (let seed = 1; seed <= 200; seed++) {
        const prior = priorCell(simulate(list, 3, 5, 2 * seed, sequential), {
          runId: 'p',
          match: 'same-cell',
          sameActor: true,
        })
        const next = cost(simulate(list, 3, 5, 2 * seed + 1, sequential))
        const e = estimateCell(input(list, { prior, kind, history: sequential ? 'full' : null }))
        expect(e.costUsd.low!, `${kind} seed ${seed}`).toBeLessThanOrEqual(next)
        expect(next, `${kind} seed ${seed}`).toBeLessThanOrEqual(e.costUsd.high!)
        // Not a point: independent cells draw all K, but their answers' sizes vary.
        expect(e.costUsd.low!).toBeLessThan(e.costUsd.high!)
      }
    }
  })

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
