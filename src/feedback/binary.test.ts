import { describe, expect, it } from 'vitest'
import type { Verdict } from '../verifiers/verifier.js'
import type { FeedbackInput } from './feedback-mode.js'
import { binary } from './binary.js'

const verdict: Verdict = {
  pass: false,
  diagnostics: {
    outcome: 'failed',
    summary: '1 of 2 tests failed',
    tests: [{ index: 1, source: 'assert f(2) == 4', pass: false, call: 'f(2)', expected: '4', actual: '5' }],
  },
}
const input: FeedbackInput = {
  task: { id: 't', prompt: 'p' },
  attempt: 1,
  repeat: 0,
  answer: 'def f(x): return x + 3',
  verdict,
  history: [],
}

describe('binary feedback', () => {
  it('says only that the answer failed', async () => {
    const mode = binary()
    expect(await mode.render(input)).toEqual({ kind: 'binary', text: 'Your answer is incorrect.' })
  })

  it('leaks nothing of the diagnostics or the answer', async () => {
    const { text } = await binary().render(input)
    for (const leak of ['f(2)', '4', '5', 'tests failed', 'x + 3']) expect(text).not.toContain(leak)
  })

  it('takes a custom text, which is part of its settings (and so of the fingerprint)', async () => {
    const mode = binary({ text: 'Wrong.' })
    expect((await mode.render(input)).text).toBe('Wrong.')
    expect(mode.settings).toEqual({ text: 'Wrong.' })
    expect(binary().settings).toEqual({ text: 'Your answer is incorrect.' })
  })

  it('rejects unknown options and an empty or non-string text', () => {
    expect(() => binary({ txt: 'Wrong.' } as never)).toThrow(
      'feedback.binary(): unknown option "txt" (did you mean "text"?); valid options: text',
    )
    expect(() => binary({ text: '  ' })).toThrow(/text must be a non-empty string of at most 10000 characters/)
    expect(() => binary({ text: 'x'.repeat(10_001) })).toThrow(/got 10001 characters/)
    expect(() => binary({ text: 3 as never })).toThrow(/got 3/)
  })

  it('has a stable kind, name and version', () => {
    expect(binary()).toMatchObject({ kind: 'binary', name: 'binary', version: '1' })
  })
})
