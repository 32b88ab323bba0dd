import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isComponentError, type ComponentError } from '../core/component-error.js'
import { checkFeedback, FeedbackSchema } from './feedback-mode.js'

const mode = { kind: 'verifier' as const, name: 'mine', version: '1' }

function rejection(value: unknown): ComponentError {
  try {
    checkFeedback(mode, value, { taskId: 't', attempt: 1 })
  } catch (error) {
    if (isComponentError(error)) return error
    throw error
  }
  throw new Error(`accepted ${JSON.stringify(value)}`)
}

describe('checkFeedback', () => {
  it('returns valid feedback with only the fields the protocol keeps', () => {
    expect(checkFeedback(mode, { kind: 'verifier', text: 'fix it', extra: 1 })).toEqual({
      kind: 'verifier',
      text: 'fix it',
    })
    const calls = [
      {
        role: 'critic',
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        latencyMs: 1,
        costUsd: null,
        costUsdWithoutCache: null,
        replayed: false,
      },
    ]
    expect(checkFeedback(mode, { kind: 'verifier', text: '', calls })).toEqual({ kind: 'verifier', text: '', calls })
  })

  it('keeps the requests the text names, and rejects requests that are not strings', () => {
    expect(checkFeedback(mode, { kind: 'verifier', text: 'fix it', requests: ['test:0', 'criterion:c2'] })).toEqual({
      kind: 'verifier',
      text: 'fix it',
      requests: ['test:0', 'criterion:c2'],
    })
    expect(() =>
      checkFeedback(mode, { kind: 'verifier', text: 'fix it', requests: [3] }, { taskId: 't', attempt: 1 }),
    ).toThrow(/requests/)
  })

  it.each([
    [
      'a bare string (the usual mistake)',
      'Try again.',
      ['(root)'],
      /render\(\) must return \(or resolve to\) \{ kind, text \}, not a bare string/,
    ],
    ['nothing', undefined, ['(root)'], /nothing was returned/],
    [
      'a non-string text',
      { kind: 'verifier', text: 42 },
      ['text'],
      /text: .*\(got 42\).*put the message the actor reads in `text`, as a string/,
    ],
    ['no text', { kind: 'verifier' }, ['text'], /text: /],
    ['an unknown kind', { kind: 'hint', text: 'x' }, ['kind'], /\(got "hint"\)/],
    [
      "another mode's kind",
      { kind: 'binary', text: 'x' },
      ['kind'],
      /kind: is "binary" but the mode's kind is "verifier"/,
    ],
    [
      'malformed calls',
      { kind: 'verifier', text: 'x', calls: [{}] },
      ['calls[0].role'],
      /recordCall\('critic', response\)/,
    ],
  ])('rejects %s, naming the mode, the field and the fix', (_, value, fields, message) => {
    const error = rejection(value)
    expect(error.message).toMatch(/^feedback mode "mine"@1 returned a malformed feedback for task "t", attempt 1: /)
    for (const field of fields) expect(error.fields).toContain(field)
    expect(error.message).toMatch(message)
  })

  it('never returns feedback FeedbackSchema rejects or of another kind (seeded property)', () => {
    const value = fc.oneof(
      fc.record(
        {
          kind: fc.constantFrom('binary', 'verifier', 'critic', 'other', undefined),
          text: fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom(1, null)),
          calls: fc.constantFrom(undefined, [], [{}], 'x'),
        },
        { requiredKeys: [] },
      ),
      fc.anything(),
    )
    let accepted = 0
    fc.assert(
      fc.property(value, fc.constantFrom('binary', 'verifier', 'critic', 'bogus'), (v, kind) => {
        try {
          const given = checkFeedback({ ...mode, kind: kind as never }, v)
          accepted++
          expect(FeedbackSchema.safeParse(given).success).toBe(true)
          expect(given.kind).toBe(kind)
        } catch (error) {
          expect(isComponentError(error)).toBe(true)
        }
      }),
      { seed: 20261201, numRuns: 3000 },
    )
    expect(accepted).toBeGreaterThan(30)
  })
})
