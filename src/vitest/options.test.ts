import { describe, expect, it } from 'vitest'
import { actors } from '../models/index.js'
import { feedback } from '../feedback/index.js'
import type { Verifier } from '../verifiers/verifier.js'
import { resolveOptions, SeqEvalOptionsError } from './options.js'
import { planCells } from './seq-eval.js'

const verifier: Verifier = {
  name: 'equals-ok',
  version: '1',
  settings: {},
  checkTask: (task) => (task.tests ? [] : ['has no `tests`; this verifier needs them']),
  async verify(_task, answer) {
    return { pass: answer === 'OK', diagnostics: { outcome: answer === 'OK' ? 'passed' : 'failed', summary: '' } }
  },
}

const base = () => ({
  tasks: [
    { id: 'a', prompt: 'say OK', tests: 'x' },
    { id: 'b', prompt: 'say OK', tests: 'x' },
  ],
  actors: [actors.simulated({ profile: 'reviser' })],
  verifier,
  budget: 5,
  modes: { verifier: { feedback: feedback.verifier(), expect: { seqAt: { 5: 0.8 } } } },
})

function problemsOf(options: unknown): string {
  try {
    resolveOptions('bench', options)
  } catch (error) {
    expect(error).toBeInstanceOf(SeqEvalOptionsError)
    return (error as Error).message
  }
  throw new Error('expected the options to be rejected')
}

