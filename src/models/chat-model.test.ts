import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ChatMessageSchema, UsageSchema, ZERO_USAGE, addUsage, throwIfAborted, type Usage } from './chat-model.js'

const usageArb: fc.Arbitrary<Usage> = fc.record({
  inputTokens: fc.nat(1e6),
  outputTokens: fc.nat(1e6),
  cacheReadTokens: fc.nat(1e6),
  cacheWriteTokens: fc.nat(1e6),
})

describe('addUsage', () => {
  it('adds field by field, commutes, and has ZERO_USAGE as identity', () => {
    fc.assert(
      fc.property(usageArb, usageArb, (a, b) => {
        const sum = addUsage(a, b)
        expect(sum).toEqual(addUsage(b, a))
        expect(sum.inputTokens).toBe(a.inputTokens + b.inputTokens)
        expect(sum.cacheWriteTokens).toBe(a.cacheWriteTokens + b.cacheWriteTokens)
        expect(addUsage(a, ZERO_USAGE)).toEqual(a)
        expect(UsageSchema.safeParse(sum).success).toBe(true)
      }),
      { seed: 42 },
    )
  })

  it('never mutates ZERO_USAGE', () => {
    expect(Object.isFrozen(ZERO_USAGE)).toBe(true)
    addUsage(ZERO_USAGE, { inputTokens: 1, outputTokens: 1, cacheReadTokens: 1, cacheWriteTokens: 1 })
    expect(ZERO_USAGE).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 })
  })
})

describe('throwIfAborted', () => {
  it('does nothing without a signal or for a live one', () => {
    expect(() => throwIfAborted(undefined)).not.toThrow()
    expect(() => throwIfAborted(new AbortController().signal)).not.toThrow()
  })

  it("throws the signal's reason when it is an Error, a generic abort error otherwise", () => {
    const withError = new AbortController()
    const reason = new Error('timed out')
    withError.abort(reason)
    expect(() => throwIfAborted(withError.signal)).toThrow(reason)
    const withString = new AbortController()
    withString.abort('just because')
    expect(() => throwIfAborted(withString.signal)).toThrow('aborted')
  })
})

describe('schemas', () => {
  it('accept a plain message and reject unknown roles and negative token counts', () => {
    expect(ChatMessageSchema.safeParse({ role: 'user', content: '' }).success).toBe(true)
    expect(ChatMessageSchema.safeParse({ role: 'tool', content: 'x' }).success).toBe(false)
    expect(UsageSchema.safeParse({ ...ZERO_USAGE, inputTokens: -1 }).success).toBe(false)
    expect(UsageSchema.safeParse({ ...ZERO_USAGE, outputTokens: 1.5 }).success).toBe(false)
  })
})
