// The harness's own cost per attempt: a Seq@K cell with a zero-latency simulated actor and a
// no-op verifier (every attempt fails, so every trajectory uses all K attempts), against a plain
// loop that makes the same actor and verifier calls with no protocol around them. Both run in the
// same process, so the ratio is what the harness adds.
import { bench, describe } from 'vitest'
import { simulatedActor } from '../models/simulated.js'
import { binary } from '../feedback/binary.js'
import { cellSpec, neverPasses } from './test-helpers.js'
import type { ChatMessage } from '../models/chat-model.js'
import { runCell } from './cell.js'
import type { Task } from './task.js'

const TASKS = 50
const K = 5
const tasks: Task[] = Array.from({ length: TASKS }, (_, i) => ({
  id: `t${i}`,
  prompt: `Write a function number ${i} that does something useful.`,
  simulation: {
    difficulty: 0.5,
    correct: ['```python\ndef f():\n    return 1\n```'],
    wrong: ['```python\ndef f():\n    return 0\n```', '```python\ndef f():\n    return 2\n```'],
  },
}))
const noop = neverPasses
const actor = simulatedActor({ profile: 'memoryless' })
const feedback = binary()

describe(`harness cost per attempt (${TASKS} tasks × K=${K} = ${TASKS * K} attempts per iteration)`, () => {
  bench(
    'plain loop of the same actor + verifier calls (baseline)',
    async () => {
      for (const task of tasks) {
        const messages: ChatMessage[] = [{ role: 'user', content: task.prompt as string }]
        for (let attempt = 1; attempt <= K; attempt++) {
          const response = await actor.chat({
            messages,
            context: {
              role: 'actor',
              taskId: task.id,
              attempt,
              repeat: 0,
              protocol: 'sequential',
              simulation: task.simulation,
            },
          })
          const verdict = await noop.verify(task, response.text)
          const given = await feedback.render({
            task,
            attempt,
            repeat: 0,
            answer: response.text,
            verdict,
            history: messages,
          })
          messages.push({ role: 'assistant', content: response.text }, { role: 'user', content: given.text })
        }
      }
    },
    { time: 1500 },
  )

  bench(
    'runCell (sequential, full history, binary feedback)',
    async () => {
      await runCell(cellSpec(tasks, actor, { verifier: noop, mode: { name: 'binary', feedback }, budget: K }))
    },
    { time: 1500 },
  )
})
