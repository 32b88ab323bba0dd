import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CellSummarySchema, TRAJECTORY_SCHEMA, type Attempt, type Protocol, type Trajectory } from '../core/schemas.js'
import {
  costCurve,
  costUpTo,
  errorIntervalNotes,
  finiteOrNull,
  formatRate,
  summariseCell,
  type SummariseInput,
} from './cell-summary.js'
import { totals } from './attempt.js'
import { pooledShareInterval } from '../metrics/pooled-share.js'
import { ERROR_BOUNDS_INTERVAL_METHOD } from '../metrics/censored.js'
import { rateInterval } from '../metrics/intervals.js'
import { intervalJson } from './interval-json.js'
import { protocolFixture } from '../../test/protocol-fixture.js'

function protocol(kind: 'sequential' | 'independent', budget: number, budgetDisclosed = false): Protocol {
  return protocolFixture({
    kind,
    benchmark: { name: 'b', tasks: 3, contentHash: '0123456789abcdef' },
    budget,
    budgetDisclosed,
  })
}

function attempt(index: number, answer: string): Attempt {
  const pass = answer === 'OK'
  return {
    index,
    answer,
    verdict: { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: '' } },
    feedback: null,
    finishReason: 'stop',
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    latencyMs: 0,
    costUsd: 0.5,
    costUsdWithoutCache: 0.5,
    replayed: false,
    helperCalls: [],
    unmodified: null,
  }
}

