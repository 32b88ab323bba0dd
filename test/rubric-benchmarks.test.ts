// The real rubric benchmark samples in ../shared/benchmarks/, graded end to end through the local
// test server as the grader (the real OpenAI SDK, real sockets): every record loads, every
// criterion gets a verdict, and the pass decision follows each benchmark's rule. The CL-bench
// graded file's own requirement_status, fed back as the grader's answers, reproduces its scores.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { loadAdvancedIfEntries, advancedIfVerifier } from '../src/benchmarks/advancedif.js'
import { clBenchScore, clBenchVerifier, loadClBenchEntries } from '../src/benchmarks/clbench.js'
import { healthBenchVerifier, loadHealthBenchEntries } from '../src/benchmarks/healthbench.js'
import { feedback, fullHistory, defaultPromptBuilder, runCell } from '../src/index.js'
import {
  parseRubricRequest,
  rubricGrader,
  scriptedGrader,
  testServerModel,
  type CriterionJudge,
} from '../src/testing/rubric-responders.js'
import { startTestServer } from '../src/testing/server.js'
import type { TestServer } from '../src/testing/types.js'
import { verdictCalls } from '../src/verifiers/rubric/rubric-verifier.js'
import { missingData, sharedFile } from '../src/benchmarks/test-helpers.js'

const files = {
  healthbench: sharedFile('healthbench/healthbench_oss_eval_first30.derived.jsonl'),
  advancedif: sharedFile('advancedif/sample_data.jsonl'),
  clbench: sharedFile('clbench/deepseek.v3.2.dkr_rsa_subset.jsonl'),
  clbenchGraded: sharedFile('clbench/deepseek.v3.2_graded.dkr_rsa_subset.jsonl'),
}
const skipReason = missingData(...Object.values(files))
const present = skipReason === undefined

if (!present) {
  describe('rubric benchmarks (real samples)', () => {
    it('needs ../shared/benchmarks/', (ctx) => ctx.skip(skipReason!))
  })
}

/** A deterministic stand-in for a grader model's judgement: about 60% of criteria met, fixed per (criterion, answer). */
const judge: CriterionJudge = (criterion, answer) => {
  const byte = createHash('sha256').update(`${criterion.id}\n${criterion.text}\n${answer}`).digest()[0]!
  return { met: byte < 154, reason: `hash byte ${byte}` }
}