describe('resolveOptions', () => {
  it('accepts valid options and fills defaults', () => {
    const o = resolveOptions('bench', base())
    expect(o.repeats).toBe(1)
    expect(o.history).toBe('full')
    expect(o.concurrency).toBe(4)
    expect(o.independent).toBeNull()
    expect(o.modes.verifier?.expect.seqAt).toEqual({ 5: 0.8 })
  })

  it('names the eval and the option for a budget below 1', () => {
    const message = problemsOf({ ...base(), budget: 0 })
    expect(message).toContain('seqEval("bench")')
    expect(message).toContain('budget: budget (K) must be an integer >= 1 (got 0)')
  })

  it('bounds every count: an absurd budget, repeats or concurrency is an error, not an out-of-memory crash', () => {
    expect(problemsOf({ ...base(), budget: 1e9 })).toContain('budget: budget (K) must be at most 100')
    expect(problemsOf({ ...base(), repeats: 1e6 })).toContain('repeats: repeats must be at most 1000')
    expect(problemsOf({ ...base(), concurrency: 1e6 })).toContain('concurrency: concurrency must be at most 1000')
    // Node's timers overflow past 2^31 - 1 ms: such a cell "timed out" at once.
    expect(problemsOf({ ...base(), timeout: 2 ** 31 })).toContain(
      'timeout: timeout must be at most 2147483647 ms (about 24.8 days, the longest timer Node keeps, and a longer one fires at once)',
    )
    expect(() => resolveOptions('bench', { ...base(), timeout: 2 ** 31 - 1 })).not.toThrow()
    expect(problemsOf({ ...base(), bootstrapResamples: 1e9 })).toContain(
      'bootstrapResamples: bootstrapResamples must be at most 100000',
    )
  })

  it('rejects a threshold outside [0, 1]', () => {
    expect(
      problemsOf({ ...base(), modes: { verifier: { feedback: feedback.verifier(), expect: { seqAt: { 5: 80 } } } } }),
    ).toContain('modes.verifier.expect.seqAt.5: a threshold must be in [0, 1]')
  })

  it('rejects an unknown feedback mode with the fix', () => {
    expect(problemsOf({ ...base(), modes: { critic: { feedback: 'critic' } } })).toContain(
      'modes.critic.feedback: unknown feedback mode: expected feedback.binary(), feedback.verifier()',
    )
    // A hand-made mode whose kind the protocol records cannot hold is refused at declaration.
    const custom = { ...feedback.verifier(), kind: 'hint' }
    expect(problemsOf({ ...base(), modes: { hint: { feedback: custom } } })).toContain(
      "kind 'binary' | 'verifier' | 'critic'",
    )
  })

  it('rejects duplicate task ids', () => {
    expect(
      problemsOf({
        ...base(),
        tasks: [
          { id: 'a', prompt: 'p', tests: 'x' },
          { id: 'a', prompt: 'q', tests: 'x' },
        ],
      }),
    ).toContain('duplicate task id "a"')
  })

  it('rejects a threshold at k above the budget', () => {
    expect(problemsOf({ ...base(), budget: 3 })).toContain('modes.verifier.expect.seqAt.5: k = 5 is above the budget 3')
  })

  it('rejects a missing verifier', () => {
    const { verifier: _v, ...rest } = base()
    expect(problemsOf(rest)).toContain('verifier: expected a verifier such as verifiers.pythonTests()')
  })

  it('reports tasks the verifier cannot verify', () => {
    expect(problemsOf({ ...base(), tasks: [{ id: 'a', prompt: 'p' }] })).toContain('tasks["a"]: has no `tests`')
  })

  it('rejects misplaced thresholds and an empty plan', () => {
    expect(
      problemsOf({ ...base(), modes: { v: { feedback: feedback.verifier(), expect: { passAt: { 5: 0.5 } } } } }),
    ).toContain('put it under independent: { expect: { passAt } }')
    expect(problemsOf({ ...base(), independent: { expect: { seqAt: { 5: 0.5 } } } })).toContain('Seq@k needs feedback')
    expect(problemsOf({ ...base(), modes: {} })).toContain('give at least one feedback mode')
  })

  it('checks the reliability thresholds: τ in (0, 1], k within the budget, each under the protocol that measures it', () => {
    const mode = (expect: object) => ({ ...base(), modes: { v: { feedback: feedback.verifier(), expect } } })
    expect(
      resolveOptions('bench', mode({ coverAt: { 1: 0.6, 0.5: 0.8 }, seqHat: { 3: 0.5 } })).modes.v!.expect,
    ).toMatchObject({ coverAt: { 1: 0.6, 0.5: 0.8 }, seqHat: { 3: 0.5 } })
    expect(problemsOf(mode({ coverAt: { 2: 0.6 } }))).toContain('keys are shares τ in (0, 1]')
    expect(problemsOf(mode({ coverAt: { 0: 0.6 } }))).toContain('keys are shares τ in (0, 1]')
    expect(problemsOf(mode({ seqHat: { 9: 0.5 } }))).toContain('modes.v.expect.seqHat.9: k = 9 is above the budget 5')
    expect(problemsOf(mode({ passHat: { 2: 0.5 } }))).toContain('put it under independent: { expect: { passHat } }')
    expect(problemsOf({ ...base(), independent: { expect: { seqHat: { 2: 0.5 } } } })).toContain('Seq^k needs feedback')
    expect(
      resolveOptions('bench', { ...base(), independent: { expect: { passHat: { 2: 0.5 }, coverAt: { 1: 0.2 } } } })
        .independent!.expect,
    ).toMatchObject({ passHat: { 2: 0.5 }, coverAt: { 1: 0.2 } })
    const disclosed = problemsOf({
      ...base(),
      discloseBudget: true,
      modes: { v: { feedback: feedback.binary(), expect: { seqHat: { 3: 0.5 } } } },
    })
    expect(disclosed).toContain('modes.v.expect.seqHat.3: with discloseBudget only Seq^K (k = 5) is defined')
  })

  it('rejects two actors with one name, and unknown options', () => {
    expect(
      problemsOf({
        ...base(),
        actors: [actors.simulated({ profile: 'reviser' }), actors.simulated({ profile: 'reviser' })],
      }),
    ).toContain('two actors are named "simulated:reviser"')
    expect(problemsOf({ ...base(), budjet: 5 })).toMatch(/budjet/)
  })

  it('with a disclosed budget only Seq@K may be asserted', () => {
    const message = problemsOf({
      ...base(),
      discloseBudget: true,
      modes: { v: { feedback: feedback.binary(), expect: { seqAt: { 3: 0.5, 5: 0.8 } } } },
    })
    expect(message).toContain('modes.v.expect.seqAt.3: with discloseBudget only Seq@K (k = 5) is defined')
    expect(message).not.toContain('seqAt.5')
  })

  it('lists every problem at once', () => {
    const message = problemsOf({
      ...base(),
      budget: 3,
      tasks: [
        { id: 'a', prompt: 'p', tests: 'x' },
        { id: 'a', prompt: 'p', tests: 'x' },
      ],
    })
    expect(message.split('\n  - ').length - 1).toBeGreaterThanOrEqual(2)
  })
})