function trajectory(p: Protocol, taskId: string, repeat: number, answers: string[], error?: string): Trajectory {
  // As the sequential loop records it: whether a revision repeats the previous answer (trimmed).
  const attempts = answers.map((a, i) => ({
    ...attempt(i + 1, a),
    unmodified: p.kind === 'independent' || i === 0 ? null : answers[i - 1]!.trim() === a.trim(),
  }))
  const first = attempts.find((a) => a.verdict.pass)
  const firstSuccess = error ? null : (first?.index ?? null)
  return {
    schema: TRAJECTORY_SCHEMA,
    runId: 'r',
    benchmark: 'b',
    cellId: 'c',
    actorId: 'a',
    mode: p.kind === 'independent' ? 'independent' : 'binary',
    fingerprint: 'f',
    protocol: p,
    taskId,
    repeat,
    status: error ? 'error' : firstSuccess !== null ? 'solved' : 'failed',
    firstSuccess,
    error: error ? { stage: 'actor', attempt: answers.length + 1, message: error } : null,
    attempts,
    usage: { inputTokens: answers.length, outputTokens: answers.length, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0.5 * answers.length,
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
  }
}

function summarise(p: Protocol, trajectories: Trajectory[], overrides: Partial<SummariseInput> = {}) {
  return summariseCell({
    runId: 'r',
    benchmark: 'b',
    cellId: 'c',
    actorId: 'a',
    mode: p.kind === 'independent' ? 'independent' : 'binary',
    protocol: p,
    fingerprint: 'f',
    taskIds: [...new Set(trajectories.map((t) => t.taskId))],
    repeats: 1,
    trajectories,
    thresholds: {},
    errors: 'left-out',
    durationMs: 5,
    ...overrides,
  })
}

describe('summariseCell', () => {
  it('gives null EGS/LGS with a reason when revisions gain nothing', () => {
    const p = protocol('sequential', 3)
    const s = summarise(p, [trajectory(p, 'x', 0, ['OK']), trajectory(p, 'y', 0, ['a', 'b', 'c'])])
    expect(s.seqAt).toEqual([0.5, 0.5, 0.5])
    expect(s.statistics.gain?.value).toBe(0)
    expect(s.statistics.egs?.value).toBeNull()
    expect(s.statistics.lgs?.value).toBeNull()
    expect(s.statistics.egs?.note).toMatch(/no revision gain/)
  })

  it('skips a task whose every trajectory errored instead of scoring it 0', () => {
    const p = protocol('sequential', 2)
    const s = summarise(p, [trajectory(p, 'x', 0, ['OK']), trajectory(p, 'y', 0, ['a'], 'down')], {
      thresholds: { maxErrorRate: 1 },
    })
    expect(s.seqAt).toEqual([1, 1])
    expect(s.statistics.meanAttempts?.value).toBe(1)
    expect(s.verdict).toBe('pass')
  })

  it('counts an errored independent trajectory as K samples (its missing ones failed) only when asked', () => {
    const p = protocol('independent', 4)
    const ts = [trajectory(p, 'x', 0, ['BAD', 'OK', 'BAD', 'BAD']), trajectory(p, 'x', 1, ['OK'], 'crashed')]
    const excluded = summarise(p, ts, { repeats: 2 })
    expect(excluded.perTask[0]).toMatchObject({ samples: 4, passes: 1, errors: 1 })
    expect(excluded.passAt?.[0]).toBeCloseTo(0.25, 12)
    expect(excluded.passAt?.[3]).toBe(1)
    const counted = summarise(p, ts, { repeats: 2, errors: 'failures' })
    expect(counted.perTask[0]).toMatchObject({ samples: 8, passes: 2, errors: 1 })
    expect(counted.passAt?.[0]).toBeCloseTo(0.25, 12)
    expect(counted.passAt?.[3]).toBeCloseTo(1 - 15 / 70, 12)
    expect(counted.seqAt[0]).toBe(0)
  })

  it("censored independent samples: an errored trajectory's completed samples count, unless that leaves its task short of K", () => {
    const p = protocol('independent', 4)
    // Task x: one full repeat and one that errored after a sample: 5 samples, Pass@4 defined.
    const x = [trajectory(p, 'x', 0, ['BAD', 'OK', 'BAD', 'BAD']), trajectory(p, 'x', 1, ['OK'], 'crashed')]
    const both = summarise(p, x, { repeats: 2, errors: 'censored' })
    expect(both.perTask[0]).toMatchObject({ samples: 5, passes: 2 })
    // Task y: its only repeat errored after 2 samples: kept, it would leave y with 2 < 4 samples and
    // Pass@3..4 undefined for the whole cell; dropped, y has no sample and is skipped as left out.
    const y = [trajectory(p, 'y', 0, ['OK', 'BAD'], 'crashed'), trajectory(p, 'z', 0, ['BAD', 'BAD', 'OK', 'BAD'])]
    const short = summarise(p, y, { errors: 'censored', thresholds: { maxErrorRate: 1 } })
    expect(short.perTask.find((t) => t.taskId === 'y')).toMatchObject({ samples: 0, passes: 0 })
    expect(short.passAt?.[3]).toBe(1)
    expect(short.passAtInterval?.point).toBe(1)
  })

  it('from the first errored trajectory reports the union with the bounds (errors as failures, as successes), and says why', () => {
    const p = protocol('sequential', 3)
    const ok = Array.from({ length: 80 }, (_, i) => trajectory(p, `t${i}`, 0, i % 4 === 0 ? ['a', 'b', 'c'] : ['OK']))
    const one = summarise(p, [...ok, trajectory(p, 'e', 0, ['a'], 'down')], {
      errors: 'censored',
      thresholds: { maxErrorRate: 1 },
    })
    // 1 of 81 (1.2%): the union already, holding both bounds.
    expect(one.seqAtInterval.method).toBe('error-bounds-union/2')
    expect(one.errors.bounds!.asFailures[2]).toBeCloseTo(60 / 81, 12)
    expect(one.errors.bounds!.asSuccesses![2]).toBeCloseTo(61 / 81, 12)
    expect(one.errors.bounds!.leftOut[2]).toBeCloseTo(60 / 80, 12)
    const alone = summarise(p, ok, { errors: 'censored' })
    expect(one.seqAtInterval.lo!).toBeLessThan(alone.seqAtInterval.lo!)
    expect(one.seqAtInterval.hi!).toBeGreaterThanOrEqual(
      rateInterval(
        new Array(81).fill(0).map((_, i) => (i % 4 === 0 && i < 80 ? 0 : 1)),
        new Array(81).fill(1),
      ).hi,
    )
    expect(errorIntervalNotes(one)[0]).toMatch(
      /^Seq@3 \d+\.\d% is an estimate that assumes an error says nothing of how its trajectory would have ended: 1 of 81 trajectories \(1\.2%\) errored; whatever they hid, Seq@3 lies between 74\.1% \(every errored trajectory a failure\) and 75\.3% \(every one a success\), and 95% CI \d+\.\d%–\d+\.\d% holds both, so it keeps 95% whatever the errors hid$/,
    )
    // Without errors, the Korn–Graubard interval and no note.
    expect(alone.seqAtInterval.method).toBe('korn-graubard/2')
    expect(errorIntervalNotes(alone)).toEqual([])
  })

  it("independent samples: from the first error Pass@K's interval holds the missing samples failed and passed", () => {
    const p = protocol('independent', 2)
    const ok = Array.from({ length: 30 }, (_, i) =>
      trajectory(p, `t${i}`, 0, i % 3 === 0 ? ['BAD', 'BAD'] : ['OK', 'BAD']),
    )
    const s = summarise(p, [...ok, trajectory(p, 'e', 0, ['BAD'], 'down')], {
      errors: 'censored',
      thresholds: { maxErrorRate: 1 },
    })
    expect(s.passAtInterval!.method).toBe('error-bounds-union/2')
    // Task e: one failed sample and one missing, failed → Pass@2 0, passed → Pass@2 1.
    expect(s.errors.bounds!.asFailures[1]).toBeCloseTo(20 / 31, 12)
    expect(s.errors.bounds!.asSuccesses![1]).toBeCloseTo(21 / 31, 12)
  })

  it('counts and names a task whose every trajectory errored before a verdict, never drops it silently', () => {
    const p = protocol('sequential', 2)
    const ts = [
      trajectory(p, 'x', 0, ['OK']),
      trajectory(p, 'y', 0, [], 'down'),
      trajectory(p, 'y', 1, [], 'down'),
      trajectory(p, 'z', 0, ['a'], 'down'),
    ]
    const s = summarise(p, ts, { errors: 'censored', repeats: 2, thresholds: { maxErrorRate: 1 } })
    // z errored after a failed attempt: it is measured (failed at 1, unknown after); y is not.
    expect(s.errors.unmeasured).toEqual(['y'])
    expect(errorIntervalNotes(s)).toContainEqual(
      '1 task in no rate, every trajectory errored before a verdict (y): the rate is over the other tasks, the as-failures bound counts it as failed',
    )
    expect(
      summarise(p, ts, { errors: 'failures', repeats: 2, thresholds: { maxErrorRate: 1 } }).errors.unmeasured,
    ).toBeUndefined()
    expect(
      summarise(p, ts, { errors: 'left-out', repeats: 2, thresholds: { maxErrorRate: 1 } }).errors.unmeasured,
    ).toEqual(['y', 'z'])
  })

  it('says a sequential threshold cannot be measured on an independent cell', () => {
    const p = protocol('independent', 2)
    const s = summarise(p, [trajectory(p, 'x', 0, ['OK', 'BAD'])], { thresholds: { seqAt: { 2: 0.1 } } })
    expect(s.thresholds[0]).toMatchObject({ metric: 'seqAt', pass: false, actual: null })
    expect(s.thresholds[0]?.message).toContain('does not measure Seq@k')
  })

  it('shows the bootstrap interval only in the message of a missed Seq@K threshold', () => {
    const p = protocol('sequential', 3)
    const ts = ['x', 'y', 'z'].map((id, i) => trajectory(p, id, 0, i === 0 ? ['OK'] : ['a', 'b', 'c']))
    const s = summarise(p, ts, { thresholds: { seqAt: { 2: 0.9, 3: 0.9 } } })
    const [two, three] = s.thresholds
    expect(two?.message).not.toContain('CI')
    expect(three?.message).toMatch(/\(95% CI \d+\.\d%–\d+\.\d%\)$/)
  })

  it('keeps at most five error examples, each naming the stage and attempt', () => {
    const p = protocol('sequential', 2)
    const ts = Array.from({ length: 7 }, (_, i) => trajectory(p, `t${i}`, 0, ['a'], `fail ${i}`))
    const s = summarise(p, ts)
    expect(s.errors.count).toBe(7)
    expect(s.errors.rate).toBe(1)
    expect(s.errors.examples).toHaveLength(5)
    expect(s.errors.examples[0]).toEqual({ taskId: 't0', repeat: 0, message: 'actor failed at attempt 2: fail 0' })
    expect(s.seqAt).toEqual([null, null])
    expect(s.statistics.meanAttempts?.value).toBeNull()
    expect(s.verdict).toBe('fail')
  })

  it('counts unmodified revisions from what each attempt recorded, without the verifier (a summary is a function of its trajectories)', () => {
    const p = protocol('sequential', 3)
    const ts = [trajectory(p, 'x', 0, ['A', 'a', 'b'])]
    expect(summarise(p, ts).statistics.unmodifiedRevisions).toEqual({ value: 0, n: 2, detail: { unmodified: 0 } })
    // A verifier that normalises case marked the second attempt unmodified when it ran.
    const marked = [
      { ...ts[0]!, attempts: ts[0]!.attempts.map((a) => ({ ...a, unmodified: a.index === 2 ? true : a.unmodified })) },
    ]
    expect(summarise(p, marked).statistics.unmodifiedRevisions).toEqual({ value: 0.5, n: 2, detail: { unmodified: 1 } })
  })

  it('sums usage and cost over all trajectories, errored ones included', () => {
    const p = protocol('sequential', 2)
    const s = summarise(p, [trajectory(p, 'x', 0, ['a', 'OK']), trajectory(p, 'y', 0, ['a'], 'boom')], {
      thresholds: { maxErrorRate: 1 },
    })
    expect(s.usage!.inputTokens).toBe(3)
    expect(s.costUsd).toBeCloseTo(1.5, 12)
    expect(CellSummarySchema.safeParse(s).success).toBe(true)
  })

  it('keeps the cost unknown when a trajectory has no cost', () => {
    const p = protocol('sequential', 2)
    const known = trajectory(p, 'y', 0, ['OK'])
    const unknown = { ...known, attempts: known.attempts.map((a) => ({ ...a, costUsd: null })) }
    expect(summarise(p, [trajectory(p, 'x', 0, ['OK']), unknown]).costUsd).toBeNull()
  })
})

describe('finiteOrNull / formatRate', () => {
  it('turns NaN and infinities into null and keeps finite numbers', () => {
    expect([Number.NaN, Infinity, -Infinity, 0, 0.5].map(finiteOrNull)).toEqual([null, null, null, 0, 0.5])
  })

  it('formats a rate to three decimals, or n/a', () => {
    expect(formatRate(0.12345)).toBe('0.123')
    expect(formatRate(1)).toBe('1.000')
    expect(formatRate(null)).toBe('n/a')
  })
})

describe('summariseCell fails closed', () => {
  it('an empty cell or one whose every trajectory errored never passes, even with no thresholds', () => {
    const p = protocol('sequential', 3)
    const empty = summarise(p, [])
    expect(empty.verdict).toBe('fail')
    expect(empty.thresholds.find((t) => t.metric === 'measured')?.message).toContain('an empty cell never passes')
    // Tasks declared but no trajectory (a failed pre-flight): the message does not blame the task list.
    const stopped = summarise(p, [], { taskIds: ['x', 'y'] })
    expect(stopped.verdict).toBe('fail')
    expect(stopped.thresholds.find((t) => t.metric === 'measured')?.message).toBe(
      'the cell ran no trajectory of its 2 tasks, so nothing was measured and no threshold can be judged: a cell that measured nothing never passes',
    )
    const allErrored = summarise(p, [trajectory(p, 'x', 0, [], 'boom')], { thresholds: { maxErrorRate: 1 } })
    expect(allErrored.verdict).toBe('fail')
    // One root cause, said once with the first error; the rate threshold says why it cannot be judged.
    expect(allErrored.thresholds.find((t) => t.metric === 'measured')?.message).toMatch(
      /^all 1 trajectory ended in an error, so nothing was measured and no threshold can be judged: a cell that measured nothing never passes; first: task x repeat 0, /,
    )
    const judged = summarise(p, [trajectory(p, 'x', 0, [], 'boom'), trajectory(p, 'y', 0, [], 'boom')], {
      thresholds: { seqAt: { 3: 0.3 } },
    })
    expect(judged.thresholds.find((t) => t.metric === 'seqAt')?.message).toBe(
      'Seq@3 is undefined here (all 2 trajectories ended in an error), so the required 30.0% cannot be judged (a check that cannot be judged fails)',
    )
    expect(judged.thresholds.find((t) => t.metric === 'maxErrorRate')?.message).toMatch(
      /^2 trajectories ended in an infrastructure error \(100\.0% > allowed 0\.0%\); first: /,
    )
    // A cell that ran and checked nothing is no pass: it says so.
    expect(summarise(p, [trajectory(p, 'x', 0, ['OK'])]).verdict).toBe('no-thresholds')
    expect(summarise(p, [trajectory(p, 'x', 0, ['OK'])], { thresholds: { seqAt: { 3: 0.5 } } }).verdict).toBe('pass')
  })
})

describe('costAtK', () => {
  it('is the mean cost of running each task with budget k, stopping at the first success', () => {
    const p = protocol('sequential', 3)
    // Each attempt costs 0.5 (see attempt()): x solves at 2, y never does.
    const s = summarise(p, [trajectory(p, 'x', 0, ['no', 'OK']), trajectory(p, 'y', 0, ['a', 'b', 'c'])])
    expect(s.perTask.find((t) => t.taskId === 'x')!.costAtK).toEqual([0.5, 1, 1])
    expect(s.perTask.find((t) => t.taskId === 'y')!.costAtK).toEqual([0.5, 1, 1.5])
    expect(s.costAtK).toEqual([0.5, 1, 1.25])
  })
})

describe('costCurve', () => {
  it('equals the definition (totals of the attempts up to min(k, first success)) for every k', () => {
    const p = protocol('sequential', 6)
    const cost = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null })
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), cost, fc.array(cost, { maxLength: 2 })), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 8 }),
        fc.option(fc.array(cost, { minLength: 1, maxLength: 2 }), { nil: undefined }),
        (spec, budget, failedSpend) => {
          const t = trajectory(
            p,
            'x',
            0,
            spec.map(([pass]) => (pass ? 'OK' : 'no')),
            failedSpend ? 'grader down' : undefined,
          )
          const call = (c: number | null, role: 'critic' | 'actor') => ({
            role,
            usage: t.attempts[0]!.usage,
            latencyMs: 0,
            costUsd: c,
            costUsdWithoutCache: c,
            replayed: false,
          })
          t.attempts.forEach((a, i) => {
            a.costUsd = spec[i]![1]
            a.helperCalls = spec[i]![2].map((c) => call(c, 'critic'))
          })
          // An attempt that failed part way, after the kept ones, with what it had spent.
          if (t.error && failedSpend) t.error.calls = failedSpend.map((c) => call(c, 'actor'))
          const curve = costCurve(t, budget)
          for (let k = 1; k <= budget; k++) {
            const stop = Math.min(k, t.firstSuccess ?? k)
            const unfinished = t.error && t.error.attempt <= stop ? (t.error.calls ?? []) : []
            expect(curve[k - 1]).toBe(
              totals(
                t.attempts.filter((a) => a.index <= stop),
                unfinished,
              ).costUsd,
            )
            expect(costUpTo(t, k)).toBe(curve[k - 1])
          }
        },
      ),
      { seed: 42, numRuns: 300 },
    )
  })
})

