import { describe, expect, it } from 'vitest'
import { protocolFingerprint } from '../../core/fingerprint.js'
import type { Task } from '../../protocol/task.js'
import { rubric, rubricCriteria, verdictCalls } from './rubric-verifier.js'
import { RubricGraderError } from './grader.js'
import { askedIds, fakeModel } from './test-helpers.js'
import { spentCalls } from '../../models/chat-model.js'
import { protocolFixture } from '../../../test/protocol-fixture.js'

const task = (criteria: unknown, id = 'rx/1'): Task =>
  ({ id, prompt: 'Write about the sea in at most 5 words.', criteria }) as Task

const codeOnly = task([
  { id: 'short', text: 'At most 5 words', check: { kind: 'max-words', limit: 5 } },
  { id: 'sea', text: 'Mentions "sea"', check: { kind: 'includes', text: 'sea' } },
])
const mixed = task([
  { id: 'short', text: 'At most 5 words', check: { kind: 'max-words', limit: 5 } },
  { id: 'calm', text: 'Has a calm tone' },
  { id: 'waves', text: 'Mentions waves' },
])
/** Met iff the answer contains the criterion id (so tests can steer each criterion). */
const byId = () =>
  fakeModel((r) => {
    const ids = askedIds(r)
    const answer = /<response>\n([\s\S]*?)\n<\/response>/.exec(r.messages[1]!.content)![1]!
    return ids.length === 1 && !r.messages[0]!.content.includes('"criteria": [')
      ? JSON.stringify({ met: answer.includes(ids[0]!), reason: `looked for ${ids[0]}` })
      : JSON.stringify({ criteria: ids.map((id) => ({ id, met: answer.includes(id), reason: `looked for ${id}` })) })
  })

