import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ChatMessageSchema,
  ChatResponseSchema,
  checkChatResponse,
  isPlainChatResponse,
  UsageSchema,
  ZERO_USAGE,
  addUsage,
  throwIfAborted,
  type ChatModel,
  type ChatResponse,
  type Usage,
} from './chat-model.js'
import { isComponentError, type ComponentError } from '../core/component-error.js'

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

describe('checkChatResponse', () => {
  const model: ChatModel = {
    id: 'mine',
    descriptor: { provider: 'custom', model: 'm1', params: {} },
    chat: () => Promise.reject(new Error('unused')),
  }
  const good: ChatResponse = { text: 'hi', usage: ZERO_USAGE, latencyMs: 3, finishReason: 'stop' }

  it('returns a valid completion as it is', () => {
    expect(checkChatResponse(model, 'actor', good)).toBe(good)
    const priced = { ...good, costUsd: 0.1, costUsdWithoutCache: 0.2, replayed: true, raw: { anything: 1 } }
    expect(checkChatResponse(model, 'critic', priced)).toBe(priced)
  })

  it.each([
    [
      'no text (a provider null content passed on)',
      { ...good, text: null },
      'text',
      /text: .*expected string.*Fix: put the completion in `text` as a string/,
    ],
    [
      'no usage field',
      { text: 'x', latencyMs: 1, finishReason: 'stop' },
      'usage',
      /usage: .*Fix: report token counts in `usage`.*or null when the provider reports none/,
    ],
    [
      'fractional tokens',
      { ...good, usage: { ...ZERO_USAGE, outputTokens: 1.5 } },
      'usage.outputTokens',
      /usage\.outputTokens: .*\(got 1\.5\)/,
    ],
    [
      'an unknown finish reason',
      { ...good, finishReason: 'end_turn' },
      'finishReason',
      /finishReason: .*\(got "end_turn"\).*Fix: map the provider's stop reason/,
    ],
    ['a NaN cost', { ...good, costUsd: Number.NaN }, 'costUsd', /costUsd: /],
    ['a bare string', 'hello', '(root)', /\(root\): .*Fix: chat\(\) must resolve to a completion object/],
    ['nothing', undefined, '(root)', /\(root\): got undefined \(nothing was returned\)/],
  ])('rejects %s, naming the model, the role, where, the field and the fix', (_, response, field, message) => {
    const error = (() => {
      try {
        checkChatResponse(model, 'grader', response, { taskId: 't/1', attempt: 2 })
      } catch (e) {
        return e as ComponentError
      }
      throw new Error('accepted')
    })()
    expect(isComponentError(error)).toBe(true)
    expect(error.fields).toContain(field)
    expect(error.message).toMatch(
      /^chat model "mine" \(grader, custom:m1\) returned a malformed completion for task "t\/1", attempt 2: /,
    )
    expect(error.message).toMatch(message)
  })

  it('has a fast path that accepts only what ChatResponseSchema accepts (seeded property)', () => {
    // Mostly valid fields, now and then a hostile one, so both sides of the fast path are taken.
    const valid = (good: fc.Arbitrary<unknown>, ...bad: unknown[]): fc.Arbitrary<unknown> =>
      fc.oneof({ arbitrary: good, weight: 12 }, { arbitrary: fc.constantFrom(...bad), weight: 1 })
    const count = valid(fc.nat(1000), -1, 0.5, Number.NaN, Number.POSITIVE_INFINITY, '1', null, undefined)
    const amount = valid(
      fc.double({ min: 0, max: 10, noNaN: true }),
      -0.01,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '0',
      null,
    )
    const optional = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined })
    const usage = valid(
      fc.record({ inputTokens: count, outputTokens: count, cacheReadTokens: count, cacheWriteTokens: count }),
      null,
      [],
      'none',
      {},
    )
    const response = fc.record({
      text: valid(fc.string({ maxLength: 5 }), null, 1, undefined),
      usage,
      latencyMs: amount,
      finishReason: valid(fc.constantFrom('stop', 'length', 'refusal', 'other'), 'end_turn', '', null),
      costUsd: optional(amount),
      costUsdWithoutCache: optional(amount),
      replayed: optional(valid(fc.boolean(), 'yes', 1)),
      toolCalls: optional(
        valid(
          fc.array(
            fc.record({
              id: valid(fc.string({ maxLength: 3 }), 1, null),
              name: fc.string({ maxLength: 3 }),
              arguments: valid(fc.string({ maxLength: 3 }), {}, null),
            }),
            { maxLength: 3 },
          ),
          'x',
          [1],
          null,
          {},
        ),
      ),
    })
    let fast = 0
    fc.assert(
      fc.property(fc.oneof({ arbitrary: response, weight: 4 }, { arbitrary: fc.anything(), weight: 1 }), (value) => {
        if (!isPlainChatResponse(value)) return
        fast++
        expect(ChatResponseSchema.safeParse(value).success).toBe(true)
      }),
      { seed: 20261201, numRuns: 3000 },
    )
    expect(fast).toBeGreaterThan(300)
    // And the other way round for well-formed ones: what zod accepts of this shape, the fast path takes too (no needless slow path).
    fc.assert(
      fc.property(response, (value) => {
        if (ChatResponseSchema.safeParse(value).success) expect(isPlainChatResponse(value)).toBe(true)
      }),
      { seed: 20261201, numRuns: 3000 },
    )
  })
})