describe('revision analysis', () => {
  it('splits revision success by whether the answer changed, and repairs criteria', () => {
    const p = protocol('sequential', 3)
    const withCriteria = (t: Trajectory, met: Record<string, boolean>[]): Trajectory => ({
      ...t,
      attempts: t.attempts.map((a, i) => ({
        ...a,
        verdict: {
          ...a.verdict,
          criteria: Object.entries(met[i] ?? {}).map(([id, ok]) => ({ id, text: id, met: ok })),
        },
      })),
    })
    const x = withCriteria(trajectory(p, 'x', 0, ['a', 'a', 'OK']), [
      { c1: false, c2: true },
      { c1: false, c2: true },
      { c1: true, c2: true },
    ])
    x.attempts[1]!.unmodified = true
    x.attempts[2]!.unmodified = false
    const y = withCriteria(trajectory(p, 'y', 0, ['a', 'b']), [
      { c1: false, c2: true },
      { c1: true, c2: false },
    ])
    y.attempts[1]!.unmodified = false
    const s = summarise(p, [x, y])
    expect(s.statistics.nextAttemptSuccess?.detail).toEqual({
      changed: { revisions: 2, solved: 1, rate: 0.5 },
      unchanged: { revisions: 1, solved: 0, rate: 0 },
    })
    expect(s.statistics.criterionRepair?.detail).toMatchObject({
      failedFirst: 2,
      repaired: 2,
      repairRate: 1,
      broken: 1,
    })
    expect(summarise(p, [trajectory(p, 'z', 0, ['OK'])]).statistics.criterionRepair).toBeUndefined()
  })
})