describe('verifiers.rubric: code criteria', () => {
  it('judges code checks with no model call, criterion by criterion with stable ids', async () => {
    const v = rubric()
    const verdict = await v.verify(codeOnly, 'The sea is wide and deep')
    expect(verdict.pass).toBe(false)
    expect(verdict.score).toBe(0.5)
    expect(verdict.criteria).toEqual([
      {
        id: 'short',
        text: 'At most 5 words',
        met: false,
        reason: '6 words (limit 5)',
        satisfied: false,
        checkedBy: 'code',
      },
      { id: 'sea', text: 'Mentions "sea"', met: true, reason: 'contains "sea"', satisfied: true, checkedBy: 'code' },
    ])
    expect(verdict.diagnostics).toEqual({ outcome: 'failed', summary: '1 of 2 criteria met; unmet: short' })
    expect(verdictCalls(verdict)).toEqual([])
    expect((await v.verify(codeOnly, 'The calm sea')).pass).toBe(true)
  })

  it('uses a predicate from the options over the task’s check and the grader', async () => {
    const grader = byId()
    const v = rubric({
      grader,
      predicates: {
        sea: (answer) => answer.startsWith('Sea'),
        calm: (a) => ({ met: a.length < 20, reason: 'short enough' }),
      },
    })
    const verdict = await v.verify(
      task([
        { id: 'sea', text: 'Mentions "sea"', check: { kind: 'includes', text: 'sea' } },
        { id: 'calm', text: 'Has a calm tone' },
      ]),
      'the sea',
    )
    expect(verdict.criteria!.map((c) => [c.id, c.met, c.reason])).toEqual([
      ['sea', false, 'predicate fails'],
      ['calm', true, 'short enough'],
    ])
    expect(grader.requests).toHaveLength(0)
    expect(v.settings.predicates).toMatch(/^calm,sea#[0-9a-f]{8}$/)
  })

  it('grades an empty answer as unmet with no model call', async () => {
    const grader = byId()
    const verdict = await rubric({ grader }).verify(mixed, '   ')
    expect(verdict.pass).toBe(false)
    expect(verdict.diagnostics.outcome).toBe('no-answer')
    expect(verdict.criteria!.find((c) => c.id === 'calm')).toMatchObject({ met: false, reason: 'empty answer' })
    expect(grader.requests).toHaveLength(0)
  })
})

describe('verifiers.rubric: the grader', () => {
  it('per-criterion: one grader call per model-graded criterion, each recorded on the verdict', async () => {
    const grader = byId()
    const verdict = await rubric({ grader }).verify(mixed, 'calm waves')
    expect(verdict.pass).toBe(true)
    expect(grader.requests.map((r) => askedIds(r))).toEqual([['calm'], ['waves']])
    expect(grader.requests.every((r) => r.context.role === 'grader' && r.context.taskId === 'rx/1')).toBe(true)
    expect(verdictCalls(verdict).map((c) => c.role)).toEqual(['grader', 'grader'])
    expect(rubricCriteria(verdict).map((c) => [c.id, c.checkedBy])).toEqual([
      ['short', 'code'],
      ['calm', 'grader'],
      ['waves', 'grader'],
    ])
  })

  it('all-at-once: one call for every model-graded criterion', async () => {
    const grader = byId()
    const verdict = await rubric({ grader, gradingMode: 'all-at-once' }).verify(mixed, 'calm and quiet')
    expect(grader.requests.map((r) => askedIds(r))).toEqual([['calm', 'waves']])
    expect(verdict.criteria!.map((c) => c.met)).toEqual([true, true, false])
    expect(verdict.diagnostics.summary).toBe('2 of 3 criteria met; unmet: waves')
  })

  it('a grader that answers malformed twice is an infrastructure error, not a failed verdict', async () => {
    const grader = fakeModel(() => 'I think so.')
    await expect(rubric({ grader }).verify(mixed, 'calm waves')).rejects.toThrow(RubricGraderError)
  })

  it('reuses the grading of an identical request, keeping its nominal cost and marking it replayed', async () => {
    const grader = byId()
    const v = rubric({ grader })
    const [a, b] = await Promise.all([v.verify(mixed, 'calm waves'), v.verify(mixed, 'calm waves')])
    const c = await v.verify(mixed, 'calm waves')
    expect(grader.requests).toHaveLength(2)
    expect(v.stats()).toEqual({ graderCalls: 2, cacheHits: 4 })
    expect(verdictCalls(a).every((x) => !x.replayed)).toBe(true)
    for (const verdict of [b, c]) {
      expect(verdictCalls(verdict).map((x) => [x.replayed, x.costUsd])).toEqual([
        [true, 0.001],
        [true, 0.001],
      ])
      expect(verdict.criteria).toEqual(a.criteria)
    }
    await rubric({ grader, cache: false }).verify(mixed, 'calm waves')
    expect(grader.requests).toHaveLength(4)
  })

  it('a grading that fails keeps the spend of the gradings done before it', async () => {
    const grader = fakeModel((r) => {
      if (askedIds(r)[0] === 'waves') throw new Error('HTTP 503: overloaded')
      return JSON.stringify({ met: true, reason: 'ok' })
    })
    const error = await rubric({ grader, concurrency: 1 })
      .verify(mixed, 'calm')
      .catch((e: unknown) => e)
    expect((error as Error).message).toBe('HTTP 503: overloaded')
    // 'calm' was graded (one call) before 'waves' failed.
    expect(spentCalls(error).map((c) => c.role)).toEqual(['grader'])
  })

  it('a grading that fails keeps the spend of gradings still in flight, which finish first', async () => {
    const criteria = ['a', 'b', 'c'].map((id) => ({ id, text: `criterion ${id}` }))
    let finishedAfterFailure = false
    const grader = fakeModel(async (r) => {
      const id = askedIds(r)[0]
      if (id === 'a') throw new Error('HTTP 500: boom')
      await new Promise((resolve) => setTimeout(resolve, 20))
      if (id === 'b') finishedAfterFailure = true
      return JSON.stringify({ met: true, reason: id })
    })
    const error = await rubric({ grader, concurrency: 2 })
      .verify(task(criteria), 'x')
      .catch((e: unknown) => e)
    expect((error as Error).message).toBe('HTTP 500: boom')
    expect(finishedAfterFailure).toBe(true)
    // 'b' was in flight when 'a' failed and is counted; 'c' never started.
    expect(spentCalls(error)).toHaveLength(1)
    expect(grader.requests.map((r) => askedIds(r)[0])).toEqual(['a', 'b'])
  })

  it('grader calls carry the attempt and repeat only when the cache is off (a cached grading serves many attempts)', async () => {
    const cached = byId()
    await rubric({ grader: cached }).verify(mixed, 'calm waves', { attempt: 3, repeat: 1 })
    expect(cached.requests.map((r) => [r.context.attempt, r.context.repeat])).toEqual([
      [0, 0],
      [0, 0],
    ])
    const uncached = byId()
    await rubric({ grader: uncached, cache: false }).verify(mixed, 'calm waves', { attempt: 3, repeat: 1 })
    expect(uncached.requests.map((r) => [r.context.attempt, r.context.repeat])).toEqual([
      [3, 1],
      [3, 1],
    ])
  })

  it('a request that waited on a grading that failed gets that spend marked replayed, not counted as new', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const grader = fakeModel(async (_, i) => {
      await gate
      return i === 0 ? 'not json' : 'still not json'
    })
    const v = rubric({ grader, gradingMode: 'all-at-once' })
    const first = v.verify(mixed, 'calm waves').catch((e: unknown) => e)
    const second = v.verify(mixed, 'calm waves').catch((e: unknown) => e)
    release()
    const [a, b] = await Promise.all([first, second])
    expect(a).toBeInstanceOf(RubricGraderError)
    // The waiter gets its own copy, of the same class, and the original's accounting is untouched.
    expect(b).toBeInstanceOf(RubricGraderError)
    expect(b).not.toBe(a)
    expect((b as Error).message).toBe((a as Error).message)
    expect(spentCalls(a).map((c) => c.replayed)).toEqual([false, false])
    expect(spentCalls(b).map((c) => c.replayed)).toEqual([true, true])
    expect(grader.requests).toHaveLength(2)
  })

  it('does not cache a failed grading', async () => {
    let fail = true
    const grader = fakeModel((r) => {
      if (fail) throw new Error('HTTP 503')
      return JSON.stringify({ met: true, reason: askedIds(r)[0] })
    })
    const v = rubric({ grader })
    await expect(v.verify(mixed, 'x')).rejects.toThrow('HTTP 503')
    fail = false
    expect(rubricCriteria(await v.verify(mixed, 'x')).every((c) => c.checkedBy === 'code' || c.met)).toBe(true)
  })

  it('stops at an aborted signal', async () => {
    const controller = new AbortController()
    controller.abort(new Error('cancelled'))
    await expect(rubric({ grader: byId() }).verify(mixed, 'x', { signal: controller.signal })).rejects.toThrow(
      'cancelled',
    )
  })
})

