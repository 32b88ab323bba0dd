import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Verdict } from '../core/contract.js'
import { TRAJECTORY_SCHEMA, type Attempt, type Trajectory } from '../core/schemas.js'
import {
  annotateRevision,
  annotateTrajectory,
  modelFamily,
  requestSatisfied,
  revisionSample,
  selfAnnotationNote,
  summariseRevisionAnnotations,
} from './revision-annotation.js'
import { protocolFixture } from '../../test/protocol-fixture.js'

const TESTS = 6
const CRITERIA = ['c1', 'c2', 'c3', 'c4']

/** A verdict reporting every test and criterion, passing exactly those in `ok`. */
function verdictWith(ok: ReadonlySet<string>): Verdict {
  const tests = Array.from({ length: TESTS }, (_, index) => ({
    index,
    source: `assert f(${index})`,
    pass: ok.has(`test:${index}`),
  }))
  const criteria = CRITERIA.map((id) => ({ id, text: id, met: ok.has(`criterion:${id}`) }))
  const pass = tests.every((t) => t.pass) && criteria.every((c) => c.met)
  return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: '', tests }, criteria }
}

function attempt(index: number, verdict: Verdict, requests?: string[]): Attempt {
  return {
    index,
    answer: `answer ${index}`,
    verdict,
    feedback: requests === undefined ? null : { kind: 'verifier', text: 'fix these', requests },
    finishReason: 'stop',
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    latencyMs: 0,
    costUsd: 0,
    costUsdWithoutCache: 0,
    replayed: false,
    helperCalls: [],
    unmodified: index === 1 ? null : false,
  }
}

function trajectoryOf(taskId: string, attempts: Attempt[]): Trajectory {
  const first = attempts.find((a) => a.verdict.pass)
  return {
    schema: TRAJECTORY_SCHEMA,
    runId: 'r',
    benchmark: 'b',
    cellId: 'c',
    actorId: 'a',
    mode: 'verifier',
    fingerprint: 'f',
    protocol: protocolFixture({
      feedback: { kind: 'verifier', name: 'verifier', version: '2', settings: {} },
      budget: 5,
    }),
    taskId,
    repeat: 0,
    status: first ? 'solved' : 'failed',
    firstSuccess: first?.index ?? null,
    error: null,
    attempts,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0,
    startedAt: new Date(0).toISOString(),
    durationMs: 0,
  }
}

const REQUEST_IDS = [...Array.from({ length: TESTS }, (_, i) => `test:${i}`), ...CRITERIA.map((c) => `criterion:${c}`)]
const requestsArb = fc.uniqueArray(fc.constantFrom(...REQUEST_IDS), { minLength: 1 })
const okArb = fc.uniqueArray(fc.constantFrom(...REQUEST_IDS)).map((ids) => new Set(ids))

describe('requestSatisfied', () => {
  it('reads a test from the verdict tests and a criterion with criterionSatisfied (a met penalty does not count)', () => {
    const verdict: Verdict = {
      pass: false,
      diagnostics: { outcome: 'failed', summary: '', tests: [{ index: 2, source: 's', pass: true }] },
      criteria: [
        { id: 'p', text: 'p', met: true, points: -3 },
        { id: 'q', text: 'q', met: false, points: -3 },
      ],
    }
    expect(requestSatisfied('test:2', verdict)).toBe(true)
    expect(requestSatisfied('criterion:p', verdict)).toBe(false)
    expect(requestSatisfied('criterion:q', verdict)).toBe(true)
  })

  it('is null when the verdict cannot say: code that did not load, an unknown id or kind', () => {
    const loadError: Verdict = { pass: false, diagnostics: { outcome: 'load-error', summary: 'SyntaxError' } }
    expect(requestSatisfied('test:0', loadError)).toBeNull()
    expect(requestSatisfied('criterion:c1', loadError)).toBeNull()
    expect(requestSatisfied('test:x', verdictWith(new Set()))).toBeNull()
    expect(requestSatisfied('hint:1', verdictWith(new Set()))).toBeNull()
  })
})