describe('resolveOptions: annotate (the revision annotator)', () => {
  const model = {
    id: 'ann',
    descriptor: { provider: 'custom', model: 'annotator', params: {} },
    chat: async () => ({
      text: '',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      latencyMs: 0,
      finishReason: 'stop' as const,
    }),
  }

  it('is derived by default; false turns it off; { model, sample } runs the LLM annotator, a mode may override it', () => {
    expect(resolveOptions('bench', base()).modes.verifier!.annotate).toEqual({ kind: 'derived' })
    expect(resolveOptions('bench', { ...base(), annotate: false }).modes.verifier!.annotate).toEqual({ kind: 'off' })
    const o = resolveOptions('bench', {
      ...base(),
      annotate: { model, sample: 20 },
      modes: {
        verifier: { feedback: feedback.verifier() },
        binary: { feedback: feedback.binary(), annotate: 'derived' },
      },
    })
    expect(o.modes.verifier!.annotate).toMatchObject({ kind: 'llm', sample: 20 })
    expect(o.modes.binary!.annotate).toEqual({ kind: 'derived' })
    expect(o).not.toHaveProperty('annotate')
  })

  it('shares one annotator (one cache) among the modes that use one model', () => {
    const o = resolveOptions('bench', {
      ...base(),
      modes: {
        a: { feedback: feedback.verifier(), annotate: { model } },
        b: { feedback: feedback.binary(), annotate: { model } },
      },
    })
    const a = o.modes.a!.annotate
    const b = o.modes.b!.annotate
    expect(a.kind === 'llm' && b.kind === 'llm' && a.annotator === b.annotator).toBe(true)
  })

  it('names the field and the fix for a bad value', () => {
    expect(problemsOf({ ...base(), annotate: 'llm' })).toMatch(
      /annotate: .*use 'derived'.*false, or \{ model, sample\? \}/,
    )
    expect(problemsOf({ ...base(), annotate: true })).toMatch(/annotate: .*use 'derived'/)
    expect(problemsOf({ ...base(), annotate: { model, sample: 0 } })).toMatch(
      /annotate\.sample: sample must be an integer >= 1/,
    )
    expect(problemsOf({ ...base(), annotate: { model: 'gpt-4.1' } })).toMatch(/annotate\.model: expected a chat model/)
    expect(problemsOf({ ...base(), annotate: { model, samples: 3 } })).toMatch(/annotate.*samples/)
    expect(
      problemsOf({ ...base(), modes: { v: { feedback: feedback.verifier(), annotate: { model, sample: 1.5 } } } }),
    ).toMatch(/modes\.v\.annotate\.sample: sample must be an integer/)
    expect(
      problemsOf({ ...base(), annotate: { model: actors.simulated({ profile: 'reviser', id: 'sim-annotator' }) } }),
    ).toMatch(/annotate\.model: the simulated model sim-annotator only picks scripted answers and cannot annotate/)
  })
})

describe('resolveOptions: cost caps', () => {
  it('accepts maxCostUsd for a priced actor and maxTokens for any, and refuses a USD cap for an unpriced actor', () => {
    expect(resolveOptions('bench', { ...base(), maxCostUsd: 2, maxTokens: 5000 })).toMatchObject({
      maxCostUsd: 2,
      maxTokens: 5000,
    })
    // A model no bundled or given price covers.
    const unpriced = actors.openai({ model: 'gpt-unlisted-9', apiKey: 'sk-test' })
    expect(resolveOptions('bench', { ...base(), actors: [unpriced], maxTokens: 5000 }).maxTokens).toBe(5000)
    expect(problemsOf({ ...base(), actors: [unpriced], maxCostUsd: 2 })).toMatch(
      /maxCostUsd cannot be kept for the actor openai:gpt-unlisted-9 \(openai:gpt-unlisted-9\): it has no price/,
    )
    expect(problemsOf({ ...base(), maxCostUsd: -1 })).toMatch(/maxCostUsd must be > 0/)
    expect(problemsOf({ ...base(), maxTokens: 1.5 })).toMatch(/maxTokens must be an integer > 0/)
  })
})