describe('revision annotation (derived)', () => {
  const tests = (passing: number[]) =>
    [0, 1].map((index) => ({ index, source: `assert f(${index})`, pass: passing.includes(index) }))
  const verdictOf = (pass: boolean, passing: number[], criteria: Record<string, boolean> = {}) => ({
    pass,
    diagnostics: { outcome: pass ? ('passed' as const) : ('failed' as const), summary: '', tests: tests(passing) },
    criteria: Object.entries(criteria).map(([id, met]) => ({ id, text: id, met })),
  })

  it('classes each revision against the previous feedback requests and pools the shares over revisions, by hand', () => {
    const p = {
      ...protocol('sequential', 3),
      feedback: { kind: 'verifier' as const, name: 'verifier', version: '2', settings: {} },
    }
    // x: told tests 0 and 1 → fixes 0 only (some); told test 1 → fixes it and passes (all, solved).
    const x = trajectory(p, 'x', 0, ['a', 'b', 'OK'])
    x.attempts[0] = {
      ...x.attempts[0]!,
      verdict: verdictOf(false, []),
      feedback: { kind: 'verifier', text: 't', requests: ['test:0', 'test:1'] },
    }
    x.attempts[1] = {
      ...x.attempts[1]!,
      verdict: verdictOf(false, [0]),
      feedback: { kind: 'verifier', text: 't', requests: ['test:1'] },
    }
    x.attempts[2] = { ...x.attempts[2]!, verdict: verdictOf(true, [0, 1]) }
    // y: told criterion c1 → still unmet (unhelpful); told again → meets it but breaks c2 (all, not solved).
    const y = trajectory(p, 'y', 0, ['a', 'b', 'c'])
    y.attempts[0] = {
      ...y.attempts[0]!,
      verdict: verdictOf(false, [0, 1], { c1: false, c2: true }),
      feedback: { kind: 'verifier', text: 't', requests: ['criterion:c1'] },
    }
    y.attempts[1] = {
      ...y.attempts[1]!,
      verdict: verdictOf(false, [0, 1], { c1: false, c2: true }),
      feedback: { kind: 'verifier', text: 't', requests: ['criterion:c1'] },
    }
    y.attempts[2] = { ...y.attempts[2]!, verdict: verdictOf(false, [0, 1], { c1: true, c2: false }) }
    // z: feedback that names nothing (binary): its revision is not annotated.
    const z = trajectory(p, 'z', 0, ['a', 'OK'])
    z.attempts[0] = { ...z.attempts[0]!, feedback: { kind: 'binary', text: 'Your answer is incorrect.' } }
    const s = summarise(p, [x, y, z], { mode: 'verifier' })
    const interval = (clusters: { hits: number; trials: number }[]) => intervalJson(pooledShareInterval(clusters))
    expect(s.revisionAnnotation).toEqual({
      annotator: 'derived',
      version: 'derived/1',
      revisions: 5,
      annotatable: 4,
      annotated: 4,
      sampled: false,
      unobserved: 0,
      classes: {
        unhelpful: {
          revisions: 1,
          share: interval([
            { hits: 0, trials: 2 },
            { hits: 1, trials: 2 },
          ]),
          solved: 0,
          success: interval([
            { hits: 0, trials: 0 },
            { hits: 0, trials: 1 },
          ]),
        },
        some: {
          revisions: 1,
          share: interval([
            { hits: 1, trials: 2 },
            { hits: 0, trials: 2 },
          ]),
          solved: 0,
          success: interval([
            { hits: 0, trials: 1 },
            { hits: 0, trials: 0 },
          ]),
        },
        all: {
          revisions: 2,
          share: interval([
            { hits: 1, trials: 2 },
            { hits: 1, trials: 2 },
          ]),
          solved: 1,
          success: interval([
            { hits: 1, trials: 1 },
            { hits: 0, trials: 1 },
          ]),
        },
      },
    })
    expect([
      s.revisionAnnotation!.classes.unhelpful.share.point,
      s.revisionAnnotation!.classes.some.share.point,
      s.revisionAnnotation!.classes.all.share.point,
    ]).toEqual([0.25, 0.25, 0.5])
    expect(s.revisionAnnotation!.classes.all.success.point).toBe(0.5)
    expect(s.revisionAnnotation!.classes.all.share.method).toBe('korn-graubard-ratio/1')
    expect(CellSummarySchema.parse(s)).toEqual(s)
  })

  it('is null for binary and independent cells: nothing names a request', () => {
    const p = protocol('sequential', 3)
    expect(summarise(p, [trajectory(p, 'x', 0, ['a', 'b', 'OK'])]).revisionAnnotation).toBeNull()
    const q = protocol('independent', 3)
    expect(summarise(q, [trajectory(q, 'x', 0, ['a', 'b', 'OK'])]).revisionAnnotation).toBeNull()
  })
})

