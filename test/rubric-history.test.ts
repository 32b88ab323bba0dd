// History `summary` for real: a summariser model (the Anthropic SDK against the local test
// server) replaces earlier attempts with its summary, the actor (the OpenAI SDK, same server)
// sees it, and the summariser's tokens and cost count toward the trajectory. Then the paper's
// table 6 comparison: the same tasks under `full` and `summary` history, paired over tasks.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { rubricTasks } from '../fixtures/rubric-tasks.js'
import { critic } from '../src/feedback/critic.js'
import {
  actors,
  defaultPromptBuilder,
  fullHistory,
  runCell,
  summaryHistory,
  type CellSpec,
  type HistoryPolicy,
  type Task,
} from '../src/index.js'
import { pairedBootstrap } from '../src/metrics/bootstrap.js'
import { parseRubricRequest, rubricRules, testServerModel } from '../src/testing/rubric-responders.js'
import { startTestServer } from '../src/testing/server.js'
import type { TestServer, TestServerRequest } from '../src/testing/types.js'
import { rubric } from '../src/verifiers/rubric/rubric-verifier.js'

const KEY = 'fake-key-history-0123456789'
const tasks = (rubricTasks as unknown as Task[]).slice(0, 6)
let server: TestServer

/**
 * A stylised actor that needs its memory: it answers a task's wrong answers in turn, and the
 * correct one only once it sees two earlier attempts of its own verbatim — which `full` history
 * shows from attempt 3 on and `summary` history never does. Half the tasks it solves on the
 * second attempt whatever the history, so the paired difference has something to average.
 */
function memoryActor(request: TestServerRequest): string {
  const task = tasks.find((t) => request.messages[0]?.content.startsWith(t.prompt as string))!
  const script = task.simulation!
  const seen = request.messages.filter((m) => m.role === 'assistant').length
  const easy = tasks.indexOf(task) % 2 === 0
  if (seen >= 2 || (easy && seen >= 1)) return script.correct[0]!
  return script.wrong[seen % script.wrong.length]!
}

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  server.respondWith(rubricRules({ otherwise: memoryActor }))
})

function spec(history: HistoryPolicy, overrides: Partial<CellSpec> = {}): CellSpec {
  return {
    runId: 'history',
    benchmark: `rubric fixtures (${history.name} history)`,
    cellId: 'openai:gpt-4.1-mini · critic-aware',
    tasks,
    actor: actors.openai({
      model: 'gpt-4.1-mini',
      apiKey: KEY,
      baseURL: server.openaiBaseURL,
      temperature: 0,
      retry: { baseDelayMs: 1 },
      timeoutMs: 5000,
    }),
    verifier: rubric({ grader: testServerModel(server, { model: 'rule-grader' }) }),
    mode: {
      name: 'critic-aware',
      feedback: critic({
        model: testServerModel(server, { model: 'rule-critic' }),
        rubric: 'aware',
        style: 'directive',
      }),
    },
    history,
    promptBuilder: defaultPromptBuilder,
    budget: 4,
    repeats: 1,
    discloseBudget: false,
    concurrency: 3,
    thresholds: {},
    errors: 'left-out',
    ...overrides,
  }
}

const summariser = () =>
  actors.anthropic({
    model: 'claude-haiku-4-5',
    apiKey: KEY,
    baseURL: server.anthropicBaseURL,
    temperature: 0,
    retry: { baseDelayMs: 1 },
    timeoutMs: 5000,
  })

describe('summary history with a real summariser model', () => {
  it('summarises earlier attempts over the Messages API, shows the actor the summary and the latest pair verbatim, and counts the summariser', async () => {
    const { summary, trajectories } = await runCell(spec(summaryHistory(summariser())))
    expect(summary.errors.count).toBe(0)
    const summaries = server.requests.filter((r) => parseRubricRequest(r)?.kind === 'summariser')
    expect(summaries.every((r) => r.api === 'messages' && r.model === 'claude-haiku-4-5')).toBe(true)
    // One summary per attempt from the third on (the first two have nothing earlier to summarise).
    const attemptsFrom3 = trajectories.reduce((n, t) => n + Math.max(0, t.attempts.length - 2), 0)
    expect(attemptsFrom3).toBeGreaterThan(0)
    expect(summaries).toHaveLength(attemptsFrom3)
    expect(summary.byRole.summariser?.calls).toBe(attemptsFrom3)
    expect(summary.byRole.summariser!.costUsd).toBeGreaterThan(0)
    expect(summary.byRole.critic?.calls).toBeGreaterThan(0)
    // What the actor saw at attempt 3: the prompt with the summary appended, then the latest pair.
    const third = server.requests.find(
      (r) =>
        r.api === 'chat' &&
        parseRubricRequest(r) === undefined &&
        r.messages.length === 3 &&
        r.messages[0]!.content.includes('Summary of your earlier attempts'),
    )!
    expect(third.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    expect(third.messages[0]!.content).toMatch(
      /Summary of your earlier attempts and the feedback on them:\nEarlier attempts, in brief:\n- Attempt 1 \(\d+ words\) was rejected: (Unmet criterion|Criterion violated): /,
    )
    expect(third.messages[2]!.content).toMatch(
      /^(Unmet criterion|Criterion violated): [\s\S]*Please revise your answer/,
    )
    // The summariser's call sits on the attempt it served.
    const t = trajectories.find((x) => x.attempts.length >= 3)!
    expect(t.attempts[2]!.helperCalls.map((c) => c.role)).toContain('summariser')
    expect(t.protocol.history).toEqual({
      name: 'summary',
      settings: {
        summariser: 'anthropic:claude-haiku-4-5',
        summariserParams: expect.any(String),
        prompt: 'seqk-summary/1',
      },
    })
  })

  it('full vs summary on the same tasks: the paired difference in Seq@K with its interval (paper table 6)', async () => {
    const full = await runCell(spec(fullHistory))
    const summarised = await runCell(spec(summaryHistory(summariser())))
    expect(full.summary.fingerprint).not.toBe(summarised.summary.fingerprint)
    expect(full.summary.seqAt[3]).toBe(1)
    expect(summarised.summary.seqAt[3]).toBe(0.5)
    const solvedShare = (units: readonly { firstSuccess: (number | null)[] }[]) =>
      units.reduce((n, u) => n + u.firstSuccess.filter((f) => f !== null && f <= 4).length / u.firstSuccess.length, 0) /
      units.length
    const diff = pairedBootstrap(full.summary.perTask, summarised.summary.perTask, (u) => u.taskId, solvedShare, {
      seed: 1,
      resamples: 2000,
    })
    expect(diff.common).toBe(tasks.length)
    expect(diff.point).toBeCloseTo(-0.5, 10)
    expect(diff.lo).toBeLessThan(diff.point)
    expect(diff.hi).toBeLessThan(0)
  })
})