describe.runIf(present)('rubric benchmarks (real samples) through the test server as grader', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())
  beforeEach(() => server.reset())
  const grader = () => testServerModel(server, { model: 'grader' })

  it('HealthBench: one grader call per rubric item; the official score (points met, penalties subtract, / positive points) against the threshold, the soft score without penalties', async () => {
    server.respondWith(rubricGrader({ judge }))
    const entries = loadHealthBenchEntries(files.healthbench)
    const threshold = healthBenchVerifier({ grader: grader(), threshold: 0.5 })
    const all = healthBenchVerifier({ grader: grader(), threshold: 'all' })
    let passes = 0
    for (const { task, idealCompletion } of entries) {
      const answer = idealCompletion ?? 'Please see a doctor if you are worried.'
      const before = server.requests.length
      const verdict = await threshold.verify(task, answer)
      expect(server.requests.length - before).toBe(task.criteria.length)
      expect(verdictCalls(verdict)).toHaveLength(task.criteria.length)
      // Per-criterion verdicts are the grader's, under the task's stable ids.
      expect(verdict.criteria!.map((c) => c.id)).toEqual(task.criteria.map((c) => c.id))
      const met = task.criteria.map(
        (c, i) => (judge({ id: c.id, text: c.text, index: i + 1 }, answer) as { met: boolean }).met,
      )
      expect(verdict.criteria!.map((c) => c.met)).toEqual(met)
      // simple-evals calculate_score, written out independently.
      const possible = task.criteria.reduce((n, c) => n + Math.max(0, c.points!), 0)
      const achieved = task.criteria.reduce((n, c, i) => n + (met[i] ? c.points! : 0), 0)
      expect(verdict.pass).toBe(achieved / possible >= 0.5)
      // The soft score (the score curve's) is the reference harness's: positive points met / positive points.
      const positive = task.criteria.reduce((n, c, i) => n + (met[i] && c.points! > 0 ? c.points! : 0), 0)
      expect(verdict.score).toBeCloseTo(positive / possible, 12)
      if (verdict.pass) passes++
      // "all": every positive item met and no penalty met; graded from the cache, no new call.
      const calls = server.requests.length
      const strict = await all.verify(task, answer)
      expect(strict.pass).toBe(task.criteria.every((c, i) => (c.points! > 0 ? met[i] : !met[i])))
      expect(server.requests.length).toBe(calls + task.criteria.length) // another verifier: its own cache
    }
    expect(passes).toBeGreaterThan(0)
    expect(passes).toBeLessThan(entries.length)
  })

  it('AdvancedIF: the whole rubric in one grader call per record (system prompt in view); pass only if every question is satisfied', async () => {
    server.respondWith(rubricGrader({ judge }))
    const entries = loadAdvancedIfEntries(files.advancedif)
    const verifier = advancedIfVerifier({ grader: grader() })
    const outcomes = new Set<boolean>()
    for (const { task, response, subset } of entries) {
      const before = server.requests.length
      const verdict = await verifier.verify(task, response!)
      expect(server.requests.length - before).toBe(1)
      const request = parseRubricRequest(server.requests.at(-1)!)
      expect(request).toMatchObject({ kind: 'grader', mode: 'all-at-once', response })
      expect(request!.kind === 'grader' && request!.criteria.map((c) => c.text)).toEqual(
        task.criteria.map((c) => c.text),
      )
      if (subset === 'system-steerability')
        expect(request!.kind === 'grader' && request!.conversation.startsWith('[system]\n')).toBe(true)
      const met = task.criteria.map(
        (c, i) => (judge({ id: c.id, text: c.text, index: i + 1 }, response!) as { met: boolean }).met,
      )
      expect(verdict.criteria!.map((c) => [c.id, c.met])).toEqual(task.criteria.map((c, i) => [c.id, met[i]]))
      expect(verdict.pass).toBe(met.every(Boolean))
      outcomes.add(verdict.pass)
    }
    expect(outcomes).toEqual(new Set([true, false]))
  })

  it.each(['all-at-once', 'per-criterion'] as const)(
    "CL-bench: the graded file's requirement_status fed back as the grader's answers reproduces its scores exactly (%s)",
    async (gradingMode) => {
      const graded = loadClBenchEntries(files.clbenchGraded)
      server.respondWith(
        scriptedGrader(
          graded.map((e) => ({
            answer: e.modelOutput!,
            verdicts: e.graded!.requirementStatus.map((s) => ({ met: s === 'yes', reason: `official: ${s}` })),
          })),
        ),
      )
      const verifier =
        gradingMode === 'all-at-once'
          ? clBenchVerifier({ grader: grader() })
          : (await import('../src/verifiers/rubric/rubric-verifier.js')).rubric({ grader: grader(), gradingMode })
      for (const { task, modelOutput, graded: official } of graded) {
        const verdict = await verifier.verify(task, modelOutput!)
        expect(verdict.criteria!.map((c) => (c.met ? 'yes' : 'no'))).toEqual(official!.requirementStatus)
        expect(verdict.pass ? 1 : 0).toBe(official!.score)
        expect(clBenchScore(verdict.criteria!.map((c) => c.met))).toBe(official!.score)
        expect(verdict.criteria!.every((c) => c.reason === `official: ${c.met ? 'yes' : 'no'}`)).toBe(true)
      }
      expect(server.requests).toHaveLength(
        gradingMode === 'all-at-once' ? graded.length : graded.reduce((n, e) => n + e.task.criteria.length, 0),
      )
    },
  )

  it('CL-bench: every requirement met would score 1', async () => {
    const [entry] = loadClBenchEntries(files.clbenchGraded)
    server.respondWith(scriptedGrader([{ verdicts: entry!.task.criteria.map(() => true) }]))
    const verdict = await clBenchVerifier({ grader: grader() }).verify(entry!.task, entry!.modelOutput!)
    expect([verdict.pass, verdict.score]).toEqual([true, 1])
  })

  it('CL-bench: a whole Seq@K cell — the model answers over the SDK, the grader replays the official grades, every attempt keeps per-criterion verdicts', async () => {
    const output = loadClBenchEntries(files.clbench)
    const graded = loadClBenchEntries(files.clbenchGraded)
    const grade = scriptedGrader(
      graded.map((e) => ({ answer: e.modelOutput!, verdicts: e.graded!.requirementStatus.map((s) => s === 'yes') })),
    )
    // The actor: the recorded answer of the task whose messages open the conversation, resubmitted after feedback.
    const opens = (request: { messages: { content: string }[] }, prompt: { content: string }[]) =>
      prompt.every((m, i) => request.messages[i]?.content === m.content)
    server.respondWith((request) => {
      if (parseRubricRequest(request)?.kind === 'grader') return grade(request)
      // The longest match: one task's conversation can continue another's (two share a context).
      const matches = output.filter((e) => opens(request, e.task.prompt as { content: string }[]))
      return matches.sort((a, b) => (b.task.prompt as unknown[]).length - (a.task.prompt as unknown[]).length)[0]!
        .modelOutput!
    })
    const tasks = output.map((e) => e.task)
    const { summary, trajectories } = await runCell({
      runId: 'clbench',
      benchmark: 'CL-bench sample',
      cellId: 'replay · binary',
      tasks,
      actor: testServerModel(server, { model: 'deepseek-v3.2-replay' }),
      verifier: clBenchVerifier({ grader: grader() }),
      mode: { name: 'binary', feedback: feedback.binary() },
      history: fullHistory,
      promptBuilder: defaultPromptBuilder,
      budget: 2,
      repeats: 1,
      discloseBudget: false,
      concurrency: 4,
      thresholds: {},
      errors: 'left-out',
    })
    expect(summary.errors.count).toBe(0)
    expect(summary.seqAt).toEqual([0, 0])
    for (const t of trajectories) {
      const official = graded.find((e) => e.task.id === t.taskId)!
      expect(t.attempts).toHaveLength(2)
      for (const a of t.attempts) {
        expect(a.verdict.criteria!.map((c) => c.id)).toEqual(official.task.criteria.map((c) => c.id))
        expect(a.verdict.criteria!.map((c) => (c.met ? 'yes' : 'no'))).toEqual(official.graded!.requirementStatus)
      }
      // The resubmission is graded from the verifier's cache: same verdict, a replayed call. The
      // protocol moves the grader's calls from the verdict to the attempt's helper calls.
      const graderCalls = t.attempts[1]!.helperCalls.filter((c) => c.role === 'grader')
      expect(graderCalls.length > 0 && graderCalls.every((c) => c.replayed)).toBe(true)
    }
  })
})
