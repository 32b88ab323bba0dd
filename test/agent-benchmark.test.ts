// The bundled agent benchmark's parts, for real: every scripted version of a repair task's file
// gets the verdict its script claims from pythonTests({ workspace: true }) in the sandbox, and the
// simulated agents act as their profiles say through actors.agent and the real workspace tools.
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

const bwrap = planSandbox('auto').mode === 'bwrap'
const tasks = repairTasks.map((t) => TaskSchema.parse(t))
const verifier = verifiers.pythonTests({ workspace: true })

describe.runIf(bwrap)('the repair tasks', () => {
  it.each(tasks.map((t) => [t.id, t] as const))(
    '%s: the task as given fails, every correct version passes, every wrong one fails',
    async (_id, task) => {
      const script = repairScripts[task.id]!
      const judge = (content: string) =>
        verifier.verify(task, '', { workspace: { files: { ...task.files, [script.file]: content } } })
      expect((await verifier.verify(task, '', { workspace: { files: task.files! } })).pass).toBe(false)
      for (const content of script.correct) expect((await judge(content)).pass, content).toBe(true)
      for (const content of script.wrong) expect((await judge(content)).pass, content).toBe(false)
    },
  )
})

const agent = (profile: 'repairs' | 'thrashes' | 'stops-early'): ChatModel =>
  actors.agent({
    model: actors.simulatedAgent({ profile, scripts: repairScripts }),
    tools: [],
    workspace: { timeoutMs: 10_000 },
    maxSteps: 12,
  })
const cell = (actor: ChatModel): CellSpec => ({
  runId: 'bench',
  benchmark: 'repair',
  cellId: `${actor.id} · verifier`,
  tasks: tasks.slice(0, 2),
  actor,
  verifier,
  mode: { name: 'verifier', feedback: feedback.verifier() },
  history: fullHistory,
  promptBuilder: defaultPromptBuilder,
  budget: 3,
  repeats: 1,
  discloseBudget: false,
  concurrency: 2,
  thresholds: {},
  errors: 'left-out',
})
const actionsOf = (attempt: { episode?: { turns: { toolCalls: { name: string }[] }[] } }) =>
  attempt.episode!.turns.flatMap((t) => t.toolCalls.map((c) => c.name))

describe.runIf(bwrap)('the simulated agents act through the real tools', () => {
  it('repairs: lists, reads, writes once, may run the tests, and its answer names what it left', async () => {
    const { trajectories } = await runCell(cell(agent('repairs')))
    for (const t of trajectories) {
      for (const a of t.attempts) {
        const ran = a.answer.endsWith('and ran the tests.')
        expect(actionsOf(a)).toEqual(['list_files', 'read_file', 'write_file', ...(ran ? ['run_command'] : [])])
        expect(a.episode!.endedBy).toBe('answer')
        expect(a.answer).toMatch(/^Rewrote \w+\.py \(now [0-9a-f]{8}\)( and ran the tests)?\.$/)
        // The test run's result is the sandbox's: a file that passes the hidden tests passes the visible ones.
        const calls = a.episode!.turns.flatMap((x) => x.toolCalls)
        const run = calls.find((c) => c.name === 'run_command')?.result
        if (run !== undefined)
          expect(run).toMatch(a.verdict.pass ? /^exit code 0\n--- stdout ---\nok/ : /^exit code [01]\n/)
      }
    }
  })

  it('the same seed gives the same episodes', async () => {
    const shape = async (seed: number) =>
      (
        await runCell(
          cell(
            actors.agent({
              model: actors.simulatedAgent({ profile: 'thrashes', scripts: repairScripts, seed }),
              tools: [],
              workspace: true,
            }),
          ),
        )
      ).trajectories.map((t) => t.attempts.map((a) => [actionsOf(a), a.answer, a.verdict.pass]))
    expect(await shape(3)).toEqual(await shape(3))
  })

  it('refuses a task it has no script for, and an unknown profile', async () => {
    expect(() => actors.simulatedAgent({ profile: 'nope' as never, scripts: repairScripts })).toThrow(
      /unknown profile "nope"; use one of repairs, thrashes, stops-early/,
    )
    const model = actors.simulatedAgent({ profile: 'repairs', scripts: {} })
    await expect(
      model.chat({
        messages: [{ role: 'user', content: 'x' }],
        context: { role: 'actor', taskId: 'repair/x', attempt: 1, repeat: 0, protocol: 'sequential' },
      }),
    ).rejects.toThrow(/no repair script for task "repair\/x"/)
  })
})
