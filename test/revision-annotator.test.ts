// The LLM revision annotator end to end (paper §5.2.2): cells run through the sequential loop,
// the annotator is a priced OpenAI-compatible model behind the real OpenAI SDK, over a real socket
// to the local test server playing the rule-based annotator. A malformed reply is repaired; one
// malformed twice is that annotation's infrastructure error, recorded, counted, and the trajectory
// is intact. Annotations round-trip through trajectories.jsonl and summarise the same.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { appendTrajectory, readTrajectories } from '../src/artifacts/index.js'
import { summaryView } from '../src/artifacts/trajectories-file.js'
import { annotatorPrompt, revisionAnnotator } from '../src/feedback/annotator.js'
import type { FeedbackMode } from '../src/feedback/feedback-mode.js'
import { withCassette } from '../src/models/cassette.js'
import type { ChatModel } from '../src/models/chat-model.js'
import { openaiCompatibleModel } from '../src/models/providers/openai.js'
import { runCell } from '../src/protocol/cell.js'
import { cellSpec, saysCorrect } from '../src/protocol/test-helpers.js'
import { summariseRevisionAnnotations } from '../src/protocol/revision-annotation.js'
import type { Task } from '../src/protocol/task.js'
import { GENERIC_REQUEST, parseRubricRequest, ruleAnnotator } from '../src/testing/rubric-responders.js'
import { startTestServer } from '../src/testing/server.js'
import type { Responder, TestServer } from '../src/testing/types.js'
import { ZERO_USAGE } from '../src/core/contract.js'

// USD per million tokens: the annotator's price on the test server (which reports usage).
const PRICE = { input: 3, output: 15 }