describe('verifiers.rubric: pass rules', () => {
  const weighted = task([
    { id: 'a', text: 'A', points: 6, check: { kind: 'includes', text: 'alpha' } },
    { id: 'b', text: 'B', points: 4, check: { kind: 'includes', text: 'beta' } },
    { id: 'p', text: 'P', points: -5, check: { kind: 'includes', text: 'bad' } },
  ])

  it('points: score = met points (penalties subtract) / positive points against the threshold', async () => {
    const v = rubric({ passRule: { points: 0.6 } })
    const good = await v.verify(weighted, 'alpha')
    expect([good.pass, good.score]).toEqual([true, 0.6])
    const penalised = await v.verify(weighted, 'alpha beta bad')
    // The threshold reads the score with the penalty (0.5); the soft score is the positive points met (1).
    expect([penalised.pass, penalised.score]).toEqual([false, 1])
    const compliance = await rubric({ passRule: { points: 0.6 }, score: 'weighted' }).verify(weighted, 'alpha beta bad')
    expect(compliance.score).toBe(0.5)
    expect(rubric({ score: 'weighted' }).settings.score).toBe('weighted')
    expect('score' in rubric().settings).toBe(false)
    expect(() => rubric({ score: 'most' as never })).toThrow(/score: use 'share', 'positive-points', 'weighted'/)
    expect(penalised.criteria!.find((c) => c.id === 'p')).toMatchObject({ met: true, points: -5, satisfied: false })
    expect(penalised.diagnostics.summary).toBe('score 0.5 (5 of 10 points, penalties -5) < threshold 0.6; penalised: p')
  })

  it('all: every positive criterion met and no penalty met', async () => {
    const v = rubric({ passRule: 'all' })
    expect((await v.verify(weighted, 'alpha beta')).pass).toBe(true)
    expect((await v.verify(weighted, 'alpha beta bad')).pass).toBe(false)
  })
})

