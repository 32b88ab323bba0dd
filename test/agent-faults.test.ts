// The fault injector of actors.agent({ faults }), for real: a seeded share of tool calls fail, time
// out or come back cut short through the real workspace tools; each hit is on its call in the
// episode, a rerun hits the same calls, the simulated agent retries a failed call once, and the
// cell's agent block gives the recovery rate (episodes hit that still passed) with its interval.
import { describe, expect, it } from 'vitest'
import {
  actors,
  defaultPromptBuilder,
  feedback,
  fullHistory,
  runCell,
  TaskSchema,
  verifiers,
  type CellSpec,
  type ChatModel,
} from '../src/index.js'
import { planSandbox } from '../src/verifiers/python-tests/sandbox.js'
import { repairScripts, repairTasks } from '../fixtures/repair-tasks.js'
import { robustnessRows } from '../src/protocol/robustness.js'

const bwrap = planSandbox('auto').mode === 'bwrap'
const tasks = repairTasks.map((t) => TaskSchema.parse(t))
const verifier = verifiers.pythonTests({ workspace: true })

const agent = (faults?: { share: number; kinds?: ('error' | 'timeout' | 'truncate')[] }, retries = 1): ChatModel =>
  actors.agent({
    id: faults ? 'agent + faults' : 'agent',
    model: actors.simulatedAgent({ profile: 'repairs', scripts: repairScripts, retries }),
    tools: [],
    workspace: { timeoutMs: 10_000 },
    maxSteps: 16,
    ...(faults ? { faults: { seed: 3, ...faults } } : {}),
  })
const cell = (actor: ChatModel, repeats = 2): CellSpec => ({
  runId: 'faults',
  benchmark: 'repair',
  cellId: `${actor.id} · verifier`,
  tasks,
  actor,
  verifier,
  mode: { name: 'verifier', feedback: feedback.verifier() },
  history: fullHistory,
  promptBuilder: defaultPromptBuilder,
  budget: 3,
  repeats,
  discloseBudget: false,
  concurrency: 2,
  thresholds: {},
  errors: 'left-out',
})
const callsOf = (t: { attempts: { episode?: { turns: { toolCalls: { name: string; fault?: string }[] }[] } }[] }) =>
  t.attempts.flatMap((a) => a.episode!.turns.flatMap((turn) => turn.toolCalls))

describe('the fault injector: its options', () => {
  it('names the field and the fix', () => {
    const model = actors.simulatedAgent({ profile: 'repairs', scripts: repairScripts })
    const make = (faults: unknown) => () => actors.agent({ model, tools: [], faults: faults as never })
    expect(make({ share: 0 })).toThrow(/faults.share must be a share of tool calls in \(0, 1\]/)
    expect(make({ share: 2 })).toThrow(/share must be a number from 0 to 1/)
    expect(make({ share: 0.2, kinds: ['crash'] })).toThrow(
      /faults.kinds must list faults among 'error', 'timeout', 'truncate'/,
    )
    expect(make({ share: 0.2, shares: 1 })).toThrow(/unknown option "shares"/)
    expect(make({ share: 0.2, kinds: ['error', 'error'] })).toThrow(/lists a fault twice/)
    // The injector is the subject's: it joins the descriptor, so a faulted agent is a subject of its own.
    expect(actors.agent({ model, tools: [], faults: { share: 0.2 } }).descriptor.params).toMatchObject({
      'faults.share': 0.2,
      'faults.kinds': 'error,timeout,truncate',
      'faults.seed': 1,
    })
  })
})

describe.runIf(bwrap)('the fault injector through the real tools', () => {
  it('hits a share of calls, records each fault on its call, and hits the same calls on a rerun', async () => {
    const [a, b] = [await runCell(cell(agent({ share: 0.4 }))), await runCell(cell(agent({ share: 0.4 })))]
    const faults = (r: typeof a) =>
      r.trajectories.map((t) =>
        callsOf(t)
          .map((c) => c.fault ?? '-')
          .join(','),
      )
    expect(faults(a)).toEqual(faults(b))
    const calls = a.trajectories.flatMap(callsOf)
    const hit = calls.filter((c) => c.fault !== undefined)
    expect(hit.length / calls.length).toBeGreaterThan(0.2)
    expect(hit.length / calls.length).toBeLessThan(0.6)
    expect(new Set(hit.map((c) => c.fault))).toEqual(new Set(['error', 'timeout', 'truncate']))
    const f = a.summary.agent!.faults!
    expect(f.injected.error + f.injected.timeout + f.injected.truncate).toBe(hit.length)
    expect(f.hit.episodes).toBeGreaterThan(0)
    // Recovery rests on its counts and has an interval around it.
    expect(f.hit.rate!.point).toBe(f.hit.passed / f.hit.episodes)
    expect(f.hit.rate!.lo).toBeLessThanOrEqual(f.hit.rate!.point)
    expect(f.hit.rate!.hi).toBeGreaterThanOrEqual(f.hit.rate!.point)
  }, 120_000)

  it('a failed call is retried once by an agent that retries, never by one that does not', async () => {
    const withRetry = await runCell(cell(agent({ share: 0.5, kinds: ['error'] }), 1))
    const without = await runCell(cell(agent({ share: 0.5, kinds: ['error'] }, 0), 1))
    const retried = (r: typeof withRetry) =>
      r.trajectories.flatMap((t) =>
        t.attempts.flatMap((a) =>
          a.episode!.turns.filter((turn) => turn.toolCalls.some((c) => c.id.startsWith('retry_'))),
        ),
      ).length
    expect(retried(withRetry)).toBeGreaterThan(0)
    expect(retried(without)).toBe(0)
  }, 120_000)

  it('the run compares the faulted agent with the same agent without faults, on the same tasks', async () => {
    const clean = await runCell(cell(agent()))
    const faulted = await runCell(cell(agent({ share: 0.4 })))
    expect(clean.summary.agent!.faults).toBeUndefined()
    const [row] = robustnessRows([clean.summary, faulted.summary])
    expect(row).toMatchObject({
      kind: 'faults',
      subject: 'agent',
      tasks: tasks.length,
      cellIds: ['agent + faults · verifier'],
    })
    expect(row!.ratio).not.toBeNull()
  }, 120_000)
})