describe('annotateRevision (derived)', () => {
  it('a revision satisfying every listed request is "all", whatever else it breaks', () => {
    fc.assert(
      fc.property(requestsArb, okArb, (requests, extra) => {
        const ok = new Set([...requests, ...extra])
        const annotation = annotateRevision({ kind: 'verifier', text: '', requests }, attempt(2, verdictWith(ok)))
        expect(annotation?.class).toBe('all')
        expect(annotation?.satisfied).toEqual(requests)
      }),
      { seed: 42 },
    )
  })

  it('a revision satisfying none of them is "unhelpful", whatever else it passes', () => {
    fc.assert(
      fc.property(requestsArb, okArb, (requests, ok) => {
        for (const r of requests) ok.delete(r)
        expect(annotateRevision({ kind: 'verifier', text: '', requests }, attempt(2, verdictWith(ok)))?.class).toBe(
          'unhelpful',
        )
      }),
      { seed: 42 },
    )
  })

  it('is "some" exactly when it satisfies at least one request but not all', () => {
    fc.assert(
      fc.property(requestsArb, okArb, (requests, ok) => {
        const met = requests.filter((r) => ok.has(r)).length
        const expected = met === 0 ? 'unhelpful' : met === requests.length ? 'all' : 'some'
        expect(annotateRevision({ kind: 'verifier', text: '', requests }, attempt(2, verdictWith(ok)))?.class).toBe(
          expected,
        )
      }),
      { seed: 42 },
    )
  })

  it('fails closed: requests the next verdict does not report (code that failed to load) count as not satisfied', () => {
    const loadError = attempt(2, { pass: false, diagnostics: { outcome: 'load-error', summary: 'SyntaxError' } })
    expect(annotateRevision({ kind: 'verifier', text: '', requests: ['test:0', 'test:1'] }, loadError)).toEqual({
      annotator: 'derived',
      version: 'derived/1',
      attempt: 2,
      requests: ['test:0', 'test:1'],
      satisfied: [],
      unobserved: ['test:0', 'test:1'],
      class: 'unhelpful',
    })
  })

  it('annotates nothing after binary or critic feedback, or verifier feedback that named no request', () => {
    const next = attempt(2, verdictWith(new Set(REQUEST_IDS)))
    expect(annotateRevision({ kind: 'binary', text: 'Your answer is incorrect.' }, next)).toBeNull()
    expect(annotateRevision({ kind: 'critic', text: 'Handle the empty list.' }, next)).toBeNull()
    expect(annotateRevision({ kind: 'verifier', text: 'Your code failed to load:', requests: [] }, next)).toBeNull()
    expect(annotateRevision(null, next)).toBeNull()
  })
})

describe('annotateTrajectory / summariseRevisionAnnotations', () => {
  /** A trajectory of up to 5 attempts, each failed one with verifier feedback naming some requests (or binary). */
  const trajectoryArb = fc
    .array(
      fc.record({
        ok: okArb,
        requests: fc.option(fc.uniqueArray(fc.constantFrom(...REQUEST_IDS)), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 5 },
    )
    .map((steps) =>
      steps.map((s, i) => attempt(i + 1, verdictWith(s.ok), i === steps.length - 1 ? undefined : s.requests)),
    )

  it('the classes partition the annotated revisions: counts add up, shares sum to 1', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('t1', 't2', 't3', 't4'), trajectoryArb), { maxLength: 12 }),
        (cell) => {
          const trajectories = cell.map(([task, attempts]) => trajectoryOf(task, attempts))
          const annotations = trajectories.flatMap((t) => annotateTrajectory(t))
          const expected = trajectories.reduce(
            (n, t) => n + t.attempts.slice(0, -1).filter((a) => (a.feedback?.requests?.length ?? 0) > 0).length,
            0,
          )
          expect(annotations).toHaveLength(expected)
          const summary = summariseRevisionAnnotations(trajectories)
          if (expected === 0) {
            expect(summary).toBeNull()
            return
          }
          const { unhelpful, some, all } = summary!.classes
          expect(unhelpful.revisions + some.revisions + all.revisions).toBe(summary!.annotated)
          expect(summary!.annotated).toBe(expected)
          expect(unhelpful.share.point! + some.share.point! + all.share.point!).toBeCloseTo(1, 12)
          for (const c of [unhelpful, some, all]) {
            expect(c.solved).toBeLessThanOrEqual(c.revisions)
            if (c.revisions > 0) expect(c.share.lo! <= c.share.point! && c.share.point! <= c.share.hi!).toBe(true)
          }
        },
      ),
      { seed: 42, numRuns: 200 },
    )
  })

  it('binary feedback yields no annotation', () => {
    const attempts = [1, 2, 3].map((i) => ({
      ...attempt(i, verdictWith(new Set())),
      feedback: i < 3 ? { kind: 'binary' as const, text: 'Your answer is incorrect.' } : null,
    }))
    expect(annotateTrajectory(trajectoryOf('t', attempts))).toEqual([])
    expect(summariseRevisionAnnotations([trajectoryOf('t', attempts)])).toBeNull()
  })
})

