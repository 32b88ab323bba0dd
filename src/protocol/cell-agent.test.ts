import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agentActor } from '../agents/agent.js'
import { tool } from '../agents/tool.js'
import type { ChatModel } from '../models/chat-model.js'
import { simulatedActor } from '../models/simulated.js'
import { runCell } from './cell.js'
import { cellSpec, saysCorrect } from './test-helpers.js'
import type { Task } from './task.js'

const look = tool({ name: 'look', description: 'Looks.', parameters: z.object({}), run: () => 'seen' })
const tasks: Task[] = [
  { id: 'a', prompt: 'A' },
  { id: 'b', prompt: 'B' },
]

/**
 * A tool-speaking model: each attempt calls `look` then an unknown tool, and answers; task `a`
 * is solved at attempt 2 every repeat (the same actions each time), task `b` at attempt 1 in
 * repeat 0 only, with one more `look` in repeat 1.
 */
const scripted: ChatModel = {
  id: 'scripted',
  descriptor: { provider: 'custom', model: 'scripted', params: {} },
  tools: true,
  price: { input: 0, output: 0 },
  async chat({ context, turns }) {
    const done = (turns ?? []).filter((t) => t.role === 'assistant').length
    const plan = context.taskId === 'b' && context.repeat === 1 ? ['look', 'nope', 'look'] : ['look', 'nope']
    const solved = context.taskId === 'a' ? context.attempt === 2 : context.repeat === 0
    const name = plan[done]
    return {
      text: name ? '' : solved ? 'CORRECT' : 'wrong',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      latencyMs: 0,
      finishReason: 'stop',
      costUsd: 0.01,
      ...(name ? { toolCalls: [{ id: `c${done}`, name, arguments: '{}' }] } : {}),
    }
  },
}

describe("a cell's agent block", () => {
  it('counts steps, tool calls and errors per attempt, how episodes ended, cost per success and trajectory consistency', async () => {
    const actor = agentActor({ model: scripted, tools: [look] })
    const { summary } = await runCell(cellSpec(tasks, actor, { verifier: saysCorrect, repeats: 2, budget: 2 }))
    const agent = summary.agent!
    // a: 2 repeats × 2 attempts; b: repeat 0 one attempt, repeat 1 two failed attempts.
    expect(agent.episodes).toBe(7)
    expect(agent.endedBy).toEqual({ answer: 7 })
    // Episodes of 3 turns (2 calls) except b's repeat 1 (4 turns, 3 calls, one of them failing).
    expect(agent.meanSteps).toBeCloseTo((5 * 3 + 2 * 4) / 7, 12)
    expect(agent.meanToolCalls).toBeCloseTo((5 * 2 + 2 * 3) / 7, 12)
    expect(agent.toolErrorRate).toBeCloseTo(7 / 16, 12)
    // Solved: a twice, b once; the cell's cost (7 episodes × 3 or 4 turns at $0.01) over them.
    expect(agent.solved).toBe(3)
    expect(agent.costPerSolvedUsd).toBeCloseTo(summary.costUsd! / 3, 12)
    // Only task a has two successful repeats, with the same actions in the same order.
    expect(agent.consistency).toEqual({ sequence: 1, frequency: 1, tasks: 1 })
  })

  it('is absent for a cell whose attempts are not episodes', async () => {
    const { summary } = await runCell(
      cellSpec(
        [{ id: 'x', prompt: 'X', simulation: { difficulty: 0.5, correct: ['CORRECT'], wrong: ['no'] } }],
        simulatedActor({ profile: 'reviser' }),
        {
          verifier: saysCorrect,
        },
      ),
    )
    expect(summary.agent).toBeUndefined()
  })
})