describe('reliability', () => {
  // Task x: both repeats solved (at 1 and 2); y: one of two within 3; z: never.
  const p = protocol('sequential', 3)
  const ts = [
    trajectory(p, 'x', 0, ['OK']),
    trajectory(p, 'x', 1, ['a', 'OK']),
    trajectory(p, 'y', 0, ['a', 'b', 'OK']),
    trajectory(p, 'y', 1, ['a', 'b', 'c']),
    trajectory(p, 'z', 0, ['a', 'b', 'c']),
    trajectory(p, 'z', 1, ['a', 'b', 'c']),
  ]

  it('a sequential cell: Seq^k, Cover@τ, outcome and resource consistency, by hand', () => {
    const s = summarise(p, ts, { repeats: 2 })
    const r = s.reliability!
    expect(r.tries).toBe(2)
    expect(r.seqHat).toEqual([0, 1 / 3, 1 / 3])
    expect(r.hatInterval.point).toBeCloseTo(1 / 3, 12)
    expect(r.coverAt.map((c) => [c.tau, c.interval.point])).toEqual([
      [0.5, 2 / 3],
      [1, 1 / 3],
    ])
    expect(r.coverCurve).toEqual([
      { tau: 0.5, cover: 2 / 3 },
      { tau: 1, cover: 1 / 3 },
    ])
    // C_out: x 1, y 0, z 1; one task of three inconsistent.
    expect(r.outcome.mean.point).toBeCloseTo(2 / 3, 12)
    expect(r.outcome.inconsistent.point).toBeCloseTo(1 / 3, 12)
    // Attempts: x [1, 2] (CV √2/3), y [3, 3], z [3, 3].
    expect(r.resource.attempts.point).toBeCloseTo((Math.exp(-Math.SQRT2 / 3) + 2) / 3, 12)
    expect(CellSummarySchema.parse(s).reliability).toEqual(r)
  })

  it('holds a cell to Cover@τ and Seq^k, fails closed on what it does not measure, and says why', () => {
    const s = summarise(p, ts, {
      repeats: 2,
      thresholds: { coverAt: { 1: 0.6, 0.5: 0.6 }, seqHat: { 3: 0.3 }, passHat: { 2: 0.1 } },
    })
    const by = (metric: string) => s.thresholds.filter((t) => t.metric === metric)
    expect(by('seqHat')).toMatchObject([{ k: 3, pass: true, message: 'Seq^3 = 33.3% ≥ 30.0%' }])
    const cover = by('coverAt')
    expect(cover.map((c) => [c.tau, c.k, c.pass])).toEqual([
      [0.5, 3, true],
      [1, 3, false],
    ])
    expect(cover[1]!.message).toMatch(/^Cover@1 = 33\.3%, below the required 60\.0% \(95% CI/)
    expect(by('passHat')[0]).toMatchObject({ pass: false, actual: null })
    expect(by('passHat')[0]!.message).toContain('this cell does not measure pass^k')
    // τ from a threshold is computed too, beside the default 0.5 and 1.
    const extra = summarise(p, ts, { repeats: 2, thresholds: { coverAt: { 0.25: 0.5 } } })
    expect(extra.reliability!.coverAt.map((c) => c.tau)).toEqual([0.25, 0.5, 1])
    expect(extra.thresholds.find((t) => t.metric === 'coverAt')).toMatchObject({ tau: 0.25, actual: 2 / 3, pass: true })
  })

  it('counts an errored repeat as the rates do: hidden under censored, failed under failures, dropped under left-out', () => {
    // x: solved at 1, and a repeat that errored after one failed attempt (censored at 2).
    const withError = [...ts.slice(2), trajectory(p, 'x', 0, ['OK']), trajectory(p, 'x', 1, ['a'], 'boom')]
    const read = (errors: 'censored' | 'failures' | 'left-out') =>
      summarise(p, withError, { repeats: 2, errors }).reliability!
    const censored = read('censored')
    expect(censored.tries).toBe(2)
    expect(censored.basis).toEqual({ tries: 6, hidden: 1 })
    // Seq^3 lies between 0 (x's hidden repeat failing; y and z fail anyway) and 1/3 (it solving),
    // and its interval holds both bounds: the union of the intervals at 0/3 and 1/3.
    expect(censored.hatInterval.method).toBe(ERROR_BOUNDS_INTERVAL_METHOD)
    expect(censored.hatInterval.point).toBeGreaterThan(0)
    expect(censored.hatInterval.point).toBeLessThan(1 / 3)
    expect(censored.hatInterval.lo).toBe(0)
    expect(censored.hatInterval.hi).toBeGreaterThanOrEqual(rateInterval([1, 0, 0], [1, 1, 1]).hi)
    // Cover@0.5: x reaches it with one solve of two whatever the hidden repeat did.
    expect(censored.coverAt[0]!.interval.point).toBeCloseTo(2 / 3, 12)
    expect(read('failures')).toMatchObject({ tries: 2, basis: { tries: 6, hidden: 0 }, seqHat: [0, 0, 0] })
    // Left out, x's figure rests on its one repeat: solved, so "every time" (what the block did before).
    expect(read('left-out')).toMatchObject({ basis: { tries: 5, hidden: 0 }, seqHat: [1 / 3, 1 / 3, 1 / 3] })
  })

  it('an independent cell: pass^K gains an interval, Cover@τ reads its samples', () => {
    const q = protocol('independent', 2)
    const s = summarise(q, [trajectory(q, 'x', 0, ['OK', 'OK']), trajectory(q, 'y', 0, ['OK', 'BAD'])], {
      thresholds: { passHat: { 2: 0.5 } },
    })
    const r = s.reliability!
    expect(r.seqHat).toBeNull()
    expect(r.hatInterval.point).toBe(0.5)
    expect(s.passHat).toEqual([0.75, 0.5])
    expect(r.coverAt.map((c) => c.interval.point)).toEqual([1, 0.5])
    expect(s.thresholds[0]).toMatchObject({ metric: 'passHat', k: 2, pass: true })
  })
})

describe('summariseCell: the score curve (Score@k)', () => {
  // Answers `s0.25` score 0.25 (and fail); `OK` passes with 1.
  const scored = (p: Protocol, taskId: string, repeat: number, answers: string[], error?: string): Trajectory => {
    const t = trajectory(p, taskId, repeat, answers, error)
    return {
      ...t,
      attempts: t.attempts.map((a) =>
        a.answer.startsWith('s') ? { ...a, verdict: { ...a.verdict, score: Number(a.answer.slice(1)) } } : a,
      ),
    }
  }

  it('is the mean best score by attempt k, beside Seq@k, with its interval at K and a threshold', () => {
    const p = protocol('sequential', 3)
    const s = summarise(
      p,
      [scored(p, 'x', 0, ['s0.25', 's0.75', 'OK']), scored(p, 'y', 0, ['s0.5', 's0.25', 's0.25'])],
      { thresholds: { scoreAt: { 3: 0.7, 1: 0.5 } } },
    )
    expect(s.seqAt).toEqual([0, 0, 0.5])
    expect(s.score!.at).toEqual([0.375, 0.625, 0.75])
    expect(s.score!.binary).toBe(false)
    expect(s.score!.interval).toMatchObject({ point: 0.75, method: 'korn-graubard/2', tasks: 2 })
    expect(s.perTask.map((t) => t.bestScore)).toEqual([
      [0.25, 0.75, 1],
      [0.5, 0.5, 0.5],
    ])
    const checks = s.thresholds.filter((t) => t.metric === 'scoreAt')
    expect(checks.map((c) => [c.k, c.pass, c.message])).toEqual([
      [1, false, expect.stringMatching(/^Score@1 = 37\.5%, below the required 50\.0%$/)],
      [3, true, 'Score@3 = 75.0% ≥ 70.0%'],
    ])
    expect(CellSummarySchema.parse(s).score).toEqual(s.score)
  })

  it('enters an errored trajectory as the error policy says', () => {
    const p = protocol('sequential', 3)
    const ts = [scored(p, 'x', 0, ['s0.5'], 'down'), scored(p, 'x', 1, ['s0.25', 's1', 's1'])]
    // Censored: repeat 0 counts at k = 1 only; failures: its best holds; left out: it is not there.
    expect(summarise(p, ts, { repeats: 2, errors: 'censored' }).score!.at).toEqual([0.375, 1, 1])
    expect(summarise(p, ts, { repeats: 2, errors: 'failures' }).score!.at).toEqual([0.375, 0.75, 0.75])
    expect(summarise(p, ts, { repeats: 2, errors: 'left-out' }).score!.at).toEqual([0.25, 1, 1])
  })

  it('reads an independent cell’s samples in draw order, and says the scores were binary', () => {
    const q = protocol('independent', 2)
    const s = summarise(q, [trajectory(q, 'x', 0, ['BAD', 'OK']), trajectory(q, 'y', 0, ['OK', 'BAD'])])
    expect(s.score).toMatchObject({ at: [0.5, 1], binary: true })
    expect(s.passAt).toEqual([0.5, 1])
  })
})