let server: TestServer
const dirs: string[] = []
beforeAll(async () => {
  server = await startTestServer({ responder: ruleAnnotator() })
})
afterAll(async () => {
  await server.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
beforeEach(() => {
  server.reset()
  server.respondWith(ruleAnnotator())
})

function annotatorModel(name = 'rule-annotator', extra: Record<string, unknown> = {}): ChatModel {
  return openaiCompatibleModel({
    model: name,
    baseURL: server.openaiBaseURL,
    prices: { [`openai-compatible:${name}`]: PRICE },
    retry: { maxRetries: 0 },
    cassette: { mode: 'off' },
    ...extra,
  })
}

// Three tasks; the actor's answer at attempt t is scripted per task. It passes (says CORRECT) when
// it meets what the critique asks: `Mentions "CORRECT"`.
const SCRIPTS: Record<string, string[]> = {
  // ignores the critique twice (the same answer), then follows it
  t1: ['a draft', 'a draft', 'CORRECT answer'],
  // changes the answer without doing what was asked, then follows it
  t2: ['first try', 'second try', 'CORRECT at last'],
  // MALFORMED-ONCE: the annotator's first reply to this revision is not JSON (the repair fixes it);
  // MALFORMED-TWICE: neither is its repair (an infrastructure error of that annotation)
  t3: ['one', 'MALFORMED-ONCE two', 'MALFORMED-TWICE three'],
}
const tasks = Object.keys(SCRIPTS).map((id) => ({
  id,
  prompt: `Task ${id}: write an answer that mentions CORRECT.`,
})) as Task[]

const actor: ChatModel = {
  id: 'scripted',
  descriptor: { provider: 'custom', model: 'scripted', params: {} },
  async chat({ messages, context }) {
    const id = /Task (t\d)/.exec(messages.find((m) => m.role === 'user')?.content ?? '')?.[1] ?? 't1'
    return {
      text: SCRIPTS[id]![context.attempt - 1] ?? 'nothing',
      usage: ZERO_USAGE,
      latencyMs: 0,
      finishReason: 'stop',
      costUsd: 0,
    }
  },
}

// A critic-like mode whose critique names one criterion, the way the rule critic writes it.
const critique: FeedbackMode = {
  kind: 'critic',
  name: 'scripted-critic',
  version: '1',
  settings: {},
  render: () => ({
    kind: 'critic',
    text: 'Unmet criterion: Mentions "CORRECT". Revise your answer so that it meets it.',
  }),
}

/** The rule annotator, answering garbage where the revision asks for it (see SCRIPTS.t3). */
const faulty: Responder = (request) => {
  const parsed = parseRubricRequest(request)
  if (parsed?.kind === 'annotator' && parsed.revision.includes('MALFORMED-TWICE'))
    return parsed.repair ? 'still { not json' : 'Sure! Here is my annotation.'
  if (parsed?.kind === 'annotator' && parsed.revision.includes('MALFORMED-ONCE') && !parsed.repair)
    return '{"requests": "all of them"}'
  return ruleAnnotator()(request)
}

describe('the LLM revision annotator in a cell, through the OpenAI SDK and the test server', () => {
  it('annotates each revision, repairs a malformed reply once, records a twice-malformed one as its own error, and prices the calls under annotator', async () => {
    server.respondWith(faulty)
    const annotator = revisionAnnotator({ model: annotatorModel() })
    const { summary, trajectories } = await runCell(
      cellSpec(tasks, actor, {
        verifier: saysCorrect,
        mode: { name: 'critic', feedback: critique },
        budget: 3,
        annotate: { kind: 'llm', annotator },
      }),
    )
    const byTask = Object.fromEntries(trajectories.map((t) => [t.taskId, t]))

    // t1: the unchanged revision ignored the critique; the next one followed it and passed.
    expect(
      byTask.t1!.attempts.map((a) => (a.annotation && 'class' in a.annotation ? a.annotation.class : null)),
    ).toEqual([null, 'unhelpful', 'all'])
    expect(
      byTask.t2!.attempts.map((a) => (a.annotation && 'class' in a.annotation ? a.annotation.class : null)),
    ).toEqual([null, 'unhelpful', 'all'])
    const record = byTask.t1!.attempts[2]!.annotation!
    expect(record).toMatchObject({
      annotator: 'llm',
      version: annotatorPrompt().id,
      model: 'openai-compatible:rule-annotator',
      attempt: 3,
      requests: ['Mentions "CORRECT"'],
      satisfied: ['Mentions "CORRECT"'],
      class: 'all',
    })
    expect(annotatorPrompt().id).toMatch(/^annotator\.v1@[0-9a-f]{8}$/)

    // t3: revision 2 was repaired (two calls), revision 3 failed twice: an error record with both calls.
    const [, repaired, failed] = byTask.t3!.attempts
    expect(repaired!.annotation).toMatchObject({ class: 'unhelpful' })
    expect(repaired!.annotation!.calls).toHaveLength(2)
    expect(failed!.annotation).toMatchObject({
      annotator: 'llm',
      attempt: 3,
      error: expect.stringMatching(/malformed output twice/),
    })
    expect(failed!.annotation!.calls).toHaveLength(2)
    // The trajectory itself is intact: three attempts, failed, no error.
    expect(byTask.t3).toMatchObject({ status: 'failed', error: null })
    expect(byTask.t3!.attempts).toHaveLength(3)

    const annotation = summary.revisionAnnotation!
    expect(annotation).toMatchObject({
      annotator: 'llm',
      model: 'openai-compatible:rule-annotator',
      revisions: 6,
      annotatable: 6,
      annotated: 5,
      errors: 1,
      sampled: false,
    })
    expect(annotation.classes.unhelpful).toMatchObject({ revisions: 3, solved: 0 })
    expect(annotation.classes.all).toMatchObject({ revisions: 2, solved: 2 })
    expect(annotation.classes.some.revisions).toBe(0)

    // Cost: under the role annotator, priced; the protocol's cost at k (actor + helpers) leaves it out.
    const calls = trajectories.flatMap((t) => t.attempts.flatMap((a) => a.annotation?.calls ?? []))
    expect(calls).toHaveLength(8) // 4 revisions × 1 call + the repaired one's 2 + the failed one's 2
    expect(calls.every((c) => c.role === 'annotator' && c.costUsd! > 0)).toBe(true)
    const cost = calls.reduce((n, c) => n + c.costUsd!, 0)
    expect(summary.byRole.annotator).toMatchObject({ calls: 8 })
    expect(summary.byRole.annotator!.costUsd).toBeCloseTo(cost, 12)
    expect(annotation.costUsd).toBeCloseTo(cost, 12)
    expect(annotation.calls).toBe(8)
    expect(summary.costUsd).toBeCloseTo(cost, 12)
    expect(summary.costAtK).toEqual([0, 0, 0])
    const perRevision = cost / 6
    console.info(
      `annotator cost per revision at $${PRICE.input}/$${PRICE.output} per Mtok: $${perRevision.toFixed(6)} (${calls.length} calls, ${summary.byRole.annotator!.usage!.inputTokens} input and ${summary.byRole.annotator!.usage!.outputTokens} output tokens for 6 revisions)`,
    )
    expect(perRevision).toBeGreaterThan(0)

    // Recomputed from trajectories.jsonl alone (the summary view seqk summarize reads), the same.
    const dir = mkdtempSync(join(tmpdir(), 'seqk-annotator-'))
    dirs.push(dir)
    const file = join(dir, 'trajectories.jsonl')
    for (const t of trajectories) appendTrajectory(file, t)
    const read = readTrajectories(file, { view: summaryView }).trajectories
    expect(summariseRevisionAnnotations(read)).toEqual(annotation)
  })

  it('serves an identical request once (the cache), the reuse marked replayed at its nominal cost', async () => {
    const annotator = revisionAnnotator({ model: annotatorModel() })
    const { trajectories, summary } = await runCell(
      cellSpec(tasks.slice(0, 1), actor, {
        verifier: saysCorrect,
        mode: { name: 'critic', feedback: critique },
        budget: 3,
        repeats: 3,
        annotate: { kind: 'llm', annotator },
      }),
    )
    // Three repeats ask the same two things: two requests reach the server.
    expect(server.requests).toHaveLength(2)
    expect(annotator.stats()).toEqual({ calls: 2, cacheHits: 4 })
    const calls = trajectories.flatMap((t) => t.attempts.flatMap((a) => a.annotation?.calls ?? []))
    expect(calls.filter((c) => c.replayed)).toHaveLength(4)
    expect(new Set(calls.map((c) => c.costUsd)).size).toBeLessThanOrEqual(2)
    expect(summary.revisionAnnotation).toMatchObject({ annotated: 6, calls: 6 })
    // Off, every revision is asked (keyed by where it sits, so cassettes key them apart too).
    server.reset()
    const uncached = revisionAnnotator({ model: annotatorModel(), cache: false })
    await runCell(
      cellSpec(tasks.slice(0, 1), actor, {
        verifier: saysCorrect,
        mode: { name: 'critic', feedback: critique },
        budget: 3,
        repeats: 3,
        annotate: { kind: 'llm', annotator: uncached },
      }),
    )
    expect(server.requests).toHaveLength(6)
  })

  it('annotates a deterministic sample: the same slots on a rerun, reported as a sample', async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({
      id: `t${(i % 2) + 1}-${i}`,
      prompt: `Task t${(i % 2) + 1}: write an answer that mentions CORRECT.`,
    })) as Task[]
    const run = async () => {
      const annotator = revisionAnnotator({ model: annotatorModel() })
      const { summary, trajectories } = await runCell(
        cellSpec(many, actor, {
          verifier: saysCorrect,
          mode: { name: 'critic', feedback: critique },
          budget: 3,
          concurrency: 4,
          annotate: { kind: 'llm', annotator, sample: 10 },
        }),
      )
      const slots = trajectories
        .flatMap((t) => t.attempts.filter((a) => a.annotation).map((a) => `${t.taskId}/${a.index}`))
        .sort()
      return { summary, slots }
    }
    const first = await run()
    const second = await run()
    expect(second.slots).toEqual(first.slots)
    // 12 tasks × 2 revision slots = 24 slots, 10 drawn; every slot holds a revision here.
    expect(first.summary.revisionAnnotation).toMatchObject({
      sampled: true,
      sample: { size: 10, slots: 24, method: 'hash-rank/1' },
      annotated: 10,
      annotatable: 24,
      revisions: 24,
    })
    expect(first.slots).toHaveLength(10)
  })

  it('keeps no requests with annotate off, and with the derived default keeps them (nothing annotated for a critique)', async () => {
    const verifierLike: FeedbackMode = {
      kind: 'verifier',
      name: 'v',
      version: '1',
      settings: {},
      render: () => ({ kind: 'verifier', text: 'test_1 failed', requests: ['test:0'] }),
    }
    const off = await runCell(
      cellSpec(tasks.slice(0, 1), actor, {
        verifier: saysCorrect,
        mode: { name: 'verifier', feedback: verifierLike },
        budget: 3,
        annotate: { kind: 'off' },
      }),
    )
    expect(off.trajectories[0]!.attempts[0]!.feedback).toEqual({ kind: 'verifier', text: 'test_1 failed' })
    expect(off.summary.revisionAnnotation).toBeNull()
    const derived = await runCell(
      cellSpec(tasks.slice(0, 1), actor, {
        verifier: saysCorrect,
        mode: { name: 'verifier', feedback: verifierLike },
        budget: 3,
      }),
    )
    expect(derived.trajectories[0]!.attempts[0]!.feedback?.requests).toEqual(['test:0'])
    const critic = await runCell(
      cellSpec(tasks.slice(0, 1), actor, {
        verifier: saysCorrect,
        mode: { name: 'critic', feedback: critique },
        budget: 3,
      }),
    )
    expect(critic.summary.revisionAnnotation).toBeNull()
    expect(server.requests).toHaveLength(0)
  })

  it('says when the annotator is of the actor family (self-annotation)', async () => {
    const same = openaiCompatibleModel({
      model: 'scripted',
      baseURL: server.openaiBaseURL,
      retry: { maxRetries: 0 },
      cassette: { mode: 'off' },
    })
    const family: ChatModel = {
      ...actor,
      descriptor: { provider: 'openai-compatible', model: 'scripted-2', params: {} },
    }
    const { summary } = await runCell(
      cellSpec(tasks.slice(0, 1), family, {
        verifier: saysCorrect,
        mode: { name: 'critic', feedback: critique },
        budget: 3,
        annotate: { kind: 'llm', annotator: revisionAnnotator({ model: same }) },
      }),
    )
    expect(summary.revisionAnnotation?.note).toMatch(/of the actor's family \(scripted\).*self-annotation/)
  })

  it('records and replays annotator calls with a cassette (keyed by their messages)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-annotator-cassette-'))
    dirs.push(dir)
    const spec = (model: ChatModel) =>
      cellSpec(tasks.slice(0, 2), actor, {
        verifier: saysCorrect,
        mode: { name: 'critic', feedback: critique },
        budget: 3,
        annotate: { kind: 'llm', annotator: revisionAnnotator({ model }) },
      })
    const recorded = await runCell(spec(withCassette(annotatorModel(), { mode: 'record', dir })))
    expect(server.requests.length).toBeGreaterThan(0)
    server.reset()
    server.respondWith(() => {
      throw new Error('replay must not reach the server')
    })
    const replayed = await runCell(spec(withCassette(annotatorModel(), { mode: 'replay', dir })))
    expect(server.requests).toHaveLength(0)
    const classes = (r: typeof recorded) =>
      r.trajectories.flatMap((t) =>
        t.attempts.map((a) => (a.annotation && 'class' in a.annotation ? a.annotation.class : null)),
      )
    expect(classes(replayed)).toEqual(classes(recorded))
    expect(
      replayed.trajectories
        .flatMap((t) => t.attempts.flatMap((a) => a.annotation?.calls ?? []))
        .every((c) => c.replayed),
    ).toBe(true)
    expect(replayed.summary.revisionAnnotation?.costUsd).toBeCloseTo(recorded.summary.revisionAnnotation!.costUsd!, 12)
  })

  it('gives feedback that names nothing it can read one generic request, partly met by a changed answer', async () => {
    const vague: FeedbackMode = {
      kind: 'binary',
      name: 'b',
      version: '1',
      settings: {},
      render: () => ({ kind: 'binary', text: 'Your answer is wrong.' }),
    }
    const { trajectories } = await runCell(
      cellSpec(tasks.slice(1, 2), actor, {
        verifier: saysCorrect,
        mode: { name: 'binary', feedback: vague },
        budget: 3,
        annotate: { kind: 'llm', annotator: revisionAnnotator({ model: annotatorModel() }) },
      }),
    )
    expect(trajectories[0]!.attempts[1]!.annotation).toMatchObject({
      requests: [GENERIC_REQUEST],
      satisfied: [GENERIC_REQUEST],
      partly: [GENERIC_REQUEST],
      class: 'some',
    })
  })
})
