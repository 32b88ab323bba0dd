import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import { binary } from '../feedback/binary.js'
import type { FeedbackMode } from '../feedback/feedback-mode.js'
import { verifierFeedback } from '../feedback/verifier-feedback.js'
import { runCell } from '../protocol/cell.js'
import { fullHistory } from '../protocol/history.js'
import { defaultPromptBuilder } from '../protocol/prompt-builder.js'
import type { Task } from '../protocol/task.js'
import type { Verifier } from '../verifiers/verifier.js'
import type { CallContext, ChatMessage, ChatModel } from './chat-model.js'
import { SIMULATED_PROFILES, simulatedActor, type SimulatedProfileName } from './simulated.js'
import { perturbedTask } from '../protocol/perturbed-prompt.js'

const synthetic = (n: number, difficulty = 0.5): Task[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `syn-${i}`,
    prompt: `Synthetic task ${i}`,
    simulation: { difficulty, correct: ['OK'], wrong: ['BAD1', 'BAD2'] },
  }))

/** Passes 'OK'; its diagnostics name the failing test, as a python-tests verdict would. */
const okVerifier: Verifier = {
  name: 'ok',
  version: '1',
  settings: {},
  async verify(_task, answer) {
    const pass = answer === 'OK'
    return {
      pass,
      diagnostics: {
        outcome: pass ? 'passed' : 'failed',
        summary: pass ? 'passed' : '1 test failed',
        tests: [
          {
            index: 0,
            source: 'assert solve() == "OK"',
            pass,
            call: 'solve()',
            expected: "'OK'",
            actual: `'${answer}'`,
          },
        ],
      },
    }
  },
}

async function simulate(
  actor: ChatModel,
  options: { tasks?: Task[]; feedback?: FeedbackMode | null; budget?: number; repeats?: number } = {},
) {
  const feedback = options.feedback === undefined ? verifierFeedback() : options.feedback
  return runCell({
    runId: 'sim',
    benchmark: 'synthetic',
    cellId: actor.id,
    tasks: options.tasks ?? synthetic(200),
    actor,
    verifier: okVerifier,
    mode: feedback ? { name: feedback.name, feedback } : null,
    history: fullHistory,
    promptBuilder: defaultPromptBuilder,
    budget: options.budget ?? 5,
    repeats: options.repeats ?? 1,
    discloseBudget: false,
    concurrency: 16,
    thresholds: {},
    errors: 'left-out',
  })
}

const ctx = (
  task: Task,
  attempt: number,
  repeat = 0,
  protocol: CallContext['protocol'] = 'sequential',
): CallContext => ({ role: 'actor', taskId: task.id, attempt, repeat, protocol, simulation: task.simulation })

async function firstAnswers(actor: ChatModel, tasks: Task[]): Promise<string[]> {
  const out: string[] = []
  for (const task of tasks)
    out.push(
      (await actor.chat({ messages: [{ role: 'user', content: String(task.prompt) }], context: ctx(task, 1) })).text,
    )
  return out
}