describe('verifiers.rubric: declaration checks and settings', () => {
  it('reports what a task lacks', () => {
    const v = rubric()
    expect(v.checkTask!({ id: 'x', prompt: 'p' })[0]).toMatch(/has no criteria: a rubric task needs `criteria/)
    expect(v.checkTask!(mixed)).toEqual([
      'criteria calm, waves need a grader model (no check, no predicate): pass grader to verifiers.rubric()',
    ])
    expect(v.checkTask!(task([{ id: 'a' }]))[0]).toMatch(/task "rx\/1": criteria\[0\]\.text/)
    expect(rubric({ passRule: { points: 0.5 } }).checkTask!(codeOnly)).toEqual([
      'the points pass rule needs points on every criterion; short, sea have none',
    ])
    expect(
      rubric({ passRule: { points: 0.5 } }).checkTask!(
        task([{ id: 'p', text: 'P', points: -1, check: { kind: 'json' } }]),
      ),
    ).toEqual(['the points pass rule needs at least one criterion with positive points'])
    expect(rubric({ grader: byId() }).checkTask!(mixed)).toEqual([])
  })

  it('verify() refuses a task that fails those checks', async () => {
    await expect(rubric().verify(mixed, 'x')).rejects.toThrow(/task "rx\/1" criteria calm, waves need a grader model/)
  })

  it('validates its options', () => {
    expect(() => rubric({ gradingMode: 'batch' as never })).toThrow(/verifiers.rubric\(\): gradingMode/)
    expect(() => rubric({ passRule: { points: 2 } })).toThrow(/passRule/)
    expect(() => rubric({ grader: {} as never })).toThrow(/grader: expected a chat model/)
    expect(() => rubric({ nope: 1 } as never)).toThrow(/nope/)
    expect(() => rubric({ gradr: byId() } as never)).toThrow(
      'verifiers.rubric(): unknown option "gradr" (did you mean "grader"?); valid options: cache, concurrency, grader, gradingMode, heldOut, passRule, predicates',
    )
    expect(() => rubric({ concurrency: 101 })).toThrow(
      /concurrency: concurrency must be at most 100 grader calls in flight per answer \(got 101\)/,
    )
    expect(() => rubric({ concurrency: 0 })).toThrow(/concurrency must be an integer from 1 to 100/)
    expect(rubric({ concurrency: 100 }).name).toBe('rubric')
  })

  it("checks what a predicate returns: a boolean or { met, reason? }, never 'yes'", async () => {
    const task = { id: 'rx/9', prompt: 'p', criteria: [{ id: 'short', text: 'Short' }] } as Task
    for (const returned of ['yes', 1, undefined, { met: 'true' }, { pass: true }, Promise.resolve(true)]) {
      await expect(rubric({ predicates: { short: () => returned as never } }).verify(task, 'x')).rejects.toThrow(
        /^verifiers\.rubric\(\) predicate for criterion "short" returned a malformed predicate result for task "rx\/9": /,
      )
    }
    expect(
      (await rubric({ predicates: { short: () => ({ met: true, reason: 'short' }) } }).verify(task, 'x')).pass,
    ).toBe(true)
  })

  it("says 'passed' exactly when it passes, also for an empty answer (the verdict contract)", async () => {
    const task = {
      id: 'rx/8',
      prompt: 'p',
      criteria: [
        {
          id: 'no-emoji',
          text: 'No emoji',
          points: -1,
          check: { kind: 'regex', pattern: '\\p{Extended_Pictographic}' },
        },
        { id: 'p', text: 'P', points: 1, check: { kind: 'max-words', limit: 5 } },
      ],
    } as Task
    const verdict = await rubric({ passRule: { points: 0.5 } }).verify(task, '')
    // Nothing to penalise and nothing too long: an empty answer passes this rubric, and says so.
    expect(verdict.pass).toBe(true)
    expect(verdict.diagnostics.outcome).toBe('passed')
  })

  it('puts the grader, its parameters, the prompt version and hash, the mode and the pass rule in settings', () => {
    const grader = fakeModel(() => '', { model: 'gpt-x', params: { temperature: 0 } })
    expect(rubric({ grader, gradingMode: 'all-at-once', passRule: { points: 0.6 } }).settings).toEqual({
      grader: 'fake:gpt-x',
      graderParams: '{"temperature":0}',
      graderPrompt: expect.stringMatching(/^grader-all\.v1@[0-9a-f]{8}$/),
      gradingMode: 'all-at-once',
      passRule: 'points>=0.6',
      predicates: null,
      graderCache: true,
    })
    expect(rubric().settings).toMatchObject({
      grader: null,
      graderPrompt: expect.stringMatching(/^grader\.v1@/),
      gradingMode: 'per-criterion',
      passRule: 'all',
    })
  })

  it('changes the protocol fingerprint with the grader, its decoding, the mode and the pass rule', () => {
    const fp = (v: ReturnType<typeof rubric>) =>
      protocolFingerprint(protocolFixture({ verifier: { name: v.name, version: v.version, settings: v.settings } }))
    const grader = (model: string, temperature = 0) => fakeModel(() => '', { model, params: { temperature } })
    const base = fp(rubric({ grader: grader('g1') }))
    expect(fp(rubric({ grader: grader('g1') }))).toBe(base)
    for (const other of [
      rubric({ grader: grader('g2') }),
      rubric({ grader: grader('g1', 1) }),
      rubric({ grader: grader('g1'), gradingMode: 'all-at-once' }),
      rubric({ grader: grader('g1'), passRule: { points: 0.5 } }),
    ]) {
      expect(fp(other)).not.toBe(base)
    }
  })
})
