import { fc, test } from '@fast-check/vitest'
import { describe, expect, it } from 'vitest'
import { DISTRACTOR_SENTENCES, PERTURBATION_KINDS, perturbationSigns, perturbText } from './perturbation.js'

const PROMPT =
  '## Task\nConvert 3 minutes to seconds.\n\n## Rules\n- Answer with the result only\n- Do not explain\n- No units'
const CODE = 'Complete the function.\n\n```python\ndef add(a, b):\n    - a list marker in code\n    - stays put\n```'

describe('perturbText', () => {
  it('reorders the items of a list and nothing else', () => {
    const { text, changed } = perturbText(PROMPT, 'reorder', 1, 'task')
    expect(changed).toBe(true)
    const items = (t: string) => t.split('\n').filter((l) => l.startsWith('- '))
    expect(items(text)).not.toEqual(items(PROMPT))
    expect([...items(text)].sort()).toEqual([...items(PROMPT)].sort())
    expect(text.replace(/\n- .*/g, '')).toBe(PROMPT.replace(/\n- .*/g, ''))
  })

  it('leaves a prompt with no list as it is under reorder, and says so', () => {
    expect(perturbText('Add 2 and 3.', 'reorder', 1, 'task')).toEqual({ text: 'Add 2 and 3.', changed: false })
  })

  it('never touches code: a fenced block passes through as it is', () => {
    for (const kind of PERTURBATION_KINDS)
      for (const seed of [1, 2, 3]) expect(perturbText(CODE, kind, seed, 'code').text).toContain(CODE.split('\n\n')[1])
  })

  it('adds one distractor sentence between paragraphs', () => {
    const { text } = perturbText(PROMPT, 'distractor', 1, 'task')
    expect(DISTRACTOR_SENTENCES.filter((s) => text.includes(s))).toHaveLength(1)
    expect(perturbationSigns(text)).toEqual({ distractor: true, paraphrase: false })
  })

  it('frames the task with a paraphrase template that keeps the prompt whole', () => {
    const { text } = perturbText(PROMPT, 'paraphrase', 1, 'task')
    expect(text).toContain(PROMPT)
    expect(perturbationSigns(text).paraphrase).toBe(true)
    expect(perturbationSigns(PROMPT)).toEqual({ distractor: false, paraphrase: false })
  })

  it('reformats headings and bullets, keeping every word of the task', () => {
    const { text } = perturbText(PROMPT, 'format', 1, 'task')
    const words = (t: string) => t.toLowerCase().match(/[a-z0-9]+/g)
    expect(text).not.toBe(PROMPT)
    expect(words(text)).toEqual(words(PROMPT))
  })

  test.prop([fc.constantFrom(...PERTURBATION_KINDS), fc.integer(), fc.string({ minLength: 1 })], { seed: 49 })(
    'is a function of the text, kind, seed and key (the same inputs, the same rewording)',
    (kind, seed, key) => {
      expect(perturbText(PROMPT, kind, seed, key)).toEqual(perturbText(PROMPT, kind, seed, key))
    },
  )
})