describe('simulatedActor: determinism', () => {
  it('gives the same answers for the same seed, and different ones for another seed', async () => {
    const tasks = synthetic(60)
    const a = await firstAnswers(simulatedActor({ profile: 'reviser', seed: 11 }), tasks)
    const b = await firstAnswers(simulatedActor({ profile: 'reviser', seed: 11 }), tasks)
    const c = await firstAnswers(simulatedActor({ profile: 'reviser', seed: 12 }), tasks)
    expect(b).toEqual(a)
    expect(c).not.toEqual(a)
    expect(new Set(a)).toEqual(new Set(['OK', 'BAD1', 'BAD2']))
  })

  it('gives the same whole trajectories when a cell is run twice', async () => {
    const tasks = synthetic(40)
    const one = await simulate(simulatedActor({ profile: 'stubborn', seed: 5 }), { tasks, repeats: 2 })
    const two = await simulate(simulatedActor({ profile: 'stubborn', seed: 5 }), { tasks, repeats: 2 })
    expect(two.trajectories.map((t) => t.attempts.map((a) => a.answer))).toEqual(
      one.trajectories.map((t) => t.attempts.map((a) => a.answer)),
    )
  })

  it('draws each repeat independently', async () => {
    const tasks = synthetic(60)
    const actor = simulatedActor({ profile: 'reviser', seed: 3 })
    const r0: string[] = []
    const r1: string[] = []
    for (const task of tasks) {
      r0.push((await actor.chat({ messages: [{ role: 'user', content: 'x' }], context: ctx(task, 1, 0) })).text)
      r1.push((await actor.chat({ messages: [{ role: 'user', content: 'x' }], context: ctx(task, 1, 1) })).text)
    }
    expect(r1).not.toEqual(r0)
  })

  it('answers sample 1 of independent sampling exactly as attempt 1 of a trajectory', async () => {
    const tasks = synthetic(50)
    const sequential = await simulate(simulatedActor({ profile: 'one-shot', seed: 9 }), {
      tasks,
      repeats: 2,
      feedback: binary(),
    })
    const independent = await simulate(simulatedActor({ profile: 'one-shot', seed: 9 }), {
      tasks,
      repeats: 2,
      feedback: null,
    })
    expect(independent.trajectories.map((t) => t.attempts[0]?.answer)).toEqual(
      sequential.trajectories.map((t) => t.attempts[0]?.answer),
    )
    // ...and later samples are fresh draws, not copies of sample 1.
    expect(independent.trajectories.some((t) => new Set(t.attempts.map((a) => a.answer)).size > 1)).toBe(true)
  })

  it('treats every independent sample as a fresh draw, even when the prompt holds an assistant example', async () => {
    const task: Task = {
      id: 'few-shot',
      prompt: [
        { role: 'user', content: 'Example?' },
        { role: 'assistant', content: 'EXAMPLE' },
        { role: 'user', content: 'Now the task.' },
      ],
      simulation: { difficulty: 0.5, correct: ['OK'], wrong: ['BAD1', 'BAD2'] },
    }
    const resubmitter = simulatedActor({
      profile: {
        firstTry: 0.5,
        repairWithDetail: 0,
        repairWithBinary: 0,
        resubmit: 1,
        changesWrongAnswer: false,
        description: '',
      },
    })
    const { trajectories } = await simulate(resubmitter, { tasks: [task], feedback: null, budget: 10 })
    expect(trajectories[0]?.attempts.map((a) => a.answer)).not.toContain('EXAMPLE')
  })
})

describe('simulatedActor: setup errors', () => {
  it('throws a clear error for a task without a simulation script', async () => {
    const actor = simulatedActor({ profile: 'reviser' })
    const task: Task = { id: 'real-task', prompt: 'p' }
    await expect(actor.chat({ messages: [{ role: 'user', content: 'p' }], context: ctx(task, 1) })).rejects.toThrow(
      /task "real-task" has no valid `simulation` script/,
    )
  })

  it('names the field of a malformed script and the fix', async () => {
    const actor = simulatedActor({ profile: 'reviser' })
    const task = { id: 'fixture', prompt: 'p', simulation: { difficulty: 0.5, correct: ['OK'], wrong: [] } }
    const call = actor.chat({ messages: [{ role: 'user', content: 'p' }], context: ctx(task as Task, 1) })
    await expect(call).rejects.toThrow(
      /task "fixture" has no valid `simulation` script .*\(simulation\.wrong: .*\); .*add `simulation: \{ correct: \[\.\.\.\], wrong: \[\.\.\.\] \}` to the task/,
    )
  })

  it('throws for an unknown profile, listing the profiles', () => {
    expect(() => simulatedActor({ profile: 'genius' as SimulatedProfileName })).toThrow(
      /unknown profile "genius"; use one of reviser, stubborn, one-shot, memoryless/,
    )
  })

  // BUG (simulated.ts:89): the profile is looked up with `SIMULATED_PROFILES[name]`, so a name
  // inherited from Object.prototype ('toString', 'constructor', ...) is "found", and the actor runs
  // with undefined probabilities (it then always answers wrong) instead of failing.
  it('rejects profile names inherited from Object.prototype', () => {
    expect(() => simulatedActor({ profile: 'toString' as SimulatedProfileName })).toThrow(/unknown profile/)
  })
})