describe('instructions and variants', () => {
  it('takes instructions as a non-empty string', () => {
    expect(resolveOptions('bench', { ...base(), instructions: 'Be brief.' }).instructions).toBe('Be brief.')
    expect(problemsOf({ ...base(), instructions: '' })).toContain('instructions must not be empty')
    expect(problemsOf({ ...base(), instructions: 3 })).toContain('instructions must be a string')
  })

  it('refuses what cannot be a comparison of variants, naming the variant and the fix', () => {
    const other = actors.simulated({ profile: 'stubborn' })
    expect(problemsOf({ ...base(), variants: { only: { instructions: 'x' } } })).toContain(
      'variants: give at least two variants to compare',
    )
    expect(problemsOf({ ...base(), variants: { a: {}, b: { instructions: 'x' } } })).toContain(
      'variants.a: changes nothing; give it its own actor, instructions or promptBuilder',
    )
    expect(
      problemsOf({
        ...base(),
        actors: [base().actors[0]!, other],
        variants: { a: { instructions: 'x' }, b: { actor: other } },
      }),
    ).toContain('variants.a.actor: the eval has 2 actors')
    expect(problemsOf({ ...base(), variants: { 'a · b': { instructions: 'x' }, c: { instructions: 'y' } } })).toContain(
      'must not contain " · "',
    )
    expect(problemsOf({ ...base(), variants: { a: { instructions: 'x', model: other } } })).toContain('variants.a')
    const { actors: _actors, ...noActors } = base()
    expect(problemsOf(noActors)).toContain('actors: give at least one actor')
  })

  it('needs no actors when every variant has its own; each variant is a cell per mode', () => {
    const { actors: _actors, ...noActors } = base()
    const [a, b] = [actors.simulated({ profile: 'reviser' }), actors.simulated({ profile: 'stubborn' })]
    const o = resolveOptions('bench', {
      ...noActors,
      instructions: 'Be brief.',
      variants: { mini: { actor: a }, full: { actor: b, instructions: 'Check every field.' } },
    })
    expect(o.actors).toEqual([a, b])
    expect(o.variants?.map((v) => [v.name, v.actor.id, v.instructions])).toEqual([
      ['mini', a.id, 'Be brief.'],
      ['full', b.id, 'Check every field.'],
    ])
    const cells = planCells('bench', o)
    expect(cells.map((c) => [c.cellId, c.variant, c.actor.id, c.instructions])).toEqual([
      ['mini · verifier', 'mini', a.id, 'Be brief.'],
      ['full · verifier', 'full', b.id, 'Check every field.'],
    ])
  })
})

describe('perturb', () => {
  it('plans each subject once as it is and once per rewording, on one instrument', () => {
    const cells = planCells(
      'bench',
      resolveOptions('bench', { ...base(), perturb: { kinds: ['distractor', 'format'] } }),
    )
    expect(cells.map((c) => c.cellId)).toEqual([
      'simulated:reviser · verifier',
      'simulated:reviser ~ distractor/1 · verifier',
      'simulated:reviser ~ format/1 · verifier',
    ])
    expect(cells[1]!.perturbation).toMatchObject({ of: 'simulated:reviser', kind: 'distractor' })
    expect(cells[1]!.promptBuilder.version).toMatch(/^seqk-prompt\/1\+perturb\/1:distractor:/)
    expect(cells[0]!.perturbation).toBeUndefined()
  })

  it('takes true for every kind once', () => {
    expect(resolveOptions('bench', { ...base(), perturb: true }).perturb?.map((p) => p.name)).toEqual([
      'reorder/1',
      'paraphrase/1',
      'format/1',
      'distractor/1',
    ])
  })

  it('refuses an unknown kind, a kind twice, a bad seeds count and an unknown field, naming the fix', () => {
    expect(problemsOf({ ...base(), perturb: { kinds: ['shuffle'] } })).toContain(
      "kinds lists rewordings among 'reorder', 'paraphrase', 'format', 'distractor'",
    )
    expect(problemsOf({ ...base(), perturb: { kinds: ['format', 'format'] } })).toContain(
      "perturb.kinds: 'format' is listed twice",
    )
    expect(problemsOf({ ...base(), perturb: { seeds: 0 } })).toContain('seeds must be an integer from 1 to 10')
    expect(problemsOf({ ...base(), perturb: { kind: ['format'] } })).toMatch(/perturb.*kind/)
  })
})
