import { describe, expect, it } from 'vitest'
import { defaultPromptBuilder } from './prompt-builder.js'
import { perturbedPromptBuilder, perturbedTask, planPerturbations } from './perturbed-prompt.js'

describe('perturbed prompts', () => {
  it('plans each kind seeds times, named <kind>/<i>, with distinct seeds', () => {
    const plan = planPerturbations(['reorder', 'distractor'], 2, 7)
    expect(plan.map((p) => p.name)).toEqual(['reorder/1', 'reorder/2', 'distractor/1', 'distractor/2'])
    expect(new Set(plan.map((p) => p.seed)).size).toBe(2)
  })

  it('rewords only the last user message of a chat prompt, never the system or context', () => {
    const task = {
      id: 'a',
      prompt: [
        { role: 'system' as const, content: 'You are terse.' },
        { role: 'user' as const, content: 'Sum 2 and 3.' },
      ],
    }
    const out = perturbedTask(task, { name: 'paraphrase/1', kind: 'paraphrase', seed: 1 })
    expect(Array.isArray(out.prompt) && out.prompt[0]).toEqual(task.prompt[0])
    expect(Array.isArray(out.prompt) && out.prompt[1]!.content).toContain('Sum 2 and 3.')
    expect(task.prompt[1]!.content).toBe('Sum 2 and 3.')
  })

  it('names the perturbation in its version (the subject moves) and leaves revisions alone', () => {
    const builder = perturbedPromptBuilder(defaultPromptBuilder, { name: 'format/1', kind: 'format', seed: 1001 })
    expect(builder.version).toBe('seqk-prompt/1+perturb/1:format:1001')
    const feedback = { kind: 'binary' as const, text: 'failed' }
    const options = { attempt: 2, budget: 3, discloseBudget: false }
    expect(builder.revision(feedback as never, options)).toBe(defaultPromptBuilder.revision(feedback as never, options))
  })
})