describe('simulatedActor: identity and calls', () => {
  it('describes itself by profile and seed', () => {
    const actor = simulatedActor({ profile: 'memoryless', seed: 4 })
    expect(actor.id).toBe('simulated:memoryless')
    expect(actor.descriptor).toEqual({
      provider: 'simulated',
      model: 'memoryless',
      params: {
        seed: 4,
        firstTry: 0.45,
        repairWithDetail: 0.45,
        repairWithBinary: 0.45,
        resubmit: 0,
        changesWrongAnswer: true,
        summaryRepairFactor: 1,
      },
    })
    expect(simulatedActor({ profile: 'reviser', id: 'mine' }).id).toBe('mine')
    expect(simulatedActor({ profile: 'reviser' }).descriptor.params.seed).toBe(1)
  })

  it('accepts a custom profile', async () => {
    const always = simulatedActor({
      profile: {
        firstTry: 1,
        repairWithDetail: 1,
        repairWithBinary: 1,
        resubmit: 0,
        changesWrongAnswer: true,
        description: 'always right',
      },
    })
    expect(always.descriptor.model).toBe('custom')
    // Probabilities are clamped to 0.98, so "always" is nearly always.
    const answers = await firstAnswers(always, synthetic(100, 0))
    expect(answers.filter((a) => a === 'OK').length).toBeGreaterThan(90)
  })

  it('reports usage from the text lengths, zero cost and a stop finish', async () => {
    const task = synthetic(1)[0]!
    const messages: ChatMessage[] = [{ role: 'user', content: 'x'.repeat(40) }]
    const response = await simulatedActor({ profile: 'reviser' }).chat({ messages, context: ctx(task, 1) })
    expect(response.usage).toEqual({
      inputTokens: 10,
      outputTokens: Math.ceil(response.text.length / 4),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    })
    expect(response.costUsd).toBe(0)
    expect(response.finishReason).toBe('stop')
  })

  it('stops a simulated latency promptly on abort', async () => {
    const controller = new AbortController()
    const actor = simulatedActor({ profile: 'reviser', latencyMs: 10_000 })
    const started = Date.now()
    const call = actor.chat({
      messages: [{ role: 'user', content: 'x' }],
      context: ctx(synthetic(1)[0]!, 1),
      signal: controller.signal,
    })
    setTimeout(() => controller.abort(new Error('stop now')), 5)
    await expect(call).rejects.toThrow('stop now')
    expect(Date.now() - started).toBeLessThan(2000)
  })

  // BUG (simulated.ts:73): `wait` adds an abort listener per call and removes it only on abort, so a
  // long run sharing one test signal accumulates one listener per call (a leak, and Node prints
  // MaxListenersExceededWarning after 10).
  it('leaves no abort listener behind after a call with simulated latency', async () => {
    const controller = new AbortController()
    const actor = simulatedActor({ profile: 'reviser', latencyMs: 1 })
    const task = synthetic(1)[0]!
    for (let i = 1; i <= 3; i++)
      await actor.chat({ messages: [{ role: 'user', content: 'x' }], context: ctx(task, i), signal: controller.signal })
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  it('reads its previous answer from the latest assistant turn', async () => {
    const task: Task = {
      id: 'r',
      prompt: 'p',
      simulation: { difficulty: 0.5, correct: ['OK'], wrong: ['BAD1', 'BAD2', 'BAD3'] },
    }
    const base = {
      firstTry: 0,
      repairWithDetail: 0,
      repairWithBinary: 0,
      resubmit: 0,
      changesWrongAnswer: false,
      description: '',
    }
    const messages: ChatMessage[] = [
      { role: 'user', content: 'p' },
      { role: 'assistant', content: 'BAD1' },
      { role: 'user', content: 'no' },
      { role: 'assistant', content: 'BAD2' },
      { role: 'user', content: 'Your answer is incorrect.' },
    ]
    const answers = async (profile: typeof base) => {
      const out: string[] = []
      for (let attempt = 3; attempt < 43; attempt++)
        out.push((await simulatedActor({ profile }).chat({ messages, context: ctx(task, attempt) })).text)
      return out
    }
    // Always resubmits: the latest answer, not an earlier one.
    expect(new Set(await answers({ ...base, resubmit: 1 }))).toEqual(new Set(['BAD2']))
    // Probabilities are clamped to >= 0.02, so an occasional repair is possible; otherwise it keeps BAD2...
    const keeps = await answers(base)
    expect(keeps.filter((a) => a !== 'OK').every((a) => a === 'BAD2')).toBe(true)
    // ...or, when it changes its wrong answer, never repeats BAD2.
    const changes = await answers({ ...base, changesWrongAnswer: true })
    expect(changes).not.toContain('BAD2')
    expect(changes).toContain('BAD1')
    expect(changes).toContain('BAD3')
  })
})

describe('simulatedActor: profiles show up statistically (200 synthetic tasks)', () => {
  const seqAt = (summary: { seqAt: (number | null)[] }, k: number) => summary.seqAt[k - 1] ?? Number.NaN

  it('reviser: Seq@5 with detailed feedback is clearly above Seq@5 with binary feedback', async () => {
    const detailed = await simulate(simulatedActor({ profile: 'reviser' }), { feedback: verifierFeedback() })
    const bare = await simulate(simulatedActor({ profile: 'reviser' }), { feedback: binary() })
    // Same first attempts under both modes.
    expect(seqAt(detailed.summary, 1)).toBe(seqAt(bare.summary, 1))
    expect(seqAt(detailed.summary, 1)).toBeGreaterThan(0.3)
    expect(seqAt(detailed.summary, 1)).toBeLessThan(0.5)
    expect(seqAt(detailed.summary, 5) - seqAt(bare.summary, 5)).toBeGreaterThan(0.08)
    expect(seqAt(detailed.summary, 5)).toBeGreaterThan(0.95)
  })

  it('stubborn: mostly resubmits (high unmodified rate)', async () => {
    const { summary } = await simulate(simulatedActor({ profile: 'stubborn' }), { feedback: binary() })
    expect(summary.statistics.unmodifiedRevisions?.n).toBeGreaterThan(100)
    expect(summary.statistics.unmodifiedRevisions?.value).toBeGreaterThan(0.7)
    const reviser = await simulate(simulatedActor({ profile: 'reviser' }), { feedback: binary() })
    expect(reviser.summary.statistics.unmodifiedRevisions?.value).toBeLessThan(0.2)
  })

  it('memoryless: Seq@k ≈ 1-(1-p)^k with p = firstTry, whatever the feedback', async () => {
    const p = SIMULATED_PROFILES.memoryless.firstTry
    const detailed = await simulate(simulatedActor({ profile: 'memoryless' }), { repeats: 3 })
    const bare = await simulate(simulatedActor({ profile: 'memoryless' }), { repeats: 3, feedback: binary() })
    for (let k = 1; k <= 5; k++) {
      expect(Math.abs(seqAt(detailed.summary, k) - (1 - (1 - p) ** k))).toBeLessThan(0.06)
      expect(Math.abs(seqAt(bare.summary, k) - (1 - (1 - p) ** k))).toBeLessThan(0.06)
    }
  })

  it('one-shot beats reviser on the first try but not after five attempts with detailed feedback', async () => {
    const oneShot = await simulate(simulatedActor({ profile: 'one-shot' }))
    const reviser = await simulate(simulatedActor({ profile: 'reviser' }))
    expect(seqAt(oneShot.summary, 1)).toBeGreaterThan(seqAt(reviser.summary, 1) + 0.15)
    expect(seqAt(reviser.summary, 5)).toBeGreaterThan(seqAt(oneShot.summary, 5) + 0.03)
  })

  it('flaky is capable but inconsistent: above one-shot by Seq@5 with any feedback, far below it by Pass@1 and pass^5', async () => {
    const tasks = synthetic(200)
    const flaky = simulatedActor({ profile: 'flaky' })
    const oneShot = simulatedActor({ profile: 'one-shot' })
    for (const feedback of [binary(), verifierFeedback()]) {
      const [f, o] = [await simulate(flaky, { tasks, feedback }), await simulate(oneShot, { tasks, feedback })]
      expect(seqAt(f.summary, 5)).toBeGreaterThan(seqAt(o.summary, 5) + 0.05)
    }
    const [f, o] = [
      (await simulate(flaky, { tasks, feedback: null })).summary,
      (await simulate(oneShot, { tasks, feedback: null })).summary,
    ]
    expect(f.passAt![0]!).toBeLessThan(o.passAt![0]! - 0.2)
    // pass^5 ≈ p^5: 0.35^5 ≈ 0.5% against 0.7^5 ≈ 17% on tasks of difficulty 0.5.
    expect(f.passHat![4]!).toBeLessThan(0.03)
    expect(o.passHat![4]!).toBeGreaterThan(f.passHat![4]! + 0.08)
  })

  it('harder tasks lower the first-try rate', async () => {
    const actor = simulatedActor({ profile: 'reviser' })
    const easy = (await firstAnswers(actor, synthetic(300, 0))).filter((a) => a === 'OK').length / 300
    const hard = (await firstAnswers(actor, synthetic(300, 1))).filter((a) => a === 'OK').length / 300
    // 0.4 * 1.5 = 0.6 versus 0.4 * 0.5 = 0.2.
    expect(easy).toBeGreaterThan(0.5)
    expect(hard).toBeLessThan(0.3)
  })
})

describe('simulatedActor under the reference layout (earlier attempts in numbered tags)', () => {
  it('reads the latest previous attempt and its feedback from the tags, as from turns', async () => {
    const [task] = synthetic(1)
    const always = { ...SIMULATED_PROFILES.stubborn, resubmit: 1 }
    const actor = simulatedActor({ profile: always, id: 'always-resubmits' })
    const tagged =
      'Solve it.\n\nThis is attempt 3 of 5. Review your previous attempt(s) and the feedback below, then provide an improved answer.\n\n<PreviousAttempt 1>\nfirst\n</PreviousAttempt 1>\n\n<Feedback 1>\nno\n</Feedback 1>\n\n<PreviousAttempt 2>\nsecond\nline\n</PreviousAttempt 2>\n\n<Feedback 2>\nstill no\n</Feedback 2>'
    const reply = await actor.chat({ messages: [{ role: 'user', content: tagged }], context: ctx(task!, 3) })
    expect(reply.text).toBe('second\nline')
    // Feedback that names what failed (cell-match's words among them) is detailed feedback.
    const reviser = simulatedActor({
      profile: { ...SIMULATED_PROFILES.reviser, resubmit: 0, repairWithDetail: 0.98, repairWithBinary: 0.02 },
    })
    const detailed = tagged.replace(
      'still no',
      'incorrect_output\nOutput grid: size correct: True; content match accuracy: 50.00% (2 of 4 cells match).',
    )
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, r) =>
        reviser.chat({ messages: [{ role: 'user', content: detailed }], context: ctx(task!, 3, r) }),
      ),
    )
    expect(answers.filter((a) => task!.simulation!.correct.includes(a.text)).length).toBeGreaterThanOrEqual(15)
  })
})