describe('revisionSample', () => {
  const ids = Array.from({ length: 9 }, (_, i) => `task-${i}`)
  it('draws exactly min(size, slots) slots, the same on every call, whatever the order of the tasks', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 2, max: 5 }),
        (size, repeats, budget) => {
          const a = revisionSample(ids, repeats, budget, size)
          const b = revisionSample([...ids].reverse(), repeats, budget, size)
          const slots = ids.flatMap((id) =>
            Array.from({ length: repeats }, (_, r) =>
              Array.from({ length: budget - 1 }, (_, i) => [id, r, i + 2] as const),
            ).flat(),
          )
          expect(a.sample).toEqual({ size, slots: slots.length, method: 'hash-rank/1' })
          const drawn = slots.filter(([id, r, t]) => a.has(id, r, t))
          expect(drawn).toHaveLength(Math.min(size, slots.length))
          expect(drawn).toEqual(slots.filter(([id, r, t]) => b.has(id, r, t)))
          // Never the first attempt, nor beyond the budget.
          expect(a.has(ids[0]!, 0, 1) || a.has(ids[0]!, 0, budget + 1)).toBe(false)
        },
      ),
    )
  })
  it("a larger sample keeps the smaller one's slots (a ranking, not a fresh draw)", () => {
    const small = revisionSample(ids, 2, 5, 10)
    const large = revisionSample(ids, 2, 5, 30)
    for (const id of ids)
      for (const r of [0, 1])
        for (const t of [2, 3, 4, 5]) if (small.has(id, r, t)) expect(large.has(id, r, t)).toBe(true)
  })
})

describe('summariseRevisionAnnotations with stored LLM annotations', () => {
  const llm = (index: number, cls: 'unhelpful' | 'some' | 'all') => ({
    annotator: 'llm' as const,
    version: 'annotator.v1@00000000',
    model: 'anthropic:claude-haiku-4-5',
    attempt: index,
    requests: ['r'],
    satisfied: cls === 'unhelpful' ? [] : ['r'],
    unobserved: [],
    class: cls,
    calls: [
      {
        role: 'annotator' as const,
        usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
        latencyMs: 1,
        costUsd: 0.5,
        costUsdWithoutCache: 0.5,
        replayed: false,
      },
    ],
  })
  it('reads the stored records over the derived annotator, counts failures apart, and sums the cost', () => {
    const attempts = [
      attempt(1, verdictWith(new Set()), ['test:0']),
      { ...attempt(2, verdictWith(new Set(['test:0'])), ['test:1']), annotation: llm(2, 'unhelpful') },
      {
        ...attempt(3, verdictWith(new Set()), ['test:2']),
        annotation: {
          annotator: 'llm' as const,
          version: 'annotator.v1@00000000',
          model: 'anthropic:claude-haiku-4-5',
          attempt: 3,
          error: 'HTTP 503',
          calls: llm(3, 'all').calls,
        },
      },
      { ...attempt(4, verdictWith(new Set(REQUEST_IDS))), annotation: llm(4, 'all') },
    ]
    const t = trajectoryOf('t', attempts)
    // The derived annotator would call revision 2 "all" (test 0 passes); the LLM's record wins.
    expect(annotateTrajectory(t, 'derived').map((a) => a.class)).toEqual(['all', 'unhelpful', 'all'])
    expect(annotateTrajectory(t).map((a) => a.class)).toEqual(['unhelpful', 'all'])
    const summary = summariseRevisionAnnotations([t])!
    expect(summary).toMatchObject({
      annotator: 'llm',
      version: 'annotator.v1@00000000',
      model: 'anthropic:claude-haiku-4-5',
      revisions: 3,
      annotatable: 3,
      annotated: 2,
      errors: 1,
      sampled: false,
      calls: 3,
      costUsd: 1.5,
    })
    expect(summary.classes.all).toMatchObject({ revisions: 1, solved: 1 })
    expect(summary.classes.unhelpful).toMatchObject({ revisions: 1, solved: 0 })
    expect(summary.note).toBeUndefined()
  })
  it("warns of self-annotation: the actor's own model, or its family", () => {
    expect(selfAnnotationNote('openai:gpt-4.1', { provider: 'openai', model: 'gpt-4.1', params: {} })).toMatch(
      /the actor's own model/,
    )
    expect(
      selfAnnotationNote('anthropic:claude-opus-4-5', { provider: 'anthropic', model: 'claude-haiku-4-5', params: {} }),
    ).toMatch(/of the actor's family \(anthropic\)/)
    expect(
      selfAnnotationNote('anthropic:claude-opus-4-5', { provider: 'openai', model: 'gpt-4.1', params: {} }),
    ).toBeUndefined()
    expect(modelFamily('openai-compatible', 'Qwen/Qwen2.5-Coder-7B')).toBe('qwen')
  })
})