describe('literal: a simulated actor that reads the wording', () => {
  const seqAt = (summary: { seqAt: (number | null)[] }, k: number) => summary.seqAt[k - 1] ?? Number.NaN
  const reworded = (kind: 'distractor' | 'reorder', tasks: Task[]) =>
    tasks.map((t) => perturbedTask(t, { name: `${kind}/1`, kind, seed: 1001 }))

  it('is thrown by a distractor sentence; reads no mark on a prompt that holds none', async () => {
    const tasks = synthetic(200)
    const plain = await simulate(simulatedActor({ profile: 'literal' }), { tasks, budget: 1 })
    const distracted = await simulate(simulatedActor({ profile: 'literal' }), {
      tasks: reworded('distractor', tasks),
      budget: 1,
    })
    const p = SIMULATED_PROFILES.literal
    expect(seqAt(plain.summary, 1)).toBeGreaterThan(seqAt(distracted.summary, 1) + 0.2)
    expect(Math.abs(seqAt(distracted.summary, 1) - p.firstTry * p.distracted)).toBeLessThan(0.08)
  })

  it('draws afresh for every wording, so tasks flip both ways; a profile that reads no wording gives the same answers', async () => {
    const tasks = synthetic(200).map((t) => ({ ...t, prompt: `Do it.\n\n- first\n- second\n- third ${t.id}` }))
    const answers = async (profile: 'literal' | 'reviser', ts: Task[]) =>
      (await simulate(simulatedActor({ profile }), { tasks: ts, budget: 1 })).trajectories.map((t) => t.firstSuccess)
    const [a, b] = [await answers('literal', tasks), await answers('literal', reworded('reorder', tasks))]
    expect(a.some((x, i) => x === 1 && b[i] === null)).toBe(true)
    expect(a.some((x, i) => x === null && b[i] === 1)).toBe(true)
    expect(await answers('reviser', reworded('reorder', tasks))).toEqual(await answers('reviser', tasks))
  })
})
